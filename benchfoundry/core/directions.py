"""Direction labels of spatial questions (docs/design/viewspatial.md §1.4, §1.6, §2.2) and the multiple-choice
distractor rule.

Pure vector maths: an 8-way horizontal label from a forward and an up vector, the 18-label
camera-relative direction with a vertical component, the facing direction of an azimuth (the authors'
`get_azimuth_direction`), and lettered options A–D.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The eight horizontal labels, counter-clockwise bins of 45° starting at "front" (centred on 0°).
HORIZONTAL_LABELS: tuple[str, ...] = (
    "front",
    "front-right",
    "right",
    "back-right",
    "back",
    "back-left",
    "left",
    "front-left",
)
#: Labels with a vertical component (the released set's ten).
VERTICAL_LABELS: tuple[str, ...] = (
    "above",
    "down",
    "above-left",
    "above-right",
    "down-left",
    "down-right",
    "front-up",
    "front-down",
    "back-up",
    "back-down",
)
#: The 18 camera-relative labels.
CAMERA_LABELS: tuple[str, ...] = HORIZONTAL_LABELS + VERTICAL_LABELS
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Direction:
    """A label and how far (degrees) its defining angles are from the nearest bin boundary."""

    label: str
    margin_deg: float


def horizontal_angle(v: Sequence[float], forward: Sequence[float], up: Sequence[float]) -> float:
    """atan2(v·r, v·f) in degrees, [0, 360), with right r = f × u."""
    f = np.asarray(forward, dtype=float)
    r = np.cross(f, np.asarray(up, dtype=float))
    vec = np.asarray(v, dtype=float)
    return math.degrees(math.atan2(float(vec @ r), float(vec @ f))) % 360.0


def horizontal_label(angle_deg: float) -> str:
    """The 8-way bin of docs/design/viewspatial.md §1.4: [22.5, 67.5) front-right, …, [337.5, 22.5) front."""
    return HORIZONTAL_LABELS[int(((angle_deg % 360.0) + 22.5) // 45.0) % 8]


def boundary_margin(angle_deg: float) -> float:
    """Degrees from `angle_deg` to the nearest 8-way bin boundary (22.5 + 45k)."""
    offset = (angle_deg - 22.5) % 45.0
    return min(offset, 45.0 - offset)


def facing_direction(azimuth_deg: float) -> str:
    """The authors' `get_azimuth_direction` (docs/design/viewspatial.md §2.2): the way a subject faces in the camera's
    frame, the camera's viewing direction being front, from an Orient-Anything azimuth (0 = the subject faces the
    camera, 90 = faces the image's left, 180 = away, 270 = the image's right): [337.5, 22.5) back, [22.5, 67.5)
    back-left, [67.5, 112.5) left, [112.5, 157.5) front-left, [157.5, 202.5) front, [202.5, 247.5)
    front-right, [247.5, 292.5) right, [292.5, 337.5) back-right. The facing vector's horizontal angle in
    the camera's frame is the azimuth + 180°, so this is `horizontal_label` of it (same edges)."""
    return horizontal_label((azimuth_deg % 360.0) + 180.0)


def horizontal_direction(v: Sequence[float], forward: Sequence[float], up: Sequence[float]) -> Direction:
    angle = horizontal_angle(v, forward, up)
    return Direction(horizontal_label(angle), boundary_margin(angle))


def camera_direction(v_cam: Sequence[float], vertical_min_deg: float, vertical_only_deg: float) -> Direction:
    """18-label direction of `v_cam` in OpenCV camera axes (x right, y down, z forward).

    Elevation e = atan2(up, |horizontal|). Below `vertical_min_deg` the label is horizontal;
    from `vertical_only_deg` on it is "above"/"down"; in between the vertical word joins the
    larger horizontal component: above-/down-left/right, or front-/back-up/down.
    """
    if not 0.0 < vertical_min_deg < vertical_only_deg < 90.0:
        raise ValueError(
            f"need 0 < vertical_min_deg < vertical_only_deg < 90, got {vertical_min_deg}, {vertical_only_deg}"
        )
    right, up, front = float(v_cam[0]), -float(v_cam[1]), float(v_cam[2])
    elevation = math.degrees(math.atan2(abs(up), math.hypot(right, front)))
    vertical = "above" if up > 0 else "down"
    if elevation >= vertical_only_deg:
        return Direction(vertical, elevation - vertical_only_deg)
    if elevation < vertical_min_deg:
        angle = math.degrees(math.atan2(right, front)) % 360.0
        return Direction(horizontal_label(angle), min(boundary_margin(angle), vertical_min_deg - elevation))
    band = min(elevation - vertical_min_deg, vertical_only_deg - elevation)
    split = abs(math.degrees(math.atan2(abs(right), abs(front))) - 45.0)
    if abs(right) >= abs(front):
        label = f"{vertical}-{'right' if right > 0 else 'left'}"
    else:
        label = f"{'front' if front > 0 else 'back'}-{'up' if up > 0 else 'down'}"
    return Direction(label, min(band, split))


def distractor_pool(answer: str, labels: Sequence[str]) -> list[str]:
    """Labels allowed as wrong options: `o not in answer and answer not in o` (docs/design/viewspatial.md §1.6)."""
    return [o for o in labels if o not in answer and answer not in o]


@dataclass(frozen=True)
class MultipleChoice:
    options: tuple[str, ...]
    answer_index: int

    @property
    def answer(self) -> str:
        """`"B. right"`."""
        return f"{LETTERS[self.answer_index]}. {self.options[self.answer_index]}"

    @property
    def choices(self) -> str:
        """`"A. …\\nB. …"`."""
        return "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(self.options))


def multiple_choice(answer: str, labels: Sequence[str], rng: np.random.Generator, n_options: int = 4) -> MultipleChoice:
    """The answer and `n_options − 1` distractors from the pool, shuffled with `rng`."""
    pool = distractor_pool(answer, labels)
    if len(pool) < n_options - 1:
        raise ValueError(f"only {len(pool)} distractors for {answer!r}; need {n_options - 1}")
    picked = [pool[i] for i in rng.choice(len(pool), size=n_options - 1, replace=False)]
    order = rng.permutation(n_options)
    options = [answer, *picked]
    shuffled = tuple(options[i] for i in order)
    return MultipleChoice(shuffled, int(np.flatnonzero(order == 0)[0]))
