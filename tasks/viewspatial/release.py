"""ViewSpatial-Bench's released files (DESIGN §4.3), from the scans' QA manifest and the COCO manifest.

The val split becomes `viewspatial/ViewSpatial-Bench.json` (released schema; a Per-Rel. Dir. candidate
released before review carries `verified: false`), the train split the SFT chat files
`ViewSpatial-SFT.json` (one image per record) and `ViewSpatial-SFT-multi.json` (several). COCO rows that
need human review are exported first (tasks/viewspatial/relative_review.py) and released as their decisions say.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.configs.viewspatial import ViewSpatialConfig
from benchfoundry.core.store import StageStore, write_json_atomic
from benchfoundry.tasks.common import review
from benchfoundry.tasks.viewspatial import relative_review
from benchfoundry.tasks.viewspatial.questions import benchmark_records, sft_records, split_by_image_count

BENCHMARK = "viewspatial"
BENCHMARK_JSON = "ViewSpatial-Bench.json"
SFT_JSON = "ViewSpatial-SFT.json"
SFT_MULTI_JSON = "ViewSpatial-SFT-multi.json"
MANIFEST_STAGES = ("qa", "coco")


def _manifest(out: str, stage: str) -> pd.DataFrame:
    store = StageStore(out, BENCHMARK, stage)
    return store.read_manifest() if store.manifest_path.is_file() else pd.DataFrame()


def all_rows(out: str) -> pd.DataFrame:
    """The QA rows of the scans and of COCO, before relative_review."""
    frames = [f for f in (_manifest(out, s) for s in MANIFEST_STAGES) if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    records = benchmark_records(rows)
    return [rec if verified else {**rec, "verified": False} for rec, verified in zip(records, rows["verified"])]


def write_benchmark_files(out: str, vs: ViewSpatialConfig) -> dict[str, Any]:
    """Export the rows to review, then write the benchmark and SFT files; their paths and item counts."""
    bench_dir = Path(out) / BENCHMARK
    rows = all_rows(out)
    exported = relative_review.export(out, rows)
    decisions = review.load_decisions(relative_review.review_dir(out))
    rows = relative_review.released_rows(rows, decisions, vs.coco.per_rel.release_unreviewed)
    val = rows[rows["split"] == "val"] if len(rows) else rows
    train = rows[rows["split"] != "val"] if len(rows) else rows
    single, multi = split_by_image_count(sft_records(train, vs.qa.mc_instruction, vs.qa.direct_instruction))
    return {
        "benchmark": str(write_json_atomic(bench_dir / BENCHMARK_JSON, _records(val) if len(val) else [])),
        "sft": str(write_json_atomic(bench_dir / SFT_JSON, single)),
        "sft_multi": str(write_json_atomic(bench_dir / SFT_MULTI_JSON, multi)),
        "val_items": len(val),
        "train_items": len(train),
        "review_items": exported["review_items"],
        "counts": rows.groupby(["split", "question_type"]).size().to_dict() if len(rows) else {},
    }
