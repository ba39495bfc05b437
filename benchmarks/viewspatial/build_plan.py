"""What a ViewSpatial-Bench build does, counted before it runs (`benchfoundry build CONFIG --plan`): its scans
(one shard task each, from the split lists as the flow reads them), its COCO splits and its Prefect task runs.
Nothing is rendered; the synthetic scans' split lists are written to a temporary folder and read back."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.scannet.scan_stage import scan_list
from benchfoundry.benchmarks.viewspatial.scannet.synthetic_scan import SYNTHETIC_SCENES, write_root_files
from benchfoundry.configs.build import BuildConfig


def _scans(config: BuildConfig) -> list[tuple[str, str]]:
    vs = config.viewspatial
    if vs.scannet_root is not None:
        return scan_list(Path(vs.scannet_root), vs)
    with tempfile.TemporaryDirectory() as root:
        write_root_files(root)
        return scan_list(Path(root), vs)


def plan_config(config: BuildConfig) -> dict[str, Any]:
    """Scans per split, COCO splits and the task runs of each stage."""
    vs = config.viewspatial
    cc = vs.coco
    scans = _scans(config)
    coco = sorted(cc.splits) if cc.splits else sorted(cc.synthetic.images)
    runs = {
        "synthetic scans": 0 if vs.scannet_root is not None else len(SYNTHETIC_SCENES),
        "scan": len(scans),
        "coco synthetic": 0 if cc.splits else len(coco),
        "coco": len(coco),
    }
    per_split: dict[str, int] = {}
    for split, _ in scans:
        per_split[split] = per_split.get(split, 0) + 1
    return {
        "scans": per_split,
        "scan_source": "synthetic, rendered first" if vs.scannet_root is None else f"ScanNet at {vs.scannet_root}",
        "coco": coco,
        "coco_source": "COCO" if cc.splits else "synthetic, rendered first",
        "task_runs": {**runs, "total": sum(runs.values())},
    }


def format_plan(plan: dict[str, Any]) -> str:
    runs = plan["task_runs"]
    scans = ", ".join(f"{split} {n:,}" for split, n in plan["scans"].items()) or "none"
    return "\n".join(
        [
            f"{BENCHMARK}: {sum(plan['scans'].values()):,} scans ({scans}; {plan['scan_source']}), "
            f"{len(plan['coco']):,} COCO splits ({', '.join(plan['coco']) or 'none'}; {plan['coco_source']})",
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
