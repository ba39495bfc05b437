"""Person orientation from COCO keypoints (docs/design/viewspatial.md §2): body and head yaw, the facing label, the head
turn.

Yaw convention: Orient-Anything's azimuth, the direction a body part faces, 0° = toward the camera, growing as
the person turns to their own right (clockwise seen from above): 90° faces the image's left, 180° away from
the camera, 270° the image's right. Then the head turn Δ = (yaw_head − yaw_body + 540) mod 360 − 180 is
negative when the head is turned to the person's own left, as docs/design/viewspatial.md §2.3 states, and the
camera-relative facing label is the authors' `get_azimuth_direction` of the yaw
(`benchfoundry.core.directions.facing_direction`): a person facing the camera faces "back", one facing away "front", one
facing the image's left "left".

The `keypoints` estimator, in image coordinates (x right). A point at lateral offset `s` on the
person's own right and `f` forward sits at image x ≈ −s·cos(yaw) − f·sin(yaw) from the body axis, so:
- body: the shoulder line L − R spans a frontal width × cos(yaw), its sign telling front from back. The
  frontal width comes from a scale that does not shrink as the person turns: the torso (shoulder midpoint
  to hip midpoint, × `shoulder_ratio`) when a hip is labelled, else the head (shoulder midpoint to the
  centre of the labelled face points, × `head_ratio`), as in close-ups whose hips are out of frame. Which
  way the person is turned (the sign of sin) comes from which shoulder or hip is hidden (v = 1) while its
  partner is visible (v = 2). Without such a flag a yaw and its mirror fit alike (a torso's keypoints are
  mirror-symmetric): the one on the face's side is taken, and the yaw is sure only within `AMBIGUITY_DEG`
  of facing the camera or away (where both share a facing bin), with a low confidence otherwise. Both
  ratios are best taken from the data (`calibrate_ratio`).
- portraits (no hip, the nose and two more face points labelled): the face's yaw picks the side of the
  shoulders' reading, and where face and shoulders agree the face resolves the shoulder line's mirror: when the
  face lies within `PORTRAIT_FRONTAL_DEG` of facing the camera or away and the shoulders read a turn within
  `PORTRAIT_SHOULDER_NOISE_DEG` of it, the body takes the face's yaw (head turn front); when the face is turned
  but toward the lens and the shoulders read square to it within `AMBIGUITY_DEG` (their yaw and its mirror
  either side of square), the body faces the lens squarely (head turn the face's yaw). Either way the body's
  yaw is sure and has no mirror, so the head turn is claimed. A head-scaled shoulder width depends on where an
  annotator puts the shoulder points (the acromion or the neck's base: cos 1 or 0.8 for the same frontal
  person), the face's points do not.
- head: the labelled face points (nose, eyes, ears) fitted to a head model (`FACE_MODEL`), which gives
  cos and sin of the yaw at once, at any head size, whatever the body's keypoints.
Each yaw has a confidence in [0, 1]: the frontal shoulder width in pixels (full from `FULL_SPAN_PX`), times
`HEAD_SCALE_TRUST` when the head gave the scale, times 0.3 when the side is unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchfoundry.person.body_mesh import COCO_KEYPOINTS

NOSE, LEFT_EYE, RIGHT_EYE, LEFT_EAR, RIGHT_EAR, LEFT_SHOULDER, RIGHT_SHOULDER = range(7)
LEFT_HIP, RIGHT_HIP = 11, 12
FACE = (NOSE, LEFT_EYE, RIGHT_EYE, LEFT_EAR, RIGHT_EAR)
#: COCO's 17 keypoints in COCO order (the person's body mesh gives them in the same order).
KEYPOINT_NAMES = COCO_KEYPOINTS

#: A body yaw whose side no occlusion flag tells is sure only this close to facing the camera or away: half a
#: facing bin, so that the yaw and its mirror share the bin.
AMBIGUITY_DEG = 22.5
#: Frontal shoulder width (pixels) from which the body yaw has full confidence.
FULL_SPAN_PX = 29.0
#: Confidence factor of a body yaw scaled by the head (no hip): the neck's length varies more between people
#: than the torso's, and a camera above or below shortens it.
HEAD_SCALE_TRUST = 0.8
#: A portrait's face this close to facing the camera (or away) gives the body its yaw: a head-scaled shoulder
#: reading within it is annotation noise (shoulder points at the neck's base read 37° for a frontal person).
PORTRAIT_FRONTAL_DEG = 15.0
#: ... when the head-scaled shoulders read a turn no further than this from the face's frontal: the reading of
#: a frontal person whose shoulder points sit at the neck's base (cos 0.8: 37°), with room for noise.
PORTRAIT_SHOULDER_NOISE_DEG = 40.0
#: Default frontal shoulder span over torso length, and over the shoulder-to-face height (adult averages:
#: acromion span 0.36–0.40 m, torso 0.50 m, face points 0.18–0.20 m above the shoulder line).
DEFAULT_SHOULDER_RATIO = 0.72
DEFAULT_HEAD_RATIO = 2.0


@dataclass(frozen=True)
class Yaw:
    degrees: float
    confidence: float
    mirror: float | None = None  # another yaw that fits as well: the mirror when no flag tells the side, or a
    # portrait's shoulder reading


@dataclass(frozen=True)
class Orientation:
    body: Yaw
    head: Yaw
    delta: float  # head turn Δ, degrees (negative: to the person's own left)


def sure_head_turn(found: Orientation) -> str | None:
    """The head-turn label of `found`; None when the body's mirror yaw (no side known) gives another one, or
    Δ lies beyond ±90°."""
    turn = head_turn(found.delta)
    if found.body.mirror is not None and head_turn(head_delta(found.head.degrees, found.body.mirror)) != turn:
        return None
    return turn


def head_delta(yaw_head: float, yaw_body: float) -> float:
    """Δ = (yaw_head − yaw_body + 540) mod 360 − 180, in [−180, 180)."""
    return (yaw_head - yaw_body + 540.0) % 360.0 - 180.0


def head_turn(delta: float) -> str | None:
    """The five bins of docs/design/viewspatial.md §2.3: [−90, −60) left, [−60, −20) front-left, [−20, 20] front,
    (20, 60] front-right, (60, 90] right; None outside [−90, 90] (rejected)."""
    if -20.0 <= delta <= 20.0:
        return "front"
    if -90.0 <= delta < -20.0:
        return "left" if delta < -60.0 else "front-left"
    if 20.0 < delta <= 90.0:
        return "right" if delta > 60.0 else "front-right"
    return None


def _seen(kp: np.ndarray, i: int) -> bool:
    return bool(kp[i, 2] > 0)


def missing(kp: np.ndarray, indices: tuple[int, ...]) -> list[str]:
    """Names of the keypoints among `indices` that are not labelled."""
    return [KEYPOINT_NAMES[i] for i in indices if not _seen(kp, i)]


def _shoulder_mid(kp: np.ndarray) -> np.ndarray | None:
    if not (_seen(kp, LEFT_SHOULDER) and _seen(kp, RIGHT_SHOULDER)):
        return None
    return (kp[LEFT_SHOULDER, :2] + kp[RIGHT_SHOULDER, :2]) / 2


def torso_length(kp: np.ndarray) -> float | None:
    """Shoulder midpoint to hip midpoint, in pixels; None without both shoulders and a hip."""
    mid = _shoulder_mid(kp)
    hips = [i for i in (LEFT_HIP, RIGHT_HIP) if _seen(kp, i)]
    if mid is None or not hips:
        return None
    length = float(np.linalg.norm(mid - kp[hips, :2].mean(axis=0)))
    return length if length > 0 else None


def head_height(kp: np.ndarray) -> float | None:
    """Shoulder midpoint to the centre of the labelled face points, in pixels; None without both shoulders
    and a face point."""
    mid = _shoulder_mid(kp)
    face = [i for i in FACE if _seen(kp, i)]
    if mid is None or not face:
        return None
    length = float(np.linalg.norm(mid - kp[face, :2].mean(axis=0)))
    return length if length > 0 else None


def calibrate_ratio(
    people: list[np.ndarray], scale: str, quantile: float = 0.95, default: float | None = None, least: int = 8
) -> float:
    """The frontal shoulder span over a scale (`torso`: `torso_length`, `head`: `head_height`) of a
    population: a high quantile of |L − R| / scale (the most frontal people); the default for fewer than
    `least` people."""
    measure = torso_length if scale == "torso" else head_height
    fallback = default or (DEFAULT_SHOULDER_RATIO if scale == "torso" else DEFAULT_HEAD_RATIO)
    ratios = []
    for kp in people:
        length = measure(kp)
        if length:
            ratios.append(abs(float(kp[LEFT_SHOULDER, 0] - kp[RIGHT_SHOULDER, 0])) / length)
    return float(np.quantile(ratios, quantile)) if len(ratios) >= least else fallback


def body_yaw(
    kp: np.ndarray,
    shoulder_ratio: float = DEFAULT_SHOULDER_RATIO,
    head_ratio: float = DEFAULT_HEAD_RATIO,
    face_yaw: float | None = None,
    portrait: bool = False,
) -> Yaw | None:
    """Body yaw from the shoulders, scaled by the torso (a hip labelled) or else by the head (a face point
    labelled); None without both shoulders or without either scale. Without an occlusion flag telling the
    side, the yaw or its mirror, whichever lies nearer `face_yaw` (none: the one turned to the own right).
    A `portrait` (head-scaled, `face_yaw` from the nose and two more face points) whose face and shoulders
    agree gets the body's yaw from the face (`_portrait_body`, module docstring)."""
    torso = torso_length(kp)
    head = None if torso else head_height(kp)
    if torso is None and head is None:
        return None
    frontal = shoulder_ratio * torso if torso else head_ratio * head  # type: ignore[operator]
    span = float(kp[LEFT_SHOULDER, 0] - kp[RIGHT_SHOULDER, 0])
    cos = float(np.clip(span / frontal, -1.0, 1.0))
    side = _turn_side(kp)
    sin = math.sqrt(max(0.0, 1.0 - cos * cos))
    # Without a side the yaw and its mirror fit alike: sure only when they are within AMBIGUITY_DEG.
    sure = side is not None or sin <= math.sin(math.radians(AMBIGUITY_DEG)) + 1e-12
    turned = math.degrees(math.atan2(sin, cos))
    mirror = None
    if side is None:
        nearer = face_yaw is not None and abs(head_delta(face_yaw, -turned)) < abs(head_delta(face_yaw, turned))
        side = -1.0 if nearer else 1.0
        mirror = (-side * turned) % 360.0 if sin > 0 else None
    degrees = (side * turned) % 360.0
    if portrait and torso is None and face_yaw is not None:
        degrees, mirror, sure = _portrait_body(face_yaw, degrees, mirror, sure, cos, turned)
    confidence = min(1.0, frontal / FULL_SPAN_PX) * (1.0 if torso else HEAD_SCALE_TRUST) * (1.0 if sure else 0.3)
    return Yaw(degrees, round(confidence, 4), mirror)


