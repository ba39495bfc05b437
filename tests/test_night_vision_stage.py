"""The discern and label stages on a tiny synthetic render manifest: NV images, labels, the held-out test, CV
report, rerun, human loop."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pandas as pd
import pytest

from benchfoundry.benchmarks.syndor import flow as syndor
from benchfoundry.benchmarks.syndor.stages import discern_model, label_stage
from benchfoundry.benchmarks.syndor.stages import night_vision_stage as ds
from benchfoundry.cli import main as cli
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import config_dict, load_config
from benchfoundry.core.store import StageStore, check_shard_id

H, W = 72, 96


def frame_images(
    rng: np.random.Generator, lighting: str, height: int, contrast: float
) -> tuple[np.ndarray, np.ndarray]:
    """A noisy scene with an upright elliptical 'person' of the given pixel height and contrast."""
    level = 0.02 if lighting == "night" else 0.3
    lin = np.clip(level * (1 + 0.2 * rng.standard_normal((H, W, 1))), 0, 1) * np.array([0.8, 0.9, 1.0])
    mask = np.zeros((H, W), np.uint8)
    if height:
        cv2.ellipse(mask, (W // 2, H // 2), (max(height // 6, 1), height // 2), 0, 0, 360, 255, -1)
    lin[mask > 0] = level * (1 + contrast) * np.array([1.0, 0.8, 0.6])
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    return (np.clip(srgb, 0, 1) * 255).round().astype(np.uint8), mask


def make_render(out: Path, n_night: int = 24, n_day: int = 6, seed: int = 0) -> str:
    """Images, masks and a render manifest in the render stage's layout."""
    rng = np.random.default_rng(seed)
    root = out / "syndor"
    rows = []
    for i in range(n_night + n_day):
        lighting = "night" if i < n_night else "noon_south"
        zone = ("near", "mid", "far")[i % 3]
        height = 0 if i == n_night else int(rng.integers(6, 60))
        contrast = float(rng.uniform(0.0, 1.5))
        rgb, mask = frame_images(rng, lighting, height, contrast)
        source = f"SMPLitex_texture_00000_walk_field_{lighting}_{zone}"
        img_path = f"images/{source}/pose000/raw_images/frame0001_cam{i:03d}.png"
        mask_path = f"images/{source}/pose000/masks/frame0001_cam{i:03d}.png"
        (root / img_path).parent.mkdir(parents=True, exist_ok=True)
        (root / mask_path).parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(root / img_path), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
        cv2.imwrite(str(root / mask_path), mask)
        rows.append(
            {
                "source_dir": source,
                "action": "walk",
                "scene": "field",
                "lighting": lighting,
                "radius": {"near": 5.4, "mid": 10.8, "far": 23.0}[zone],
                "smplx_texture": "SMPLitex_texture_00000",
                "img_path": img_path,
                "mask_path": mask_path,
                "img_name": Path(img_path).name,
                "nv_path": None,
                "human_discernable": None,
                "zone": zone,
                "shard": f"walk-{lighting}",
                "render_settings_hash": "x",
            }
        )
    manifest = StageStore(out, "syndor", "render").manifest_path
    manifest.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).astype({"nv_path": "string", "human_discernable": "boolean"}).to_parquet(manifest)
    return str(manifest)


def config(**overrides: object) -> BuildConfig:
    """Small classifiers; the threshold observer (the synthetic ellipses are no people to the HOG detector)."""
    sets = [
        "syndor.discern.labels.observer=threshold",
        "syndor.discern.classifier.rf_trees=20",
        "syndor.discern.classifier.xgb_trees=20",
        "syndor.discern.frames_per_shard=10",
        "syndor.discern.isp.denoiser=nlmeans",
    ]
    return load_config(None, sets + [f"{k}={v}" for k, v in overrides.items()])


def run_stage(config: BuildConfig, out: str, manifest: str) -> dict:
    return syndor.discern_flow(config, out, manifest)


def test_nv_path_sits_beside_the_raw_image():
    assert ds.nv_relpath("images/a/pose000/raw_images/f.png") == "images/a/pose000/nv_images/f.jpg"
    assert ds.nv_relpath("x/f.jpg") == "x/nv_images/f.jpg"


