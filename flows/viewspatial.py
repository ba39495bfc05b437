"""ViewSpatial-Bench subflow (DESIGN §4): ScanNet frames → visibility → Cam-Rel.Dir / Per-Sce.Sim QA.

Without `viewspatial.scannet_root` the embedded synthetic scans are rendered first (once: a
store marker records them). One task per scan runs its three stages (frame selection,
visibility, QA), each committed by a store marker, so a rerun skips finished scans; the markers'
spec hashes hold a fingerprint of the scan's files (names relative to the scan folder, sizes,
hashes: `scannet_io.scan_fingerprint`) and the synthetic settings, so a changed scan is redone and a
moved build or ScanNet root is not. A scan that cannot be read, or whose task fails, is reported
in the problems and the other scans are still built. The val
split becomes `viewspatial/ViewSpatial-Bench.json`, the train split the SFT chat files
`viewspatial/ViewSpatial-SFT.json` (one image per record) and `ViewSpatial-SFT-multi.json` (several).
Without the label map TSV (`viewspatial.label_map: null`, or left at its default and not found),
objects are excluded by raw category name (`viewspatial.excluded_labels`); a label map set explicitly
in the config that does not exist fails the benchmark.
The COCO person-orientation half (DESIGN §4.2) is not built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture

from benchfoundry.flows.params import BuildConfig
from benchfoundry.flows.params_viewspatial import ViewSpatialConfig
from benchfoundry.flows.policy import shard_task, with_runner_policy
from benchfoundry.tasks.buildinfo import benchmark_outcome, problem
from benchfoundry.tasks.coverage import select_frames
from benchfoundry.tasks.scannet_io import ScanFormatError, open_scan, read_label_map, read_split, scan_fingerprint
from benchfoundry.tasks.scannet_synth import SYNTHETIC_SCENES, RenderSettings, make_synthetic_scan, write_root_files
from benchfoundry.tasks.store import StageStore, spec_hash, write_json_atomic
from benchfoundry.tasks.viewspatial_qa import (
    QASettings,
    benchmark_records,
    cam_rel_items,
    qa_table,
    scene_sim_items,
    sft_records,
    split_by_image_count,
)
from benchfoundry.tasks.visibility import scan_boxes, scan_visibility

BENCHMARK = "viewspatial"
STAGES = ("frames", "visibility", "qa")
BENCHMARK_JSON = "ViewSpatial-Bench.json"
SFT_JSON = "ViewSpatial-SFT.json"
SFT_MULTI_JSON = "ViewSpatial-SFT-multi.json"


@shard_task
def synthetic_scan_task(out: str, root: str, split: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Render and write one synthetic scan unless its marker says it is made with these settings."""
    store = StageStore(out, BENCHMARK, "synthetic")
    scene_id = SYNTHETIC_SCENES[split][0]
    h = spec_hash([split, settings])
    if not store.is_done(scene_id, h):
        summary = make_synthetic_scan(root, split, RenderSettings(**settings))
        render_s = summary.pop("render_s")
        store.write_shard(scene_id, pd.DataFrame([summary]), spec_hash=h, info={"render_s": render_s})
    return {"scene_id": scene_id, "render_s": float(store.marker(scene_id)["render_s"])}


def _select_stage(out: str, scan: Any, vs: ViewSpatialConfig, h: str) -> list[int]:
    store = StageStore(out, BENCHMARK, "frames")
    if not store.is_done(scan.scene_id, h):
        c = vs.coverage
        sel = select_frames(scan, voxel=c.voxel_m, budget=c.budget, min_gain=c.min_gain,
                            depth_stride=c.depth_stride, method=c.method)
        rows = pd.DataFrame({"scene_id": scan.scene_id, "order": range(len(sel.selected)),
                             "frame_id": sel.selected, "gain": sel.gains})
        problems = [problem("frames", f"{scan.scene_id}:{s['frame']}", s["reason"]) for s in sel.skipped]
        store.write_shard(scan.scene_id, rows, spec_hash=h, problems=problems, info={"coverage": sel.coverage})
    return [int(f) for f in store.shard_rows(scan.scene_id).sort_values("order")["frame_id"]]


