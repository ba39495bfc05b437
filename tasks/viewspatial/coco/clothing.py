"""Described subjects (DESIGN §4.2): "the man in white" when place alone does not single a person out.

The release names people by what they wear ("the man in white clothes", "the woman in black"). A person's
clothing colour is measured in their instance mask below the shoulder line (the torso and legs): each pixel
goes to the nearest named colour in CIE Lab (ΔE 1976, sRGB D65 through OpenCV), and the colour most pixels
take names the person when it holds `min_share` of them. `described_phrases` gives "the <noun> in <colour>" to
each person whose colour no other person of the same noun in the image shares (and none of them goes
unmeasured: their colour is unknown), so that every phrase names one person; the others keep their place
phrase ("the man on the left").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import cv2
import numpy as np

#: Named colours (sRGB 0–255) the phrases use; orange lies between CSS darkorange and orangered (both named
#: orange), so a NASA suit (223, 104, 68) is orange, not red.
NAMED_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (245, 245, 245),
    "black": (20, 20, 20),
    "grey": (128, 128, 128),
    "red": (200, 30, 30),
    "orange": (235, 110, 35),
    "yellow": (240, 220, 40),
    "green": (40, 150, 50),
    "blue": (30, 70, 200),
    "purple": (120, 50, 150),
    "pink": (240, 150, 180),
    "brown": (120, 75, 40),
}


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab (L 0–100) of sRGB uint8 pixels (..., 3)."""
    pixels = np.asarray(rgb, dtype=np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).reshape(np.shape(rgb))


_NAMES = tuple(NAMED_COLOURS)
_LAB = to_lab(np.array([NAMED_COLOURS[n] for n in _NAMES], dtype=np.uint8))


def nearest_colours(rgb: np.ndarray) -> np.ndarray:
    """Index into the named colours of each pixel (N, 3), by ΔE 1976."""
    lab = to_lab(np.asarray(rgb, dtype=np.uint8).reshape(-1, 3))
    return np.argmin(np.linalg.norm(lab[:, None, :] - _LAB[None, :, :], axis=2), axis=1)


def dominant_colour(rgb: np.ndarray, min_share: float = 0.5) -> str | None:
    """The named colour most of the pixels (N, 3) take, when it holds `min_share` of them; None otherwise."""
    if not len(rgb):
        return None
    counts = np.bincount(nearest_colours(rgb), minlength=len(_NAMES))
    best = int(np.argmax(counts))
    return _NAMES[best] if counts[best] >= min_share * len(rgb) else None


def polygon_mask(segmentation: Sequence[Sequence[float]], size: tuple[int, int]) -> np.ndarray:
    """The boolean mask (h, w) of a COCO polygon segmentation."""
    w, h = size
    mask = np.zeros((h, w), dtype=np.uint8)
    polygons = [np.round(np.asarray(p, dtype=np.float64).reshape(-1, 2)).astype(np.int32) for p in segmentation]
    cv2.fillPoly(mask, [p for p in polygons if len(p) >= 3], 1)
    return mask.astype(bool)


def clothing_colour(image: np.ndarray, mask: np.ndarray, shoulder_y: float, min_share: float = 0.5) -> str | None:
    """The dominant named colour of the mask's pixels below the shoulder line (row `shoulder_y`)."""
    below = mask.copy()
    below[: max(0, int(np.ceil(shoulder_y)))] = False
    return dominant_colour(image[below], min_share)


def described_phrases(
    people: Sequence[tuple[int, str, str | None]], place_phrases: Mapping[int, str]
) -> dict[int, str]:
    """Annotation id → its phrase, from (annotation id, noun, colour or None) of one image: "the <noun> in
    <colour>" where every other person of that noun has a measured colour and none shares it (a lone noun keeps
    "the <noun>"), else the place phrase. Each phrase names one person of the image."""
    nouns = Counter(noun for _, noun, _ in people)
    colours = Counter((noun, colour) for _, noun, colour in people if colour)
    unmeasured = {noun for _, noun, colour in people if not colour}
    phrases = {}
    for ann, noun, colour in people:
        if nouns[noun] > 1 and colour and colours[(noun, colour)] == 1 and noun not in unmeasured:
            phrases[ann] = f"the {noun} in {colour}"
        else:
            phrases[ann] = place_phrases[ann]
    if len(set(phrases.values())) != len(phrases):
        return dict(place_phrases)
    return phrases
