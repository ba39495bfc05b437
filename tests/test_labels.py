"""Cochran sample size, stratified sampling, export/import of labels, simulated observer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchfoundry.flows.params_discern import LabelConfig
from benchfoundry.tasks import labels


def units(sizes: dict[tuple[str, str], int]) -> pd.DataFrame:
    rows = []
    for (zone, group), size in sizes.items():
        for i in range(size):
            rows.append({"image": f"{zone}/{group}/{i:04d}.jpg", "variant": "raw", "zone": zone,
                         "lighting_group": group, "person_height_px": 10.0 + i % 50,
                         "michelson_contrast": (i % 10) / 20})
    return pd.DataFrame(rows)


def test_cochran_95_5_is_385_before_correction():
    cfg = LabelConfig(finite_population=False)
    assert labels.cochran_n0(1.96, 0.5, 0.05) == pytest.approx(384.16)
    assert labels.cochran_size(10**9, cfg) == 385


@pytest.mark.parametrize("population,published", [(1000, 278), (10000, 370), (100000, 383)])
def test_finite_population_correction_matches_published_tables(population, published):
    # Krejcie & Morgan style tables (95 % / 5 %, p = 0.5) after Cochran's correction
    assert labels.cochran_size(population, LabelConfig()) == published


def test_sample_never_exceeds_a_small_population():
    assert labels.cochran_size(12, LabelConfig()) <= 12
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
    cfg = LabelConfig(observer_min_height_px=30, observer_min_contrast=0.2, observer_lapse=0.0)
    table = units({("near", "night"): 200})
    got = labels.simulated_labels(table, cfg, seed=0)
    rule = (table["person_height_px"] >= 30) & (table["michelson_contrast"] >= 0.2)
    assert np.array_equal(got, rule.astype(int).to_numpy())


def test_simulated_observer_lapses_at_about_the_configured_rate():
    cfg = LabelConfig(observer_min_height_px=0, observer_min_contrast=0, observer_lapse=0.4)
    table = units({("near", "night"): 3000})
    got = labels.simulated_labels(table, cfg, seed=0)
    # a lapse answers at random, so about half the lapses flip a "yes" to "no"
    assert (got == 0).mean() == pytest.approx(0.2, abs=0.03)


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
    cfg = LabelConfig()

    def task(image: str, choice: str | None) -> dict:
        result = [] if choice is None else [
            {"from_name": "discernible", "to_name": "image", "type": "choices", "value": {"choices": [choice]}}]
        return {"id": 1, "data": {"image": cfg.image_url_prefix + image}, "annotations": [{"result": result}]}

    export = [task("a.jpg", "yes"), task("b.jpg", "no"), task("x.jpg", "yes"), task("c.jpg", None),
              {"image": cfg.image_url_prefix + "c.jpg", "discernible": "yes"}]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    result = labels.read_labels(path, {"a.jpg", "b.jpg", "c.jpg"}, cfg)
    assert dict(zip(result.labels["image"], result.labels["label"])) == {"a.jpg": 1, "b.jpg": 0, "c.jpg": 1}
    assert [b["line"] for b in result.bad_rows] == [3, 4]


def test_imported_labels_merge_newest_wins(tmp_path):
    labels.store_imported(tmp_path, pd.DataFrame({"image": ["a", "b"], "label": [1, 0]}))
    labels.store_imported(tmp_path, pd.DataFrame({"image": ["b", "c"], "label": [1, 1]}))
    merged = labels.load_imported(tmp_path)
    assert dict(zip(merged["image"], merged["label"])) == {"a": 1, "b": 1, "c": 1}


@pytest.mark.parametrize("source", ["simulated", "human"])
def test_label_import_warns_when_the_build_ignores_human_labels(tmp_path, monkeypatch, capsys, source):
    from benchfoundry.flows.cli import main
    from benchfoundry.flows.params import BuildConfig
    from benchfoundry.tasks import discern_stage

    config = BuildConfig().model_dump(mode="json")
    config["syndor"]["discern"]["labels"]["source"] = source
    (tmp_path / "build.json").write_text(json.dumps({"config": config}))
    seen = []

    def fake_import(out, build_config, file):
        seen.append(build_config.syndor.discern.labels.source)
        return {"imported": 2, "bad_rows": [], "labels": str(tmp_path / "labels" / "imported.parquet")}

    monkeypatch.setattr(discern_stage, "import_labels", fake_import)
    assert main(["syndor", "label-import", str(tmp_path), str(tmp_path / "labels.csv")]) == 0
    captured = capsys.readouterr()
    assert seen == [source] and "imported 2 labels" in captured.out
    warned = "syndor.discern.labels.source" in captured.err and "--set syndor.discern.labels.source=human" in captured.err
    assert warned == (source == "simulated")
    assert ("rerun the build to train the classifier on them" in captured.out) == (source == "human")
