"""The simulated observer that looks at the image: OpenCV's HOG + linear SVM people detector (Dalal & Triggs,
`cv2.HOGDescriptor_getDefaultPeopleDetector`, shipped inside OpenCV, nothing downloaded).

The detector's window is 64×128 px with the person about 96 px tall in it (3/4 of the window), and its pyramid
only shrinks the image. So the frame gets a border of `detector_pad` × its height on every side, in its mean
colour (a person nearly as tall as the frame then fits a window), and is enlarged by `detector_upscale` (a person
down to ~96 / upscale px tall can be found). The person counts as seen when a detection box overlaps the person's
mask: its IoU with the mask's bounding box is at least `detector_min_iou`. The detector sees the 8-bit frame as it
is, so a dark night frame with little signal left is often missed where its night-vision image, brightened and
denoised, is found; the detector was trained on upright pedestrians seen from about eye level, so it misses some
people seen from above (elevation 45° and up) by day too.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.syndor.discern_config import LabelConfig

#: Detection window stride and padding, px (the OpenCV sample's values).
WIN_STRIDE = (8, 8)
PADDING = (8, 8)


@lru_cache(maxsize=1)
def _hog() -> Any:
    hog = cv2.HOGDescriptor()
    hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    return hog


def detect_people(rgb: np.ndarray, config: LabelConfig) -> tuple[np.ndarray, np.ndarray]:
    """Person boxes (x0, y0, x1, y1) in frame pixels and their SVM scores, strongest first."""
    scale = config.detector_upscale
    image = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)
    pad = int(round(config.detector_pad * image.shape[0]))
    if pad:
        fill = tuple(float(v) for v in image.reshape(-1, 3).mean(axis=0))
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=fill)
    if scale != 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    boxes, weights = _hog().detectMultiScale(
        image,
        hitThreshold=config.detector_hit_threshold,
        winStride=WIN_STRIDE,
        padding=PADDING,
        scale=config.detector_scale_step,
    )
    if len(boxes) == 0:
        return np.zeros((0, 4)), np.zeros(0)
    boxes = np.asarray(boxes, dtype=np.float64)
    corners = np.column_stack([boxes[:, 0], boxes[:, 1], boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]])
    corners = corners / scale - pad
    scores = np.asarray(weights, dtype=np.float64).reshape(-1)
    order = np.argsort(-scores, kind="stable")
    return corners[order], scores[order]


def mask_box(mask: np.ndarray) -> tuple[float, float, float, float] | None:
    """The mask's bounding box (x0, y0, x1, y1), pixel edges; None for an empty mask."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not rows.size:
        return None
    return float(cols[0]), float(rows[0]), float(cols[-1] + 1), float(rows[-1] + 1)


def box_iou(a: np.ndarray, b: tuple[float, float, float, float]) -> np.ndarray:
    """IoU of each box of `a` (N×4, x0 y0 x1 y1) with box `b`."""
    if not len(a):
        return np.zeros(0)
    w = np.clip(np.minimum(a[:, 2], b[2]) - np.maximum(a[:, 0], b[0]), 0, None)
    h = np.clip(np.minimum(a[:, 3], b[3]) - np.maximum(a[:, 1], b[1]), 0, None)
    inter = w * h
    union = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def look(rgb: np.ndarray, mask: np.ndarray, config: LabelConfig) -> dict[str, float]:
    """`detector_seen` (1.0 when a detection overlaps the person, else 0.0) and `detector_iou`, the best IoU of a
    detection with the mask's box (0 with no detection or no person)."""
    box = mask_box(mask)
    if box is None:
        return {"detector_seen": 0.0, "detector_iou": 0.0}
    boxes, _ = detect_people(rgb, config)
    best = float(box_iou(boxes, box).max()) if len(boxes) else 0.0
    return {"detector_seen": float(best >= config.detector_min_iou), "detector_iou": best}
