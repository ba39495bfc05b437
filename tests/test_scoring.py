"""Presence metrics against hand-worked confusion matrices; E5Score and z-score arithmetic."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from benchfoundry.benchmarks.syndor.harnesses import scoring
from benchfoundry.benchmarks.syndor.harnesses.scoring import INVALID, parse_presence, presence_metrics

# Six predictions, worked by hand:
#   truth  1    1    1    0    0    1
#   text  "1"  "0"  "1 " "0"  "1"  "yes"
#   pred   1    0    1    0    1    invalid
# class 1: tp 2 (#0, #2), fp 1 (#4), fn 2 (#1, #5) → P 2/3, R 1/2, F1 4/7
# class 0: tp 1 (#3),     fp 1 (#1), fn 1 (#4)     → P 1/2, R 1/2, F1 1/2
# accuracy 3/6; macro P 7/12, macro R 1/2, macro F1 15/28
TRUTH = [1, 1, 1, 0, 0, 1]
TEXTS = ["1", "0", "1 ", "0", "1", "yes"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1", 1),
        ("0", 0),
        (" 1.", 1),
        ("Answer: 0", 0),
        ("10", INVALID),
        ("0 or 1", INVALID),
        ("yes", INVALID),
        ("", INVALID),
    ],
)
def test_parse_presence(text: str, expected: int) -> None:
    assert parse_presence(text) == expected


def test_presence_metrics_hand_worked() -> None:
    pred = [parse_presence(t) for t in TEXTS]
    m = presence_metrics(TRUTH, pred)
    assert m["n"] == 6 and m["n_invalid"] == 1
    assert m["accuracy"] == pytest.approx(3 / 6)
    assert m["per_class"]["1"]["tp"] == 2 and m["per_class"]["1"]["fp"] == 1 and m["per_class"]["1"]["fn"] == 2
    assert m["per_class"]["0"]["tp"] == 1 and m["per_class"]["0"]["fp"] == 1 and m["per_class"]["0"]["fn"] == 1
    assert m["per_class"]["1"]["f1"] == pytest.approx(4 / 7)
    assert m["macro_precision"] == pytest.approx(7 / 12)
    assert m["macro_recall"] == pytest.approx(1 / 2)
    assert m["macro_f1"] == pytest.approx(15 / 28)


def test_presence_metrics_match_sklearn() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 200).tolist()
    pred = rng.choice([0, 1, INVALID], 200, p=[0.45, 0.45, 0.1]).tolist()
    m = presence_metrics(truth, pred)
    assert m["accuracy"] == pytest.approx(accuracy_score(truth, pred))
    kw = {"labels": [0, 1], "average": "macro", "zero_division": 0}
    assert m["macro_precision"] == pytest.approx(precision_score(truth, pred, **kw))
    assert m["macro_recall"] == pytest.approx(recall_score(truth, pred, **kw))
    assert m["macro_f1"] == pytest.approx(f1_score(truth, pred, **kw))


def test_single_class_group_averages_only_present_classes() -> None:
    # all answers 1, predictions 1,1,0: class 1 P 1, R 2/3, F1 0.8; class 0 P 0, R 0 (fp only) → F1 0
    m = presence_metrics([1, 1, 1], [1, 1, 0])
    assert m["macro_f1"] == pytest.approx((0.8 + 0.0) / 2)
    only_ones = presence_metrics([1, 1], [1, 1])
    assert only_ones["macro_f1"] == pytest.approx(1.0) and list(only_ones["per_class"]) == ["1"]


def test_presence_groups_split_by_distance_and_lighting() -> None:
    radii = [5.4, 5.4, 10.8, 10.8, 23.0, 23.0]
    splits = ["day", "day", "night", "night", "nv", "nv"]
    items = [
        {"truth": t, "pred": parse_presence(x), "radius": r, "split": s}
        for t, x, r, s in zip(TRUTH, TEXTS, radii, splits)
    ]
    groups = {(g["distance"], g["split"]): g for g in scoring.presence_groups(items, deployable=0.8)}
    # cell (5.4, day): truth 1,1 pred 1,0 → accuracy 1/2
    assert groups[(5.4, "day")]["accuracy"] == pytest.approx(0.5) and groups[(5.4, "day")]["n"] == 2
    # cell (10.8, night): truth 1,0 pred 1,0 → all right, deployable
    assert groups[(10.8, "night")]["accuracy"] == 1.0 and groups[(10.8, "night")]["deployable"]
    # cell (23, nv): truth 0,1 pred 1,invalid → 0
    assert groups[(23.0, "nv")]["accuracy"] == 0.0 and groups[(23.0, "nv")]["n_invalid"] == 1
    assert groups[("all", "all")]["macro_f1"] == pytest.approx(15 / 28)
    assert groups[("all", "night")]["n"] == 2 and groups[(5.4, "all")]["n"] == 2
    order = [(g["distance"], g["split"]) for g in scoring.presence_groups(items, deployable=0.8)]
    assert order[0] == (5.4, "day") and order[-1] == ("all", "all")


def _fake_embed(table: dict[str, list[float]]):
    def embed(texts: list[str]) -> np.ndarray:
        rows = np.array([table[t] for t in texts], dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return embed


def test_e5_scores_are_cosines_and_underscores_read_as_words() -> None:
    embed = _fake_embed({"walking": [1, 0], "kicking": [0, 1], "a kick": [1, 1], "cover face": [3, 4]})
    scores = scoring.e5_scores(["walking", "a kick", "cover face"], ["walking", "kicking", "kicking"], embed)
    assert scores == pytest.approx([1.0, 1 / math.sqrt(2), 4 / 5])
    assert scoring.action_text("cover_face_with__hands") == "cover face with hands"


def test_zscores_and_action_groups() -> None:
    z, ref = scoring.zscores([1.0, 2.0, 3.0])
    std = math.sqrt(2 / 3)
    assert z == pytest.approx([-1 / std, 0.0, 1 / std]) and ref["mean"] == 2.0 and ref["std"] == pytest.approx(std)
    flat, flat_ref = scoring.zscores([1.0, 1.0 - 1e-9])  # rounding-level spread is no spread
    assert np.isnan(flat).all() and flat_ref["std"] is None
    embed = _fake_embed({"walking": [1, 0], "kicking": [0, 1], "kick": [3, 4]})
    items = [
        {"truth": "walking", "prediction": "walking", "radius": 5.4, "split": "day"},
        {"truth": "kicking", "prediction": "kick", "radius": 5.4, "split": "day"},
        {"truth": "kicking", "prediction": "  ", "radius": 23.0, "split": "night"},
        {"truth": "walking", "prediction": "kick", "radius": 23.0, "split": "day"},
    ]
    result = scoring.score_actions(items, embed, protocol="project")
    groups = {(g["distance"], g["split"]): g for g in result["groups"]}
    # item scores: 5.4 m: 1, 0.8 (mean 0.9, std 0.1); 23 m: 0 (empty → invalid), 0.6 (mean 0.3, std 0.3)
    assert groups[(5.4, "day")]["e5score"] == pytest.approx(0.9)
    assert groups[(23.0, "night")]["n_invalid"] == 1 and groups[(23.0, "night")]["e5score"] == 0.0
    # z within each distance range: the two items of a range sit at −1 and +1
    assert groups[(23.0, "night")]["z"] == pytest.approx(-1.0) and groups[(23.0, "day")]["z"] == pytest.approx(1.0)
    assert groups[(5.4, "all")]["z"] == pytest.approx(0.0, abs=1e-12)
    assert result["z_reference"]["5.4"] == pytest.approx({"mean": 0.9, "std": 0.1, "n": 2})
    assert [i["e5"] for i in result["items"]] == pytest.approx([1.0, 0.8, 0.0, 0.6])


def test_authors_protocol_embeds_the_released_action_and_the_empty_reply() -> None:
    """As the authors' e5_score.py: reference = `action` as released, every reply embedded as it is."""
    embed = _fake_embed({"stepping_over": [1, 0], "stepping over something": [0, 1], "": [3, 4]})
    items = [
        {"truth": "stepping over something", "action": "stepping_over", "prediction": p, "radius": 5.4, "split": "day"}
        for p in ("stepping_over", "stepping over something", "")
    ]
    authors = scoring.score_actions(items, embed, protocol="authors")
    assert [i["e5"] for i in authors["items"]] == pytest.approx([1.0, 0.0, 3 / 5])
    assert authors["groups"][-1]["n_invalid"] == 1 and authors["groups"][-1]["e5score"] == pytest.approx(1.6 / 3)
    project = scoring.score_actions(items, embed, protocol="project")
    assert [i["e5"] for i in project["items"]] == pytest.approx([0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="protocol"):
        scoring.score_actions(items, embed, protocol="paper")


def test_zscores_across_models_pool_every_models_items_per_distance() -> None:
    a = {"items": [{"radius": 5.4, "e5": 1.0}, {"radius": 5.4, "e5": 0.8}, {"radius": 23.0, "e5": 0.2}]}
    b = {"items": [{"radius": 5.4, "e5": 0.6}, {"radius": 5.4, "e5": 0.6}, {"radius": 23.0, "e5": 0.2}]}
    z = scoring.zscores_across_models({"a": a, "b": b})
    pooled = np.array([1.0, 0.8, 0.6, 0.6])
    assert z["a"]["5.4"] == pytest.approx((0.9 - pooled.mean()) / pooled.std())
    assert z["b"]["5.4"] == pytest.approx((0.6 - pooled.mean()) / pooled.std())
    assert z["a"]["23.0"] is None  # no spread at 23 m


def test_match_predictions_reports_bad_lines_by_number() -> None:
    key = {
        ("human_detection", "images/a.jpg"): {"truth": 1, "radius": 5.4, "split": "day"},
        ("action_recognition", "images/a.jpg"): {"truth": "walking", "radius": 5.4, "split": "day"},
    }
    prompts = {"P-hpc": "human_detection", "P-act": "action_recognition"}
    lines = [
        json.dumps({"img_path": "images/a.jpg", "prompt": "P-hpc", "prediction": "1"}),
        "{not json",
        json.dumps({"img_path": "images/zzz.jpg", "prompt": "P-hpc", "prediction": "1"}),
        json.dumps({"img_path": "images/a.jpg", "prompt": "other", "prediction": "1"}),
        json.dumps({"img_path": "images/a.jpg", "prompt": "P-hpc", "prediction": "0"}),
        json.dumps({"img_path": "images/a.jpg", "prompt": "P-act"}),
        "",
        json.dumps({"img_path": "images/a.jpg", "prompt": "P-act", "prediction": "walk"}),
    ]
    matched, problems = scoring.match_predictions(lines, key, prompts)
    assert [p["line"] for p in problems] == [2, 3, 4, 5, 6]
    assert len(matched["human_detection"]) == 1 and matched["human_detection"][0]["prediction"] == "1"
    assert matched["action_recognition"][0]["prediction"] == "walk"
    cov = scoring.coverage(matched, key)
    assert cov["human_detection"]["day"] == {"items": 1, "predicted": 1, "missing": 0}
