"""The RF + XGBoost soft-vote classifier: CV on separable data, fold reduction, save/load."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from benchfoundry.benchmarks.syndor.discern_config import ClassifierConfig
from benchfoundry.benchmarks.syndor.stages import discern_model as dm

CFG = ClassifierConfig(rf_trees=30, xgb_trees=30)


def separable(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int)
    x[:, 0] += np.where(y == 1, 1.5, -1.5)
    return x, y


def test_cv_on_separable_data_scores_high_for_both_models():
    x, y = separable()
    report = dm.cross_validate(x, y, CFG, seed=0)
    assert report["folds_used"] == 5
    for name in ("ensemble", "decision_tree"):
        assert report[name]["macro_f1"] > 0.9 and report[name]["accuracy"] > 0.9
        assert np.sum(report[name]["confusion_matrix"]) == len(y)
        assert len(report[name]["fold_macro_f1"]) == 5


def test_cv_on_noise_scores_near_chance():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(200, 4)), rng.integers(0, 2, 200)
    assert dm.cross_validate(x, y, CFG, seed=0)["ensemble"]["accuracy"] < 0.7


def test_folds_shrink_to_the_smallest_class():
    x, y = separable(40)
    y[:] = 0
    y[:3] = 1
    report = dm.cross_validate(x, y, CFG, seed=0)
    assert report["folds_used"] == 3 and "reduced" in report["note"]


def test_single_class_skips_cv_and_fits_a_constant():
    x, _ = separable(20)
    y = np.ones(20, int)
    report = dm.cross_validate(x, y, CFG, seed=0)
    assert report["folds_used"] == 0 and "at least 2" in report["skipped"]
    assert np.all(dm.fit_model(x, y, CFG, seed=0).predict(x) == 1)


def test_ensemble_probabilities_are_the_mean_of_its_members():
    x, y = separable(120)
    model = dm.make_ensemble(CFG, seed=0).fit(x, y)
    members = np.mean([m.predict_proba(x) for m in model.fitted_], axis=0)
    assert np.allclose(model.predict_proba(x), members)
    assert np.allclose(model.predict_proba(x).sum(axis=1), 1)


def test_saved_model_reloads_with_identical_predictions(tmp_path):
    x, y = separable(150)
    model = dm.fit_model(x, y, CFG, seed=3)
    paths = dm.save_model(model, tmp_path, ["a", "b", "c", "d"], {"seed": 3})
    loaded, features = dm.load_model(tmp_path)
    assert features == ["a", "b", "c", "d"]
    assert np.array_equal(loaded.predict_proba(x), model.predict_proba(x))
    card = json.loads(open(paths["card"]).read())
    assert card["versions"]["scikit-learn"] and card["versions"]["xgboost-cpu"] and card["classes"] == [0, 1]


def test_a_model_pickled_under_the_module_the_ensemble_had_before_reloads(tmp_path):
    """A build made before the benchmark's folder had an inside pickled the ensemble as
    `benchfoundry.benchmarks.syndor.discern_model.SoftVoteEnsemble`; a rerun in a fresh process still loads it."""
    x, y = separable(150)
    model = dm.fit_model(x, y, CFG, seed=3)
    here = dm.SoftVoteEnsemble.__module__
    try:
        dm.SoftVoteEnsemble.__module__ = dm.PICKLED_BEFORE
        sys.modules[dm.PICKLED_BEFORE] = dm
        dm.save_model(model, tmp_path, ["a", "b", "c", "d"], {"seed": 3})
    finally:
        dm.SoftVoteEnsemble.__module__ = here
        del sys.modules[dm.PICKLED_BEFORE]
    assert dm.PICKLED_BEFORE.encode() in (tmp_path / dm.MODEL_FILE).read_bytes()
    np.save(tmp_path / "x.npy", x)
    check = (
        "import sys, numpy as np\n"
        "from benchfoundry.benchmarks.syndor.stages import discern_model as dm\n"
        f"model, _ = dm.load_model(__import__('pathlib').Path({str(tmp_path)!r}))\n"
        f"print(np.round(model.predict_proba(np.load({str(tmp_path / 'x.npy')!r})), 6).tolist())"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == np.round(model.predict_proba(x), 6).tolist()


@pytest.mark.parametrize("seed", [0, 1])
def test_cv_is_seeded(seed):
    x, y = separable(100)
    assert dm.cross_validate(x, y, CFG, seed) == dm.cross_validate(x, y, CFG, seed)
