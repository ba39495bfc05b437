"""SynDORBench labelling stage (docs/design/syndor.md §4): the label sample, its labels, the classifier and the labelled
index.

After the discern stage's features (benchmarks/syndor/stages/night_vision_stage.py), one labelling task:
  the labelling population is every image of a person frame: its raw frame and, where it has one, its
  night-vision image (an empty-scene frame is 0 by construction, on both images, with label source
  `empty`, and never enters the sample or the model);
  the paper's protocol: a sample of `labels.sample_size` images (None: Cochran's minimum), stratified over
  distance × lighting group × raw/NV (the authors' groups: day = morning and noon, night = the rest), of
  which `labels.holdout_size` (None: a fifth) are held out, both drawn by the build seed; the sample is
  labelled by people (imported with `benchfoundry syndor label-import`) or by the simulated observer; the
  RF + XGBoost ensemble is cross-validated (5-fold) and fitted on the rest, then tested once on the held-out
  images beside a single decision tree and the paper's figures; the ensemble labels the raw frames of
  `model_lighting` and every night-vision image, sampled ones included (docs/design/syndor.md §4); other frames are
  discernible where their mask is non-empty → `OUT/syndor/discern/manifest.parquet`,
  `OUT/report/discern_cv.json` (+ `.png`).

Labelled index columns added to the feature rows: `human_discernable` (raw image: the model's label for a
modelled image, else from the mask; 0 for an empty scene) with `label_source` (human or simulated for a
modelled image of the sample, model for another modelled image, mask or empty) and `sample_label` (the
sample's given label, null outside the sample; set for sampled day frames too); `human_discernable_nv`,
`label_source_nv`, `sample_label_nv` the same for the night-vision image (null without one); `holdout` /
`holdout_nv` (true for a held-out sampled image).
When `labels.source` is "human" and no labels are imported, the sample is exported and the stage stops; a
rerun continues from the finished shards.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.scenes.lighting import family, lighting_group
from benchfoundry.benchmarks.syndor.scenes.render_plan import empty_scene_rows
from benchfoundry.benchmarks.syndor.stages import discern_features, discern_model, labels
from benchfoundry.benchmarks.syndor.stages.night_vision_stage import FEATURE_STAGE, OBSERVER_COLUMNS, VALUE_COLUMNS
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.seeding import item_seed
from benchfoundry.core.store import StageStore, read_parquet, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "discern"
NV_LABEL_COLUMN = "human_discernable_nv"
#: The labelled sample's given (human or simulated) label of an image; `human_discernable` is the model's.
SAMPLE_LABEL_COLUMN = "sample_label"
#: True for a sampled image held out to test the classifier.
HOLDOUT_COLUMN = "holdout"
#: Part of the labels' spec hash: bump it when the labelled index's columns change meaning.
LABELS_VERSION = 3
#: The label sample's strata (docs/design/syndor.md §4): distance × lighting group × raw/NV.
STRATA = ("zone", "lighting_group", "variant")
#: `label_source` of an empty-scene frame: 0 by construction, no observer and no model.
EMPTY_LABEL_SOURCE = "empty"
#: The paper's held-out figures (seed, Table 2's ablation): macro-F1 and accuracy as fractions.
PAPER_FIGURES = {
    "ensemble": {"macro_f1": 0.8355, "accuracy": 0.9050},
    "decision_tree": {"macro_f1": 0.8241, "accuracy": 0.9025},
}
MODELS = ("ensemble", "decision_tree")


# ---------------------------------------------------------------- population and sample


def labelling_units(features: pd.DataFrame, config: BuildConfig) -> pd.DataFrame:
    """One row per image of a person frame: every raw frame and every night-vision image, with its strata and
    whether the classifier labels it (`modelled`: raw frames of `model_lighting`, every NV image)."""
    d, evening = config.syndor.discern, config.syndor.qa.evening_group
    features = features[~empty_scene_rows(features)]
    observed = [c for c in OBSERVER_COLUMNS if f"raw_{c}" in features.columns]
    values = [*VALUE_COLUMNS, *observed]
    parts = []
    nv = features[features["nv_path"].notna()]
    for variant, rows, image_col in (("raw", features, "img_path"), ("nv", nv, "nv_path")):
        if not len(rows):
            continue
        lightings = rows["lighting"].astype(str)
        unit = pd.DataFrame(
            {
                "image": rows[image_col].astype(str).to_numpy(),
                "img_path": rows["img_path"].astype(str).to_numpy(),
                "variant": variant,
                "zone": rows["zone" if "zone" in rows else "radius"].astype(str).to_numpy(),
                "lighting": lightings.to_numpy(),
                "lighting_group": lightings.map(lambda name: lighting_group(name, evening)).to_numpy(),
                "modelled": True if variant == "nv" else lightings.map(family).isin(d.model_lighting).to_numpy(),
            }
        )
        for name in values:
            unit[name] = rows[f"{variant}_{name}"].to_numpy(dtype=float)
        parts.append(unit)
    columns = ["image", "img_path", "variant", "zone", "lighting", "lighting_group", "modelled", *values]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def sample_size(population: int, config: BuildConfig) -> int:
    """Images to label: `labels.sample_size`, else Cochran's minimum; never more than the population."""
    section = config.syndor.discern.labels
    wanted = section.sample_size if section.sample_size is not None else labels.cochran_size(population, section)
    return min(wanted, population)


