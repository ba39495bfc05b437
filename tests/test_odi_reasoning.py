"""ODI reasoning (OR) items: answers against distances and bearings computed here from the scenes' positions,
margins (a near-tie makes no item), options, determinism, and OR proposals of the model backend."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from benchfoundry.configs.odi import SyntheticPanoramaConfig
from benchfoundry.tasks.odi.model_questions import model_items, qa_request
from benchfoundry.tasks.odi.question_builder import Fact, plural
from benchfoundry.tasks.odi.questions import template_items
from benchfoundry.tasks.odi.synthetic_panoramas import render_spec, scene_named

MARGIN = 7.5
SECTORS = {"in front of me": 0.0, "on my right": 90.0, "behind me": 180.0, "on my left": 270.0}
TURNS = {"turn 90° to my right": 90.0, "turn 90° to my left": 270.0, "turn around": 180.0}
PEOPLE = {"upright": ("m.npz", "t.png", 1.7), "walking": ("m.npz", "t.png", 1.7)}


def scene_truth(name: str) -> list[dict]:
    """The scene's truth records as the renderer writes them (people given a made-up mesh; nothing rendered)."""
    _, truth = render_spec(scene_named(name), PEOPLE, SyntheticPanoramaConfig(), 0, Path("a.png"), Path("b.npy"))
    return truth


def facts_of(truth: list[dict]) -> list[Fact]:
    return [
        Fact(
            r["id"],
            r["category"],
            r["theta_deg"],
            r["phi_deg"],
            colour=r["colour"],
            material=r["material"],
            text=r["text"],
            pose=r.get("pose"),
            position_m=tuple(r["position_m"]),
        )
        for r in truth
    ]


def bearing(p: list[float]) -> float:
    """Clockwise bearing (deg, [0, 360)) of a point from the viewer at the origin, +Y ahead, +X on the right."""
    return math.degrees(math.atan2(p[0], p[1])) % 360.0


def off(angle: float, centre: float) -> float:
    """Unsigned angular distance (deg) between two bearings."""
    d = (angle - centre) % 360.0
    return min(d, 360.0 - d)


def or_items(name: str, seed: int = 3) -> tuple[list[dict], dict[int, dict]]:
    truth = scene_truth(name)
    census = Counter(r["category"] for r in truth)
    items = template_items(name, f"odi/panoramas/{name}.png", facts_of(truth), seed, MARGIN, census)
    return [i for i in items if i["task"] == "OR"], {r["id"]: r for r in truth}


def check_which(item: dict, records: dict[int, dict]) -> str:
    """Check one "which is …" item against the truth; returns its kind."""
    options = [records[i] for i in item["instance_ids"]]
    assert options[0]["category"] == item["answer"] and len(options) == 4
    for r in options:
        assert f"the {r['category']}" in item["question"]
    q = item["question"]
    if "closest to me" in q or "farthest from me" in q:
        dist = sorted((math.hypot(r["position_m"][0], r["position_m"][1]), r["category"]) for r in options)
        if "farthest" in q:
            dist = [(-d, c) for d, c in dist][::-1]
            assert dist[0][1] == item["answer"] and -dist[1][0] * 1.25 <= -dist[0][0] + 1e-9
        else:
            assert dist[0][1] == item["answer"] and dist[1][0] >= 1.25 * dist[0][0] - 1e-9
        return "nearest"
    faced = re.match(r"If I turn to face the (.+) and then turn around, which is in front of me", q)
    if faced:
        (a,) = [r for r in records.values() if r["category"] == faced.group(1)]
        heading, centre, kind = bearing(a["position_m"]) + 180.0, 0.0, "face"
    else:
        words, phrase = re.match(r"If I (.+), which is now (.+?):", q).groups()
        heading, centre, kind = TURNS[words], SECTORS[phrase], "turn"
    rel = [off(bearing(r["position_m"]) - heading, centre) for r in options]
    assert rel[0] <= 45.0 - MARGIN and all(d >= 45.0 + MARGIN for d in rel[1:]), (q, rel)
    return kind


@pytest.mark.parametrize("name", ["living_room", "courtyard"])
def test_or_items_of_the_scenes_agree_with_their_positions(name: str) -> None:
    items, records = or_items(name)
    closed = {i["id"].removesuffix(":closed"): i for i in items if i["form"] == "closed"}
    opened = {i["id"].removesuffix(":open"): i for i in items if i["form"] == "open"}
    assert closed and closed.keys() == opened.keys()
    kinds = Counter()
    for key, item in closed.items():
        assert opened[key]["question"] == item["question"] and opened[key]["answer"] == item["answer"]
        assert opened[key]["options"] == [] and item["source"] == "template" and item["verified"] is False
        options = item["options"]
        assert len(options) == len(set(options)) == 4 and item["answer"] in options
        assert all(o == item["answer"] or (o not in item["answer"] and item["answer"] not in o) for o in options)
        assert all(abs(records[i]["phi_deg"]) <= 60.0 for i in item["instance_ids"])  # no rug under me
        count = re.match(r"How many (.+) are (.+)\?", item["question"])
        if count:
            category = records[item["instance_ids"][0]]["category"]
            assert count.group(1) == plural(category)
            centre = SECTORS[count.group(2)]
            rel = [off(bearing(r["position_m"]), centre) for r in records.values() if r["category"] == category]
            assert all(not 45.0 - MARGIN < d < 45.0 + MARGIN for d in rel)
            assert item["answer"] == str(sum(d < 45.0 for d in rel))
            kinds["count"] += 1
        else:
            assert sorted(options) == sorted(records[i]["category"] for i in item["instance_ids"])
            kinds[check_which(item, records)] += 1
    assert {"turn", "face", "count"} <= set(kinds) and kinds["nearest"] >= 2


