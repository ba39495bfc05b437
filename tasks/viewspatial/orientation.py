"""Person orientation from COCO keypoints (DESIGN §4.2): body and head yaw, the facing label, the head turn.

Yaw convention: the direction a body part faces, 0° = toward the camera, growing as the person turns to
their own right (clockwise seen from above): 90° faces the image's left, 180° away from the camera,
270° the image's right. Then the head turn Δ = (yaw_head − yaw_body + 540) mod 360 − 180 is negative
when the head is turned to the person's own left, as DESIGN §4.2 states, and the camera-relative facing
label is the 8-way bin (DESIGN §4.1) of −yaw: "front" = faces the camera, "back" = faces away,
"left"/"right" = faces toward the image's left/right.

The `keypoints` estimator, in image coordinates (x right). A point at lateral offset `s` on the
person's own right and `f` forward sits at image x ≈ −s·cos(yaw) − f·sin(yaw) from the body axis, so:
- body: the shoulder line L − R spans `shoulder_ratio` × torso length (shoulder midpoint to hip
  midpoint) facing the camera and shrinks with cos(yaw), its sign telling front from back; which way
  the person is turned (the sign of sin) comes from which shoulder or hip is hidden (v = 1) while its
  partner is visible (v = 2). Without such a flag a yaw and its mirror fit alike (a torso's keypoints are
  mirror-symmetric): the yaw is then sure only within `AMBIGUITY_DEG` of facing the camera or away, and
  has a low confidence otherwise. `shoulder_ratio` is best taken from the data (`calibrate_shoulder_ratio`).
- head: the labelled face points (nose, eyes, ears) fitted to a head model (`FACE_MODEL`), which gives
  cos and sin of the yaw at once, at any head size.
Each yaw has a confidence in [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchfoundry.core.directions import horizontal_label

NOSE, LEFT_EYE, RIGHT_EYE, LEFT_EAR, RIGHT_EAR, LEFT_SHOULDER, RIGHT_SHOULDER = range(7)
LEFT_HIP, RIGHT_HIP = 11, 12

#: A body yaw whose side no occlusion flag tells is sure only this close to facing the camera or away.
AMBIGUITY_DEG = 10.0


@dataclass(frozen=True)
class Yaw:
    degrees: float
    confidence: float


@dataclass(frozen=True)
class Orientation:
    body: Yaw
    head: Yaw | None
    delta: float | None  # head turn Δ, degrees (negative: to the person's own left)


def head_delta(yaw_head: float, yaw_body: float) -> float:
    """Δ = (yaw_head − yaw_body + 540) mod 360 − 180, in [−180, 180)."""
    return (yaw_head - yaw_body + 540.0) % 360.0 - 180.0


def head_turn(delta: float) -> str | None:
    """DESIGN's five bins: [−90, −60) left, [−60, −20) front-left, [−20, 20] front, (20, 60] front-right,
    (60, 90] right; None outside [−90, 90] (rejected)."""
    if -20.0 <= delta <= 20.0:
        return "front"
    if -90.0 <= delta < -20.0:
        return "left" if delta < -60.0 else "front-left"
    if 20.0 < delta <= 90.0:
        return "right" if delta > 60.0 else "front-right"
    return None


def facing_label(yaw: float) -> str:
    """What the camera sees: the 8-way label of the facing direction (front = toward the camera)."""
    return horizontal_label((-yaw) % 360.0)


def _seen(kp: np.ndarray, i: int) -> bool:
    return bool(kp[i, 2] > 0)


def torso_length(kp: np.ndarray) -> float | None:
    """Shoulder midpoint to hip midpoint, in pixels; None without both shoulders and a hip."""
    if not (_seen(kp, LEFT_SHOULDER) and _seen(kp, RIGHT_SHOULDER)):
        return None
    hips = [i for i in (LEFT_HIP, RIGHT_HIP) if _seen(kp, i)]
    if not hips:
        return None
    shoulders = (kp[LEFT_SHOULDER, :2] + kp[RIGHT_SHOULDER, :2]) / 2
    length = float(np.linalg.norm(shoulders - kp[hips, :2].mean(axis=0)))
    return length if length > 0 else None


def calibrate_shoulder_ratio(
    people: list[np.ndarray], quantile: float = 0.95, default: float = 0.72, least: int = 20
) -> float:
    """The frontal shoulder span over torso length of a population: a high quantile of |L − R| / torso
    (the most frontal people); `default` for fewer than `least` people."""
    ratios = []
    for kp in people:
        torso = torso_length(kp)
        if torso:
            ratios.append(abs(float(kp[LEFT_SHOULDER, 0] - kp[RIGHT_SHOULDER, 0])) / torso)
    return float(np.quantile(ratios, quantile)) if len(ratios) >= least else default


def body_yaw(kp: np.ndarray, shoulder_ratio: float = 0.72) -> Yaw | None:
    """Body yaw from shoulders and hips (both shoulders and at least one hip labelled), else None."""
    torso = torso_length(kp)
    if torso is None:
        return None
    span = float(kp[LEFT_SHOULDER, 0] - kp[RIGHT_SHOULDER, 0])
    cos = float(np.clip(span / (shoulder_ratio * torso), -1.0, 1.0))
    side = _turn_side(kp)
    sin = math.sqrt(max(0.0, 1.0 - cos * cos))
    # Without a side the yaw and its mirror fit alike: sure only when they are within AMBIGUITY_DEG.
    sure = side is not None or sin <= math.sin(math.radians(AMBIGUITY_DEG))
    confidence = min(1.0, torso / 40.0) * (1.0 if sure else 0.3)
    return Yaw(math.degrees(math.atan2(sin * (side or 1.0), cos)) % 360.0, round(confidence, 4))


def _turn_side(kp: np.ndarray) -> float | None:
    """+1 when the person is turned to their own right (their left shoulder or hip visible while its
    partner is hidden), −1 to their left, None when the flags do not tell."""
    for left, right in ((LEFT_SHOULDER, RIGHT_SHOULDER), (LEFT_HIP, RIGHT_HIP)):
        if kp[left, 2] == 2 and kp[right, 2] == 1:
            return 1.0
        if kp[right, 2] == 2 and kp[left, 2] == 1:
            return -1.0
    return None


#: Face points in the head's frame, metres from the midpoint between the ears: (lateral toward the own
#: right, forward), adult averages (eye centres 6.4 cm apart, 7.5 cm and the nose tip 10.5 cm in front
#: of the ear axis, ears 15 cm apart); only their proportions matter.
FACE_MODEL: dict[int, tuple[float, float]] = {
    NOSE: (0.0, 0.105),
    LEFT_EYE: (-0.032, 0.075),
    RIGHT_EYE: (0.032, 0.075),
    LEFT_EAR: (-0.075, 0.0),
    RIGHT_EAR: (0.075, 0.0),
}


def head_yaw(kp: np.ndarray, body: Yaw | None) -> Yaw | None:
    """Head yaw from the labelled face points; None when none is labelled.

    With three or more face points, a point of the head model at (s, f) sits at
    x = c − k·(s·cos yaw + f·sin yaw) for the head's image scale k: (c, k·cos, k·sin) by least squares,
    whatever the head's size. Otherwise: both ears without
    a nose face away; one ear and the nose are in profile toward the nose's side; anything else is read
    as facing with the body, at low confidence.
    """
    face = [i for i in FACE_MODEL if _seen(kp, i)]
    if len(face) >= 3:
        model = np.array([FACE_MODEL[i] for i in face])
        design = np.column_stack([np.ones(len(face)), -model[:, 0], -model[:, 1]])
        (_, cos, sin), *_ = np.linalg.lstsq(design, kp[face, 0], rcond=None)
        if cos or sin:
            return Yaw(math.degrees(math.atan2(sin, cos)) % 360.0, round(min(1.0, 0.3 * len(face)), 4))
    left, right, nose = _seen(kp, LEFT_EAR), _seen(kp, RIGHT_EAR), _seen(kp, NOSE)
    if left and right and not nose:
        return Yaw(180.0, 0.5)
    if left != right and nose:
        ear = LEFT_EAR if left else RIGHT_EAR
        return Yaw(90.0 if kp[NOSE, 0] < kp[ear, 0] else 270.0, 0.5)
    if body is not None and face:
        return Yaw(body.degrees, 0.2)
    return None


def orient(kp: np.ndarray, shoulder_ratio: float = 0.72) -> Orientation | None:
    """Body yaw, head yaw and head turn of one person; None without shoulders and a hip."""
    body = body_yaw(kp, shoulder_ratio)
    if body is None:
        return None
    head = head_yaw(kp, body)
    return Orientation(body, head, None if head is None else head_delta(head.degrees, body.degrees))