def _visibility_stage(out: str, scan: Any, boxes: list, selected: list[int], vs: ViewSpatialConfig, h: str) -> pd.DataFrame:
    store = StageStore(out, BENCHMARK, "visibility")
    if not store.is_done(scan.scene_id, h):
        image_dir = Path(out) / BENCHMARK / "images" / scan.scene_id
        table, skipped = scan_visibility(scan, boxes, selected, vs.qa.occlusion_m, image_dir)
        problems = [problem("visibility", f"{scan.scene_id}:{s['frame']}", s["reason"]) for s in skipped]
        store.write_shard(scan.scene_id, table, spec_hash=h, problems=problems)
    return store.shard_rows(scan.scene_id)


def _qa_stage(out: str, scan: Any, split: str, boxes: list, selected: list[int], table: pd.DataFrame,
              vs: ViewSpatialConfig, seed: int, h: str) -> int:
    store = StageStore(out, BENCHMARK, "qa")
    if not store.is_done(scan.scene_id, h):
        q = vs.qa
        settings = QASettings(
            q.min_visibility, q.vertical_min_deg, q.vertical_only_deg, q.margin_deg, q.min_distance_m,
            q.cam_rel_per_scene, q.scene_sim_per_scene, q.cam_rel_template, q.scene_sim_template)
        read = set(table["frame_id"])
        seen = [f for f in selected if f in read]
        items = cam_rel_items(scan.scene_id, split, table, seen, settings, seed)
        items += scene_sim_items(scan.scene_id, split, table, seen, boxes, settings, seed)
        store.write_shard(scan.scene_id, qa_table(items), spec_hash=h)
    return store.marker(scan.scene_id)["rows"]


@shard_task
def scan_task(out: str, scan_dir: str, split: str, layout: str | None, nyu40_of: dict[str, int] | None,
              vs: ViewSpatialConfig, seed: int) -> dict[str, Any]:
    """Frame selection, visibility and QA of one scan; a scan that cannot be read is reported.

    A scan whose QA marker matches is skipped without opening it; `nyu40_of` None: no label map.
    The spec hashes hold the scan's file fingerprint, not its path.
    """
    scene = Path(scan_dir).name
    synthetic = vs.synthetic.model_dump() if vs.scannet_root is None else None
    h_frames = spec_hash([scene, layout, scan_fingerprint(scan_dir, scene), synthetic, vs.coverage.model_dump()])
    excluded_ids = frozenset(vs.excluded_nyu40)
    excluded_labels = frozenset(s.strip().lower() for s in vs.excluded_labels)
    h_vis = spec_hash([h_frames, vs.qa.occlusion_m, nyu40_of, sorted(excluded_ids), sorted(excluded_labels)])
    h_qa = spec_hash([h_vis, split, seed, vs.qa.model_dump()])
    qa = StageStore(out, BENCHMARK, "qa")
    if qa.is_done(scene, h_qa):
        return {"scene_id": scene, "done": True, "items": qa.marker(scene)["rows"], "problems": []}
    stage = "frames"
    try:
        scan = open_scan(scan_dir, layout)
        if scan.scene_id != scene:
            raise ScanFormatError(f"{scan_dir}: holds scan {scan.scene_id!r}, not {scene!r}")
        boxes = scan_boxes(scan, nyu40_of, excluded_ids, excluded_labels)
        selected = _select_stage(out, scan, vs, h_frames)
        stage = "visibility"
        table = _visibility_stage(out, scan, boxes, selected, vs, h_vis)
    except (ScanFormatError, FileNotFoundError) as exc:
        return {"scene_id": scene, "done": False, "problems": [problem(stage, scene, str(exc), path=scan_dir)]}
    n_items = _qa_stage(out, scan, split, boxes, selected, table, vs, seed, h_qa)
    return {"scene_id": scene, "done": True, "items": n_items, "problems": []}


