"""SynDORBench discernibility stage: night vision, features, labels, classifier, labelled index.

After rendering, for each shard of frames (one task each):
  the ISP writes a night-vision image beside each night (and, when configured, evening) frame
  (`.../raw_images/x.jpg` → `.../nv_images/x.jpg`), and the four features are computed on the raw
  and the night-vision image → `OUT/syndor/discern_features/` (shards, manifest last).
Then one labelling task:
  labelling units are the raw frames of `model_lighting` families and every night-vision image,
  of person frames only (an empty-scene frame is 0 by construction, on both images, with
  label source `empty`, and never enters the sample or the model);
  a Cochran-sized stratified sample (zone × lighting group) is labelled by people (imported with
  `benchfoundry syndor label-import`) or by the simulated observer; the RF + XGBoost ensemble is
  cross-validated and fitted on it, saved, and labels every unit, sampled ones included (DESIGN
  §2.4: the model labels every night and night-vision image); other frames are discernible where
  their mask is non-empty → `OUT/syndor/discern/manifest.parquet`, `OUT/report/discern_cv.json`
  (+ `.png`).

Labelled index columns added to the render rows: `nv_path`; `human_discernable` (raw image: the
model's label for a unit, else from the mask; 0 for an empty scene) with `label_source` (human or
simulated for a unit of the labelled sample, model for another unit, mask or empty) and
`sample_label` (the sample's given label, null outside the sample); `human_discernable_nv`,
`label_source_nv`, `sample_label_nv` the same for the night-vision image (null without one);
`raw_*` / `nv_*` features and observer cues, `isp_gain`, `isp_sigma`.
When `labels.source` is "human" and no labels are imported, the sample is exported and the stage
stops; a rerun continues from the finished shards.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import cv2
import numpy as np
import pandas as pd

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.discern import DiscernConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.lighting import family
from benchfoundry.core.seeding import item_rng, item_seed
from benchfoundry.core.store import StageStore, atomic_path, spec_hash, write_bytes_atomic, write_json_atomic
from benchfoundry.tasks.common.shard_task import shard_task
from benchfoundry.tasks.syndor import discern_features, discern_model, isp, labels
from benchfoundry.tasks.syndor.render_plan import empty_scene_rows

BENCHMARK = "syndor"
FEATURE_STAGE = "discern_features"
STAGE = "discern"
NV_DIR = "nv_images"
NV_LABEL_COLUMN = "human_discernable_nv"
#: The labelled sample's given (human or simulated) label of a unit; `human_discernable` is the model's.
SAMPLE_LABEL_COLUMN = "sample_label"
#: Part of the labels' spec hash: bump it when the labelled index's columns change meaning.
LABELS_VERSION = 2
VALUE_COLUMNS = discern_features.FEATURES + discern_features.CUES
STRATA = ("zone", "lighting_group")
#: `label_source` of an empty-scene frame: 0 by construction, no observer and no model.
EMPTY_LABEL_SOURCE = "empty"


def nv_relpath(img_path: str) -> str:
    """The night-vision image beside a raw one: `raw_images/` → `nv_images/` (else a sibling folder), JPEG."""
    path = PurePosixPath(img_path)
    parts = list(path.parts)
    if "raw_images" in parts[:-1]:
        parts[len(parts) - 2 - parts[-2::-1].index("raw_images")] = NV_DIR
        path = PurePosixPath(*parts)
    else:
        path = path.parent / NV_DIR / path.name
    return str(path.with_suffix(".jpg"))


def dataset_root(out: str | Path) -> Path:
    return Path(out) / BENCHMARK


# ---------------------------------------------------------------- night vision and features


def plan_feature_shards(render: pd.DataFrame, cfg: DiscernConfig) -> dict[str, list[str]]:
    """Shard id → img_paths: the render shard (or source_dir) cut into chunks of `frames_per_shard`."""
    key = "shard" if "shard" in render.columns else "source_dir"
    plans: dict[str, list[str]] = {}
    for group, frame in render.groupby(render[key].astype(str), sort=True):
        paths = sorted(frame["img_path"].astype(str))
        stem = re.sub(r"[^A-Za-z0-9_.=+-]", "_", group)[:120].lstrip("._-=+") or "shard"
        tag = hashlib.blake2b(group.encode(), digest_size=4).hexdigest()
        for k in range(0, len(paths), cfg.frames_per_shard):
            plans[f"{stem}-{tag}-{k // cfg.frames_per_shard:03d}"] = paths[k : k + cfg.frames_per_shard]
    return plans


def feature_spec_hash(config: BuildConfig, by_path: pd.DataFrame, paths: list[str]) -> str:
    """The settings of one feature shard; `by_path` is the render manifest indexed by img_path."""
    d = config.syndor.discern
    rows = by_path.loc[paths]
    settings = rows["render_settings_hash"].astype(str).tolist() if "render_settings_hash" in rows else []
    return spec_hash(
        {
            "seed": config.seed,
            "isp": isp.effective_settings(d.isp),
            "features": d.features.model_dump(),
            "paths": paths,
            "lighting": rows["lighting"].astype(str).tolist(),
            "render": settings,
        }
    )


def _read_rgb(path: Path) -> np.ndarray:
    """The frame as RGB; a missing, truncated or corrupt file is a ValueError naming it."""
    return cv2.cvtColor(decode_file(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _read_mask(path: Path) -> np.ndarray:
    """The person mask as booleans (any channel above 0); a missing, truncated or corrupt file is a ValueError
    naming it."""
    mask = decode_file(path, cv2.IMREAD_UNCHANGED)
    return (mask.max(axis=2) if mask.ndim == 3 else mask) > 0


def _features(rgb: np.ndarray, mask: np.ndarray, config: BuildConfig, item: str, prefix: str) -> dict[str, float]:
    cfg = config.syndor.discern.features
    directions = discern_features.sw_directions(cfg.sw_projections, config.seed)
    rng = item_rng(config.seed, "discern-features", f"{item}|{prefix}")
    values = discern_features.image_features(rgb, mask, cfg, directions, rng)
    return {f"{prefix}_{name}": value for name, value in values.items()}


def process_frame(config: BuildConfig, root: Path, row: dict[str, Any]) -> dict[str, Any]:
    """Features of one frame, and its night-vision image (written) when its lighting asks for one.

    Raises ValueError naming the file when the image or the mask cannot be used.
    """
    d = config.syndor.discern
    img_path = str(row["img_path"])
    rgb = _read_rgb(root / img_path)
    mask = _read_mask(root / str(row["mask_path"]))
    if mask.shape != rgb.shape[:2]:
        raise ValueError(f"{root / str(row['mask_path'])}: mask {mask.shape} differs from image {rgb.shape[:2]}")
    out = {**row, **_features(rgb, mask, config, img_path, "raw")}
    out.update({f"nv_{name}": np.nan for name in VALUE_COLUMNS})
    out["nv_path"] = None
    if family(row["lighting"]) in d.isp.apply_to:
        result = isp.run_chain(rgb, d.isp, item_rng(config.seed, "isp", img_path))
        nv_rel = nv_relpath(img_path)
        ok, encoded = cv2.imencode(
            ".jpg", cv2.cvtColor(result.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, d.isp.jpeg_quality]
        )
        if not ok:
            raise ValueError(f"{root / nv_rel}: JPEG encoding failed")
        write_bytes_atomic(root / nv_rel, encoded.tobytes())
        out.update(_features(result.image, mask, config, img_path, "nv"))
        out.update({"nv_path": nv_rel, "isp_gain": result.gain, "isp_sigma": result.sigma})
    return out


def feature_shard(
    config: BuildConfig, out: str, render_manifest: str, shard_id: str, paths: list[str], spec_hash: str
) -> str:
    """Night vision and features of one shard of frames; a bad frame is reported and skipped."""
    store = StageStore(out, BENCHMARK, FEATURE_STAGE)
    if store.is_done(shard_id, spec_hash):
        return str(store.shard_path(shard_id))
    rows = pd.read_parquet(render_manifest, filters=[("img_path", "in", list(paths))]).sort_values("img_path")
    root = dataset_root(out)
    done, problems = [], []
    for row in rows.to_dict("records"):
        try:
            done.append(process_frame(config, root, row))
        except ValueError as exc:
            problems.append(
                problem(FEATURE_STAGE, str(row["img_path"]), str(exc), path=str(root / str(row["img_path"])))
            )
    frame = pd.DataFrame(done)
    if len(frame):
        frame["nv_path"] = frame["nv_path"].astype("string")
    store.write_shard(shard_id, frame, spec_hash=spec_hash, problems=problems)
    return str(store.shard_path(shard_id))


feature_shard_task = shard_task(feature_shard, name="syndor-discern-features")


# ---------------------------------------------------------------- labelling units


def labelling_units(features: pd.DataFrame, cfg: DiscernConfig) -> pd.DataFrame:
    """One row per image the classifier labels: raw frames of `model_lighting`, every NV image,
    of person frames (empty scenes are labelled by construction)."""
    parts = []
    features = features[~empty_scene_rows(features)]
    raw = features[features["lighting"].map(family).isin(cfg.model_lighting)]
    nv = features[features["nv_path"].notna()]
    for variant, rows, image_col in (("raw", raw, "img_path"), ("nv", nv, "nv_path")):
        if not len(rows):
            continue
        unit = pd.DataFrame(
            {
                "image": rows[image_col].astype(str).to_numpy(),
                "img_path": rows["img_path"].astype(str).to_numpy(),
                "variant": variant,
                "zone": rows["zone" if "zone" in rows else "radius"].astype(str).to_numpy(),
                "lighting_group": rows["lighting"].map(family).to_numpy() + ("-nv" if variant == "nv" else ""),
            }
        )
        for name in VALUE_COLUMNS:
            unit[name] = rows[f"{variant}_{name}"].to_numpy(dtype=float)
        parts.append(unit)
    columns = ["image", "img_path", "variant", "zone", "lighting_group", *VALUE_COLUMNS]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def label_sample(units: pd.DataFrame, config: BuildConfig) -> pd.DataFrame:
    """The Cochran-sized sample, stratified by zone × lighting group."""
    n = labels.cochran_size(len(units), config.syndor.discern.labels)
    return labels.stratified_sample(units, STRATA, n, config.seed)


def _built_units(out: str, config: BuildConfig) -> pd.DataFrame:
    """The labelling units of a build's finished features manifest (the label commands need one)."""
    store = StageStore(out, BENCHMARK, FEATURE_STAGE)
    if not store.manifest_path.exists():
        raise ValueError(f"{store.manifest_path}: no features yet; build the syndor benchmark first")
    return labelling_units(store.read_manifest(), config.syndor.discern)


