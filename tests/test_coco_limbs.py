"""Two-option "which hand/foot" Per-Rel. Dir. items: the nearer wrist or ankle to the target, from exact 3-D
joints (the synthetic set's truth) or from keypoints in the image, at the configured share of images."""

from __future__ import annotations

import numpy as np
import pytest

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig, PersonRelConfig
from benchfoundry.benchmarks.viewspatial.coco.person_relative import (
    LIMB_CHOICES,
    PER_REL,
    box_distance,
    image_limb_items,
    nearer_side,
    synthetic_items,
)
from benchfoundry.benchmarks.viewspatial.coco.synthetic_set import limb_distances


def test_nearer_side_needs_a_clear_gap() -> None:
    assert nearer_side(0.2, 0.6, 1.7, 0.15) == "left"
    assert nearer_side(0.9, 0.4, 1.7, 0.15) == "right"
    assert nearer_side(0.5, 0.6, 1.7, 0.15) is None  # 0.1 m apart: under 0.15 × 1.7 m


def test_box_distance_is_zero_inside_and_euclidean_outside() -> None:
    box = [10.0, 20.0, 30.0, 40.0]  # x 10..40, y 20..60
    assert box_distance((25.0, 30.0), box) == 0.0
    assert box_distance((0.0, 30.0), box) == 10.0
    assert box_distance((43.0, 64.0), box) == pytest.approx(5.0)


def test_limb_distances_of_joints_measure_to_the_target() -> None:
    joints = np.zeros((17, 3))
    joints[:, 2] = np.linspace(1.6, 0.0, 17)  # nose at 1.6 m … ankles at 0
    joints[9] = (0.3, 0.0, 1.0)  # left wrist
    joints[10] = (-0.3, 0.0, 1.0)  # right wrist
    joints[15] = (0.1, 0.0, 0.0)
    joints[16] = (-0.1, 0.0, 0.0)
    found = limb_distances(joints, np.array([1.3, 0.0, 1.0]))
    assert found["hand"] == pytest.approx([1.0, 1.6]) and found["height"] == pytest.approx(1.6)
    assert found["foot"] == pytest.approx([np.hypot(1.2, 1.0), np.hypot(1.4, 1.0)], abs=1e-4)


def test_keypoints_in_the_image_give_the_hand_inside_the_target_box() -> None:
    kp = np.zeros((17, 3))
    kp[9] = (100.0, 200.0, 2)  # left wrist
    kp[10] = (300.0, 210.0, 2)  # right wrist, inside the phone's box
    kp[15] = (150.0, 400.0, 2)
    kp[16] = (160.0, 400.0, 2)  # feet side by side: no clear answer
    phone = [290.0, 190.0, 30.0, 40.0]
    made = image_limb_items(kp, 400.0, phone, lambda limb, side: (limb, side), 0.15)
    assert made == [("hand", "right")]


def truth_image(image_id: int, hand: list[float], foot: list[float]) -> dict:
    viewer, chair = image_id * 10, image_id * 10 + 1
    return {
        "image_id": image_id,
        "people": [{"annotation_id": viewer}],
        "objects": [{"annotation_id": chair, "name": "chair"}],
        "relations": [
            {
                "viewer": viewer,
                "target": chair,
                "angle_deg": 90.0,
                "label": "right",
                "limbs": {"hand": hand, "foot": foot, "height": 1.7},
            }
        ],
    }


def test_synthetic_items_answer_with_the_nearer_joint_at_the_share() -> None:
    truth = [truth_image(i, [0.3, 0.9] if i % 2 else [0.8, 0.2], [0.5, 0.52]) for i in range(1, 41)]
    image_of = {t["image_id"]: f"images/{t['image_id']}.jpg" for t in truth}
    viewers = {t["image_id"] * 10 for t in truth}
    subjects = dict.fromkeys(viewers, "the man")

    def cfg(share: float) -> CocoConfig:
        return CocoConfig(per_rel=PersonRelConfig(limb_share=share, per_image=1))

    only = synthetic_items(truth, image_of, subjects, viewers, "val", cfg(1.0), seed=0)
    assert len(only) == 40 and all(i["choices"] == LIMB_CHOICES for i in only)
    for item in only:
        image_id = int(item["scene_id"].split(":")[1])
        expected = "left" if image_id % 2 else "right"  # the nearer wrist of the truth; feet too close to ask
        assert item["answer_label"] == expected and item["answer"] == ("A. left" if expected == "left" else "B. right")
        assert item["question_type"] == PER_REL and "hand" in item["question"] and "the chair" in item["question"]
    none = synthetic_items(truth, image_of, subjects, viewers, "val", cfg(0.0), seed=0)
    assert len(none) == 40 and not any(i["choices"] == LIMB_CHOICES for i in none)
    assert all(i["answer_label"] == "right" for i in none)  # the direction item: the chair at 90°
    some = synthetic_items(truth, image_of, subjects, viewers, "val", cfg(0.25), seed=0)
    share = sum(i["choices"] == LIMB_CHOICES for i in some) / len(some)
    assert 0.05 < share < 0.5
