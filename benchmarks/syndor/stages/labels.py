"""The human-label loop: Cochran sample size, stratified sample, export for annotation, import of
labels (CSV or Label Studio export), and the simulated observer used when no human labels exist.

A labelling unit is one image: a raw frame or its night-vision version, named by its path relative
to the syndor dataset root (column ``image``).

Simulated observers (for the embedded default; the full preset labels by people): ``observer: detector``
(the default) reports a person seen when OpenCV's HOG + linear SVM people detector finds a box overlapping
the person (benchmarks/syndor/stages/observer.py, computed on each image by the discern stage: ``detector_seen``);
``observer: threshold`` when the person spans at least ``observer_min_height_px`` rows (a size threshold in
the spirit of Johnson's detection criterion) and the Michelson contrast of mean linear luminance between
person and surrounding background ring is at least ``observer_min_contrast``. With probability
``observer_lapse`` either observer lapses and answers yes or no at random (seeded per image), as lapse
rates do in psychometric functions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.discern_config import LabelConfig
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.bounded_read import csv_records, loads_json, read_text
from benchfoundry.core.seeding import item_rng
from benchfoundry.core.store import read_parquet, write_parquet_atomic
from benchfoundry.pipeline.review import check_columns

CHOICE_NAME = "discernible"
LABEL_VALUES = {"yes": 1, "no": 0}
SAMPLE_CSV = "sample.csv"
SAMPLE_LS_JSON = "label_studio_tasks.json"
LS_CONFIG_XML = "label_studio_config.xml"
IMPORTED = "imported.parquet"
#: The last `label-import`'s bad rows, beside IMPORTED (the discern stage lists them in build.json).
IMPORT_PROBLEMS = "import_problems.json"

LABEL_STUDIO_CONFIG = f"""<View>
  <Image name="image" value="$image"/>
  <Header value="Is a person discernible in this image?"/>
  <Choices name="{CHOICE_NAME}" toName="image" choice="single" showInLine="true">
    <Choice value="yes"/>
    <Choice value="no"/>
  </Choices>
</View>
"""


def labels_dir(out: str | Path) -> Path:
    """Where a build keeps its label sample and imported labels."""
    return Path(out) / "syndor" / "labels"


def cochran_n0(z: float, p: float, margin: float) -> float:
    """Cochran's sample size for a proportion, before the finite-population correction."""
    return z * z * p * (1 - p) / (margin * margin)


def cochran_size(population: int, config: LabelConfig) -> int:
    """Sample size for `population` units: ceil(n0), or ceil(n0 / (1 + (n0 − 1)/N)) with FPC; ≤ N,
    and at least 1 unit of a population (a loose z or margin cannot leave the classifier nothing to train on)."""
    if population <= 0:
        return 0
    n0 = cochran_n0(config.z, config.p, config.margin)
    n = n0 / (1 + (n0 - 1) / population) if config.finite_population else n0
    return min(max(1, math.ceil(n - 1e-9)), population)


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of `n` over strata of `sizes` (largest remainder, ties by key)."""
    total = sum(sizes.values())
    if total == 0:
        return dict.fromkeys(sizes, 0)
    exact = {key: n * size / total for key, size in sizes.items()}
    quota = {key: min(math.floor(v), sizes[key]) for key, v in exact.items()}
    spare = n - sum(quota.values())
    order = sorted(sizes, key=lambda key: (-(exact[key] - math.floor(exact[key])), key))
    while spare > 0:
        grew = False
        for key in order:
            if spare and quota[key] < sizes[key]:
                quota[key] += 1
                spare -= 1
                grew = True
        if not grew:
            break
    return quota


def stratified_sample(
    units: pd.DataFrame, strata: Sequence[str], n: int, seed: int, stage: str = "discern-labels"
) -> pd.DataFrame:
    """`n` units drawn without replacement, allocated proportionally over the `strata` columns (seeded by `stage`)."""
    keys = units[list(strata)].astype(str).agg("|".join, axis=1)
    groups = {key: frame.sort_values("image") for key, frame in units.groupby(keys, sort=True)}
    quota = allocate({key: len(frame) for key, frame in groups.items()}, n)
    picked = []
    for key, frame in groups.items():
        if quota[key]:
            rows = item_rng(seed, stage, f"stratum:{key}").choice(len(frame), quota[key], replace=False)
            picked.append(frame.iloc[np.sort(rows)])
    if not picked:
        return units.iloc[0:0]
    return pd.concat(picked).sort_values("image").reset_index(drop=True)


def simulated_labels(sample: pd.DataFrame, config: LabelConfig, seed: int) -> np.ndarray:
    """The simulated observer's yes (1) / no (0) for each unit (module docstring gives the rule)."""
    if config.observer == "detector":
        if "detector_seen" not in sample.columns:
            raise ValueError(
                "labels.observer is detector, but the features hold no detector_seen column; rebuild the "
                "discern stage with labels.source simulated"
            )
        seen = sample["detector_seen"].to_numpy(dtype=float) >= 1
    else:
        seen = (sample["person_height_px"].to_numpy() >= config.observer_min_height_px) & (
            sample["michelson_contrast"].to_numpy() >= config.observer_min_contrast
        )
    answers = seen.astype(int)
    for i, image in enumerate(sample["image"]):
        rng = item_rng(seed, "discern-observer", image)
        if rng.random() < config.observer_lapse:
            answers[i] = int(rng.random() < 0.5)
    return answers