def export_label_sample(out: str, config: BuildConfig) -> dict[str, Any]:
    """Write the sample for annotation from the finished features manifest (`label-sample` command)."""
    units = _built_units(out, config)
    sample = label_sample(units, config)
    paths = labels.export_sample(sample, labels.labels_dir(out), config.syndor.discern.labels)
    return {"population": len(units), "sample": len(sample), **paths}


def import_labels(out: str, config: BuildConfig, file: str) -> dict[str, Any]:
    """Read a CSV or Label Studio export into the build's imported labels (`label-import` command).

    With no usable row and no image given conflicting labels nothing is stored (earlier imports are
    kept) and `labels` is None. Otherwise the bad rows are kept (with the file's resolved path) for the
    next build's problems, written before the labels so that no stored labels go without their
    import's problems, and the labels are merged in (a conflicting image loses its earlier label).
    """
    units = _built_units(out, config)
    result = labels.read_labels(file, set(units["image"]), config.syndor.discern.labels)
    if not len(result.labels) and not result.refused:
        return {"imported": 0, "bad_rows": result.bad_rows, "labels": None}
    directory = labels.labels_dir(out)
    labels.store_import_problems(directory, Path(file).resolve(), result.bad_rows)
    path = labels.store_imported(directory, result.labels, result.refused)
    return {"imported": len(result.labels), "bad_rows": result.bad_rows, "labels": str(path)}