def _collect(futures: list[tuple[str, str, PrefectFuture]], stage: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """Results of (item, path, future) triples, and a failed problem for each task that raised after its retries."""
    results, failed = [], []
    for item, path, future in futures:
        try:
            results.append(future.result())
        except Exception as exc:  # noqa: BLE001 - one failed scan is reported, the other scans are still built
            failed.append(problem(stage, item, f"{type(exc).__name__}: {exc}"[:2000], kind="failed", path=path))
    return results, failed


def _label_map(root: Path, vs: ViewSpatialConfig) -> tuple[dict[str, int] | None, str]:
    """The label map (None when null, or left at its default and not found) and a sentence saying which rule
    excludes objects; a label map set explicitly (YAML or `--set`) that does not exist is an error."""
    if vs.label_map is not None and (root / vs.label_map).exists():
        return read_label_map(root / vs.label_map), f"NYU40 ids excluded through the label map {root / vs.label_map}"
    if vs.label_map is not None and "label_map" in vs.model_fields_set:
        raise FileNotFoundError(
            f"{root / vs.label_map}: label map of viewspatial.label_map not found "
            "(set viewspatial.label_map: null to exclude objects by raw category name instead)")
    where = "not set" if vs.label_map is None else f"{root / vs.label_map} not found"
    return None, (f"no label map (viewspatial.label_map: {where}): objects excluded by raw category name "
                  f"({', '.join(sorted(vs.excluded_labels))})")


def _scan_list(root: Path, vs: ViewSpatialConfig) -> list[tuple[str, str]]:
    """(split, scene id) of every configured split list, val (benchmark) first."""
    scans = []
    for split, name in sorted(vs.split_lists.items(), key=lambda kv: kv[0] != "val"):
        path = root / name
        if not path.exists():
            raise FileNotFoundError(f"{path}: split list of viewspatial.split_lists.{split} not found")
        scenes = read_split(path)
        scans += [(split, s) for s in scenes[: vs.max_scans]]
    return scans


@flow(name="viewspatial")
def viewspatial_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """ScanNet (or synthetic) scans → selected frames, visibility, direction QA → benchmark and SFT JSON."""
    vs = config.viewspatial
    bench_dir = Path(out) / BENCHMARK
    extra: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    if vs.scannet_root is None:
        root = bench_dir / "synthetic"
        write_root_files(root)
        settings = vs.synthetic.model_dump(exclude={"layout"})
        settings["seed"] = config.seed
        render = with_runner_policy(synthetic_scan_task, config.runner)
        made, problems = _collect([(scene, str(root / "render" / scene), render.submit(out, str(root), split, settings))
                                   for split, (scene, _) in SYNTHETIC_SCENES.items()], "synthetic")
        extra["synthetic_render_s"] = {r["scene_id"]: r["render_s"] for r in made}
        extra["synthetic_manifest"] = str(StageStore(out, BENCHMARK, "synthetic").write_manifest(
            sorted(extra["synthetic_render_s"])))
        scans_dir = root / ("scans" if vs.synthetic.layout == "raw" else "scans_export")
        layout: str | None = vs.synthetic.layout
        source = f"synthetic scans ({vs.synthetic.layout} layout) in {root}"
    else:
        root = Path(vs.scannet_root)
        scans_dir, layout, source = root / vs.scans_dir, None, f"ScanNet at {root}"
    nyu40_of, label_rule = _label_map(root, vs)
    if nyu40_of is None:
        get_run_logger().warning(label_rule)
    extra["label_map"] = None if nyu40_of is None else str(root / str(vs.label_map))
    scans = _scan_list(root, vs)
    unmade = {p["item"] for p in problems}
    task = with_runner_policy(scan_task, config.runner)
    results, failed = _collect([
        (scene, str(scans_dir / scene),
         task.submit(out, str(scans_dir / scene), split, layout, nyu40_of, vs, config.seed))
        for split, scene in scans if scene not in unmade], "scan")
    done = sorted(r["scene_id"] for r in results if r["done"])
    problems += failed + [p for r in results for p in r["problems"]]
    stages = {}
    for stage in STAGES:
        store = StageStore(out, BENCHMARK, stage)
        stages[stage] = str(store.write_manifest(done))
        problems += store.problems(done)
    qa = StageStore(out, BENCHMARK, "qa").read_manifest()
    val = qa[qa["split"] == "val"] if len(qa) else qa
    train = qa[qa["split"] != "val"] if len(qa) else qa
    stages["benchmark"] = str(write_json_atomic(bench_dir / BENCHMARK_JSON, benchmark_records(val)))
    single, multi = split_by_image_count(sft_records(train, vs.qa.mc_instruction, vs.qa.direct_instruction))
    stages["sft"] = str(write_json_atomic(bench_dir / SFT_JSON, single))
    stages["sft_multi"] = str(write_json_atomic(bench_dir / SFT_MULTI_JSON, multi))
    counts = qa.groupby(["split", "question_type"]).size().to_dict() if len(qa) else {}
    detail = (
        f"{len(done)}/{len(scans)} scans from {source}; {len(val)} benchmark items, {len(train)} SFT items "
        f"({', '.join(f'{s} {t}: {n}' for (s, t), n in counts.items()) or 'none'}); {label_rule}. "
        "COCO person orientation (Cam-Obj. Ori., Per-Obj. Ori., Per-Rel. Dir.) is not built yet."
    )
    return benchmark_outcome("built", detail, stages=stages, problems=problems, **extra)