def test_simulated_build_labels_every_night_and_nv_row_and_reruns_nothing(tmp_path, prefect_server):
    out = str(tmp_path)
    manifest = make_render(tmp_path)
    section = config()
    first = run_stage(section, out, manifest)
    assert first["problems"] == [] and first["frames"] == 30 and first["nv_images"] == 24
    rows = pd.read_parquet(first["manifest"])
    night, day = rows[rows["lighting"] == "night"], rows[rows["lighting"] != "night"]
    assert night["human_discernable"].isin([0, 1]).all() and night["human_discernable_nv"].isin([0, 1]).all()
    assert set(night["label_source"]) <= {"simulated", "model"} and "simulated" in set(night["label_source"])
    assert set(night["label_source_nv"]) <= {"simulated", "model"}
    # docs/design/syndor.md §4: the saved model labels every night and NV image, sampled ones included
    model, names = discern_model.load_model(tmp_path / "syndor" / "discern" / "model")
    for prefix, label in (("raw", "human_discernable"), ("nv", "human_discernable_nv")):
        predicted = model.predict(night[[f"{prefix}_{n}" for n in names]].to_numpy(dtype=float))
        assert night[label].astype(int).tolist() == predicted.astype(int).tolist()
    # the sample's given labels are kept beside the model's, and only for the sampled rows
    for suffix in ("", "_nv"):
        sampled = night[f"label_source{suffix}"] == "simulated"
        assert night.loc[sampled, f"sample_label{suffix}"].isin([0, 1]).all()
        assert night.loc[~sampled, f"sample_label{suffix}"].isna().all()
    # day frames may be sampled (the sample spans both lighting groups) but keep their label from the mask
    assert (day["label_source"] == "mask").all()
    assert day["human_discernable"].tolist() == (day["raw_area_ratio"] > 0).astype(int).tolist()
    sampled_units = int(rows["sample_label"].notna().sum() + rows["sample_label_nv"].notna().sum())
    assert all((tmp_path / "syndor" / p).is_file() for p in night["nv_path"])
    assert day["nv_path"].isna().all()
    report = json.loads((tmp_path / "report" / "discern_cv.json").read_text())
    assert report["label_source"] == "simulated" and any("simulated" in n for n in report["notes"])
    assert report["sample"] == sampled_units == report["model_agrees_with_sample"]["units"]
    assert report["population"] == 30 + 24  # every raw frame and every NV image
    on_disk = [report["manifest"], *report["model"].values()]
    assert all(not Path(p).is_absolute() and (tmp_path / p).is_file() for p in on_disk)  # relocatable build
    assert {"ensemble", "decision_tree"} <= set(report["cv"]) and "skipped" not in report["cv"]
    assert (tmp_path / "syndor" / "discern" / "model" / "model.joblib").is_file()

    store = StageStore(out, "syndor", "discern_features")
    markers = {s: store.marker(s)["finished"] for s in store.done_shards()}
    nv_times = {p: (tmp_path / "syndor" / p).stat().st_mtime_ns for p in night["nv_path"]}
    second = run_stage(section, out, manifest)
    assert second["shards_processed"] == 0 and second["labels_reused"] and not first["labels_reused"]
    assert {s: store.marker(s)["finished"] for s in store.done_shards()} == markers
    assert {p: (tmp_path / "syndor" / p).stat().st_mtime_ns for p in night["nv_path"]} == nv_times
    assert pd.read_parquet(second["manifest"]).equals(rows)


