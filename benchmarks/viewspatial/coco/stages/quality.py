"""The sharpness of a COCO person's crop (docs/design/viewspatial.md §2.1: blurry subjects are rejected): the variance
of the Laplacian, a common focus measure."""

from __future__ import annotations

import cv2
import numpy as np

#: The crop's longer side is scaled to this before the sharpness is measured, so that it does not depend on
#: the photograph's resolution (a large sharp crop shrunk keeps its edges; a small blurry one enlarged does not
#: gain any).
SHARPNESS_SIDE_PX = 256


def sharpness(crop: np.ndarray) -> float:
    """Variance of the Laplacian of the grey crop scaled to `SHARPNESS_SIDE_PX` on its longer side (area
    interpolation shrinking, cubic enlarging), grey levels 0–255."""
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
    scale = SHARPNESS_SIDE_PX / max(grey.shape[:2])
    size = (max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale)))
    resized = cv2.resize(grey, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    return float(cv2.Laplacian(resized.astype(np.float64), cv2.CV_64F).var())
