"""Described subjects (docs/design/viewspatial.md §3): "the man in white" for a person who shares their noun with
another in the image, and for a share of the others, as the release names people ("the man in white", "the woman in
black clothes": its commonest).

A person's clothing colour is measured in their instance mask below the shoulder line (down to the hips when
they are seen: the top they wear): each pixel goes to the named colour of its nearest anchor in CIE Lab (ΔE
1976, sRGB D65 through OpenCV), and the colour most pixels take names the person when it holds `min_share` of
them. A name has its main anchor and darker or lighter shades (`SHADES`): with one anchor each, a steel-blue
shirt is nearest grey and a shaded navy one purple. `described_phrases` gives "the <noun> in <colour>" to each
person asked for whose colour no other person of the same noun in the image shares (and none of them goes
unmeasured: their colour is unknown), so that every phrase names one person; the others keep their place
phrase ("the man on the left").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.viewspatial.coco.stages.people import Person

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
#: Further anchors of a name (sRGB 0–255), after CSS colours of that basic name: navy and a shaded navy,
#: steel blue and cornflower; dark red and a shaded red; dark green, medium and dark sea green; indigo; tan.
SHADES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "blue": ((0, 0, 128), (25, 40, 95), (70, 130, 180), (100, 150, 230)),
    "red": ((139, 0, 0), (110, 20, 25)),
    "green": ((0, 100, 0), (60, 179, 113), (143, 188, 143)),
    "purple": ((75, 0, 130),),
    "brown": ((210, 180, 140),),
}


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab (L 0–100) of sRGB uint8 pixels (..., 3)."""
    pixels = np.asarray(rgb, dtype=np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).reshape(np.shape(rgb))


#: Fewest pixels a colour is measured in: a far, hidden or back-lit sliver of a person (a rendered green shirt of
#: 45 px in shade measures grey) names none.
MIN_PIXELS = 64

_NAMES = tuple(NAMED_COLOURS)
_ANCHORS = [(k, rgb) for k, n in enumerate(_NAMES) for rgb in (NAMED_COLOURS[n], *SHADES.get(n, ()))]
_ANCHOR_NAME = np.array([k for k, _ in _ANCHORS])
_LAB = to_lab(np.array([rgb for _, rgb in _ANCHORS], dtype=np.uint8))


def nearest_colours(rgb: np.ndarray) -> np.ndarray:
    """Index into the named colours of each pixel (N, 3): the name of its nearest anchor by ΔE 1976."""
    lab = to_lab(np.asarray(rgb, dtype=np.uint8).reshape(-1, 3))
    return _ANCHOR_NAME[np.argmin(np.linalg.norm(lab[:, None, :] - _LAB[None, :, :], axis=2), axis=1)]


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


def clothing_colour(
    image: np.ndarray, mask: np.ndarray, shoulder_y: float, hip_y: float | None = None, min_share: float = 0.5
) -> str | None:
    """The dominant named colour of the mask's pixels below the shoulder line (row `shoulder_y`), down to the
    hip line (row `hip_y`) when given and below the shoulders; None from fewer than `MIN_PIXELS`."""
    below = mask.copy()
    below[: max(0, int(np.ceil(shoulder_y)))] = False
    if hip_y is not None and hip_y > shoulder_y:
        below[int(np.floor(hip_y)) + 1 :] = False
    return dominant_colour(image[below], min_share) if below.sum() >= MIN_PIXELS else None


def person_polygons(data: Mapping[str, Any]) -> dict[int, list[Any]]:
    """Annotation id → its polygon segmentation, for the annotations of a COCO file that have one."""
    return {
        a.get("id"): a["segmentation"]
        for a in data.get("annotations") or []
        if isinstance(a, dict) and isinstance(a.get("segmentation"), list) and a["segmentation"]
    }


def image_colours(
    image: np.ndarray, people: Sequence[Person], polygons: Mapping[int, list[Any]]
) -> dict[int, str | None]:
    """Annotation id → the clothing colour of each person of one image (RGB), measured in their polygon below
    the shoulder line (the lower labelled shoulder: one is enough, as at the image's edge) down to the hip line
    (the labelled hips' mean) where a hip is labelled; none for an image of a person without a polygon, nor for a
    person with no shoulder labelled or annotated at another size than the image's."""
    if not people or not all(p.annotation_id in polygons for p in people):
        return {}
    colours: dict[int, str | None] = {}
    for p in people:
        shoulders = p.keypoints[[5, 6]]
        if not (shoulders[:, 2] > 0).any() or image.shape[1::-1] != tuple(p.size):
            continue
        hips = p.keypoints[[11, 12]]
        hip_y = float(hips[hips[:, 2] > 0, 1].mean()) if (hips[:, 2] > 0).any() else None
        mask = polygon_mask(polygons[p.annotation_id], p.size)
        colours[p.annotation_id] = clothing_colour(image, mask, float(shoulders[shoulders[:, 2] > 0, 1].max()), hip_y)
    return colours


def described_phrases(
    people: Sequence[tuple[int, str, str | None]],
    place_phrases: Mapping[int, str],
    wanted: Collection[int],
    wording: Callable[[int, str], str] = lambda _, colour: f"in {colour}",
    topless: Collection[int] = (),
) -> dict[int, str]:
    """Annotation id → its phrase, from (annotation id, noun, colour or None) of one image: for the ids in
    `wanted`, "the <noun> <wording>" (`wording(id, colour)`: "in white", "in black clothes") where every other
    person of that noun has a measured colour and none shares it; else the place phrase. A person in `topless`
    (no shoulder in view: the top a colour is measured on lies outside the image) keeps the place phrase and
    stands in no one's way. Each phrase names one person of the image."""
    colours = Counter((noun, colour) for a, noun, colour in people if colour and a not in topless)
    unmeasured = {noun for a, noun, colour in people if not colour and a not in topless}
    phrases = {}
    for ann, noun, colour in people:
        if ann in wanted and ann not in topless and colour and colours[(noun, colour)] == 1 and noun not in unmeasured:
            phrases[ann] = f"the {noun} {wording(ann, colour)}"
        else:
            phrases[ann] = place_phrases[ann]
    if len(set(phrases.values())) != len(phrases):
        return dict(place_phrases)
    return phrases
