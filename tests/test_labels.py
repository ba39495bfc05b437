"""Cochran sample size, stratified sampling, export/import of labels, simulated observer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchfoundry.benchmarks.syndor.discern_config import LabelConfig
from benchfoundry.benchmarks.syndor.stages import labels


def units(sizes: dict[tuple[str, str], int]) -> pd.DataFrame:
    rows = []
    for (zone, group), size in sizes.items():
        for i in range(size):
            rows.append(
                {
                    "image": f"{zone}/{group}/{i:04d}.jpg",
                    "variant": "raw",
                    "zone": zone,
                    "lighting_group": group,
                    "person_height_px": 10.0 + i % 50,
                    "michelson_contrast": (i % 10) / 20,
                }
            )
    return pd.DataFrame(rows)


def test_cochran_95_5_is_385_before_correction():
    config = LabelConfig(finite_population=False)
    assert labels.cochran_n0(1.96, 0.5, 0.05) == pytest.approx(384.16)
    assert labels.cochran_size(10**9, config) == 385


@pytest.mark.parametrize("population,published", [(1000, 278), (10000, 370), (100000, 383)])
def test_finite_population_correction_matches_published_tables(population, published):
    # Krejcie & Morgan style tables (95 % / 5 %, p = 0.5) after Cochran's correction
    assert labels.cochran_size(population, LabelConfig()) == published


def test_sample_never_exceeds_a_small_population():
    assert labels.cochran_size(12, LabelConfig()) <= 12
    assert labels.cochran_size(0, LabelConfig()) == 0


@pytest.mark.parametrize("finite", [True, False])
def test_any_population_gets_at_least_one_and_at_most_all_units(finite):
    """A tiny z or a wide margin makes n0 far below one unit: a population still gets a unit to label."""
    for z, margin in ((1e-6, 0.99), (0.01, 0.5), (1.96, 0.05), (3.0, 0.01)):
        config = LabelConfig(z=z, margin=margin, finite_population=finite)
        for population in (1, 2, 5, 37, 1000, 10**6):
            assert 1 <= labels.cochran_size(population, config) <= population, (z, margin, population)
    assert labels.cochran_size(0, LabelConfig()) == 0


def test_stratified_sample_keeps_the_strata_proportions():
    table = units({("near", "night"): 600, ("far", "night"): 300, ("far", "night-nv"): 100})
    sample = labels.stratified_sample(table, ["zone", "lighting_group"], 100, seed=0)
    counts = sample.groupby(["zone", "lighting_group"]).size().to_dict()
    assert counts == {("near", "night"): 60, ("far", "night"): 30, ("far", "night-nv"): 10}
    assert sample["image"].is_unique and set(sample["image"]) <= set(table["image"])


def test_allocation_sums_to_n_with_remainders():
    quota = labels.allocate({"a": 5, "b": 5, "c": 5}, 7)
    assert sum(quota.values()) == 7 and max(quota.values()) - min(quota.values()) <= 1
    assert labels.allocate({"a": 2, "b": 10}, 12) == {"a": 2, "b": 10}


def test_stratified_sample_is_seeded():
    table = units({("near", "night"): 200, ("far", "night"): 100})
    a = labels.stratified_sample(table, ["zone", "lighting_group"], 50, seed=1)
    b = labels.stratified_sample(table.sample(frac=1, random_state=3), ["zone", "lighting_group"], 50, seed=1)
    c = labels.stratified_sample(table, ["zone", "lighting_group"], 50, seed=2)
    assert a["image"].tolist() == b["image"].tolist() != c["image"].tolist()


def test_simulated_observer_follows_its_rule_without_lapses():
    config = LabelConfig(observer="threshold", observer_min_height_px=30, observer_min_contrast=0.2, observer_lapse=0.0)
    table = units({("near", "night"): 200})
    got = labels.simulated_labels(table, config, seed=0)
    rule = (table["person_height_px"] >= 30) & (table["michelson_contrast"] >= 0.2)
    assert np.array_equal(got, rule.astype(int).to_numpy())


def test_simulated_observer_lapses_at_about_the_configured_rate():
    config = LabelConfig(observer="threshold", observer_min_height_px=0, observer_min_contrast=0, observer_lapse=0.4)
    table = units({("near", "night"): 3000})
    got = labels.simulated_labels(table, config, seed=0)
    # a lapse answers at random, so about half the lapses flip a "yes" to "no"
    assert (got == 0).mean() == pytest.approx(0.2, abs=0.03)


def test_detector_observer_answers_what_the_detector_saw():
    """The default observer reports the detector's finding (computed on the image by the discern stage); a build
    whose features lack it is told how to get it."""
    table = units({("near", "night"): 40}).assign(detector_seen=[float(i % 3 == 0) for i in range(40)])
    got = labels.simulated_labels(table, LabelConfig(observer_lapse=0.0), seed=0)
    assert got.tolist() == [int(i % 3 == 0) for i in range(40)]
    with pytest.raises(ValueError, match="detector_seen"):
        labels.simulated_labels(table.drop(columns=["detector_seen"]), LabelConfig(), seed=0)


def test_export_writes_csv_and_label_studio_tasks(tmp_path):
    table = units({("near", "night"): 3})
    paths = labels.export_sample(table, tmp_path, LabelConfig())
    csv_rows = pd.read_csv(paths["csv"])
    assert csv_rows["image"].tolist() == table["image"].tolist()
    tasks = json.loads(open(paths["label_studio"]).read())
    assert [t["data"]["image_path"] for t in tasks] == table["image"].tolist()
    assert all(t["data"]["image"].startswith("/data/local-files/?d=") for t in tasks)
    config = open(paths["label_studio_config"]).read()
    assert '<Choice value="yes"/>' in config and '<Choice value="no"/>' in config


def test_csv_import_skips_bad_rows_by_line(tmp_path):
    known = {"a.jpg", "b.jpg", "c.jpg"}
    path = tmp_path / "labels.csv"
    path.write_text("image,label\na.jpg,yes\nzzz.jpg,no\nb.jpg,maybe\nc.jpg, NO \n")
    result = labels.read_labels(path, known, LabelConfig())
    assert dict(zip(result.labels["image"], result.labels["label"])) == {"a.jpg": 1, "c.jpg": 0}
    assert [(b["line"], b["image"]) for b in result.bad_rows] == [(3, "zzz.jpg"), (4, "b.jpg")]
    assert "unknown image" in result.bad_rows[0]["reason"] and "not yes/no" in result.bad_rows[1]["reason"]


def test_csv_without_label_column_is_an_error(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("image,answer\na.jpg,yes\n")
    with pytest.raises(ValueError, match="label"):
        labels.read_labels(path, {"a.jpg"}, LabelConfig())


def test_label_studio_export_import(tmp_path):
    config = LabelConfig()

    def task(image: str, choice: str | None) -> dict:
        result = (
            []
            if choice is None
            else [{"from_name": "discernible", "to_name": "image", "type": "choices", "value": {"choices": [choice]}}]
        )
        return {"id": 1, "data": {"image": config.image_url_prefix + image}, "annotations": [{"result": result}]}

    export = [
        task("a.jpg", "yes"),
        task("b.jpg", "no"),
        task("x.jpg", "yes"),
        task("c.jpg", None),
        {"image": config.image_url_prefix + "c.jpg", "discernible": "yes"},
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    result = labels.read_labels(path, {"a.jpg", "b.jpg", "c.jpg"}, config)
    assert dict(zip(result.labels["image"], result.labels["label"])) == {"a.jpg": 1, "b.jpg": 0, "c.jpg": 1}
    assert [b["line"] for b in result.bad_rows] == [3, 4]


def test_imported_labels_merge_newest_wins(tmp_path):
    labels.store_imported(tmp_path, pd.DataFrame({"image": ["a", "b"], "label": [1, 0]}))
    labels.store_imported(tmp_path, pd.DataFrame({"image": ["b", "c"], "label": [1, 1]}))
    merged = labels.load_imported(tmp_path)
    assert dict(zip(merged["image"], merged["label"])) == {"a": 1, "b": 1, "c": 1}


@pytest.mark.parametrize("source", ["simulated", "human"])
def test_label_import_warns_when_the_build_ignores_human_labels(tmp_path, monkeypatch, capsys, source):
    from benchfoundry.benchmarks.syndor.stages import label_stage
    from benchfoundry.cli.main import main
    from benchfoundry.configs.build import BuildConfig

    config = BuildConfig().model_dump(mode="json")
    config["syndor"]["discern"]["labels"]["source"] = source
    (tmp_path / "build.json").write_text(json.dumps({"config": config}))
    seen = []

    def fake_import(out, build_config, file):
        seen.append(build_config.syndor.discern.labels.source)
        return {"imported": 2, "bad_rows": [], "labels": str(tmp_path / "labels" / "imported.parquet")}

    monkeypatch.setattr(label_stage, "import_labels", fake_import)
    assert main(["syndor", "label-import", str(tmp_path), str(tmp_path / "labels.csv")]) == 0
    captured = capsys.readouterr()
    assert seen == [source] and "imported 2 labels" in captured.out
    warned = (
        "syndor.discern.labels.source" in captured.err and "--set syndor.discern.labels.source=human" in captured.err
    )
    assert warned == (source == "simulated")
    assert ("rerun the build to train the classifier on them" in captured.out) == (source == "human")


def test_label_studio_tasks_of_the_wrong_shape_are_bad_rows(tmp_path):
    """Hand-edited or foreign exports: each malformed task is a bad row by position, the rest imports."""
    config = LabelConfig()
    good = {
        "data": {"image_path": "a.jpg"},
        "annotations": [{"result": [{"from_name": "discernible", "value": {"choices": ["yes"]}}]}],
    }
    export = [
        good,
        {"data": {"image_path": "b.jpg"}, "annotations": {"result": []}},
        {"data": {"image_path": "b.jpg"}, "annotations": ["yes"]},
        {"data": {"image_path": "b.jpg"}, "annotations": [{"result": {"value": {"choices": ["no"]}}}]},
        {"data": {"image_path": "b.jpg"}, "annotations": [{"result": ["no"]}]},
        {"data": {"image_path": "b.jpg"}, "annotations": [{"result": [{"value": ["no"]}]}]},
        "b.jpg",
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    result = labels.read_labels(path, {"a.jpg", "b.jpg"}, config)
    assert dict(zip(result.labels["image"], result.labels["label"])) == {"a.jpg": 1}
    assert [b["line"] for b in result.bad_rows] == [2, 3, 4, 5, 6, 7]
    reasons = [b["reason"] for b in result.bad_rows]
    assert "annotations" in reasons[0] and "annotations" in reasons[1]
    assert "result" in reasons[2] and "result" in reasons[3] and "value" in reasons[4] and "str" in reasons[5]


def test_csv_that_is_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("image,label\nbüro.jpg,yes\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1\.csv: not UTF-8"):
        labels.read_labels(path, {"büro.jpg"}, LabelConfig())
    bom = tmp_path / "bom.csv"
    bom.write_bytes("image,label\nbüro.jpg,yes\n".encode("utf-8-sig"))
    assert labels.read_labels(bom, {"büro.jpg"}, LabelConfig()).labels["image"].tolist() == ["büro.jpg"]


def test_conflicting_duplicates_are_refused_on_both_rows(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("image,label\na.jpg,yes\nb.jpg,no\na.jpg,no\nb.jpg,no\nc.jpg,yes\n")
    result = labels.read_labels(path, {"a.jpg", "b.jpg", "c.jpg"}, LabelConfig())
    assert dict(zip(result.labels["image"], result.labels["label"])) == {"b.jpg": 0, "c.jpg": 1}
    assert [(b["line"], b["image"]) for b in result.bad_rows] == [(2, "a.jpg"), (4, "a.jpg")]
    assert all(
        "conflicting" in b["reason"] and "line 2" in b["reason"] and "line 4" in b["reason"] for b in result.bad_rows
    )


def _label_build(tmp_path, monkeypatch):
    """A build record whose labelling units are a.jpg and b.jpg (the features manifest is faked)."""
    from benchfoundry.benchmarks.syndor.stages import label_stage
    from benchfoundry.configs.build import BuildConfig

    config = BuildConfig().model_dump(mode="json")
    config["syndor"]["discern"]["labels"]["source"] = "human"
    (tmp_path / "build.json").write_text(json.dumps({"config": config}))
    monkeypatch.setattr(label_stage, "_built_units", lambda out, section: pd.DataFrame({"image": ["a.jpg", "b.jpg"]}))
    return label_stage


def test_label_import_keeps_bad_rows_for_the_build_and_refuses_an_all_bad_file(tmp_path, monkeypatch, capsys):
    from benchfoundry.cli.main import main

    label_stage = _label_build(tmp_path, monkeypatch)
    first = tmp_path / "first.csv"
    first.write_text("image,label\na.jpg,yes\nzzz.jpg,no\n")
    assert main(["syndor", "label-import", str(tmp_path), str(first)]) == 0
    directory = labels.labels_dir(tmp_path)
    stored = (directory / labels.IMPORTED).read_bytes()
    kept_problems = (directory / labels.IMPORT_PROBLEMS).read_bytes()
    found = label_stage.import_problems(str(tmp_path))
    assert [(p["stage"], p["item"], p["path"]) for p in found] == [("label-import", f"{first}:3", str(first))]
    assert "zzz.jpg" in found[0]["reason"]
    capsys.readouterr()

    bad = tmp_path / "bad.csv"
    bad.write_text("image,label\na.jpg,maybe\nqqq.jpg,yes\n")
    assert main(["syndor", "label-import", str(tmp_path), str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"error: {bad}: no usable label (2 bad rows)" in err and "earlier imports are kept" in err
    assert (directory / labels.IMPORTED).read_bytes() == stored
    assert (directory / labels.IMPORT_PROBLEMS).read_bytes() == kept_problems


def test_conflicting_labels_drop_the_label_imported_earlier(tmp_path, monkeypatch):
    from benchfoundry.configs.build import BuildConfig

    label_stage = _label_build(tmp_path, monkeypatch)
    first = tmp_path / "first.csv"
    first.write_text("image,label\na.jpg,yes\nb.jpg,no\n")
    label_stage.import_labels(str(tmp_path), BuildConfig(), str(first))
    second = tmp_path / "second.csv"
    second.write_text("image,label\na.jpg,no\na.jpg,yes\n")
    result = label_stage.import_labels(str(tmp_path), BuildConfig(), str(second))
    stored = labels.load_imported(labels.labels_dir(tmp_path))
    # a.jpg's yes from the first file is gone with both of the second file's answers; b.jpg is untouched
    assert dict(zip(stored["image"], stored["label"])) == {"b.jpg": 0}
    assert result["imported"] == 0 and result["labels"] is not None
    found = label_stage.import_problems(str(tmp_path))
    assert sorted(p["item"] for p in found) == [f"{second.resolve()}:2", f"{second.resolve()}:3"]
    assert all("conflicting" in p["reason"] and "earlier" in p["reason"] and "dropped" in p["reason"] for p in found)


def test_import_problems_point_at_the_resolved_file_and_are_written_before_the_labels(tmp_path, monkeypatch):
    from benchfoundry.configs.build import BuildConfig

    label_stage = _label_build(tmp_path, monkeypatch)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "rel.csv").write_text("image,label\na.jpg,yes\nzzz.jpg,no\n")
    monkeypatch.chdir(tmp_path / "in")
    label_stage.import_labels(str(tmp_path), BuildConfig(), "rel.csv")
    found = label_stage.import_problems(str(tmp_path))
    assert [p["path"] for p in found] == [str((tmp_path / "in" / "rel.csv").resolve())]
    assert Path(found[0]["path"]).is_absolute() and Path(found[0]["path"]).is_file()

    directory = labels.labels_dir(tmp_path)
    stored = (directory / labels.IMPORTED).read_bytes()
    (tmp_path / "in" / "next.csv").write_text("image,label\nb.jpg,no\nqqq.jpg,yes\n")

    def disk_full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(labels, "store_imported", disk_full)
    with pytest.raises(OSError):
        label_stage.import_labels(str(tmp_path), BuildConfig(), "next.csv")
    # the new problems are on disk though the labels could not be written; the labels are unchanged
    assert [p["item"] for p in label_stage.import_problems(str(tmp_path))] == [
        f"{(tmp_path / 'in' / 'next.csv').resolve()}:3"
    ]
    assert (directory / labels.IMPORTED).read_bytes() == stored


def test_label_import_of_a_non_utf8_csv_exits_2_naming_it(tmp_path, monkeypatch, capsys):
    from benchfoundry.cli.main import main

    _label_build(tmp_path, monkeypatch)
    path = tmp_path / "latin1.csv"
    path.write_bytes("image,label\nb\xfcro.jpg,yes\n".encode("latin-1"))
    assert main(["syndor", "label-import", str(tmp_path), str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not UTF-8" in err and "Traceback" not in err
