"""ViewSpatial-Bench's released files (docs/design/viewspatial.md §3), from the scans' QA manifest and the COCO
manifest.

The val split becomes `viewspatial/ViewSpatial-Bench.json` (released schema; a Per-Rel. Dir. candidate
released before review carries `verified: false`), the train split the SFT chat files
`ViewSpatial-SFT.json` (one image per record) and `ViewSpatial-SFT-multi.json` (several). COCO rows that
need human review are exported first (coco/relative_review.py) and released as their decisions say.

The benchmark holds at most `release.budgets` items of each task, drawn by the seed image by image (an image
drawn for one task is drawn for the others first, as the release asks Cam-Obj. and Per-Obj. Ori. on the same
996 images), in the release's order: by task, then by image path. With `release.layout: authors` the images
are laid out as the release's (`ViewSpatial-Bench/scannetv2_<split>/<scene>/original_images/<frame>.jpg`,
`ViewSpatial-Bench/<split>2017/<file>`, hard links to the build's images where the file system allows) and
`image_path` names them, relative to the release root (the benchmark folder, beside the JSON).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES, SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.stages import relative_review
from benchfoundry.benchmarks.viewspatial.coco.stages.person_relative import is_hand_item
from benchfoundry.benchmarks.viewspatial.config import TaskBudgets, ViewSpatialConfig
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.answer_shares import shaped
from benchfoundry.benchmarks.viewspatial.release.qa_items import benchmark_records, sft_records, split_by_image_count
from benchfoundry.core.atomic_files import atomic_path, write_bytes_atomic, write_json_atomic
from benchfoundry.core.safe_paths import own_file
from benchfoundry.core.seeding import item_rng
from benchfoundry.core.store import StageStore
from benchfoundry.pipeline import review

BENCHMARK_JSON = "ViewSpatial-Bench.json"
SFT_JSON = "ViewSpatial-SFT.json"
SFT_MULTI_JSON = "ViewSpatial-SFT-multi.json"
MANIFEST_STAGES = ("qa", "coco")
AUTHORS_ROOT = "ViewSpatial-Bench"
#: Budget field → the task's released `question_type`.
BUDGET_TASKS = {
    "cam_rel": CATEGORIES["Cam-Rel. Dir."],
    "cam_obj": CATEGORIES["Cam-Obj. Ori."],
    "per_obj": CATEGORIES["Per-Obj. Ori."],
    "per_rel": CATEGORIES["Per-Rel. Dir."],
    "scene_sim": CATEGORIES["Per-Sce. Sim."],
}
CAMERA_TASKS = (CATEGORIES["Cam-Rel. Dir."], CATEGORIES["Cam-Obj. Ori."])
CAM_OBJ, PER_OBJ = CATEGORIES["Cam-Obj. Ori."], CATEGORIES["Per-Obj. Ori."]


def _manifest(out: str, stage: str) -> pd.DataFrame:
    store = StageStore(out, BENCHMARK, stage)
    return store.read_manifest() if store.manifest_path.is_file() else pd.DataFrame()


def all_rows(out: str) -> pd.DataFrame:
    """The QA rows of the scans and of COCO, before relative_review."""
    frames = [f for f in (_manifest(out, s) for s in MANIFEST_STAGES) if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def within_budgets(
    rows: pd.DataFrame,
    budgets: TaskBudgets,
    seed: int,
    hand_share: float = 0.0,
    answer_shares: Mapping[str, Mapping[str, float]] | None = None,
) -> pd.DataFrame:
    """At most each task's budget of rows, in the release's order (task, image path, item id); the rows kept
    are those whose (first) image, then item, draws the smallest key from the seed, so that tasks asked on the
    same image keep the same images. Per-Rel. Dir. first takes `hand_share` of its budget (rounded) from its
    two-option "which hand" items, then the rest of its budget from its other items (from the direction items
    alone when it has answer shares). A task named in `answer_shares` (budget key → label → weight) fills its
    budget label by label in those shares (answer_shares.shaped), each label's rows in the same order; when
    Cam-Obj. Ori. is so drawn, Per-Obj. Ori. takes the rows on its images first, so that both are asked of the
    same people as the release asks them."""
    if not len(rows):
        return rows
    shares = {BUDGET_TASKS[k]: v for k, v in (answer_shares or {}).items()}
    rows = rows.reset_index(drop=True)
    first = rows["image_path"].map(lambda p: str(list(p)[0]))
    image_key = [item_rng(seed, "viewspatial.release.image", path).random() for path in first]
    item_key = [item_rng(seed, "viewspatial.release.item", str(i)).random() for i in rows["item_id"]]
    ranked = rows.assign(_image=image_key, _item=item_key, _path=first).sort_values(["_image", "_item"], kind="stable")
    caps = {BUDGET_TASKS[k]: math.inf if v is None else v for k, v in budgets.model_dump().items()}
    per_rel = CATEGORIES["Per-Rel. Dir."]
    hand = (ranked["question_type"] == per_rel) & ranked["item_id"].astype(str).map(is_hand_item)
    quota = 0 if math.isinf(caps[per_rel]) else round(caps[per_rel] * hand_share)
    hands_first = ranked[hand].head(quota).index
    rest = ranked.drop(index=hands_first)
    if per_rel in shares:
        rest = rest[~hand.loc[rest.index]]
    kept = [ranked.loc[hands_first]]
    followed: set[str] = set()  # the images of a Cam-Obj. Ori. drawn by its answers, which Per-Obj. Ori. follows
    by_task = dict(list(rest.groupby("question_type", sort=False)))
    for task in sorted(by_task, key=lambda t: t == PER_OBJ):
        of_task = by_task[task]
        room = caps.get(task, math.inf) - (len(hands_first) if task == per_rel else 0)
        if task == PER_OBJ and followed:
            on_its_images = of_task["_path"].isin(followed)
            of_task = pd.concat([of_task[on_its_images], of_task[~on_its_images]])
        if math.isinf(room):
            chosen = of_task
        else:
            chosen = shaped(of_task, int(room), shares[task]) if task in shares else of_task.head(int(room))
        if task == CAM_OBJ and task in shares:
            followed = set(chosen["_path"])
        kept.append(chosen)
    order = {t: k for k, t in enumerate(CATEGORIES.values())}
    out = pd.concat(kept)
    out = out.assign(_task=out["question_type"].map(order))
    return out.sort_values(["_task", "_path", "item_id"], kind="stable").drop(
        columns=["_image", "_item", "_task", "_path"]
    )


def authors_path(path: str, split: str) -> str:
    """The release's path of a build image: `images/<scene>/<frame>.jpg` →
    `ViewSpatial-Bench/scannetv2_<split>/<scene>/original_images/<frame>.jpg`, `images/coco/<split>/<file>` →
    `ViewSpatial-Bench/<split>2017/<file>`."""
    parts = PurePosixPath(path).parts
    if len(parts) >= 4 and parts[:2] == ("images", "coco"):
        return str(PurePosixPath(AUTHORS_ROOT, f"{parts[2]}2017", *parts[3:]))
    if len(parts) == 3 and parts[0] == "images":
        return str(PurePosixPath(AUTHORS_ROOT, f"scannetv2_{split}", parts[1], "original_images", parts[2]))
    raise ValueError(f"{path}: not an image path of the build (images/<scene>/<frame>.jpg or images/coco/…)")


def _link(source: Path, dest: Path) -> None:
    """`dest` holds `source`'s bytes: a hard link where possible, else a copy (atomically either way)."""
    if dest.is_file() and (dest.samefile(source) or dest.read_bytes() == source.read_bytes()):
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(dest) as tmp:
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)