def import_problems(out: str) -> list[dict[str, Any]]:
    """The last label import's bad rows as build problems (item `FILE:LINE`)."""
    found = labels.load_import_problems(labels.labels_dir(out))
    if found is None:
        return []
    file = str(found.get("file", ""))
    return [
        problem("label-import", f"{file}:{row.get('line')}", str(row.get("reason")), path=file)
        for row in found["bad_rows"]
        if isinstance(row, dict)
    ]


# ---------------------------------------------------------------- classifier and labelled index


def _plot_cv(report: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0))
    for ax, name in zip(axes, ("ensemble", "decision_tree")):
        cm = np.array(report[name]["confusion_matrix"])
        ax.imshow(cm, cmap="Blues")
        for (i, j), v in np.ndenumerate(cm):
            ax.text(j, i, str(v), ha="center", va="center")
        ax.set_xticks([0, 1], ["no", "yes"])
        ax.set_yticks([0, 1], ["no", "yes"])
        ax.set_xlabel("predicted")
        ax.set_ylabel("label")
        ax.set_title(f"{name}: F1 {report[name]['macro_f1']:.3f}, acc {report[name]['accuracy']:.3f}", fontsize=8)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=80, metadata={"Software": None})
    plt.close(fig)
    return path


def _labelled_units(units: pd.DataFrame, config: BuildConfig, out: str) -> tuple[pd.DataFrame, str] | None:
    """The units with a label and its source, or None when human labels are asked for and absent."""
    cfg = config.syndor.discern.labels
    if cfg.source == "human":
        imported = labels.load_imported(labels.labels_dir(out))
        if imported is None:
            return None
        chosen = units.merge(imported, on="image", how="inner")
        return (chosen, "human") if len(chosen) else None
    sample = label_sample(units, config)
    return sample.assign(label=labels.simulated_labels(sample, cfg, config.seed)), "simulated"