def test_same_seed_same_items_and_the_seed_shuffles_the_options() -> None:
    items, _ = or_items("courtyard", seed=3)
    assert or_items("courtyard", seed=3)[0] == items
    other, _ = or_items("courtyard", seed=4)
    assert [i["options"] for i in other] != [i["options"] for i in items]


def at(instance_id: int, category: str, theta: float, dist: float) -> Fact:
    return Fact(
        instance_id,
        category,
        theta,
        0.0,
        position_m=(dist * math.sin(math.radians(theta)), dist * math.cos(math.radians(theta)), 0.5),
    )


def or_questions(facts: list[Fact], census: dict[str, int] | None = None, seed: int = 0) -> dict[str, str]:
    return {
        i["question"]: i["answer"]
        for i in template_items("p", "p.png", facts, seed, MARGIN, census)
        if i["task"] == "OR" and i["form"] == "closed"
    }


@pytest.mark.parametrize(("second", "asked"), [(2.3, False), (2.6, True)])
def test_a_near_tie_in_distance_makes_no_closest_question(second: float, asked: bool) -> None:
    facts = [
        at(1, "sofa", 10.0, 2.0),
        at(2, "table", 100.0, second),
        at(3, "desk", 200.0, 3.0),
        at(4, "piano", 250.0, 3.5),
    ]
    closest = {q: a for q, a in or_questions(facts).items() if "closest" in q}
    assert closest == ({"Which is closest to me: the desk, the piano, the sofa or the table?": "sofa"} if asked else {})


@pytest.mark.parametrize(("theta", "asked"), [(40.0, False), (36.0, True)])
def test_an_answer_near_a_sector_edge_makes_no_turn_question(theta: float, asked: bool) -> None:
    facts = [
        at(1, "sofa", theta, 2.0),
        at(2, "table", 170.0, 3.0),
        at(3, "desk", 200.0, 3.0),
        at(4, "piano", 130.0, 3.5),
    ]
    behind = {q: a for q, a in or_questions(facts).items() if q.startswith("If I turn around, which is now behind me")}
    assert behind == (
        {"If I turn around, which is now behind me: the desk, the piano, the sofa or the table?": "sofa"}
        if asked
        else {}
    )


def test_a_distractor_near_a_sector_edge_is_never_an_option() -> None:
    facts = [
        at(1, "sofa", 0.0, 2.0),
        at(2, "table", 170.0, 3.0),
        at(3, "desk", 200.0, 3.0),
        at(4, "piano", 130.0, 3.5),
        at(5, "lamp", 50.0, 3.0),
    ]  # 5° from the front sector's right edge
    for seed in range(5):  # were the lamp allowed, five seeds would draw it with probability 1 − 4⁻⁵
        questions = or_questions(facts, seed=seed)
        assert "If I turn around, which is now behind me: the desk, the piano, the sofa or the table?" in questions


def test_counts_in_a_direction_need_a_complete_census_and_clear_sectors() -> None:
    facts = [at(1, "chair", 40.0, 2.0), at(2, "chair", 100.0, 2.0), at(3, "sofa", 180.0, 3.0)]
    counts = {q: a for q, a in or_questions(facts, {"chair": 2, "sofa": 1}).items() if "chairs" in q}
    assert list(counts.items()) in (
        [("How many chairs are behind me?", "0")],
        [("How many chairs are on my left?", "0")],
    )
    assert not [q for q in or_questions(facts, {"chair": 3, "sofa": 1}) if "chairs" in q]  # one chair not kept
    assert not [q for q in or_questions(facts) if q.startswith("How many")]


@pytest.mark.parametrize(
    ("noun", "many"),
    [
        ("chair", "chairs"),
        ("bench", "benches"),
        ("box", "boxes"),
        ("bookshelf", "bookshelves"),
        ("person", "people"),
        ("trash can", "trash cans"),
        ("potted plant", "potted plants"),
    ],
)
def test_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


def test_the_model_may_propose_or_items_which_stay_unverified() -> None:
    assert "OR (ODI reasoning" in qa_request([("sofa", 0.0, "a blue sofa")], 5)[0]["content"]
    proposals = [
        {
            "task": "OR",
            "question": "If I turn around, what is in front of me?",
            "answer": "television",
            "distractors": ["sofa", "lamp", "ball"],
        },
        {"task": "SS", "question": "?", "answer": "left", "distractors": ["right", "front", "back"]},
    ]
    items, problems = model_items(json.dumps(proposals), "room", "room.png", seed=1)
    assert [(i["task"], i["form"], i["source"], i["verified"]) for i in items] == [
        ("OR", "closed", "model", False),
        ("OR", "open", "model", False),
    ]
    assert sorted(items[0]["options"]) == ["ball", "lamp", "sofa", "television"]
    assert len(problems) == 1 and "proposal 1" in problems[0] and "'SS' is not one of" in problems[0]
