"""What a ViewSpatial-Bench build does, counted before it runs (`benchfoundry build CONFIG --plan`): the items of
each task the release's budgets allow, its scans (one shard task each, from the split lists as the flow reads
them), its COCO splits, the most items of each task its synthetic data can give, and its Prefect task runs.
Nothing is rendered; the synthetic scans' split lists are written to a temporary folder and read back."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    LOST_FRAMES,
    synthetic_scenes,
    write_root_files,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scan_stage import scan_list
from benchfoundry.configs.build import BuildConfig

#: Budget field → the category's short name, in the release's order.
BUDGET_CATEGORIES = {
    "cam_rel": "Cam-Rel. Dir.",
    "cam_obj": "Cam-Obj. Ori.",
    "per_obj": "Per-Obj. Ori.",
    "per_rel": "Per-Rel. Dir.",
    "scene_sim": "Per-Sce. Sim.",
}


def _scans(config: BuildConfig) -> list[tuple[str, str]]:
    vs = config.viewspatial
    if vs.scannet_root is not None:
        return scan_list(Path(vs.scannet_root), vs)
    with tempfile.TemporaryDirectory() as root:
        write_root_files(root, synthetic_scenes(vs.synthetic.scans))
        return scan_list(Path(root), vs)


def synthetic_frames(config: BuildConfig) -> int:
    """Most frames a synthetic scan's selection keeps: its walk's frames with a pose, every `frame_step`-th, at
    most the coverage budget."""
    vs = config.viewspatial
    pool = [i for i in range(vs.synthetic.frames) if i % vs.synthetic.frame_step == 0 and i not in LOST_FRAMES]
    return min(len(pool), vs.coverage.budget)


def most_items(config: BuildConfig, val_scans: int) -> dict[str, int | None]:
    """Most benchmark items of each task (budget field → count) the build's data can give, whatever the draws:
    Cam-Rel. Dir. a scan's cap, or its frames times the cap a frame, where the synthetic scans' frames are known;
    Per-Sce. Sim. a scan's cap; Cam-Obj. and Per-Obj. Ori. one an image, Per-Rel. Dir. `per_image` an image, of
    the synthetic val images. None: no cap known before the build (real COCO, or `per_image` null)."""
    vs = config.viewspatial
    cc, qa = vs.coco, vs.qa
    per_scan: float = qa.cam_rel_per_scene
    if vs.scannet_root is None and qa.cam_rel_per_frame is not None:
        per_scan = min(per_scan, synthetic_frames(config) * qa.cam_rel_per_frame)
    images = None if cc.splits else cc.synthetic.images.get("val", 0)
    per_image = cc.per_rel.per_image
    return {
        "cam_rel": int(val_scans * per_scan),
        "cam_obj": images,
        "per_obj": images,
        "per_rel": None if images is None or per_image is None else images * per_image,
        "scene_sim": val_scans * qa.scene_sim_per_scene,
    }


def plan_config(config: BuildConfig) -> dict[str, Any]:
    """The budgets, scans per split, COCO splits and images, the most items of each task and the task runs."""
    vs = config.viewspatial
    cc = vs.coco
    scans = _scans(config)
    coco = sorted(cc.splits) if cc.splits else sorted(cc.synthetic.images)
    synthetic_scans = 0 if vs.scannet_root is not None else len(synthetic_scenes(vs.synthetic.scans))
    runs = {
        "synthetic scans": synthetic_scans,
        "scan": len(scans),
        "coco synthetic": 0 if cc.splits else sum(len(cc.synthetic.part_ranges(s)) for s in coco),
        "coco": len(coco),
    }
    per_split: dict[str, int] = {}
    for split, _ in scans:
        per_split[split] = per_split.get(split, 0) + 1
    return {
        "budgets": vs.release.budgets.model_dump(),
        "most_items": most_items(config, per_split.get("val", 0)),
        "scans": per_split,
        "scan_source": "synthetic, rendered first" if vs.scannet_root is None else f"ScanNet at {vs.scannet_root}",
        "coco": coco,
        "coco_images": None if cc.splits else {split: cc.synthetic.images[split] for split in coco},
        "coco_source": "COCO" if cc.splits else "synthetic, rendered first",
        "task_runs": {**runs, "total": sum(runs.values())},
    }


def _budget_line(budgets: dict[str, int | None]) -> str:
    counts = ", ".join(f"{BUDGET_CATEGORIES[k]} {'every item' if n is None else f'{n:,}'}" for k, n in budgets.items())
    if any(n is None for n in budgets.values()):
        return f"{BENCHMARK}: benchmark items at most by task ({counts})"
    return f"{BENCHMARK}: {sum(budgets.values()):,} benchmark items at most ({counts})"


def _most_line(plan: dict[str, Any]) -> str:
    parts = []
    for key, most in plan["most_items"].items():
        budget = plan["budgets"][key]
        short = " < its budget" if most is not None and budget is not None and most < budget else ""
        parts.append(f"{BUDGET_CATEGORIES[key]} {'no cap' if most is None else f'{most:,}'}{short}")
    return "  the data gives at most: " + ", ".join(parts) + " (caps; the draws give fewer, the budgets keep the most)"


def format_plan(plan: dict[str, Any]) -> str:
    runs = plan["task_runs"]
    scans = ", ".join(f"{split} {n:,}" for split, n in plan["scans"].items()) or "none"
    images = plan["coco_images"]
    coco = ", ".join(plan["coco"]) if images is None else ", ".join(f"{s} {n:,} images" for s, n in images.items())
    return "\n".join(
        [
            _budget_line(plan["budgets"]),
            f"  {sum(plan['scans'].values()):,} scans ({scans}; {plan['scan_source']}), "
            f"{len(plan['coco']):,} COCO splits ({coco or 'none'}; {plan['coco_source']})",
            _most_line(plan),
            f"  scan shards: {runs['scan']:,} (one per scan: frames, visibility, QA)",
            f"  Prefect task runs: {runs['total']:,} ("
            + ", ".join(f"{name} {runs[name]:,}" for name in runs if name != "total")
            + ")",
        ]
    )


def planned_items(config: BuildConfig) -> int | None:
    """The items the release's task budgets allow (None when a task is unbudgeted: every item it finds)."""
    budgets = config.viewspatial.release.budgets.model_dump().values()
    return None if any(b is None for b in budgets) else sum(budgets)


def plan_text(config: BuildConfig) -> str:
    """What `build --plan` prints for ViewSpatial-Bench (its registry descriptor's plan)."""
    return format_plan(plan_config(config))
