"""Discernibility features of one image and its person mask (docs/design/syndor.md §4), vectorised numpy/OpenCV.

All four are computed on the mask's bounding box widened by the ring, so their cost follows the
person's size rather than the frame's:

- ``area_ratio``: person pixels / image pixels;
- ``ks_lightness``: two-sample Kolmogorov–Smirnov statistic between CIE-Lab L of the person's
  pixels and of the background ring (pixels within ``ring_width`` px of the mask, outside it);
- ``sw_chroma``: sliced Wasserstein-1 distance between the person's and the ring's (a*, b*),
  over ``sw_projections`` seeded directions, each side subsampled (seeded) to ``sw_max_samples``;
- ``edge_iou``: IoU of strong Sobel edges of L (magnitude ≥ ``edge_threshold`` L units/px)
  inside the mask dilated by ``edge_band`` with the mask's contour band (± ``edge_band`` px).

Observer cues (not model features): ``person_height_px`` (mask rows spanned) and
``michelson_contrast`` (|Yp − Yb| / (Yp + Yb) of mean linear luminance of person and ring).

An empty mask gives 0 for every feature and cue: nothing to see. An empty ring (the person fills
the frame) keeps `area_ratio` and `person_height_px` and gives 0 for the comparisons with the ring.
"""

from __future__ import annotations

import cv2
import numpy as np
from scipy import ndimage

from benchfoundry.benchmarks.syndor.discern_config import FeatureConfig
from benchfoundry.core.seeding import item_rng

FEATURES = ("area_ratio", "ks_lightness", "sw_chroma", "edge_iou")
CUES = ("person_height_px", "michelson_contrast")

_LUMA = np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)


def ks_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """sup |F_x − F_y| of the two empirical CDFs (the two-sample KS statistic); 0 if either is empty."""
    if len(x) == 0 or len(y) == 0:
        return 0.0
    xs, ys = np.sort(np.ravel(x)), np.sort(np.ravel(y))
    grid = np.concatenate([xs, ys])
    cdf_x = np.searchsorted(xs, grid, side="right") / len(xs)
    cdf_y = np.searchsorted(ys, grid, side="right") / len(ys)
    return float(np.max(np.abs(cdf_x - cdf_y)))


def wasserstein_1d_columns(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Exact W1 between the empirical distributions of each column of `p` (n×K) and `q` (m×K).

    W1 = ∫₀¹ |F_p⁻¹(t) − F_q⁻¹(t)| dt; both quantile functions are steps on the union of the
    breakpoints i/n and j/m, so the integral is a weighted sum over those intervals.
    """
    n, m = len(p), len(q)
    ps, qs = np.sort(p.T, axis=1), np.sort(q.T, axis=1)
    t = np.union1d(np.arange(1, n + 1) / n, np.arange(1, m + 1) / m)
    widths = np.diff(t, prepend=0.0)
    middle = t - widths / 2
    ip = np.minimum((middle * n).astype(np.int64), n - 1)
    iq = np.minimum((middle * m).astype(np.int64), m - 1)
    return np.abs(ps[:, ip] - qs[:, iq]) @ widths


def sw_directions(count: int, seed: int) -> np.ndarray:
    """`count` unit vectors in the (a*, b*) plane at seeded uniform angles (the same for every image)."""
    angles = item_rng(seed, "discern-features", "sw-directions").uniform(0.0, 2 * np.pi, count)
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def sliced_wasserstein(p: np.ndarray, q: np.ndarray, directions: np.ndarray) -> float:
    """Mean over `directions` (K×2) of W1 between the projections of point sets `p` and `q`."""
    if len(p) == 0 or len(q) == 0:
        return 0.0
    return float(wasserstein_1d_columns(p @ directions.T, q @ directions.T).mean())


def _subsample(points: np.ndarray, limit: int, rng: np.random.Generator) -> np.ndarray:
    if len(points) <= limit:
        return points
    return points[np.sort(rng.choice(len(points), size=limit, replace=False))]


def _crop_box(mask: np.ndarray, margin: int) -> tuple[slice, slice]:
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    h, w = mask.shape
    return (
        slice(max(rows[0] - margin, 0), min(rows[-1] + margin + 1, h)),
        slice(max(cols[0] - margin, 0), min(cols[-1] + margin + 1, w)),
    )


def _distances(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Euclidean distance of outside pixels to the mask, and of inside pixels to the background.

    Exact (scipy's EDT): OpenCV's "precise" transform varies in the last bits with its thread
    count, which flips pixels that lie exactly on the ring's edge and breaks same-seed, same-bytes.
    """
    outside = ndimage.distance_transform_edt(~mask) if mask.any() else np.full(mask.shape, np.inf)
    inside = ndimage.distance_transform_edt(mask)
    return outside, inside


def edge_iou(
    lightness: np.ndarray,
    mask: np.ndarray,
    threshold: float,
    band: int,
    distances: tuple[np.ndarray, np.ndarray] | None = None,
) -> float:
    """IoU of strong Sobel edges inside the dilated mask with the mask's contour band.

    `distances` is `_distances(mask)` when the caller has it already.
    """
    outside, inside = _distances(mask) if distances is None else distances
    gx = cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3)
    strong = np.hypot(gx, gy) / 8.0 >= threshold
    dilated = mask | (outside <= band)
    contour = (~mask & (outside <= band)) | (mask & (inside <= band))
    edges = strong & dilated
    union = np.count_nonzero(edges | contour)
    return float(np.count_nonzero(edges & contour) / union) if union else 0.0