def _portrait_body(
    face: float, degrees: float, mirror: float | None, sure: bool, cos: float, turned: float
) -> tuple[float, float | None, bool]:
    """A portrait's body yaw, its mirror and whether it is sure, where the face and the shoulders agree (module
    docstring): the face near frontal and the shoulders within their noise of it, the face's yaw; the face toward
    the lens and the shoulders square to it within `AMBIGUITY_DEG`, square to the lens (their yaw and its mirror
    lie either side). Otherwise the shoulders' reading as it was."""
    if _near_frontal(face, PORTRAIT_FRONTAL_DEG) and abs(head_delta(face, degrees)) <= PORTRAIT_SHOULDER_NOISE_DEG:
        return face % 360.0, None, True
    if cos > 0 and turned <= AMBIGUITY_DEG and abs(head_delta(face, 0.0)) < 90.0:
        return 0.0, None, True
    return degrees, mirror, sure


def _near_frontal(yaw: float, within_deg: float) -> bool:
    """Within `within_deg` of facing the camera (0°) or away (180°)."""
    return min(abs(head_delta(yaw, 0.0)), abs(head_delta(yaw, 180.0))) <= within_deg


def is_portrait(kp: np.ndarray) -> bool:
    """No hip labelled, the nose and at least two more face points labelled: the face can lead the body."""
    return (
        not (_seen(kp, LEFT_HIP) or _seen(kp, RIGHT_HIP)) and _seen(kp, NOSE) and sum(_seen(kp, i) for i in FACE) >= 3
    )


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


