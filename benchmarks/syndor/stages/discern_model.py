"""The discernibility classifier: Random Forest + XGBoost soft vote, stratified k-fold CV, save/load."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from xgboost import XGBClassifier

from benchfoundry.benchmarks.syndor.discern_config import ClassifierConfig
from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.buildinfo import package_versions

MODEL_FILE = "model.joblib"
MODEL_JSON = "model.json"
CLASSES = (0, 1)
#: The module a model pickled by a build made before the benchmark's folder had an inside names for the ensemble.
PICKLED_BEFORE = "benchfoundry.benchmarks.syndor.discern_model"


class SoftVoteEnsemble(ClassifierMixin, BaseEstimator):
    """Mean of the members' class probabilities (a soft vote with equal weights)."""

    def __init__(self, members: Sequence[Any]) -> None:
        self.members = members

    def fit(self, x: np.ndarray, y: np.ndarray) -> SoftVoteEnsemble:
        self.fitted_ = [clone(member).fit(x, y) for member in self.members]
        self.classes_ = self.fitted_[0].classes_
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return np.mean([member.predict_proba(x) for member in self.fitted_], axis=0)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(x), axis=1)]


def make_ensemble(config: ClassifierConfig, seed: int) -> SoftVoteEnsemble:
    forest = RandomForestClassifier(
        n_estimators=config.rf_trees, max_depth=config.rf_max_depth, random_state=seed, n_jobs=config.n_jobs
    )
    boosted = XGBClassifier(
        n_estimators=config.xgb_trees,
        max_depth=config.xgb_max_depth,
        learning_rate=config.xgb_learning_rate,
        random_state=seed,
        n_jobs=config.n_jobs,
        tree_method="hist",
        eval_metric="logloss",
    )
    return SoftVoteEnsemble([forest, boosted])


def make_tree(config: ClassifierConfig, seed: int) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(max_depth=config.tree_max_depth, random_state=seed)


def scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, Any]:
    return {
        "macro_f1": float(f1_score(y_true, y_pred, average="macro", labels=list(CLASSES), zero_division=0)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "confusion_matrix": confusion_matrix(y_true, y_pred, labels=list(CLASSES)).tolist(),
    }


def usable_folds(y: np.ndarray, requested: int) -> int:
    """Folds stratified CV can use: at most the smallest class count (0 when CV is impossible)."""
    counts = [int(np.sum(y == c)) for c in CLASSES]
    folds = min(requested, min(counts))
    return folds if folds >= 2 else 0


def cross_validate(x: np.ndarray, y: np.ndarray, config: ClassifierConfig, seed: int) -> dict[str, Any]:
    """Stratified k-fold CV of the ensemble and of a single tree: out-of-fold scores and per-fold F1."""
    counts = {str(c): int(np.sum(y == c)) for c in CLASSES}
    folds = usable_folds(y, config.folds)
    report: dict[str, Any] = {
        "rows": int(len(y)),
        "class_counts": counts,
        "folds_requested": config.folds,
        "folds_used": folds,
    }
    if folds == 0:
        report["skipped"] = f"cross-validation needs at least 2 rows of each class; class counts {counts}"
        return report
    if folds < config.folds:
        report["note"] = f"folds reduced from {config.folds} to {folds}: the smallest class has {folds} rows"
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for name, model in (("ensemble", make_ensemble(config, seed)), ("decision_tree", make_tree(config, seed))):
        predicted = np.empty_like(y)
        fold_f1 = []
        for train, test in splitter.split(x, y):
            fitted = clone(model).fit(x[train], y[train])
            predicted[test] = fitted.predict(x[test])
            fold_f1.append(float(f1_score(y[test], predicted[test], average="macro", zero_division=0)))
        report[name] = {**scores(y, predicted), "fold_macro_f1": fold_f1}
    return report


def fit_and_test(
    x: np.ndarray, y: np.ndarray, x_test: np.ndarray, y_test: np.ndarray, config: ClassifierConfig, seed: int
) -> tuple[Any, dict[str, Any]]:
    """The ensemble fitted on (x, y) and the held-out report: the ensemble and a single decision tree, each fitted
    on (x, y), scored once on (x_test, y_test); with no held-out rows the report says so."""
    model = fit_model(x, y, config, seed)
    report: dict[str, Any] = {
        "rows": int(len(y_test)),
        "class_counts": {str(c): int(np.sum(y_test == c)) for c in CLASSES},
    }
    if not len(y_test):
        return model, {**report, "skipped": "no labelled image is held out"}
    tree = make_tree(config, seed).fit(x, y) if len(np.unique(y)) > 1 else model
    for name, fitted in (("ensemble", model), ("decision_tree", tree)):
        report[name] = scores(y_test, fitted.predict(x_test))
    return model, report


def fit_model(x: np.ndarray, y: np.ndarray, config: ClassifierConfig, seed: int) -> Any:
    """The ensemble fitted on all rows; with a single class, a constant predictor of that class."""
    if len(np.unique(y)) < 2:
        return DummyClassifier(strategy="most_frequent").fit(x, y)
    return make_ensemble(config, seed).fit(x, y)


def save_model(model: Any, directory: Path, features: Sequence[str], info: dict[str, Any]) -> dict[str, str]:
    """The fitted model (joblib) and a JSON card: feature order, classes, package versions, `info`."""
    directory.mkdir(parents=True, exist_ok=True)
    with atomic_path(directory / MODEL_FILE) as tmp:
        joblib.dump(model, tmp)
    card = {
        "kind": type(model).__name__,
        "features": list(features),
        "classes": [int(c) for c in model.classes_],
        "versions": package_versions(("scikit-learn", "xgboost-cpu", "numpy", "joblib")),
        **info,
    }
    write_json_atomic(directory / MODEL_JSON, card)
    return {"model": str(directory / MODEL_FILE), "card": str(directory / MODEL_JSON)}


def load_model(directory: Path) -> tuple[Any, list[str]]:
    """The saved model and its feature order."""
    card = json.loads((directory / MODEL_JSON).read_text())
    sys.modules.setdefault(PICKLED_BEFORE, sys.modules[__name__])
    return joblib.load(directory / MODEL_FILE), list(card["features"])
