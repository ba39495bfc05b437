"""ViewSpatial-Bench flow (docs/design/viewspatial.md): ScanNet frames → visibility → Cam-Rel.Dir / Per-Sce.Sim QA.

Without `viewspatial.scannet_root` the embedded synthetic scans are rendered first (once: a
store marker records them). One task per scan runs its three stages (frame selection,
visibility, QA: benchmarks/viewspatial/scannet/stages/scan_stage.py), so a rerun skips finished scans and redoes
changed ones. A scan that cannot be read, or whose task fails, is reported in the problems and the
other scans are still built; when no scan is built, or COCO splits are expected and none is built, the
benchmark is `failed`. The val split becomes `viewspatial/ViewSpatial-Bench.json`, the train
split the SFT chat files `viewspatial/ViewSpatial-SFT.json` (one image per record) and
`ViewSpatial-SFT-multi.json` (several); the benchmark holds at most `viewspatial.release.budgets` items a task,
its images laid out as the release's with `viewspatial.release.layout: authors`
(benchmarks/viewspatial/release/release.py).
Without the label map TSV (`viewspatial.label_map: null`, or
left at its default and not found), objects are excluded by raw category name
(`viewspatial.excluded_labels`); a label map set explicitly in the config that does not exist fails
the benchmark. The COCO half (docs/design/viewspatial.md §2: benchmarks/viewspatial/coco/stages/coco_stage.py) labels
the people of each COCO split (`viewspatial.coco.splits`, or the synthetic set of the embedded person rendered first)
and adds Cam-Obj. Ori., Per-Obj. Ori. and Per-Rel. Dir. items; candidates that need review are released as
benchmarks/viewspatial/coco/stages/relative_review.py says.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger

from benchfoundry.benchmarks.viewspatial.categories import SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_stage as coco_synthetic
from benchfoundry.benchmarks.viewspatial.coco.stages.coco_stage import CocoSplit, coco_task
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.release import write_benchmark_files
from benchfoundry.benchmarks.viewspatial.release.report_page import write_report_page
from benchfoundry.benchmarks.viewspatial.scannet.scenes import synthetic_stage as scan_synthetic
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import synthetic_scenes, write_root_files
from benchfoundry.benchmarks.viewspatial.scannet.stages import scan_stage
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import benchmark_outcome, render_summary
from benchfoundry.core.store import StageStore
from benchfoundry.flows.collect import run_shards


@flow(name="viewspatial")
def viewspatial_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """ScanNet (or synthetic) scans → selected frames, visibility, direction QA → benchmark and SFT JSON."""
    vs = config.viewspatial
    extra: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    if vs.scannet_root is None:
        root = scan_synthetic.synthetic_root(out)
        synthetic = synthetic_scenes(vs.synthetic.scans)
        write_root_files(root, synthetic)
        made, problems = run_shards(
            scan_synthetic.STAGE,
            scan_synthetic.synthetic_task,
            out,
            [(s.scene_id, s) for s in synthetic],
            config,
            {s.scene_id: str(root / "render" / s.scene_id) for s in synthetic},
        )
        extra["synthetic_render"] = render_summary(r["render_s"] for r in made)
        extra["synthetic_manifest"] = str(
            StageStore(out, BENCHMARK, scan_synthetic.STAGE).write_manifest(sorted(r["scene_id"] for r in made))
        )
        scans_dir = root / ("scans" if vs.synthetic.layout == "raw" else "scans_export")
        layout: str | None = vs.synthetic.layout
        source = f"synthetic scans ({vs.synthetic.layout} layout) in {root}"
    else:
        root = Path(vs.scannet_root)
        scans_dir, layout, source = root / vs.scans_dir, None, f"ScanNet at {root}"
    nyu40_of, label_rule = scan_stage.label_map_rule(root, vs)
    if nyu40_of is None:
        get_run_logger().warning(label_rule)
    extra["label_map"] = None if nyu40_of is None else str(root / str(vs.label_map))
    scans, refused = scan_stage.scan_folders(scans_dir, scan_stage.scan_list(root, vs))
    problems += refused
    unmade = {p["item"] for p in problems}
    shards = [
        (scene, scan_stage.ScanShard(str(scans_dir / scene), split, layout, nyu40_of))
        for split, scene in scans
        if scene not in unmade
    ]
    results, failed = run_shards(
        "scan", scan_stage.scan_task, out, shards, config, {scene: str(scans_dir / scene) for _, scene in scans}
    )
    done = sorted(r["scene_id"] for r in results if r["done"])
    problems += failed + [p for r in results for p in r["problems"]]
    stages = {}
    for stage in scan_stage.STAGES:
        store = StageStore(out, BENCHMARK, stage)
        stages[stage] = str(store.write_manifest(done))
        problems += store.problems(done)
    coco, coco_problems, coco_source, coco_expected = coco_half(config, out)
    problems += coco_problems
    coco_store = StageStore(out, BENCHMARK, "coco")
    stages["coco"] = str(coco_store.write_manifest(sorted(coco)))
    problems += coco_store.problems(sorted(coco))
    extra["coco"] = coco
    files = write_benchmark_files(out, vs, config.seed)
    stages.update({k: files[k] for k in ("benchmark", "sft", "sft_multi")})
    extra["released"] = files["released"]
    extra["items"] = files["val_items"]
    extra["camera_share"] = files["camera_share"]
    stages["report"] = str(write_report_page(out, config.seed))
    available = ", ".join(f"{s} {SHORT_NAMES[t]}: {n}" for (s, t), n in files["counts"].items())
    detail = (
        f"{len(done)}/{len(scans)} scans from {source}; {len(coco)}/{coco_expected} COCO splits from {coco_source}; "
        f"{files['val_items']} benchmark items "
        f"({', '.join(f'{t}: {n}' for t, n in files['released'].items())}), {files['train_items']} SFT items; "
        f"before the budgets: {available or 'none'}; "
        f"{files['review_items']} Per-Rel. Dir. candidates for review; {label_rule}."
    )
    built = bool(done) and (bool(coco) or not coco_expected)
    return benchmark_outcome("built" if built else "failed", detail, stages=stages, problems=problems, **extra)


def coco_half(config: BuildConfig, out: str) -> tuple[dict[str, Any], list[dict[str, Any]], str, int]:
    """COCO splits (real, or the synthetic set rendered first) → labels and items: per built split its
    summary, the problems, where the splits came from and how many were configured."""
    cc = config.viewspatial.coco
    problems: list[dict[str, Any]] = []
    render_s: dict[str, float] = {}
    if cc.splits:
        sources = {
            split: {
                "annotations": str(s.annotations),
                "images": str(s.images),
                "instances": None if s.instances is None else str(s.instances),
                "captions": None if s.captions is None else str(s.captions),
                "truth": None,
            }
            for split, s in cc.splits.items()
        }
        where = "COCO (" + ", ".join(f"{k}: {v.annotations}" for k, v in sorted(cc.splits.items())) + ")"
    else:
        root = coco_synthetic.synthetic_root(out)
        names = {coco_synthetic.part_name(split, k): split for split, k in coco_synthetic.parts(config)}
        rendered, problems = run_shards(
            "coco-synthetic",
            coco_synthetic.synthetic_coco_task,
            out,
            [(name, name) for name in names],
            config,
            {name: str(root / split) for name, split in names.items()},
        )
        parts_of = Counter(names.values())
        whole = [s for s in sorted(parts_of) if sum(r["split"] == s for r in rendered) == parts_of[s]]
        made = [coco_synthetic.write_synthetic_split(out, split, config) for split in whole]
        sources = {r["split"]: {**r["paths"], "instances": None, "captions": None} for r in made}
        render_s = {r["split"]: r["render_s"] for r in made}
        where = f"the synthetic set in {root}"
    shards = [(split, CocoSplit(split, sources[split])) for split in sorted(sources)]
    results, failed = run_shards(
        "coco", coco_task, out, shards, config, {split: sources[split]["annotations"] for split in sources}
    )
    summary = {r["split"]: {**r, "render_s": render_s.get(r["split"])} for r in results}
    expected = len(cc.splits) if cc.splits else len(cc.synthetic.images)
    return summary, problems + failed, where, expected