#: The columns of the sample's CSV (`export_sample`), the only ones an imported CSV may have.
CSV_COLUMNS = ("image", "variant", "zone", "lighting_group", "holdout", "label")


def export_sample(sample: pd.DataFrame, directory: Path, config: LabelConfig) -> dict[str, str]:
    """Write the sample as CSV (label column to fill with yes/no) and as Label Studio tasks + config; a
    `holdout` column, when the sample has one, says which images test the classifier (label them all)."""
    columns = ["image", "variant", "zone", "lighting_group", *[c for c in ("holdout",) if c in sample.columns]]
    table = sample[columns].copy()
    table["label"] = ""
    csv_path = directory / SAMPLE_CSV
    write_bytes_atomic(csv_path, table.to_csv(index=False).encode("utf-8"))
    tasks = [
        {
            "id": i + 1,
            "data": {
                "image": config.image_url_prefix + row.image,
                "image_path": row.image,
                "variant": row.variant,
                "zone": row.zone,
                "lighting_group": row.lighting_group,
            },
        }
        for i, row in enumerate(table.itertuples(index=False))
    ]
    json_path = write_json_atomic(directory / SAMPLE_LS_JSON, tasks)
    xml_path = write_bytes_atomic(directory / LS_CONFIG_XML, LABEL_STUDIO_CONFIG.encode("utf-8"))
    return {"csv": str(csv_path), "label_studio": str(json_path), "label_studio_config": str(xml_path)}


@dataclass
class ImportResult:
    labels: pd.DataFrame
    bad_rows: list[dict[str, Any]] = field(default_factory=list)
    #: Images given both yes and no: no label of theirs is kept, an earlier imported one included.
    refused: frozenset[str] = frozenset()


#: One row of a label file: line (CSV) or position (JSON), image, raw label, and why it is unusable (or None).
Row = tuple[int, str, Any, str | None]


def _label_value(raw: Any) -> int | None:
    return LABEL_VALUES.get(str(raw).strip().lower()) if raw is not None else None


def _read_text(path: Path, what: str) -> str:
    """The file as UTF-8 text (a leading BOM dropped), bounded in size (core/bounded_read); other bytes are a
    ValueError naming the file."""
    return read_text(path, what=what)


def _csv_rows(path: Path) -> list[Row]:
    """Through the bounded reader: a quote left open or a column named twice is refused naming the line, and so is
    a column that is not one the sample's CSV has (`Label ` beside `label`)."""
    header, rows = csv_records(_read_text(path, "CSV"), str(path))
    check_columns(header, CSV_COLUMNS, (), f"{path}: line 1")
    missing = {"image", "label"} - set(header)
    if missing:
        raise ValueError(f"{path}: CSV lacks column(s) {sorted(missing)}; expected 'image' and 'label'")
    return [(line, (row.get("image") or "").strip(), row.get("label"), None) for line, row in rows]


def _task_image(data: dict[str, Any], prefix: str) -> str:
    image = str(data.get("image_path") or data.get("image") or "")
    return image[len(prefix) :] if prefix and image.startswith(prefix) else image


def _shape_error(task: dict[str, Any]) -> str | None:
    """Why a Label Studio task's `annotations` do not have the export's shape, or None when they do:
    a list of objects, each with a `result` list of objects whose `value` is an object."""
    annotations = task.get("annotations") or []
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        return "'annotations' is not a list of objects"
    for annotation in annotations:
        results = annotation.get("result") or []
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            return "an annotation's 'result' is not a list of objects"
        if not all(isinstance(r.get("value") or {}, dict) for r in results):
            return "an annotation result's 'value' is not an object"
    return None


def _task_choice(task: dict[str, Any]) -> Any:
    """The yes/no of a Label Studio export task (full export, shape checked by `_shape_error`), or of a JSON-MIN row."""
    if CHOICE_NAME in task:
        return task[CHOICE_NAME]
    for annotation in reversed(task.get("annotations") or []):
        if annotation.get("was_cancelled"):
            continue
        for result in annotation.get("result") or []:
            choices = (result.get("value") or {}).get("choices") or []
            if result.get("from_name", CHOICE_NAME) == CHOICE_NAME and isinstance(choices, list) and len(choices) == 1:
                return choices[0]
    return None


