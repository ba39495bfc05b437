"""ViewSpatial-Bench per-scan stages (docs/design/viewspatial.md §1): frame selection, visibility, QA.

One task per scan runs its three stages, each committed by a store marker, so a rerun skips finished
scans; the markers' spec hashes hold a fingerprint of the scan's files (names relative to the scan
folder, sizes, hashes: `scannet_read.scan_fingerprint`) and the synthetic settings, so a changed scan
is redone and a moved build or ScanNet root is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.qa_items import qa_table
from benchfoundry.benchmarks.viewspatial.scannet.config import ScanNetConfig
from benchfoundry.benchmarks.viewspatial.scannet.stages.coverage import select_frames
from benchfoundry.benchmarks.viewspatial.scannet.stages.questions import QASettings, cam_rel_items, scene_sim_items
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import (
    ScanFormatError,
    open_scan,
    read_label_map,
    read_split,
    scan_fingerprint,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.visibility import scan_boxes, scan_visibility
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.safe_paths import UnsafePathError, inside, relative_name
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGES = ("frames", "visibility", "qa")


def _select_stage(out: str, scan: Any, vs: ScanNetConfig, h: str) -> list[int]:
    store = StageStore(out, BENCHMARK, "frames")
    if not store.is_done(scan.scene_id, h):
        c = vs.coverage
        step = vs.synthetic.frame_step if vs.scannet_root is None else c.frame_step
        sel = select_frames(
            scan,
            voxel=c.voxel_m,
            budget=c.budget,
            min_gain=c.min_gain,
            depth_stride=c.depth_stride,
            method=c.method,
            frame_step=step,
        )
        rows = pd.DataFrame(
            {"scene_id": scan.scene_id, "order": range(len(sel.selected)), "frame_id": sel.selected, "gain": sel.gains}
        )
        problems = [problem("frames", f"{scan.scene_id}:{s['frame']}", s["reason"]) for s in sel.skipped]
        store.write_shard(scan.scene_id, rows, spec_hash=h, problems=problems, info={"coverage": sel.coverage})
    return [int(f) for f in store.shard_rows(scan.scene_id).sort_values("order")["frame_id"]]


def _visibility_stage(out: str, scan: Any, boxes: list, selected: list[int], vs: ScanNetConfig, h: str) -> pd.DataFrame:
    store = StageStore(out, BENCHMARK, "visibility")
    if not store.is_done(scan.scene_id, h):
        image_dir = Path(out) / BENCHMARK / "images" / scan.scene_id
        table, skipped = scan_visibility(scan, boxes, selected, vs.qa.occlusion_m, image_dir)
        problems = [problem("visibility", f"{scan.scene_id}:{s['frame']}", s["reason"]) for s in skipped]
        store.write_shard(scan.scene_id, table, spec_hash=h, problems=problems)
    return store.shard_rows(scan.scene_id)


def _qa_stage(
    out: str,
    scan: Any,
    split: str,
    boxes: list,
    selected: list[int],
    table: pd.DataFrame,
    vs: ScanNetConfig,
    seed: int,
    h: str,
) -> int:
    store = StageStore(out, BENCHMARK, "qa")
    if not store.is_done(scan.scene_id, h):
        q = vs.qa
        settings = QASettings(
            q.min_visibility,
            q.vertical_min_deg,
            q.vertical_only_deg,
            q.margin_deg,
            q.min_distance_m,
            q.cam_rel_per_scene,
            q.cam_rel_per_frame,
            q.scene_sim_per_scene,
            q.run_min_visibility,
            q.run_max_frames,
            tuple(q.cam_rel_templates),
            tuple(q.scene_sim_templates),
        )
        read = set(table["frame_id"])
        seen = [f for f in selected if f in read]
        items = cam_rel_items(scan.scene_id, split, table, seen, settings, seed)
        items += scene_sim_items(scan.scene_id, split, table, seen, boxes, settings, seed)
        store.write_shard(scan.scene_id, qa_table(items), spec_hash=h)
    return store.marker(scan.scene_id)["rows"]


@dataclass(frozen=True)
class ScanShard:
    """One scan: its folder, its split, its layout (None: ScanNet's, read from the folder) and the label map
    (None: no label map)."""

    scan_dir: str
    split: str
    layout: str | None
    nyu40_of: dict[str, int] | None


@shard_task(resource="compute", name="viewspatial-scan")
def scan_task(out: str, shard: ScanShard, config: BuildConfig) -> dict[str, Any]:
    """Frame selection, visibility and QA of one scan (`build_scan`)."""
    return build_scan(out, shard.scan_dir, shard.split, shard.layout, shard.nyu40_of, config.viewspatial, config.seed)


def build_scan(
    out: str,
    scan_dir: str,
    split: str,
    layout: str | None,
    nyu40_of: dict[str, int] | None,
    vs: ScanNetConfig,
    seed: int,
) -> dict[str, Any]:
    """Frame selection, visibility and QA of one scan; a scan that cannot be read is reported.

    A scan whose QA marker matches is skipped without opening it; `nyu40_of` None: no label map.
    The spec hashes hold the scan's file fingerprint, not its path.
    """
    scene = Path(scan_dir).name
    # how many scans there are is no setting of one scan; what a library changes, the scan's fingerprint holds
    synthetic = vs.synthetic.model_dump(exclude={"scans", "asset_library"}) if vs.scannet_root is None else None
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


def label_map_rule(root: Path, vs: ScanNetConfig) -> tuple[dict[str, int] | None, str]:
    """The label map (None when null, or ScanNet's own name, the default, and not found) and a sentence saying
    which rule excludes objects; another name that does not exist is an error. The rule reads the value only, not
    whether it was written: a config recorded or scaled writes every value and must load to the same build."""
    if vs.label_map is not None and (root / vs.label_map).exists():
        return read_label_map(root / vs.label_map), f"NYU40 ids excluded through the label map {root / vs.label_map}"
    if vs.label_map is not None and vs.label_map != type(vs).model_fields["label_map"].default:
        raise FileNotFoundError(
            f"{root / vs.label_map}: label map of viewspatial.label_map not found "
            "(set viewspatial.label_map: null to exclude objects by raw category name instead)"
        )
    where = "not set" if vs.label_map is None else f"{root / vs.label_map} not found"
    return None, (
        f"no label map (viewspatial.label_map: {where}): objects excluded by raw category name "
        f"({', '.join(sorted(vs.excluded_labels))})"
    )


def scan_folders(scans_dir: Path, scans: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """The (split, scene id) whose id names one folder directly inside `scans_dir` once links are followed; a
    scene id that climbs out (`../../elsewhere/scene0900_00`), is absolute or leads out through a link is a
    problem row, and the other scans go on."""
    kept, refused = [], []
    for split, scene in scans:
        field = f"scene id in viewspatial.split_lists.{split}"
        try:
            if len(relative_name(scene, field).parts) != 1:
                raise UnsafePathError(f"{field}: {scene!r} is not a single folder name")
            inside(scans_dir, scene, field)
        except UnsafePathError as exc:
            refused.append(problem("scan", scene, str(exc)))
            continue
        kept.append((split, scene))
    return kept, refused


def scan_list(root: Path, vs: ScanNetConfig) -> list[tuple[str, str]]:
    """(split, scene id) of every configured split list, val (benchmark) first."""
    scans = []
    for split, name in sorted(vs.split_lists.items(), key=lambda kv: kv[0] != "val"):
        path = root / name
        if not path.exists():
            raise FileNotFoundError(f"{path}: split list of viewspatial.split_lists.{split} not found")
        scenes = read_split(path)
        scans += [(split, s) for s in scenes[: vs.max_scans]]
    return scans