def empty_features() -> dict[str, float]:
    return dict.fromkeys(FEATURES + CUES, 0.0)


def image_features(
    rgb: np.ndarray, mask: np.ndarray, config: FeatureConfig, directions: np.ndarray, rng: np.random.Generator
) -> dict[str, float]:
    """The four features and the two observer cues of an RGB 8-bit image and a boolean person mask."""
    if rgb.shape[:2] != mask.shape:
        raise ValueError(f"image {rgb.shape[:2]} and mask {mask.shape} differ in size")
    count = int(np.count_nonzero(mask))
    if count == 0:
        return empty_features()
    rows, cols = _crop_box(mask, config.ring_width + config.edge_band + 2)
    crop_mask = mask[rows, cols]
    rgb01 = rgb[rows, cols].astype(np.float32) / 255.0
    lab = cv2.cvtColor(rgb01, cv2.COLOR_RGB2Lab)
    distances = _distances(crop_mask)
    outside = distances[0]
    ring = ~crop_mask & (outside <= config.ring_width)
    features = empty_features()
    features["area_ratio"] = count / mask.size
    height = np.flatnonzero(crop_mask.any(axis=1))
    features["person_height_px"] = float(height[-1] - height[0] + 1)
    if not ring.any():
        return features
    person_lab, ring_lab = lab[crop_mask], lab[ring]
    features["ks_lightness"] = ks_statistic(person_lab[:, 0], ring_lab[:, 0])
    features["sw_chroma"] = sliced_wasserstein(
        _subsample(person_lab[:, 1:], config.sw_max_samples, rng),
        _subsample(ring_lab[:, 1:], config.sw_max_samples, rng),
        directions.astype(np.float32),
    )
    features["edge_iou"] = edge_iou(
        np.ascontiguousarray(lab[..., 0]), crop_mask, config.edge_threshold, config.edge_band, distances
    )
    linear = np.where(rgb01 <= 0.04045, rgb01 / 12.92, ((rgb01 + 0.055) / 1.055) ** 2.4) @ _LUMA
    yp, yb = float(linear[crop_mask].mean()), float(linear[ring].mean())
    features["michelson_contrast"] = abs(yp - yb) / (yp + yb) if yp + yb > 0 else 0.0
    return features