def _json_task(number: int, task: Any, prefix: str) -> Row:
    """One Label Studio task as a row; a task of the wrong shape is a row with its reason."""
    if not isinstance(task, dict):
        return (number, "", None, f"task is a JSON {type(task).__name__}, not an object")
    data = task.get("data") if isinstance(task.get("data"), dict) else task
    image = _task_image(data, prefix)
    reason = None if CHOICE_NAME in task else _shape_error(task)
    return (number, image, None if reason else _task_choice(task), reason)


def _json_rows(path: Path, prefix: str) -> list[Row]:
    tasks = loads_json(_read_text(path, "JSON export"), str(path))
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: expected a Label Studio export (a JSON list of tasks)")
    return [_json_task(number, task, prefix) for number, task in enumerate(tasks, start=1)]


def _conflicts(good: list[tuple[int, str, int]]) -> dict[str, list[tuple[int, int]]]:
    """Images given both yes and no: image → its (line, label) rows."""
    seen: dict[str, list[tuple[int, int]]] = {}
    for line, image, value in good:
        seen.setdefault(image, []).append((line, value))
    return {image: rows for image, rows in seen.items() if len({v for _, v in rows}) > 1}


def read_labels(path: str | Path, known_images: set[str], config: LabelConfig) -> ImportResult:
    """Labels from a CSV (`image,label`) or a Label Studio JSON export; bad rows reported and skipped.

    A row is bad when its image is not one of `known_images`, its label is not yes/no, or (JSON) the
    task is not shaped like a Label Studio export task; for a JSON export the "line" is the task's
    position in the list (1-based). An image given both yes and no is refused on every one of its
    rows (neither label is imported, and `store_imported` drops a label imported earlier for it);
    repeating the same label is harmless.
    """
    source = Path(path)
    rows = _json_rows(source, config.image_url_prefix) if source.suffix.lower() == ".json" else _csv_rows(source)
    good: list[tuple[int, str, int]] = []
    bad: list[dict[str, Any]] = []
    for line, image, raw, reason in rows:
        value = _label_value(raw)
        if reason is not None:
            bad.append({"line": line, "image": image, "reason": reason})
        elif image not in known_images:
            bad.append({"line": line, "image": image, "reason": f"unknown image {image!r}"})
        elif value is None:
            bad.append({"line": line, "image": image, "reason": f"label {raw!r} is not yes/no"})
        else:
            good.append((line, image, value))
    conflicts = _conflicts(good)
    for line, image, _ in good:
        if image in conflicts:
            given = ", ".join(f"{'yes' if v else 'no'} on line {n}" for n, v in conflicts[image])
            bad.append(
                {
                    "line": line,
                    "image": image,
                    "reason": f"conflicting labels for {image!r} ({given}): both refused, and a label "
                    "imported earlier for it is dropped",
                }
            )
    bad.sort(key=lambda row: row["line"])
    kept = {image: value for _, image, value in good if image not in conflicts}
    frame = pd.DataFrame({"image": list(kept), "label": list(kept.values())}, columns=["image", "label"])
    return ImportResult(frame.astype({"label": int}), bad, frozenset(conflicts))


def store_import_problems(directory: Path, file: str | Path, bad_rows: list[dict[str, Any]]) -> Path:
    """Keep the last import's bad rows (and its file) beside the imported labels, for the build report."""
    return write_json_atomic(directory / IMPORT_PROBLEMS, {"file": str(file), "bad_rows": bad_rows})


def load_import_problems(directory: Path) -> dict[str, Any] | None:
    """The last import's `{"file", "bad_rows"}`, or None before any import (or when the file is unreadable)."""
    path = directory / IMPORT_PROBLEMS
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("bad_rows"), list) else None


def store_imported(directory: Path, labels: pd.DataFrame, refused: Collection[str] = ()) -> Path:
    """Merge newly imported labels into the build's imported labels (a newer label wins); the
    `refused` images (given conflicting labels) lose any label imported earlier."""
    path = directory / IMPORTED
    if path.exists():
        old = read_parquet(path)
        stale = old["image"].isin(labels["image"]) | old["image"].isin(list(refused))
        labels = pd.concat([old[~stale], labels], ignore_index=True)
    return write_parquet_atomic(path, labels.sort_values("image").reset_index(drop=True))


def load_imported(directory: Path) -> pd.DataFrame | None:
    path = directory / IMPORTED
    return read_parquet(path) if path.exists() else None
