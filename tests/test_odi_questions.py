"""ODI-Bench template questions: answers from independent geometry, the distractor rule, uniqueness."""

from __future__ import annotations

import math

import pytest

from benchfoundry.tasks.odi.question_builder import Fact, quadrant
from benchfoundry.tasks.odi.questions import template_items

LABELS_CLOCKWISE = ["front", "front-right", "right", "back-right", "back", "back-left", "left", "front-left"]


def bearing_label(bearing: float) -> str:
    """The 8-way label of a clockwise bearing, counted by hand from the bins' centres."""
    return LABELS_CLOCKWISE[round((bearing % 360) / 45) % 8]


def at(instance_id: int, category: str, theta: float, dist: float = 3.0, **extra: object) -> Fact:
    x, y = dist * math.sin(math.radians(theta)), dist * math.cos(math.radians(theta))
    return Fact(instance_id, category, theta, 0.0, position_m=(x, y, 1.0), **extra)


FACTS = [
    at(1, "sofa", 0.0, colour="blue", material="fabric"),
    at(2, "chair", 100.0, colour="red", material="wood"),
    at(3, "chair", 110.0, colour="green", material="wood"),  # same quadrant as the red chair
    at(4, "lamp", -60.0, colour="yellow", material="metal"),
    at(5, "sign", 190.0, colour="white", material="paper", text="EXIT"),
    at(6, "person", 150.0, pose="walking"),
    at(7, "ball", 22.0, colour="orange", material="rubber"),  # 0.5° from the front/front-right edge
]


CENSUS = {"sofa": 1, "chair": 3, "lamp": 1, "sign": 1, "person": 1, "ball": 1}  # a third chair was dropped


def items_by(task: str, form: str = "closed") -> list[dict]:
    return [
        i
        for i in template_items("room", "odi/panoramas/room.png", FACTS, seed=3, census=CENSUS)
        if i["task"] == task and i["form"] == form
    ]


def answer_of(items: list[dict], words: str) -> str:
    (item,) = [i for i in items if words in i["question"]]
    return item["answer"]


def test_every_closed_item_has_distinct_options_holding_the_answer_and_keeping_the_rule() -> None:
    items = template_items("room", "odi/panoramas/room.png", FACTS, seed=3, census=CENSUS)
    closed = [i for i in items if i["form"] == "closed"]
    assert {i["task"] for i in closed} >= {"OA", "HA", "existence", "counting", "OCR", "EVO", "AVO", "RD", "SS", "OR"}
    for item in closed:
        options = item["options"]
        assert len(options) == len(set(options)) in (2, 4) and item["answer"] in options
        assert all(o == item["answer"] or (o not in item["answer"] and item["answer"] not in o) for o in options)
        assert item["source"] == "template" and item["verified"] is False
    assert len({i["id"] for i in items}) == len(items)
    assert template_items("room", "odi/panoramas/room.png", FACTS, seed=3, census=CENSUS) == items
    shuffled = template_items("room", "odi/panoramas/room.png", FACTS, seed=4, census=CENSUS)
    # the seed shuffles options; OR items also draw their answer among the clear candidates with it
    assert [i["answer"] for i in shuffled if i["task"] != "OR"] == [i["answer"] for i in items if i["task"] != "OR"]


def test_attributes_are_asked_only_where_the_phrase_names_one_object() -> None:
    oa = items_by("OA")
    assert answer_of(oa, "colour is the sofa in front of me") == "blue"
    assert answer_of(oa, "the lamp on my left made of") == "metal"
    assert not [i for i in oa if "chair" in i["question"]]  # two chairs on my right
    assert answer_of(items_by("OCR"), "the sign behind me") == "EXIT"
    assert answer_of(items_by("HA"), "the person behind me") == "walking"
    assert answer_of(items_by("counting"), "How many chairs") == "3"  # the census, not the kept instances
    existence = items_by("existence")
    assert answer_of(existence, "Is there a sofa") == "yes"
    assert sum(i["answer"] == "no" for i in existence) == 2
    assert not any(i["answer"] == "no" and any(f.category in i["question"] for f in FACTS) for i in existence)


def test_spatial_answers_follow_independent_geometry() -> None:
    evo = items_by("EVO")
    assert answer_of(evo, "the lamp from me") == bearing_label(-60.0)
    assert not [i for i in evo if "ball" in i["question"]]  # too near a label boundary
    avo = items_by("AVO")
    assert answer_of(avo, "face the sofa, in which direction is the lamp") == bearing_label(-60.0 - 0.0)
    assert answer_of(avo, "face the sofa, in which direction is the sign") == bearing_label(190.0 - 0.0)
    assert not [i for i in avo if "face the lamp, in which direction is the sign" in i["question"]]  # 2.5° from an edge
    rd = items_by("RD")
    assert answer_of(rd, "Looking at the sofa, is the lamp") == "left"
    for item in items_by("SS"):
        a, f, c = (next(x for x in FACTS if x.instance_id == i) for i in item["instance_ids"])
        heading = math.degrees(math.atan2(f.position_m[0] - a.position_m[0], f.position_m[1] - a.position_m[1]))
        bearing = math.degrees(math.atan2(c.position_m[0] - a.position_m[0], c.position_m[1] - a.position_m[1]))
        assert item["answer"] == bearing_label(bearing - heading)


@pytest.mark.parametrize(
    ("theta", "phrase"),
    [
        (0, "in front of me"),
        (44, "in front of me"),
        (46, "on my right"),
        (-100, "on my left"),
        (180, "behind me"),
        (-179, "behind me"),
    ],
)
def test_quadrants(theta: float, phrase: str) -> None:
    assert quadrant(theta)[0] == phrase


def test_without_a_census_there_is_no_count_and_no_absence() -> None:
    items = template_items("room", "odi/panoramas/room.png", FACTS, seed=3)
    assert not [i for i in items if i["task"] == "counting"]
    assert {i["answer"] for i in items if i["task"] == "existence"} == {"yes"}