def test_held_out_images_test_a_model_trained_without_them(tmp_path, prefect_server):
    """The paper's protocol: a fifth of the sample is held out (stratified like the sample), the ensemble is trained
    on the rest and scored once on the held-out images; the report puts the paper's figures beside them."""
    manifest = make_render(tmp_path, n_night=45, n_day=15)
    result = run_stage(config(**{"syndor.discern.labels.sample_size": 50}), str(tmp_path), manifest)
    report = json.loads((tmp_path / "report" / "discern_cv.json").read_text())
    assert report["sample"] == 50 and report["held_out"] == 10 and report["trained_on"] == 40
    assert result["held_out"] == 10 and set(result["holdout"]) == {"ensemble", "decision_tree"}
    assert report["paper"] == {
        "ensemble": {"macro_f1": 0.8355, "accuracy": 0.9050},
        "decision_tree": {"macro_f1": 0.8241, "accuracy": 0.9025},
    }
    card = json.loads((tmp_path / "syndor" / "discern" / "model" / "model.json").read_text())
    assert card["trained_rows"] == 40 and card["held_out_rows"] == 10
    rows = pd.read_parquet(result["manifest"])
    x_parts, y_parts = [], []
    for suffix, prefix in (("", "raw"), ("_nv", "nv")):
        chosen = rows[rows[f"holdout{suffix}"].fillna(False).astype(bool)]
        x_parts.append(chosen[[f"{prefix}_{n}" for n in card["features"]]].to_numpy(dtype=float))
        y_parts.append(chosen[f"sample_label{suffix}"].to_numpy(dtype=int))
    x, y = np.concatenate(x_parts), np.concatenate(y_parts)
    assert len(y) == 10
    model, _ = discern_model.load_model(tmp_path / "syndor" / "discern" / "model")
    predicted = model.predict(x)
    assert report["holdout"]["ensemble"]["accuracy"] == pytest.approx(float(np.mean(predicted == y)))
    from sklearn.metrics import f1_score

    f1 = f1_score(y, predicted, average="macro", labels=[0, 1], zero_division=0)
    assert report["holdout"]["ensemble"]["macro_f1"] == pytest.approx(f1)
    # the held-out images are part of the sample and were not in the training rows the CV used
    assert report["cv"]["rows"] == 40


def test_label_sample_is_stratified_by_distance_group_and_variant(tmp_path):
    """Every distance × lighting group × raw/NV stratum of the population is in the sample and in proportion, and the
    held-out part is drawn from the sample the same way."""
    manifest = make_render(tmp_path, n_night=60, n_day=30)
    frames = pd.read_parquet(manifest)
    features = frames.assign(nv_path=np.where(frames["lighting"] == "night", "nv/" + frames["img_path"], None))
    for name in (*ds.VALUE_COLUMNS, *ds.OBSERVER_COLUMNS):
        features[f"raw_{name}"], features[f"nv_{name}"] = 1.0, 1.0
    section = config(**{"syndor.discern.labels.sample_size": 60, "syndor.discern.labels.holdout_size": 15})
    units = label_stage.labelling_units(features, section)
    assert len(units) == 90 + 60
    sample = label_stage.label_sample(units, section)
    assert len(sample) == 60 and sample[label_stage.HOLDOUT_COLUMN].sum() == 15
    population = units.groupby(["zone", "lighting_group", "variant"]).size()
    drawn = sample.groupby(["zone", "lighting_group", "variant"]).size()
    held = sample[sample[label_stage.HOLDOUT_COLUMN]].groupby(["zone", "lighting_group", "variant"]).size()
    assert set(population.index) == set(drawn.index) == set(held.index)
    assert len(population) == 3 * 3  # distances × {day raw, night raw, night NV}
    for key, size in population.items():
        assert abs(drawn[key] - 60 * size / 150) < 1 and abs(held[key] - 15 * drawn[key] / 60) < 1
    again = label_stage.label_sample(units.sample(frac=1, random_state=1), section)
    assert again.sort_values("image").reset_index(drop=True).equals(sample.sort_values("image").reset_index(drop=True))


def test_corrupt_image_is_reported_and_skipped(tmp_path, prefect_server):
    manifest = make_render(tmp_path, n_night=8, n_day=2)
    bad = pd.read_parquet(manifest)["img_path"].iloc[3]
    (tmp_path / "syndor" / bad).write_bytes(b"not an image")
    result = run_stage(config(), str(tmp_path), manifest)
    assert [p["item"] for p in result["problems"]] == [bad]
    rows = pd.read_parquet(result["manifest"])
    assert bad not in set(rows["img_path"]) and len(rows) == 9


