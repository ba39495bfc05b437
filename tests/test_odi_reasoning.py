"""ODI reasoning (OR) candidates: answers against distances, bearings, path midpoints and solid angles computed here,
margins (a near-tie makes no question), the ERP's seam and poles, and OR proposals of the model backend."""

from __future__ import annotations

import json
import math

import pytest

from benchfoundry.benchmarks.odi.stages.questions.answers import Margins
from benchfoundry.benchmarks.odi.stages.questions.candidates import Generator
from benchfoundry.benchmarks.odi.stages.questions.model_questions import model_candidates, qa_request
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts, Sighting
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate, plural
from benchfoundry.benchmarks.odi.stages.questions.reasoning_questions import reasoning_candidates

MARGIN = 7.5
SIDES = {"front": 0.0, "right": 90.0, "back": 180.0, "left": 270.0}
PHRASES = {"in front of me": 0.0, "on my right": 90.0, "behind me": 180.0, "on my left": 270.0}


def off(angle: float, centre: float) -> float:
    d = (angle - centre) % 360.0
    return min(d, 360.0 - d)


def at(k: int, category: str, theta: float, dist: float, phi: float = -20.0, solid: float = 0.05) -> Fact:
    t = math.radians(theta)
    erp = solid / math.cos(math.radians(phi)) / (2 * math.pi**2)
    return Fact(k, category, theta, phi, (dist * math.sin(t), dist * math.cos(t)), solid, erp)


def reasoning(facts: list[Fact], others: tuple[Sighting, ...] = (), seed: int = 0) -> list[Candidate]:
    census: dict[str, int] = {}
    for c in [f.category for f in facts] + [s.category for s in others]:
        census[c] = census.get(c, 0) + 1
    g = Generator(PanoramaFacts(tuple(facts), others, census, ()), "p", seed, Margins(MARGIN, 0.25, 0.25, 0.5))
    return reasoning_candidates(g)


def kind(found: list[Candidate], name: str) -> list[Candidate]:
    return [c for c in found if c.kind == name]


ROOM = [
    at(1, "sofa", 10.0, 2.0),
    at(2, "table", 100.0, 3.0),
    at(3, "desk", -160.0, 3.0),
    at(4, "piano", 160.0, 3.5),
    at(5, "lamp", -70.0, 4.5),
    at(6, "ball", 60.0, 1.2),
]


def test_every_or_candidate_is_asked_closed_with_four_options_or_yes_no() -> None:
    found = reasoning(ROOM)
    assert {c.kind for c in found} == {"nearest", "turn", "sector_count", "seam", "path"}
    for c in found:
        assert c.task == "OR" and len(c.options) == len(set(c.options)) == (2 if c.kind == "seam" else 4)


def test_nearest_and_farthest_against_distances() -> None:
    facts = {f.instance_id: f for f in ROOM}
    found = kind(reasoning(ROOM), "nearest")
    assert found
    for c in found:
        dist = sorted((math.hypot(*facts[k].position_m), facts[k].category) for k in c.instance_ids)
        if "farthest" in c.question:
            assert c.answer == dist[-1][1] and dist[-1][0] >= 1.25 * dist[-2][0]
        else:
            assert c.answer == dist[0][1] and dist[1][0] >= 1.25 * dist[0][0]
        for k in c.instance_ids:
            assert f"the {facts[k].category}" in c.question


@pytest.mark.parametrize(("second", "asked"), [(2.3, False), (2.6, True)])
def test_a_near_tie_in_distance_makes_no_closest_question(second: float, asked: bool) -> None:
    facts = [
        at(1, "sofa", 10.0, 2.0),
        at(2, "table", 100.0, second),
        at(3, "desk", 200.0, 3.0),
        at(4, "piano", 250.0, 3.5),
    ]
    closest = {c.question: c.answer for c in kind(reasoning(facts), "nearest") if "closest" in c.question}
    assert closest == ({"Which is closest to me: the desk, the piano, the sofa or the table?": "sofa"} if asked else {})


