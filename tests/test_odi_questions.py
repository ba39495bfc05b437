"""ODI-Bench candidate questions of the general and spatial tasks: answers from independent geometry, naming that
picks one instance of the whole sphere, options (four, yes/no two), margins, determinism."""

from __future__ import annotations

import math

import pytest

from benchfoundry.benchmarks.odi.stages.questions.answers import Margins
from benchfoundry.benchmarks.odi.stages.questions.candidates import Generator, general_candidates, spatial_candidates
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts, Sighting
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate, items_of
from benchfoundry.benchmarks.odi.stages.questions.reasoning_questions import reasoning_candidates

MARGIN = 7.5
SIDES_CLOCKWISE = ["front", "right", "back", "left"]
CORNERS_CLOCKWISE = ["front-right", "back-right", "back-left", "front-left"]


def side_of(bearing: float) -> str:
    """The side of a clockwise bearing, from the sides' centres 0°, 90°, 180°, 270°."""
    return SIDES_CLOCKWISE[round((bearing % 360) / 90) % 4]


def corner_of(bearing: float) -> str:
    return CORNERS_CLOCKWISE[int((bearing % 360) // 90)]


def bearing(x: float, y: float) -> float:
    return math.degrees(math.atan2(x, y))


def at(k: int, category: str, theta: float, dist: float | None = 3.0, phi: float = -20.0, **extra: object) -> Fact:
    pos = None if dist is None else (dist * math.sin(math.radians(theta)), dist * math.cos(math.radians(theta)))
    return Fact(k, category, theta, phi, position_m=pos, solid_angle_sr=0.05, erp_fraction=0.003, **extra)


FACTS = (
    at(1, "sofa", 0.0, 2.5, colour="blue", material="fabric"),
    at(2, "chair", 100.0, 2.0, colour="red", material="wood"),
    at(3, "chair", 110.0, 2.6, colour="green", material="wood"),  # same side of me as the red chair
    at(4, "lamp", -60.0, 2.2, colour="yellow", material="metal"),
    at(5, "sign", 190.0, None, phi=5.0, colour="white", material="paper", text="EXIT"),
    at(6, "person", 150.0, 3.0, action="walking", clothing="a red shirt"),
    at(7, "ball", 44.0, 1.8, colour="orange", material="rubber"),  # 1° from the front/right edge
    at(8, "table", -150.0, 3.5, colour="brown", material="wood"),
)
#: A third chair seen only across a face edge, on my left.
OTHERS = (Sighting("chair", -95.0, -20.0),)
CENSUS = {"sofa": 1, "chair": 3, "lamp": 1, "sign": 1, "person": 1, "ball": 1, "table": 1}
SEARCHED = ("sofa", "chair", "lamp", "sign", "person", "ball", "table", "car", "dog")
SCENE = PanoramaFacts(FACTS, OTHERS, CENSUS, SEARCHED)


def candidates(scene: PanoramaFacts = SCENE, seed: int = 3) -> list[Candidate]:
    g = Generator(scene, "room", seed, Margins(deg=MARGIN, near=0.25, size=0.25, clearance_m=0.5))
    return general_candidates(g) + spatial_candidates(g) + reasoning_candidates(g)


def of(task: str, scene: PanoramaFacts = SCENE) -> list[Candidate]:
    return [c for c in candidates(scene) if c.task == task]


def answer_of(found: list[Candidate], words: str) -> str:
    (c,) = [c for c in found if words in c.question]
    return c.answer


def fact(k: int) -> Fact:
    return next(f for f in FACTS if f.instance_id == k)


def test_every_candidate_has_four_options_or_two_for_yes_no_and_keeps_the_rule() -> None:
    found = candidates()
    assert {c.task for c in found} == {"OA", "HA", "existence", "counting", "OCR", "EVO", "AVO", "SS", "RD", "OR"}
    for c in found:
        n = 2 if c.answer in ("yes", "no") else 4
        assert len(c.options) == len(set(c.options)) == n and c.options[0] == c.answer, c
        assert all(o == c.answer or (o not in c.answer and c.answer not in o) for o in c.options), c
    assert len({c.key for c in found}) == len(found)
    assert candidates() == found


def test_items_come_closed_with_shuffled_options_and_open() -> None:
    c = next(c for c in candidates() if c.task == "EVO")
    closed, opened = items_of(c, "room", "panoramas/room.png", 3, "labels")
    assert sorted(closed["options"]) == sorted(c.options) and opened["options"] == []
    assert closed["answer"] == opened["answer"] == c.answer and closed["answer_from"] == "directions"
    orders = {tuple(items_of(c, "room", "x.png", seed, "labels")[0]["options"]) for seed in range(12)}
    assert len(orders) > 1


def test_attributes_are_asked_where_the_name_picks_one_instance_of_the_sphere() -> None:
    oa = of("OA")
    assert answer_of(oa, "colour is the sofa?") == "blue"
    assert answer_of(oa, "the lamp made of") == "metal"
    assert not [c for c in oa if "chair" in c.question]  # two chairs on my right
    assert answer_of(of("OCR"), "written on the sign") == "EXIT"
    ha = of("HA")
    assert answer_of(ha, "What is the person doing") == "walking"
    assert answer_of(ha, "What is the person wearing") == "a red shirt"
    assert {c.answer_from for c in oa + ha} == {"describer"}


def test_a_colour_names_a_chair_only_when_every_chair_was_described() -> None:
    """Three chairs, one seen only across a face edge: "the red chair" could be that one too."""
    evo = of("EVO")
    assert not [c for c in evo if "chair" in c.question]
    whole = PanoramaFacts(FACTS, (), {**CENSUS, "chair": 2}, SEARCHED)
    assert answer_of(of("EVO", whole), "the red chair") == side_of(100.0)


def test_existence_and_counts_come_from_the_census_of_the_sphere() -> None:
    existence = {c.question: c.answer for c in of("existence")}
    assert existence["Is there a sofa around me?"] == "yes" and existence["Is there a dog around me?"] == "no"
    assert "Is there a piano around me?" not in existence  # the detector did not look for pianos
    counting = {c.question: c.answer for c in of("counting")}
    assert counting["How many chairs are around me?"] == "3"  # the census, not the two chairs kept
    assert "How many cars are around me?" not in counting
    assert {c.answer_from for c in of("existence") + of("counting")} == {"census"}


def test_egocentric_directions() -> None:
    evo = of("EVO")
    assert answer_of(evo, "is the lamp?") == side_of(-60.0)
    assert answer_of(evo, "is the table?") == side_of(-150.0)
    assert not [c for c in evo if "ball" in c.question]  # 1° from a side's edge


def test_allocentric_and_virtual_viewpoints_follow_the_floor_positions() -> None:
    avo, ss = of("AVO"), of("SS")
    assert avo and ss
    for c in avo:
        agent, *rest = (fact(k) for k in c.instance_ids)
        assert agent.category == "person" and c.question.startswith("From the perspective of the person")
        target = rest[-1]
        ahead = (0.0, 0.0) if "facing me" in c.question else rest[0].position_m
        heading = bearing(ahead[0] - agent.position_m[0], ahead[1] - agent.position_m[1])
        to = bearing(target.position_m[0] - agent.position_m[0], target.position_m[1] - agent.position_m[1])
        assert c.answer == side_of(to - heading)
        assert c.answer_from == "floor_geometry"
    assert any("facing me" in c.question for c in avo)
    for c in ss:
        a, f, t = (fact(k) for k in c.instance_ids)
        heading = bearing(f.position_m[0] - a.position_m[0], f.position_m[1] - a.position_m[1])
        to = bearing(t.position_m[0] - a.position_m[0], t.position_m[1] - a.position_m[1])
        assert c.answer == corner_of(to - heading)
        assert min(abs((to - heading) % 90), 90 - abs((to - heading) % 90)) >= MARGIN
    assert not [c for c in avo + ss if 5 in c.instance_ids]  # the sign has no floor position


def test_relative_direction_front_is_beyond_the_reference() -> None:
    rd = of("RD")
    assert rd
    for c in rd:
        ref, target = (fact(k) for k in c.instance_ids)
        look = bearing(*ref.position_m)
        to = bearing(target.position_m[0] - ref.position_m[0], target.position_m[1] - ref.position_m[1])
        assert c.answer == side_of(to - look)
    # The sofa ahead of me at 2.5 m and the lamp at −60°: the lamp lies to the sofa's left and nearer to me.
    (c,) = [c for c in rd if c.instance_ids == (1, 4)]
    assert c.answer == "left"


def test_without_positions_there_is_no_floor_question() -> None:
    flat = PanoramaFacts(tuple(Fact(**{**f.__dict__, "position_m": None}) for f in FACTS), OTHERS, CENSUS, SEARCHED)
    assert not [c for c in candidates(flat) if c.answer_from == "floor_geometry"]
    assert of("EVO", flat) == of("EVO")


@pytest.mark.parametrize("seed", [3, 4])
def test_the_seed_draws_options_not_answers(seed: int) -> None:
    base = {c.key: c.answer for c in candidates(seed=3)}
    other = {c.key: c.answer for c in candidates(seed=seed)}
    shared = base.keys() & other.keys()
    assert shared and all(base[k] == other[k] for k in shared)
