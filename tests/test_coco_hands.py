"""Two-option "which hand" Per-Rel. Dir. items, as the release asks them ("Which hand is this woman using to hold
the phone?"): the hand the synthetic person holds an object in (exact from the rig), or on real COCO the one wrist
keypoint touching a holdable object's box (a candidate, reviewed); the object built at the hand joint, of its
size, hanging only from a hanging arm and never below the floor."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from benchfoundry.benchmarks.viewspatial.coco.config import HELD_OBJECTS, CocoConfig, PersonRelConfig
from benchfoundry.benchmarks.viewspatial.coco.scenes import held_objects as ho
from benchfoundry.benchmarks.viewspatial.coco.stages.people import Person
from benchfoundry.benchmarks.viewspatial.coco.stages.person_relative import (
    HAND_CHOICES,
    PER_REL,
    box_distance,
    candidate_items,
    holding_hand,
    is_hand_item,
    synthetic_items,
)


def test_box_distance_is_zero_inside_and_euclidean_outside() -> None:
    box = [10.0, 20.0, 30.0, 40.0]  # x 10..40, y 20..60
    assert box_distance((25.0, 30.0), box) == 0.0
    assert box_distance((0.0, 30.0), box) == 10.0
    assert box_distance((43.0, 64.0), box) == pytest.approx(5.0)


def _keypoints(left: tuple[float, float], right: tuple[float, float], v: int = 2) -> np.ndarray:
    kp = np.zeros((17, 3))
    kp[9] = (*left, v)  # COCO 9: the person's own left wrist
    kp[10] = (*right, v)
    return kp


def test_the_one_wrist_touching_the_box_holds_it() -> None:
    phone = [290.0, 190.0, 30.0, 40.0]
    assert holding_hand(_keypoints((100.0, 200.0), (300.0, 210.0)), phone, 4.0) == "right"
    assert holding_hand(_keypoints((287.0, 200.0), (100.0, 210.0)), phone, 4.0) == "left"  # 3 px outside: touches
    assert holding_hand(_keypoints((280.0, 200.0), (100.0, 210.0)), phone, 4.0) is None  # 10 px outside
    assert holding_hand(_keypoints((295.0, 200.0), (300.0, 210.0)), phone, 4.0) is None  # both in: not sure
    assert holding_hand(_keypoints((100.0, 200.0), (300.0, 210.0), v=0), phone, 4.0) is None  # unlabelled


def test_the_catalogue_is_the_configs_and_sized_as_the_real_things() -> None:
    assert tuple(ho.KINDS) == HELD_OBJECTS and set(HELD_OBJECTS) <= ho.HOLDABLE
    phone = ho.KINDS["cell phone"].parts[0].size
    assert sorted(phone) == pytest.approx([0.009, 0.075, 0.15])  # 7.5 × 15 × 0.9 cm
    assert {k.category_id for k in ho.KINDS.values()} == {77, 47, 44, 84, 31, 33, 43, 28}  # COCO's ids


def _skeleton(forearm_down: bool, turn_deg: float = 0.0) -> np.ndarray:
    """World keypoints of a person at the origin turned by `turn_deg` (unturned: facing −Y, own left +X): elbows at
    1.05 m, wrists 0.25 m below them (or level with them, forward, when not `forearm_down`)."""
    kp = np.zeros((17, 3))
    for side, sign in (("left", 1.0), ("right", -1.0)):
        kp[ho.ELBOW[side]] = (0.2 * sign, 0.0, 1.05)
        kp[ho.WRIST[side]] = (0.2 * sign, 0.0, 0.80) if forearm_down else (0.2 * sign, -0.25, 1.05)
    a = math.radians(turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return kp @ rot.T


@pytest.mark.parametrize("turn", [0.0, 130.0])
@pytest.mark.parametrize("hand", ["left", "right"])
def test_an_object_is_held_at_the_palm_on_the_holders_own_side(hand: str, turn: float) -> None:
    kp = _skeleton(forearm_down=True, turn_deg=turn)
    a = math.radians(turn)
    own_left = np.array([math.cos(a), math.sin(a), 0.0])
    for name in HELD_OBJECTS:
        held = ho.hold(name, kp, hand, turn, colour=3)
        wrist, elbow = kp[ho.WRIST[hand]], kp[ho.ELBOW[hand]]
        # the grip: PALM_M past the wrist along the forearm
        assert np.linalg.norm(np.array(held.grip) - wrist) == pytest.approx(ho.PALM_M)
        assert np.cross(np.array(held.grip) - wrist, wrist - elbow) == pytest.approx(np.zeros(3), abs=1e-9)
        side = float(np.dot(np.array(held.center), own_left))
        assert (side > 0) == (hand == "left"), name  # on the holder's own side of their body's axis
        tris = held.triangles()
        assert tris[..., 2].min() >= ho.FLOOR_CLEARANCE_M - 1e-9 and held.hand == hand
        # the object touches the palm: the grip lies within a few centimetres of some part's bounding box
        gaps = []
        for part in held.parts:
            corners = replace(held, parts=(part,)).triangles().reshape(-1, 3)
            outside = np.maximum(corners.min(0) - held.grip, 0) + np.maximum(held.grip - corners.max(0), 0)
            gaps.append(float(np.linalg.norm(outside)))
        assert min(gaps) < 0.03, name


def test_hanging_objects_need_a_hanging_arm_and_the_floor() -> None:
    raised = _skeleton(forearm_down=False)
    assert not ho.fits("suitcase", raised, "left") and ho.fits("cell phone", raised, "left")
    assert not ho.KINDS[ho.first_fitting("suitcase", raised, "left")].hanging
    low = _skeleton(forearm_down=True) - [0.0, 0.0, 0.45]  # a child's hand 0.35 m above the floor
    assert not ho.fits("suitcase", low, "right") and ho.fits("cup", low, "right")


def truth_image(image_id: int, hand: str) -> dict:
    viewer, chair, phone = image_id * 10, image_id * 10 + 1, image_id * 10 + 2
    return {
        "image_id": image_id,
        "people": [{"annotation_id": viewer}],
        "objects": [
            {"annotation_id": chair, "name": "chair"},
            {"annotation_id": phone, "name": "cell phone", "held_by": viewer, "hand": hand},
        ],
        "relations": [
            {"viewer": viewer, "target": chair, "angle_deg": 90.0, "label": "right"},
            {"viewer": viewer, "target": phone, "angle_deg": 0.0, "label": "front"},
        ],
    }


def test_synthetic_items_answer_with_the_holding_hand_at_the_share() -> None:
    truth = [truth_image(i, "left" if i % 2 else "right") for i in range(1, 41)]
    image_of = {t["image_id"]: f"images/{t['image_id']}.jpg" for t in truth}
    viewers = {t["image_id"] * 10 for t in truth}
    subjects = dict.fromkeys(viewers, "the woman")

    def config(share: float) -> CocoConfig:
        return CocoConfig(per_rel=PersonRelConfig(hand_share=share, per_image=1))

    only = synthetic_items(truth, image_of, subjects, viewers, "val", config(1.0), seed=0)
    assert len(only) == 40 and all(i["choices"] == HAND_CHOICES and is_hand_item(i["item_id"]) for i in only)
    wordings = {t.format(subject="the woman", target="the phone") for t in CocoConfig().per_rel.hand_templates}
    for item in only:
        expected = "left" if int(item["scene_id"].split(":")[1]) % 2 else "right"
        assert item["answer_label"] == expected and item["answer"] == ("A. left" if expected == "left" else "B. right")
        assert item["question_type"] == PER_REL and item["question"] in wordings
    none = synthetic_items(truth, image_of, subjects, viewers, "val", config(0.0), seed=0)
    # the direction item of the chair; never of what the viewer holds
    assert len(none) == 40 and all(i["answer_label"] == "right" and "the chair" in i["question"] for i in none)
    some = synthetic_items(truth, image_of, subjects, viewers, "val", config(0.25), seed=0)
    assert 0.05 < sum(i["choices"] == HAND_CHOICES for i in some) / len(some) < 0.5


def test_real_coco_candidates_come_from_a_wrist_in_a_holdable_box_and_go_to_review() -> None:
    kp = _keypoints((100.0, 200.0), (300.0, 210.0))
    person = Person(1, 11, "a.jpg", (640, 480), (50.0, 50.0, 300.0, 400.0), 60000.0, kp)
    objects = {
        1: [
            {"annotation_id": 21, "name": "cell phone", "bbox": [290.0, 190.0, 30.0, 40.0], "area": 900.0},
            {"annotation_id": 22, "name": "dining table", "bbox": [60.0, 180.0, 60.0, 60.0], "area": 3600.0},
        ]
    }
    config = CocoConfig(per_rel=PersonRelConfig(hand_share=1.0))
    items = candidate_items({1: [person]}, {11: 0.0}, objects, {1: "images/a.jpg"}, {11: "the man"}, "val", config, 0)
    hands = [i for i in items if is_hand_item(i["item_id"])]
    # the phone in the right wrist's box; the table under the left wrist is not held
    assert [(i["answer_label"], i["labels"], i["needs_review"]) for i in hands] == [
        ("right", ["the man", "the phone"], True)
    ]


def test_an_images_direction_item_is_drawn_by_the_release_answers() -> None:
    """With one item an image, a viewer with a target in front and three behind is asked about the one in front at
    its share of the answer weights (release: front 199 against back 61 each), not one time in four; weights
    naming none of an image's answers draw uniformly."""
    truth = []
    for image_id in range(1, 801):
        viewer = image_id * 10
        labels = ("front", "back", "back", "back")
        truth.append(
            {
                "image_id": image_id,
                "people": [{"annotation_id": viewer}],
                "objects": [{"annotation_id": viewer + k, "name": f"thing{k}"} for k in range(1, 5)],
                "relations": [
                    {"viewer": viewer, "target": viewer + k, "angle_deg": 0.0 if k == 1 else 180.0, "label": label}
                    for k, label in enumerate(labels, start=1)
                ],
            }
        )
    image_of = {t["image_id"]: f"images/{t['image_id']}.jpg" for t in truth}
    viewers = {t["image_id"] * 10 for t in truth}
    subjects = dict.fromkeys(viewers, "the woman")

    def front_share(weights: dict[str, float] | None) -> float:
        per_rel = PersonRelConfig(per_image=1, **({} if weights is None else {"answer_weights": weights}))
        items = synthetic_items(truth, image_of, subjects, viewers, "val", CocoConfig(per_rel=per_rel), seed=0)
        assert len(items) == len(truth)
        return sum(i["answer_label"] == "front" for i in items) / len(items)

    assert abs(front_share(None) - 199 / (199 + 3 * 61)) < 0.05  # 0.52
    assert abs(front_share({"left": 1.0}) - 0.25) < 0.05
    assert front_share({"front": 1.0, "back": 0.0}) == 1.0