def holdout_size(sample: int, config: BuildConfig) -> int:
    """Held-out images of a sample: `labels.holdout_size`, else a fifth (the paper's 400 of 2,000); at least one
    image is left to train on."""
    section = config.syndor.discern.labels
    wanted = section.holdout_size if section.holdout_size is not None else round(sample / 5)
    return max(0, min(wanted, sample - 1))


def label_sample(units: pd.DataFrame, config: BuildConfig) -> pd.DataFrame:
    """The sample, stratified by distance × lighting group × raw/NV, with `holdout` marking its held-out part
    (stratified alike, drawn by its own seed)."""
    sample = labels.stratified_sample(units, STRATA, sample_size(len(units), config), config.seed)
    held = labels.stratified_sample(
        sample, STRATA, holdout_size(len(sample), config), config.seed, stage="discern-holdout"
    )
    return sample.assign(**{HOLDOUT_COLUMN: sample["image"].isin(set(held["image"]))})


def _built_units(out: str, config: BuildConfig) -> pd.DataFrame:
    """The labelling units of a build's finished features manifest (the label commands need one)."""
    store = StageStore(out, BENCHMARK, FEATURE_STAGE)
    if not store.manifest_path.exists():
        raise ValueError(f"{store.manifest_path}: no features yet; build the syndor benchmark first")
    return labelling_units(store.read_manifest(), config)


def export_label_sample(out: str, config: BuildConfig) -> dict[str, Any]:
    """Write the sample for annotation from the finished features manifest (`label-sample` command)."""
    units = _built_units(out, config)
    sample = label_sample(units, config)
    paths = labels.export_sample(sample, labels.labels_dir(out), config.syndor.discern.labels)
    return {"population": len(units), "sample": len(sample), "holdout": int(sample[HOLDOUT_COLUMN].sum()), **paths}


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


