"""SynDORBench QA export (docs/design/syndor.md §5): the master index, the task files, an imagefolder layout, Parquet.

Under the dataset root `OUT/syndor/`:

    index/master_index.{jsonl,parquet}                  the released columns, one row per raw frame
    index/{human_detection,action_recognition}/{day,night,nv}.{jsonl,parquet}
                                                        master-index rows plus `raw_img_path`,
                                                        `prompt`, `task` and `action_phrase`
    index/balance.json                                  presence answers (1/0) per split and distance,
                                                        empty-scene renders among the 0s
    hf/{task}/{split}/metadata.jsonl                    Hugging Face `imagefolder` layout (hard links)

Splits, as the authors' task index has them: `day` holds the raw images of morning and noon frames,
`night` the raw images of evening and night frames (evening joins day with `qa.evening_group: day`),
`nv` every frame that has a night-vision image (every night-group frame by default). In every task file
`img_path` is the image the model is shown (in `nv` rows the night-vision image, equal to `nv_path`) and
`raw_img_path` the raw render of the frame (the master index's `img_path`); an `nv` row's presence answer is
the raw frame's label, as the authors' index copies it (`qa.nv_label: own` takes the night-vision image's
own), so a harness that echoes a row's `img_path` into its predictions is scored against that row's answer; in the
imagefolder layout `file_name` is the shown image too. `action_phrase` is the action's released name
(pose_config.ACTION_NAMES), the action-recognition answer. Rows are sorted by image path and keys keep
one order, so the files' bytes depend only on the labelled manifest.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.syndor.pose_config import ACTION_NAMES
from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS, QaConfig
from benchfoundry.benchmarks.syndor.release.release import (
    CATEGORIES,
    EMPTY_SCENE_COLUMN,
    MASTER_COLUMNS,
    NV_LABEL_COLUMN,
    SPLITS,
    TASK_COLUMNS,
    answer,
    dataset_root,
    index_dir,
)
from benchfoundry.benchmarks.syndor.release.report_page import write_report
from benchfoundry.benchmarks.syndor.scenes.lighting import lighting_group
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import atomic_path, write_bytes_atomic, write_json_atomic
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.safe_paths import UnsafePathError, inside, own_file
from benchfoundry.core.store import read_parquet, write_parquet_atomic
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "qa"

_REQUIRED = tuple(c for c in MASTER_COLUMNS if c != "nv_path")
_TEXT_COLUMNS = ("source_dir", "action", "scene", "lighting", "smplx_texture", "img_path", "mask_path", "img_name")


def _blank(value: Any) -> bool:
    """None, NaN, pandas NA or an empty string."""
    if isinstance(value, str):
        return not value.strip()
    return value is None or bool(pd.api.types.is_scalar(value) and pd.isna(value))


def _relative_ok(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and ".." not in parts and "\\" not in path


def read_labelled_manifest(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The discern stage's manifest; a missing required column is an error naming the file and column."""
    frame = read_parquet(path)
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: labelled manifest lacks column(s) {', '.join(missing)}")
    return frame