def test_human_mode_stops_after_export_then_continues_after_import(tmp_path, prefect_server, capsys):
    out = str(tmp_path)
    manifest = make_render(tmp_path, n_night=12, n_day=3)
    section = config(**{"syndor.discern.labels.source": "human"})
    stopped = run_stage(section, out, manifest)
    assert "label-import" in stopped["stopped"] and "manifest" not in stopped
    sample = pd.read_csv(stopped["sample"]["csv"])
    assert len(sample) > 0 and sample["label"].isna().all()
    exported = sample["image"].tolist()
    sample["label"] = ["yes" if i % 3 else "no" for i in range(len(sample))]
    sample.loc[0, "image"] = "images/nowhere.png"
    labelled = tmp_path / "labels.csv"
    sample.to_csv(labelled, index=False)
    (tmp_path / "build.json").write_text(json.dumps({"config": config_dict(section)}))
    assert cli.main(["syndor", "label-sample", out]) == 0
    assert pd.read_csv(stopped["sample"]["csv"])["image"].tolist() == exported
    capsys.readouterr()
    assert cli.main(["syndor", "label-import", out, str(labelled)]) == 0
    printed = capsys.readouterr()
    assert f"{labelled}:2: skipped: unknown image" in printed.err
    assert f"imported {len(sample) - 1} labels (1 bad rows skipped)" in printed.out

    done = run_stage(section, out, manifest)
    assert done["shards_processed"] == 0 and done["label_source"] == "human"
    assert [(p["stage"], p["item"]) for p in done["problems"]] == [("label-import", f"{labelled}:2")]
    rows = pd.read_parquet(done["manifest"])
    given = dict(zip(sample["image"][1:], (sample["label"][1:] == "yes").astype(int)))
    raw = rows.set_index("img_path")
    for image, label in given.items():
        suffix = "_nv" if "/nv_images/" in image else ""
        key = raw.index[raw["nv_path"] == image][0] if suffix else image
        assert raw.loc[key, f"sample_label{suffix}"] == label
        modelled = suffix or raw.loc[key, "lighting"] == "night"  # day frames keep their label from the mask
        assert raw.loc[key, f"label_source{suffix}"] == ("human" if modelled else "mask")
    night = rows[rows["lighting"] == "night"]
    assert night["human_discernable"].isin([0, 1]).all() and night["human_discernable_nv"].isin([0, 1]).all()
    assert int(rows["sample_label"].notna().sum() + rows["sample_label_nv"].notna().sum()) == len(given)
    held = set(sample.loc[sample["holdout"] & (sample.index > 0), "image"])  # row 0 was made unknown
    assert held and done["held_out"] == len(held)  # the exported holdout column is what the build holds out


def test_single_class_sample_does_not_crash(tmp_path, prefect_server):
    manifest = make_render(tmp_path, n_night=6, n_day=0)
    section = config(
        **{"syndor.discern.labels.observer_min_height_px": 1000, "syndor.discern.labels.observer_lapse": 0}
    )
    result = run_stage(section, str(tmp_path), manifest)
    rows = pd.read_parquet(result["manifest"])
    assert (rows["human_discernable"] == 0).all() and (rows["human_discernable_nv"] == 0).all()
    assert result["cv_folds"] == 0 and "at least 2" in result["cv_note"]
    report = json.loads((tmp_path / "report" / "discern_cv.json").read_text())
    assert any("single-class" in n for n in report["notes"])


def test_evening_frames_get_night_vision_as_the_authors_index_them(tmp_path):
    """The authors' task index puts evening in night, with NV rows: evening frames get a night-vision image by
    default, and not when the ISP is limited to night."""
    manifest = make_render(tmp_path, n_night=0, n_day=2)
    frames = pd.read_parquet(manifest)
    root = tmp_path / "syndor"
    evening = ds.process_frame(config(), root, frames.iloc[0].to_dict() | {"lighting": "evening_west"})
    assert (root / evening["nv_path"]).is_file() and evening["nv_area_ratio"] == evening["raw_area_ratio"]
    noon = ds.process_frame(config(), root, frames.iloc[1].to_dict() | {"lighting": "noon_west"})
    assert noon["nv_path"] is None and np.isnan(noon["nv_area_ratio"])
    night_only = config(**{"syndor.discern.isp.apply_to": "[night]"})
    plain = ds.process_frame(night_only, root, frames.iloc[0].to_dict() | {"lighting": "evening_east"})
    assert plain["nv_path"] is None and np.isnan(plain["nv_area_ratio"])