def authors_layout(benchmark_dir: Path, rows: pd.DataFrame) -> pd.DataFrame:
    """Lay out the rows' images as the release does under `benchmark_dir/ViewSpatial-Bench/` (removing files no row
    names) and return the rows with `image_path` naming them."""
    wanted = set()
    paths = []
    for images, split in zip(rows["image_path"], rows["split"]):
        mapped = []
        for path in images:
            new = authors_path(str(path), str(split))
            if new not in wanted:
                _link(own_file(benchmark_dir, benchmark_dir / str(path), "image_path"), benchmark_dir / new)
                wanted.add(new)
            mapped.append(new)
        paths.append(mapped)
    root = benchmark_dir / AUTHORS_ROOT
    for stale in (p for p in root.rglob("*") if p.is_file() and str(p.relative_to(benchmark_dir)) not in wanted):
        stale.unlink()
    return rows.assign(image_path=paths)


def write_released_json(path: Path, records: list[dict[str, Any]]) -> Path:
    """The benchmark file as the release writes it: its keys in its order, indent 2, non-ASCII characters as
    they are (’, —), no newline at the end."""
    return write_bytes_atomic(path, json.dumps(records, indent=2, ensure_ascii=False).encode("utf-8"))


def _records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    records = benchmark_records(rows)
    return [rec if verified else {**rec, "verified": False} for rec, verified in zip(records, rows["verified"])]


def write_benchmark_files(out: str, vs: ViewSpatialConfig, seed: int) -> dict[str, Any]:
    """Export the rows to review, then write the benchmark (within the budgets) and SFT files; their paths,
    item counts per split and task, and the released counts per task (short names) with the camera share."""
    benchmark_dir = Path(out) / BENCHMARK
    rows = all_rows(out)
    exported = relative_review.export(out, rows)
    decisions = review.load_decisions(relative_review.review_dir(out))
    rows = relative_review.released_rows(rows, decisions, vs.coco.per_rel.release_unreviewed)
    val = (
        within_budgets(
            rows[rows["split"] == "val"],
            vs.release.budgets,
            seed,
            vs.release.per_rel_hand_share,
            vs.release.answer_shares,
        )
        if len(rows)
        else rows
    )
    train = rows[rows["split"] != "val"] if len(rows) else rows
    if vs.release.layout == "authors" and len(rows):
        both = authors_layout(benchmark_dir, pd.concat([val, train]))
        val, train = both.iloc[: len(val)], both.iloc[len(val) :]
    else:
        shutil.rmtree(benchmark_dir / AUTHORS_ROOT, ignore_errors=True)
    single, multi = split_by_image_count(sft_records(train, vs.qa.mc_instruction, vs.qa.direct_instruction))
    released = val["question_type"].value_counts().to_dict() if len(val) else {}
    camera = sum(n for t, n in released.items() if t in CAMERA_TASKS)
    return {
        "benchmark": str(write_released_json(benchmark_dir / BENCHMARK_JSON, _records(val) if len(val) else [])),
        "sft": str(write_json_atomic(benchmark_dir / SFT_JSON, single)),
        "sft_multi": str(write_json_atomic(benchmark_dir / SFT_MULTI_JSON, multi)),
        "val_items": len(val),
        "train_items": len(train),
        "review_items": exported["review_items"],
        "counts": rows.groupby(["split", "question_type"]).size().to_dict() if len(rows) else {},
        "released": {SHORT_NAMES[t]: int(released.get(t, 0)) for t in CATEGORIES.values()},
        "camera_share": round(camera / len(val), 4) if len(val) else None,
    }