def _label(value: Any) -> int | None:
    if _blank(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number in (0.0, 1.0) else None


def _conflicting_duplicates(frame: pd.DataFrame) -> set[str]:
    """img_paths that occur more than once with different released values (no copy can be trusted)."""
    columns = [c for c in MASTER_COLUMNS if c in frame.columns]
    repeated = frame[frame["img_path"].duplicated(keep=False)]
    distinct = repeated[columns].astype(str).drop_duplicates()
    counts = distinct["img_path"].value_counts()
    return set(counts[counts > 1].index)


def master_rows(frame: pd.DataFrame, root: Path, qa: QaConfig) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Released rows (plus private `_nv_label`, `_empty`) sorted by img_path, and the skipped items."""
    rows: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    seen: set[str] = set()
    conflicting = _conflicting_duplicates(frame)
    for record in frame.to_dict("records"):
        item = str(record.get("img_path"))
        empty = _label(record.get(EMPTY_SCENE_COLUMN)) == 1
        if empty and not qa.empty_scene_negatives:
            continue
        text = {c: ("" if _blank(record[c]) else str(record[c])) for c in _TEXT_COLUMNS}
        bad = [c for c in ("action", "lighting", "img_path") if not text[c] and not (empty and c == "action")]
        if bad:
            problems.append(problem(STAGE, item, f"empty {', '.join(bad)}"))
            continue
        if not _relative_ok(text["img_path"]) or not (root / text["img_path"]).is_file():
            problems.append(
                problem(STAGE, item, "image missing under the dataset root", path=str(root / text["img_path"]))
            )
            continue
        if item in conflicting:
            problems.append(problem(STAGE, item, "img_path repeated with different values; every copy skipped"))
            continue
        if item in seen:
            problems.append(problem(STAGE, item, "duplicate img_path in the labelled manifest; one copy kept"))
            continue
        try:
            radius = float(record["radius"])
        except (TypeError, ValueError):
            radius = math.nan
        label = 0 if empty else _label(record["human_discernable"])
        if not math.isfinite(radius) or label is None:
            problems.append(
                problem(
                    STAGE, item, f"bad radius {record['radius']!r} or human_discernable {record['human_discernable']!r}"
                )
            )
            continue
        nv_path = None if _blank(record.get("nv_path")) else str(record["nv_path"])
        if nv_path is not None and (not _relative_ok(nv_path) or not (root / nv_path).is_file()):
            problems.append(
                problem(STAGE, item, "night-vision image missing; row kept without nv_path", path=str(root / nv_path))
            )
            nv_path = None
        nv_label = _label(record.get(NV_LABEL_COLUMN))
        seen.add(item)
        rows.append(
            {
                **{c: text[c] for c in ("source_dir", "action", "scene", "lighting")},
                "radius": radius,
                **{c: text[c] for c in ("smplx_texture", "img_path", "mask_path", "img_name")},
                "nv_path": nv_path,
                "human_discernable": label,
                "_nv_label": 0 if empty else label if nv_label is None else nv_label,
                "_empty": empty,
            }
        )
    rows.sort(key=lambda r: r["img_path"])
    problems.sort(key=lambda p: (p["item"], p["reason"]))
    return rows, problems


def released(row: dict[str, Any]) -> dict[str, Any]:
    return {c: row[c] for c in MASTER_COLUMNS}


def split_of(row: dict[str, Any], evening_group: str) -> str:
    return lighting_group(row["lighting"], evening_group)


def task_row(row: dict[str, Any], task: str, night_vision: bool, nv_label: str = "raw") -> dict[str, Any]:
    """A task-file row: `img_path` is the shown image (the night-vision one when `night_vision`),
    `raw_img_path` the raw frame; nv rows carry the raw frame's label, or with `nv_label` "own" the night-vision
    image's."""
    shown: dict[str, Any] = {}
    if night_vision:
        shown = {
            "img_path": row["nv_path"],
            "human_discernable": row["_nv_label" if nv_label == "own" else "human_discernable"],
        }
    return {
        **released(row),
        **shown,
        "raw_img_path": row["img_path"],
        "prompt": TASK_PROMPTS[task],
        "task": task,
        "action_phrase": action_phrase(row["action"]),
    }


def action_phrase(action: str) -> str:
    """The released name of an action slug; another value (an empty scene's "none") as words."""
    return ACTION_NAMES.get(action) or " ".join(action.replace("_", " ").split())


def task_files(rows: list[dict[str, Any]], qa: QaConfig) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(task, split) → task-file rows sorted by the shown image's path."""
    files: dict[tuple[str, str], list[dict[str, Any]]] = {(t, s): [] for t in CATEGORIES for s in SPLITS}
    for task in CATEGORIES:
        for row in rows:
            if row["_empty"] and task != "human_detection":
                continue
            files[(task, split_of(row, qa.evening_group))].append(task_row(row, task, night_vision=False))
            if row["nv_path"] is not None:
                files[(task, "nv")].append(task_row(row, task, night_vision=True, nv_label=qa.nv_label))
    for task_rows in files.values():
        task_rows.sort(key=lambda r: r["img_path"])
    return files


def jsonl_bytes(rows: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows).encode("utf-8")


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(jsonl_bytes(rows))
    return path


def write_table(path: Path, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> Path:
    """Parquet with fixed column order (and the columns even when there are no rows)."""
    frame = pd.DataFrame(rows, columns=list(columns))
    if "radius" in frame.columns:
        frame["radius"] = frame["radius"].astype("float64")
    if "human_discernable" in frame.columns:
        frame["human_discernable"] = frame["human_discernable"].astype("int64")
    return write_parquet_atomic(path, frame)


def _link(src: Path, dst: Path) -> None:
    """Hard-link `src` at `dst` (a copy across file systems), atomically: `dst` is the new file or the old one."""
    with atomic_path(dst) as tmp:
        tmp.unlink(missing_ok=True)
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copyfile(src, tmp)


#: The files a build wrote under `hf/` (relative paths), so that a rebuild removes only its own stale ones.
WRITTEN = ".benchfoundry-written.json"


def _written_before(final: Path) -> set[Path]:
    """The files the last build recorded writing under `final`, each checked to lie inside it."""
    try:
        names = read_json(final / WRITTEN)
    except (OSError, ValueError):
        return set()
    found = set()
    for name in names if isinstance(names, list) else []:
        try:
            found.add(inside(final, str(name), f"{final / WRITTEN}"))
        except UnsafePathError:
            continue
    return found


def write_imagefolder(root: Path, files: dict[tuple[str, str], list[dict[str, Any]]]) -> Path:
    """`root/hf/{task}/{split}/` with `metadata.jsonl` and the shown images (`img_path`) at their released paths.

    `file_name` is relative to the metadata file's folder (the imagefolder convention); a missing
    `nv_path` is written as "" so every column keeps one Arrow type in every split. Written file by file
    (each atomically): what else the folder holds (a user's README in an adopted folder) is kept, and the
    files an earlier build wrote (`WRITTEN`) that this one does not are removed, so no stale image survives.
    """
    final = root / "hf"
    before = _written_before(final)
    wanted: set[Path] = set()
    for (task, split), rows in sorted(files.items()):
        folder = final / task / split
        meta = []
        for row in rows:
            name = row["img_path"]
            _link(own_file(root, root / name, "img_path"), folder / name)
            wanted.add(folder / name)
            meta.append({"file_name": name, **row, "nv_path": row["nv_path"] or "", "answer": answer(row, task)})
        wanted.add(write_bytes_atomic(folder / "metadata.jsonl", jsonl_bytes(meta)))
    for stale in before - wanted:
        stale.unlink(missing_ok=True)
    write_json_atomic(final / WRITTEN, sorted(p.relative_to(final).as_posix() for p in wanted))
    return final


def nv_label_agreement(rows: list[dict[str, Any]], qa: QaConfig) -> dict[str, Any]:
    """Which label the nv rows carry, and how often the raw frame's and the night-vision image's labels
    disagree on person frames with a night-vision image (overall and per distance)."""
    pairs = [r for r in rows if r["nv_path"] is not None and not r["_empty"]]
    per_radius: dict[float, Counter[str]] = {}
    for r in pairs:
        per_radius.setdefault(r["radius"], Counter())[
            "disagree" if r["_nv_label"] != r["human_discernable"] else "agree"
        ] += 1
    disagree = sum(c["disagree"] for c in per_radius.values())
    return {
        "source": qa.nv_label,
        "frames": len(pairs),
        "disagree": disagree,
        "per_distance": [
            {"radius": radius, "frames": c["agree"] + c["disagree"], "disagree": c["disagree"]}
            for radius, c in sorted(per_radius.items())
        ],
    }


def presence_balance(
    files: dict[tuple[str, str], list[dict[str, Any]]], rows: list[dict[str, Any]], qa: QaConfig
) -> dict[str, Any]:
    """Counts of presence answers 1 / 0 per split (with the empty-scene renders among the 0s and
    the share of 0s) and per distance × split, and the empty-scene status."""
    per_split: dict[str, dict[str, Any]] = {}
    per_cell: list[dict[str, Any]] = []
    empty_per_split = Counter(split_of(r, qa.evening_group) for r in rows if r["_empty"])
    empty_per_split["nv"] = sum(1 for r in rows if r["_empty"] and r["nv_path"] is not None)
    for split in SPLITS:
        labels = [r["human_discernable"] for r in files[("human_detection", split)]]
        per_split[split] = {
            "1": labels.count(1),
            "0": labels.count(0),
            "total": len(labels),
            "empty_scene": empty_per_split[split],
            "share_0": round(labels.count(0) / len(labels), 4) if labels else None,
        }
        by_radius: dict[float, Counter[int]] = {}
        for r in files[("human_detection", split)]:
            by_radius.setdefault(r["radius"], Counter())[r["human_discernable"]] += 1
        per_cell.extend(
            {"radius": radius, "split": split, "1": c[1], "0": c[0], "total": c[0] + c[1]}
            for radius, c in sorted(by_radius.items())
        )
    empty_rows = sum(1 for r in rows if r["_empty"])
    if not qa.empty_scene_negatives:
        note = "empty-scene negatives are off (qa.empty_scene_negatives); negatives are non-discernible frames only"
    elif empty_rows == 0:
        note = (
            "qa.empty_scene_negatives is on, but the labelled manifest has no empty-scene renders "
            "(syndor.empty_scenes off?): negatives are non-discernible frames only"
        )
    else:
        note = f"{empty_rows} empty-scene renders added as 0 answers"
    return {
        "task": "human_detection",
        "per_split": per_split,
        "per_distance_split": per_cell,
        "empty_scene_negatives": bool(qa.empty_scene_negatives),
        "empty_scene_rows": empty_rows,
        "note": note,
        "nv_label": nv_label_agreement(rows, qa),
    }


def export_qa(labelled_manifest: str | os.PathLike[str], out: str | os.PathLike[str], qa: QaConfig) -> dict[str, Any]:
    """Write every QA file of the build; returns counts, the balance, file paths and skipped items."""
    root = dataset_root(out)
    index = index_dir(out)
    frame = read_labelled_manifest(labelled_manifest)
    rows, problems = master_rows(frame, root, qa)
    files = task_files(rows, qa)
    master = [released(r) for r in rows]
    write_jsonl(index / "master_index.jsonl", master)
    write_table(index / "master_index.parquet", master, MASTER_COLUMNS)
    for (task, split), task_rows in files.items():
        write_jsonl(index / task / f"{split}.jsonl", task_rows)
        write_table(index / task / f"{split}.parquet", task_rows, TASK_COLUMNS)
    write_imagefolder(root, files)
    balance = presence_balance(files, rows, qa)
    write_json_atomic(index / "balance.json", balance)
    return {
        "rows": len(master),
        "items": sum(len(r) for r in files.values()),
        "files": {f"{t}/{s}": len(r) for (t, s), r in sorted(files.items())},
        "scoring_model": {
            "name": qa.embedding.name,
            "path": None if qa.embedding.path is None else str(qa.embedding.path),
        },
        "nv_label": balance["nv_label"],
        "balance": balance,
        "index": str(index),
        "problems": problems,
    }


@dataclass(frozen=True)
class QaShard:
    """The QA stage's one shard: the labelled manifest, and the render stage's calibration summary for the report."""

    labelled_manifest: str
    calibration: Any = None


@shard_task(resource="compute", name="syndor-qa")
def qa_task(out: str, shard: QaShard, config: BuildConfig) -> dict[str, Any]:
    """The whole QA export, then the report (one coarse task: it only reads a manifest and writes files);
    the export's summary with `report`, the page's path."""
    qa = config.syndor.qa
    summary = export_qa(shard.labelled_manifest, out, qa)
    summary["report"] = str(write_report(out, qa, seed=config.seed, calibration=shard.calibration))
    return summary