def test_feature_shards_cover_every_frame_once_in_valid_chunks(tmp_path):
    render = pd.read_parquet(make_render(tmp_path, n_night=25, n_day=5))
    plans = ds.plan_feature_shards(render, config().syndor.discern)
    paths = [p for chunk in plans.values() for p in chunk]
    assert sorted(paths) == sorted(render["img_path"]) and max(map(len, plans.values())) <= 10
    assert all(check_shard_id(s) == s for s in plans)  # raises on an id that cannot be a file name
    assert ds.plan_feature_shards(render.sample(frac=1, random_state=0), config().syndor.discern) == plans


def test_label_sample_command_needs_features(tmp_path):
    with pytest.raises(ValueError, match="no features yet"):
        label_stage.export_label_sample(str(tmp_path), config())


def test_cv_plot_carries_no_library_version(tmp_path):
    """The plot's bytes depend on the labels only, not on which matplotlib wrote them."""
    import matplotlib
    from PIL import Image

    scores = {"confusion_matrix": [[3, 1], [0, 4]], "macro_f1": 0.87, "accuracy": 0.875}
    path = label_stage._plot_confusion({"ensemble": scores, "decision_tree": scores}, "held-out", tmp_path / "cv.png")
    text = " ".join(str(v) for v in Image.open(path).info.values())
    assert matplotlib.__version__ not in text and "matplotlib" not in text.lower()


