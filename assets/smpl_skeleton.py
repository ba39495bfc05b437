"""SMPL's joint tree and the rest skeleton the built-in poses are authored on (assets/poses.py).

24 joints in SMPL order with SMPL's parents, in SMPL's canonical frame (+Y up, the person faces +Z, their
left is +X), metres. `skeleton(shape)` places them for a `BodyShape`; its defaults are the neutral
skeleton (~1.75 m) that actions are built on, and the procedural body (person/procedural_body.py) builds
its tubes around the same joints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

JOINT_NAMES: tuple[str, ...] = (
    "pelvis",
    "left_hip",
    "right_hip",
    "spine1",
    "left_knee",
    "right_knee",
    "spine2",
    "left_ankle",
    "right_ankle",
    "spine3",
    "left_foot",
    "right_foot",
    "neck",
    "left_collar",
    "right_collar",
    "head",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hand",
    "right_hand",
)
PARENTS: tuple[int, ...] = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21)
J = {name: i for i, name in enumerate(JOINT_NAMES)}


@dataclass(frozen=True)
class BodyShape:
    """Shape parameters of the procedural body; the defaults are the template (~1.75 m)."""

    stature: float = 1.0  # uniform scale
    girth: float = 1.0  # scale of the torso's cross-sections
    belly: float = 0.0  # metres added to the waist's half-depth and half-width
    shoulders: float = 0.0  # metres added to each side of the shoulder line
    hips: float = 0.0  # metres added to each side of the hips
    legs: float = 0.0  # relative change of leg length
    arms: float = 0.0  # relative change of arm length
    head: float = 1.0  # head scale
    neck: float = 0.0  # metres added to the neck's length
    limbs: float = 1.0  # scale of arm and leg cross-sections


def rest_joints(shape: BodyShape = BodyShape()) -> np.ndarray:
    """Intended rest-pose joint positions (24,3), SMPL frame, in metres, before pelvis centring."""
    return skeleton(shape)[0]


def skeleton(shape: BodyShape) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Joints (24,3) on a floor at y = 0, and the extra centreline points of the tubes."""
    hip_y = 0.88
    legs = 1.0 + shape.legs

    def ly(y: float) -> float:  # leg-length change stretches below the hips, lifts what is above
        return y * legs if y <= hip_y else y + hip_y * shape.legs

    hx = 0.09 + shape.hips
    sx = 0.185 + shape.shoulders
    arm = 1.0 + shape.arms
    ay = ly(1.43)
    joints = np.zeros((24, 3))
    joints[J["pelvis"]] = (0, ly(0.95), 0)
    joints[J["spine1"]] = (0, ly(1.06), 0)
    joints[J["spine2"]] = (0, ly(1.19), 0)
    joints[J["spine3"]] = (0, ly(1.32), 0)
    joints[J["neck"]] = (0, ly(1.50) + shape.neck / 2, 0)
    joints[J["head"]] = (0, ly(1.58) + shape.neck, 0.01)
    left = {
        "left_hip": (hx, ly(0.88), 0),
        "left_knee": (hx + 0.005, ly(0.50), 0.0),
        "left_ankle": (hx + 0.01, ly(0.085), -0.01),
        "left_foot": (hx + 0.015, 0.042, 0.12),
        "left_collar": (0.075 + shape.shoulders / 2, ay, 0),
        "left_shoulder": (sx, ay, 0),
        "left_elbow": (sx + 0.27 * arm, ay, 0),
        "left_wrist": (sx + 0.52 * arm, ay, 0),
        "left_hand": (sx + 0.60 * arm, ay, 0),
    }
    for name, p in left.items():
        joints[J[name]] = p
        joints[J[name.replace("left_", "right_")]] = (-p[0], p[1], p[2])
    head_c = np.array([0.0, ly(1.645) + shape.neck, 0.01])
    extra = {
        "crotch": np.array([0.0, ly(0.80), 0.0]),
        "torso_top": np.array([0.0, ly(1.49), 0.0]),
        "neck_base": np.array([0.0, ly(1.40), 0.0]),
        "neck_top": np.array([0.0, ly(1.62) + shape.neck, 0.01]),
        "head_centre": head_c,
    }
    return joints * shape.stature, {k: v * shape.stature for k, v in extra.items()}