def face_yaw(kp: np.ndarray) -> Yaw | None:
    """Head yaw from the labelled face points alone; None when they do not tell it.

    With three or more face points, a point of the head model at (s, f) sits at
    x = c − k·(s·cos yaw + f·sin yaw) for the head's image scale k: (c, k·cos, k·sin) by least squares,
    whatever the head's size. Otherwise: both ears without a nose face away; one ear and the nose are in
    profile toward the nose's side.
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
    return None


def head_yaw(kp: np.ndarray, body: Yaw | None) -> Yaw | None:
    """`face_yaw`, or else, with a face point labelled, the body's yaw at low confidence; None without a face
    point."""
    found = face_yaw(kp)
    if found is None and body is not None and any(_seen(kp, i) for i in FACE):
        return Yaw(body.degrees, 0.2)
    return found


def orient(
    kp: np.ndarray, shoulder_ratio: float = DEFAULT_SHOULDER_RATIO, head_ratio: float = DEFAULT_HEAD_RATIO
) -> Orientation | str:
    """Body yaw, head yaw and head turn of one person, or why they cannot be estimated (naming the keypoints
    that are missing)."""
    lacking_shoulders = missing(kp, (LEFT_SHOULDER, RIGHT_SHOULDER))
    if lacking_shoulders:
        return f"no body yaw: {', '.join(lacking_shoulders)} not labelled"
    if not any(_seen(kp, i) for i in FACE):
        lacking = ", ".join(missing(kp, FACE + (LEFT_HIP, RIGHT_HIP)))
        return f"no head yaw and no body scale: {lacking} not labelled"
    face = face_yaw(kp)
    body = body_yaw(kp, shoulder_ratio, head_ratio, None if face is None else face.degrees, is_portrait(kp))
    head = face or head_yaw(kp, body)
    if body is None or head is None:
        return "no body scale: no hip labelled and the face points lie on the shoulder line"
    return Orientation(body, head, head_delta(head.degrees, body.degrees))