def test_truncated_render_and_mask_are_reported_not_featured(tmp_path):
    """A night JPEG cut to a third (OpenCV would fill it with grey) and a PNG mask cut in half are
    problems naming their files; no night-vision image is made from them and the other frames go on."""
    manifest = make_render(tmp_path, n_night=4, n_day=0)
    render = pd.read_parquet(manifest)
    root = tmp_path / "syndor"
    png = root / render.loc[0, "img_path"]
    jpeg = cv2.imencode(".jpg", cv2.imread(str(png)))[1].tobytes()
    render.loc[0, "img_path"] = str(Path(render.loc[0, "img_path"]).with_suffix(".jpg"))
    (root / render.loc[0, "img_path"]).write_bytes(jpeg[: len(jpeg) // 3])
    mask = root / render.loc[1, "mask_path"]
    mask.write_bytes(mask.read_bytes()[: mask.stat().st_size // 2])
    render.to_parquet(manifest)
    paths = render["img_path"].tolist()
    ds.feature_shard(config(), str(tmp_path), ds.FeatureShard("s0", manifest, tuple(paths), tuple(paths), "spec"))
    store = StageStore(tmp_path, "syndor", ds.FEATURE_STAGE)
    found = {p["item"]: p["reason"] for p in store.problems(["s0"])}
    assert set(found) == {paths[0], paths[1]}
    assert str(root / paths[0]) in found[paths[0]] and "truncated JPEG" in found[paths[0]]
    assert str(mask) in found[paths[1]] and "truncated PNG" in found[paths[1]]
    assert sorted(store.shard_rows("s0")["img_path"]) == sorted(paths[2:])
    assert not (root / ds.nv_relpath(paths[0])).exists()


def mark_render(out: Path, render: pd.DataFrame, hashes: dict[str, str]) -> None:
    """Render markers recording each frame's render hash with its files, as the render stage writes them."""
    store = StageStore(out, "syndor", "render")
    for shard, rows in render.groupby("shard"):
        files = {hashes[p]: [p, m] for p, m in zip(rows["img_path"], rows["mask_path"], strict=True)}
        store.write_shard(str(shard), rows, spec_hash=str(shard), info={"frame_files": files})


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The img_path of every frame whose features the stage computes."""
    calls: list[str] = []
    compute = ds.frame_values

    def counted(config: BuildConfig, root: Path, row: dict) -> dict:
        calls.append(str(row["img_path"]))
        return compute(config, root, row)

    monkeypatch.setattr(ds, "frame_values", counted)
    return calls


def test_added_frames_are_the_only_ones_computed_and_the_result_equals_a_build_from_scratch(
    tmp_path: Path, prefect_server: None, computed: list[str]
) -> None:
    """Half the frames first, then all (every feature shard's path list changes): only the new frames are
    computed, the others' rows are equal and their NV images untouched; the features and the labelled manifest
    are the bytes of a build of all frames from scratch."""
    out, scratch = tmp_path / "rerun", tmp_path / "scratch"
    full = pd.read_parquet(make_render(out))
    make_render(scratch)
    hashes = {p: f"h{i}" for i, p in enumerate(full["img_path"])}
    manifest = str(StageStore(out, "syndor", "render").manifest_path)
    half = full.iloc[::2]
    half.to_parquet(manifest)
    mark_render(out, half, hashes)
    first = run_stage(config(), str(out), manifest)
    assert sorted(computed) == sorted(half["img_path"]) and first["frames_computed"] == len(half)
    before = pd.read_parquet(first["features_manifest"]).set_index("img_path")
    nv_times = {p: (out / "syndor" / p).stat().st_mtime_ns for p in before["nv_path"].dropna()}

    computed.clear()
    full.to_parquet(manifest)
    mark_render(out, full, hashes)
    second = run_stage(config(), str(out), manifest)
    new = sorted(set(full["img_path"]) - set(half["img_path"]))
    assert sorted(computed) == new
    assert (second["frames_computed"], second["frames_reused"]) == (len(new), len(half))
    after = pd.read_parquet(second["features_manifest"]).set_index("img_path")
    pd.testing.assert_frame_equal(after.loc[before.index, before.columns], before)
    assert all((out / "syndor" / p).stat().st_mtime_ns == t for p, t in nv_times.items())

    fresh_manifest = str(StageStore(scratch, "syndor", "render").manifest_path)
    mark_render(scratch, full, hashes)
    fresh = run_stage(config(), str(scratch), fresh_manifest)
    for name in ("features_manifest", "manifest"):
        assert Path(second[name]).read_bytes() == Path(fresh[name]).read_bytes()


def test_a_frame_rendered_again_at_its_path_is_computed_again(
    tmp_path: Path, prefect_server: None, computed: list[str]
) -> None:
    """A frame re-rendered in place (a lighting setting changed: a new render hash, new pixels, the same path) gets
    fresh features and a fresh NV image; the other frames are not computed again."""
    manifest = make_render(tmp_path, n_night=12, n_day=2)
    render = pd.read_parquet(manifest)
    hashes = {p: f"h{i}" for i, p in enumerate(render["img_path"])}
    mark_render(tmp_path, render, hashes)
    first = run_stage(config(), str(tmp_path), manifest)
    changed = render.iloc[3]
    old = pd.read_parquet(first["features_manifest"]).set_index("img_path").loc[changed["img_path"]]
    rgb, _ = frame_images(np.random.default_rng(7), "night", 40, 1.2)
    cv2.imwrite(str(tmp_path / "syndor" / changed["img_path"]), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    mark_render(tmp_path, render, {**hashes, changed["img_path"]: "h-relit"})

    computed.clear()
    result = run_stage(config(), str(tmp_path), manifest)
    assert computed == [changed["img_path"]] and result["frames_computed"] == 1
    row = pd.read_parquet(result["features_manifest"]).set_index("img_path").loc[changed["img_path"]]
    expected = ds.process_frame(config(), tmp_path / "syndor", changed.to_dict())
    assert row["raw_michelson_contrast"] == expected["raw_michelson_contrast"]
    assert row["nv_sw_chroma"] == expected["nv_sw_chroma"] != old["nv_sw_chroma"]