def _plot_confusion(figures: dict[str, Any], title: str, path: Path) -> Path:
    """The two models' confusion matrices side by side (`figures[name]` holds `confusion_matrix` and scores)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0))
    for ax, name in zip(axes, MODELS):
        cm = np.array(figures[name]["confusion_matrix"])
        ax.imshow(cm, cmap="Blues")
        for (i, j), v in np.ndenumerate(cm):
            ax.text(j, i, str(v), ha="center", va="center")
        ax.set_xticks([0, 1], ["no", "yes"])
        ax.set_yticks([0, 1], ["no", "yes"])
        ax.set_xlabel("predicted")
        ax.set_ylabel("label")
        ax.set_title(
            f"{title} {name}: F1 {figures[name]['macro_f1']:.3f}, acc {figures[name]['accuracy']:.3f}", fontsize=8
        )
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=80, metadata={"Software": None})
    plt.close(fig)
    return path


def _labelled_units(units: pd.DataFrame, config: BuildConfig, out: str) -> tuple[pd.DataFrame, str] | None:
    """The labelled images with `label` and `holdout`, and the labels' source; None when human labels are asked
    for and absent. Imported labels of images outside the current sample train the model (never held out)."""
    section = config.syndor.discern.labels
    sample = label_sample(units, config)
    if section.source == "human":
        imported = labels.load_imported(labels.labels_dir(out))
        if imported is None:
            return None
        chosen = units.merge(imported, on="image", how="inner")
        held = set(sample.loc[sample[HOLDOUT_COLUMN], "image"])
        chosen[HOLDOUT_COLUMN] = chosen["image"].isin(held)
        return (chosen, "human") if len(chosen) else None
    return sample.assign(label=labels.simulated_labels(sample, section, config.seed)), "simulated"


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
            "evening_group": config.syndor.qa.evening_group,
            "labels": d.labels.model_dump(),
            "classifier": d.classifier.model_dump(),
            "imported": _file_hash(imported) if d.labels.source == "human" else None,
        }
    )


def _assign(frame: pd.DataFrame, units: pd.DataFrame, variant: str, columns: tuple[str, str, str, str]) -> None:
    """Copy one variant's units into the frame rows they belong to: the model label and its source for modelled
    units, the sample label and the held-out flag for every unit (null outside the sample)."""
    label, source, given, held = columns
    chosen = units[units["variant"] == variant].set_index("img_path")
    hit = frame["img_path"].isin(chosen.index)
    paths = frame.loc[hit, "img_path"]
    frame.loc[hit, given] = paths.map(chosen["sample_label"]).to_numpy()
    frame.loc[hit, held] = paths.map(chosen[HOLDOUT_COLUMN]).to_numpy()
    modelled = chosen[chosen["modelled"].astype(bool)]
    hit = frame["img_path"].isin(modelled.index)
    paths = frame.loc[hit, "img_path"]
    frame.loc[hit, label] = paths.map(modelled["model"]).astype(int).to_numpy()
    frame.loc[hit, source] = paths.map(modelled["label_source"]).to_numpy()


def label_and_classify(config: BuildConfig, out: str, features_manifest: str) -> dict[str, Any]:
    """Labels, CV, held-out test, model and the labelled index; `{"stopped": ...}` while human labels are missing."""
    d = config.syndor.discern
    store = StageStore(out, BENCHMARK, STAGE)
    spec = label_spec_hash(config, out, features_manifest)
    report_path = Path(out) / "report" / "discern_cv.json"
    if store.is_done("labels", spec) and report_path.exists():
        return {**_report_paths(json.loads(report_path.read_text()), lambda p: str(Path(out) / p)), "skipped": True}
    features = read_parquet(features_manifest)
    units = labelling_units(features, config)
    empty_labelled = units.assign(label=0, **{HOLDOUT_COLUMN: False}).iloc[0:0]
    found = _labelled_units(units, config, out) if len(units) else (empty_labelled, d.labels.source)
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
    features_names = list(discern_features.FEATURES)
    train = labelled[~labelled[HOLDOUT_COLUMN].astype(bool)]
    test = labelled[labelled[HOLDOUT_COLUMN].astype(bool)]
    x, y = train[features_names].to_numpy(dtype=float), train["label"].to_numpy(dtype=int)
    cv = discern_model.cross_validate(x, y, d.classifier, seed) if len(y) else {"rows": 0, "skipped": "no labels"}
    notes = []
    if source == "simulated":
        notes.append(_observer_note(d.labels))
    model_info: dict[str, Any] = {}
    holdout: dict[str, Any] = {"rows": int(len(test)), "skipped": "no labelled image is held out"}
    # y is empty only with no units at all: the sample of N ≥ 1 units keeps ≥ 1 to train on (holdout_size), and
    # human mode with no imported unit stops above, so no unit gets a label from an absent model.
    units["model"] = 0
    if len(y):
        model, holdout = discern_model.fit_and_test(
            x, y, test[features_names].to_numpy(dtype=float), test["label"].to_numpy(dtype=int), d.classifier, seed
        )
        if len(np.unique(y)) < 2:
            notes.append(f"single-class training labels (all {int(y[0])}): every image gets that class")
        model_info = discern_model.save_model(
            model,
            store.dir / "model",
            discern_features.FEATURES,
            {"seed": seed, "trained_rows": int(len(y)), "held_out_rows": int(len(test)), "label_source": source},
        )
        units["model"] = model.predict(units[features_names].to_numpy(dtype=float)).astype(int)
    given = dict(zip(labelled["image"], labelled["label"].astype(int)))
    held = dict(zip(labelled["image"], labelled[HOLDOUT_COLUMN].astype(bool)))
    units["sample_label"] = units["image"].map(given).astype("Int64")
    units[HOLDOUT_COLUMN] = units["image"].map(held).astype("boolean")
    units["label_source"] = np.where(units["sample_label"].notna(), source, "model")
    frame = _labelled_frame(features, units)
    store.write_shard("labels", frame, spec_hash=spec)
    manifest = store.write_manifest(["labels"])
    report = {
        "label_source": source,
        "notes": notes,
        "population": int(len(units)),
        "sample": int(len(labelled)),
        "trained_on": int(len(train)),
        "held_out": int(len(test)),
        "sample_strata": _strata_counts(labelled),
        "empty_scene_frames": int(empty_scene_rows(frame).sum()),
        "model_agrees_with_sample": _agreement(units),
        "features": features_names,
        "cv": cv,
        "holdout": holdout,
        "paper": PAPER_FIGURES,
        "night_vision": night_vision_summary(frame, config),
        "label_sources": {
            f"{col}={k}": int(v)
            for col in ("label_source", "label_source_nv")
            for k, v in frame[col].value_counts().items()
        },
        "model": model_info,
        "manifest": str(manifest),
    }
    plotted = holdout if "ensemble" in holdout else cv if "ensemble" in cv else None
    if plotted is not None:
        title = "held-out" if plotted is holdout else "CV"
        report["plot"] = str(_plot_confusion(plotted, title, report_path.with_suffix(".png")))
    write_json_atomic(report_path, _report_paths(report, lambda p: Path(p).relative_to(out).as_posix()))
    return report


def _observer_note(config: Any) -> str:
    if config.observer == "detector":
        rule = (
            "OpenCV's HOG + linear SVM people detector on the image (enlarged "
            f"{config.detector_upscale:g}×), a detection with IoU >= {config.detector_min_iou:g} with the person's box"
        )
    else:
        rule = (
            f"person height >= {config.observer_min_height_px} px and "
            f"Michelson contrast >= {config.observer_min_contrast}"
        )
    return (
        f"labels come from the simulated observer, not from people: {rule}, lapse rate {config.observer_lapse} "
        "(benchmarks/syndor/stages/labels.py)"
    )


def _labelled_frame(features: pd.DataFrame, units: pd.DataFrame) -> pd.DataFrame:
    """The feature rows with their labels, sources, sample labels and held-out flags (module docstring)."""
    frame = features.copy()
    frame["human_discernable"] = (frame["raw_area_ratio"] > 0).astype(int)
    frame["label_source"] = "mask"
    for column in (NV_LABEL_COLUMN, "label_source_nv", SAMPLE_LABEL_COLUMN, f"{SAMPLE_LABEL_COLUMN}_nv"):
        frame[column] = pd.NA
    frame[HOLDOUT_COLUMN] = pd.NA
    frame[f"{HOLDOUT_COLUMN}_nv"] = pd.NA
    if len(units):
        _assign(frame, units, "raw", ("human_discernable", "label_source", SAMPLE_LABEL_COLUMN, HOLDOUT_COLUMN))
        _assign(
            frame,
            units,
            "nv",
            (NV_LABEL_COLUMN, "label_source_nv", f"{SAMPLE_LABEL_COLUMN}_nv", f"{HOLDOUT_COLUMN}_nv"),
        )
    empty = empty_scene_rows(frame)
    frame.loc[empty, ["human_discernable", "label_source"]] = [0, EMPTY_LABEL_SOURCE]
    empty_nv = empty & frame["nv_path"].notna()
    frame.loc[empty_nv, [NV_LABEL_COLUMN, "label_source_nv"]] = [0, EMPTY_LABEL_SOURCE]
    return frame.astype(
        {
            "human_discernable": "int64",
            NV_LABEL_COLUMN: "Int64",
            "label_source": "string",
            "label_source_nv": "string",
            SAMPLE_LABEL_COLUMN: "Int64",
            f"{SAMPLE_LABEL_COLUMN}_nv": "Int64",
            HOLDOUT_COLUMN: "boolean",
            f"{HOLDOUT_COLUMN}_nv": "boolean",
        }
    )


def _strata_counts(labelled: pd.DataFrame) -> list[dict[str, Any]]:
    """Labelled images per stratum: sampled, held out, labelled 1."""
    rows = []
    for key, group in labelled.groupby(list(STRATA), sort=True):
        rows.append(
            {
                **dict(zip(STRATA, key)),
                "images": int(len(group)),
                "held_out": int(group[HOLDOUT_COLUMN].astype(bool).sum()),
                "label_1": int((group["label"] == 1).sum()),
            }
        )
    return rows


def night_vision_summary(frame: pd.DataFrame, config: BuildConfig) -> dict[str, Any]:
    """Labels of the raw night frame against its night-vision image, per distance and overall (person frames with
    a night-vision image), and, with the detector observer, what it saw on each: how often NV recovers a person
    the raw frame loses."""
    rows = frame[frame["nv_path"].notna() & ~empty_scene_rows(frame)]
    zone = rows["zone" if "zone" in rows else "radius"].astype(str)
    raw, nv = rows["human_discernable"].astype(int), rows[NV_LABEL_COLUMN].astype("Int64").fillna(0).astype(int)
    summary: dict[str, Any] = {"frames": int(len(rows)), "labels": _pairs(raw, nv, zone)}
    if "raw_detector_seen" in rows and "nv_detector_seen" in rows:
        seen_raw = rows["raw_detector_seen"].fillna(0).astype(int)
        seen_nv = rows["nv_detector_seen"].fillna(0).astype(int)
        summary["detector"] = _pairs(seen_raw, seen_nv, zone)
    summary["evening_group"] = config.syndor.qa.evening_group
    return summary


def _pairs(raw: pd.Series, nv: pd.Series, zone: pd.Series) -> dict[str, Any]:
    """Counts of (raw, NV) outcomes overall and per distance, and the share of raw misses NV recovers."""

    def counts(r: pd.Series, n: pd.Series) -> dict[str, Any]:
        lost = int((r == 0).sum())
        recovered = int(((r == 0) & (n == 1)).sum())
        return {
            "raw_1": int((r == 1).sum()),
            "nv_1": int((n == 1).sum()),
            "nv_recovers": recovered,
            "nv_loses": int(((r == 1) & (n == 0)).sum()),
            "raw_0": lost,
            "recovery_rate": round(recovered / lost, 4) if lost else None,
            "differ": int((r != n).sum()),
        }

    return {"all": counts(raw, nv), **{z: counts(raw[zone == z], nv[zone == z]) for z in sorted(set(zone))}}


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


@shard_task(resource="compute", name="syndor-labels")
def label_task(out: str, shard: str, config: BuildConfig) -> dict[str, Any]:
    """Labels and classifier of the features manifest `shard` (`label_and_classify`)."""
    return label_and_classify(config, out, shard)