def test_turns_against_bearings() -> None:
    facts = {f.category: f for f in ROOM}
    found = kind(reasoning(ROOM), "turn")
    assert found
    for c in found:
        options = [facts[o] for o in c.options]
        if c.question.startswith("If I turn to face"):
            faced = next(f for f in ROOM if c.question.startswith(f"If I turn to face the {f.category} "))
            heading, centre = faced.theta_deg + 180.0, 0.0
        else:
            words, phrase = c.question.removeprefix("If I ").split(":")[0].split(", which is now ")
            heading = {"turn 90° to my right": 90.0, "turn 90° to my left": -90.0, "turn around": 180.0}[words]
            centre = PHRASES[phrase]
        rel = [off(f.theta_deg - heading, centre) for f in options]
        assert rel[0] <= 45.0 - MARGIN and all(d >= 45.0 + MARGIN for d in rel[1:]), c.question


def test_counts_on_a_side_include_instances_across_face_edges_and_need_clear_sides() -> None:
    facts = [at(1, "chair", 10.0, 2.0), at(2, "chair", 100.0, 2.0), at(3, "sofa", 180.0, 3.0)]
    counts = {c.question: c.answer for c in kind(reasoning(facts, (Sighting("chair", -170.0, -20.0),)), "sector_count")}
    assert counts["How many chairs are in front of me?"] == "1"
    assert counts["How many chairs are behind me?"] == "1"  # the one across a face edge
    assert counts["How many chairs are on my left?"] == "0"
    edge = kind(reasoning(facts, (Sighting("chair", -130.0, -20.0),)), "sector_count")
    assert not [c for c in edge if "chairs" in c.question and ("behind" in c.question or "left" in c.question)]


def test_the_seam_joins_the_two_edges_of_the_panorama() -> None:
    facts = [
        at(1, "desk", -160.0, 3.0),
        at(2, "piano", 160.0, 3.5),
        at(3, "lamp", -100.0, 3.0),
        at(4, "vase", 100.0, 3.0),
    ]
    seam = {tuple(c.instance_ids): c.answer for c in kind(reasoning(facts), "seam")}
    assert seam == {(1, 2): "yes", (1, 4): "no", (3, 2): "no", (3, 4): "no"}  # 40°, 100°, 100°, 160° apart
    near_tie = [at(1, "desk", -135.0, 3.0), at(2, "piano", 130.0, 3.5)]  # 95° apart: within the margin of 90°
    assert not kind(reasoning(near_tie), "seam")


def test_a_straight_path_has_its_midpoint_where_the_floor_says() -> None:
    facts = [at(1, "desk", -100.0, 3.0), at(2, "piano", 100.0, 3.0), at(3, "lamp", -30.0, 2.0)]
    path = {tuple(c.instance_ids): c.answer for c in kind(reasoning(facts), "path")}
    # desk and piano stand left and right of me, a little behind: the midpoint is behind me, 0.52 m away
    assert path[(1, 2)] == "back"
    mid = [(a + b) / 2 for a, b in zip(facts[0].position_m, facts[2].position_m)]
    assert path[(1, 3)] == min(SIDES, key=lambda s: off(math.degrees(math.atan2(*mid)), SIDES[s]))
    assert not kind(reasoning([at(1, "desk", -90.0, 3.0), at(2, "piano", 90.0, 3.0)]), "path")


def test_apparent_size_near_the_poles() -> None:
    """The rug below me fills more of the ERP than the sofa but covers less of my view: "no"."""
    facts = [at(1, "rug", 90.0, 0.5, phi=-75.0, solid=0.06), at(2, "sofa", 0.0, 2.5, solid=0.10)]
    size = {tuple(c.instance_ids): c.answer for c in kind(reasoning(facts), "size")}
    assert facts[0].erp_fraction > facts[1].erp_fraction
    assert size == {(1, 2): "no"}
    bigger = [at(1, "rug", 90.0, 0.5, phi=-75.0, solid=0.2), at(2, "sofa", 0.0, 2.5, solid=0.10)]
    assert {tuple(c.instance_ids): c.answer for c in kind(reasoning(bigger), "size")} == {(1, 2): "yes"}


def test_same_seed_same_candidates() -> None:
    assert reasoning(ROOM, seed=3) == reasoning(ROOM, seed=3)


@pytest.mark.parametrize(("noun", "many"), [("bench", "benches"), ("bookshelf", "bookshelves"), ("person", "people")])
def test_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


def test_the_model_may_propose_or_questions() -> None:
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
    found, problems = model_candidates(json.dumps(proposals), "room")
    assert [(c.task, c.source, c.answer_from, c.spec) for c in found] == [("OR", "model", "model", None)]
    assert sorted(found[0].options) == ["ball", "lamp", "sofa", "television"]
    assert len(problems) == 1 and "proposal 1" in problems[0] and "'SS' is not one of" in problems[0]