def _file_hash(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.exists() else None


def label_spec_hash(config: BuildConfig, out: str, features_manifest: str) -> str:
    d = config.syndor.discern
    imported = labels.labels_dir(out) / labels.IMPORTED
    return spec_hash(
        {
            "version": LABELS_VERSION,
            "seed": config.seed,
            "features": _file_hash(Path(features_manifest)),
            "model_lighting": d.model_lighting,
            "labels": d.labels.model_dump(),
            "classifier": d.classifier.model_dump(),
            "imported": _file_hash(imported) if d.labels.source == "human" else None,
        }
    )


def _assign(frame: pd.DataFrame, units: pd.DataFrame, variant: str, columns: tuple[str, str, str]) -> None:
    """Copy the units' model label, label source and sample label (null outside the sample) of one
    variant into `columns` (label, source, sample label) of the frame rows they belong to."""
    label, source, given = columns
    chosen = units[units["variant"] == variant].set_index("img_path")
    hit = frame["img_path"].isin(chosen.index)
    paths = frame.loc[hit, "img_path"]
    frame.loc[hit, label] = paths.map(chosen["model"]).astype(int).to_numpy()
    frame.loc[hit, source] = paths.map(chosen["label_source"]).to_numpy()
    frame.loc[hit, given] = paths.map(chosen["sample_label"]).to_numpy()


def label_and_classify(config: BuildConfig, out: str, features_manifest: str) -> dict[str, Any]:
    """Labels, CV, model and the labelled index; `{"stopped": ...}` while human labels are missing."""
    d = config.syndor.discern
    store = StageStore(out, BENCHMARK, STAGE)
    spec = label_spec_hash(config, out, features_manifest)
    report_path = Path(out) / "report" / "discern_cv.json"
    if store.is_done("labels", spec) and report_path.exists():
        return {**_report_paths(json.loads(report_path.read_text()), lambda p: str(Path(out) / p)), "skipped": True}
    features = pd.read_parquet(features_manifest)
    units = labelling_units(features, d)
    found = _labelled_units(units, config, out) if len(units) else (units.assign(label=0).iloc[0:0], d.labels.source)
    if found is None:
        sample = label_sample(units, config)
        paths = labels.export_sample(sample, labels.labels_dir(out), d.labels)
        return {
            "stopped": (
                f"human labels needed: label the {len(sample)} images of {paths['csv']} (or import "
                f"{paths['label_studio']} into Label Studio with {paths['label_studio_config']}), then run "
                f"`benchfoundry syndor label-import {out} FILE` and rerun the build"
            ),
            "sample": paths,
        }
    labelled, source = found
    seed = item_seed(config.seed, "discern-model", "ensemble")
    x = labelled[list(discern_features.FEATURES)].to_numpy(dtype=float)
    y = labelled["label"].to_numpy(dtype=int)
    cv = (
        discern_model.cross_validate(x, y, d.classifier, seed)
        if len(y)
        else {"rows": 0, "skipped": "no labelled units"}
    )
    notes = []
    if source == "simulated":
        notes.append(
            "labels come from the simulated observer (tasks/syndor/labels.py rule), not from people: "
            f"person height >= {d.labels.observer_min_height_px} px and Michelson contrast >= "
            f"{d.labels.observer_min_contrast}, lapse rate {d.labels.observer_lapse}"
        )
    model_info: dict[str, Any] = {}
    # y is empty only with no units at all: the sample of N ≥ 1 units holds ≥ 1 (labels.cochran_size),
    # and human mode with no imported unit stops above, so no unit gets a label from an absent model.
    units["model"] = 0
    if len(y):
        model = discern_model.fit_model(x, y, d.classifier, seed)
        if len(np.unique(y)) < 2:
            notes.append(f"single-class sample (all {int(y[0])}): every unit gets that class")
        model_info = discern_model.save_model(
            model,
            store.dir / "model",
            discern_features.FEATURES,
            {"seed": seed, "trained_rows": int(len(y)), "label_source": source},
        )
        units["model"] = model.predict(units[list(discern_features.FEATURES)].to_numpy(dtype=float)).astype(int)
    given = dict(zip(labelled["image"], labelled["label"].astype(int)))
    units["sample_label"] = units["image"].map(given).astype("Int64")
    units["label_source"] = np.where(units["sample_label"].notna(), source, "model")
    frame = features.copy()
    frame["human_discernable"] = (frame["raw_area_ratio"] > 0).astype(int)
    frame["label_source"] = "mask"
    frame[NV_LABEL_COLUMN] = pd.NA
    frame["label_source_nv"] = pd.NA
    frame[SAMPLE_LABEL_COLUMN] = pd.NA
    frame[f"{SAMPLE_LABEL_COLUMN}_nv"] = pd.NA
    if len(units):
        _assign(frame, units, "raw", ("human_discernable", "label_source", SAMPLE_LABEL_COLUMN))
        _assign(frame, units, "nv", (NV_LABEL_COLUMN, "label_source_nv", f"{SAMPLE_LABEL_COLUMN}_nv"))
    empty = empty_scene_rows(frame)
    frame.loc[empty, ["human_discernable", "label_source"]] = [0, EMPTY_LABEL_SOURCE]
    empty_nv = empty & frame["nv_path"].notna()
    frame.loc[empty_nv, [NV_LABEL_COLUMN, "label_source_nv"]] = [0, EMPTY_LABEL_SOURCE]
    frame = frame.astype(
        {
            "human_discernable": "int64",
            NV_LABEL_COLUMN: "Int64",
            "label_source": "string",
            "label_source_nv": "string",
            SAMPLE_LABEL_COLUMN: "Int64",
            f"{SAMPLE_LABEL_COLUMN}_nv": "Int64",
        }
    )
    store.write_shard("labels", frame, spec_hash=spec)
    manifest = store.write_manifest(["labels"])
    report = {
        "label_source": source,
        "notes": notes,
        "population": int(len(units)),
        "sample": int(len(labelled)),
        "empty_scene_frames": int(empty.sum()),
        "model_agrees_with_sample": _agreement(units),
        "features": list(discern_features.FEATURES),
        "cv": cv,
        "label_sources": {
            f"{col}={k}": int(v)
            for col in ("label_source", "label_source_nv")
            for k, v in frame[col].value_counts().items()
        },
        "model": model_info,
        "manifest": str(manifest),
    }
    if "ensemble" in cv:
        report["plot"] = str(_plot_cv(cv, report_path.with_suffix(".png")))
    write_json_atomic(report_path, _report_paths(report, lambda p: Path(p).relative_to(out).as_posix()))
    return report


def _agreement(units: pd.DataFrame) -> dict[str, int]:
    """How many sampled units the fitted model labels as their given sample label."""
    sampled = units[units["sample_label"].notna()]
    return {"units": int(len(sampled)), "agree": int((sampled["model"] == sampled["sample_label"]).sum())}


def _report_paths(report: dict[str, Any], convert: Callable[[str], str]) -> dict[str, Any]:
    """The report with its file paths converted: relative to the output root on disk (so a build
    gives the same bytes wherever it lies), usable paths in memory."""
    converted = {
        **report,
        "manifest": convert(report["manifest"]),
        "model": {k: convert(v) for k, v in report["model"].items()},
    }
    if "plot" in report:
        converted["plot"] = convert(report["plot"])
    return converted


label_task = shard_task(label_and_classify, name="syndor-discern-labels")
