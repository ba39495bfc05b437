"""The RF + XGBoost soft-vote classifier: CV on separable data, fold reduction, save/load."""

from __future__ import annotations

import json

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


@pytest.mark.parametrize("seed", [0, 1])
def test_cv_is_seeded(seed):
    x, y = separable(100)
    assert dm.cross_validate(x, y, CFG, seed) == dm.cross_validate(x, y, CFG, seed)
