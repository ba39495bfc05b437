"""Discernibility features against scipy, closed forms and known shapes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchfoundry.benchmarks.syndor.discern_config import FeatureConfig
from benchfoundry.benchmarks.syndor.stages import discern_features as df


def rect_mask(h: int, w: int, top: int, left: int, rh: int, rw: int) -> np.ndarray:
    mask = np.zeros((h, w), bool)
    mask[top : top + rh, left : left + rw] = True
    return mask


def features(rgb: np.ndarray, mask: np.ndarray, **section: object) -> dict[str, float]:
    config = FeatureConfig(**section)
    return df.image_features(rgb, mask, config, df.sw_directions(config.sw_projections, 0), np.random.default_rng(0))


@pytest.mark.parametrize("n,m,shift", [(50, 80, 0.0), (300, 120, 0.4), (1000, 1000, -1.0)])
def test_ks_statistic_matches_scipy(n, m, shift):
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=n), rng.normal(shift, 1.3, size=m)
    assert df.ks_statistic(x, y) == pytest.approx(stats.ks_2samp(x, y).statistic, abs=1e-12)


def test_ks_statistic_with_ties_matches_scipy():
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 10, 400).astype(float), rng.integers(2, 12, 300).astype(float)
    assert df.ks_statistic(x, y) == pytest.approx(stats.ks_2samp(x, y).statistic, abs=1e-12)


def test_wasserstein_columns_match_scipy_with_unequal_sizes():
    rng = np.random.default_rng(2)
    p, q = rng.normal(size=(70, 4)), rng.exponential(size=(45, 4))
    ours = df.wasserstein_1d_columns(p, q)
    theirs = [stats.wasserstein_distance(p[:, k], q[:, k]) for k in range(4)]
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_sliced_wasserstein_of_a_shift_is_the_mean_projected_shift():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(500, 2)) * [3.0, 1.0]
    shift = np.array([4.0, -2.5])
    directions = df.sw_directions(32, seed=7)
    expected = np.mean([abs(np.cos(a) * shift[0] + np.sin(a) * shift[1]) for a in np.arctan2(*directions.T[::-1])])
    assert df.sliced_wasserstein(q + shift, q, directions) == pytest.approx(expected, rel=1e-9)


def test_sliced_wasserstein_over_many_directions_tends_to_the_integral():
    q = np.random.default_rng(4).normal(size=(200, 2))
    shift = np.array([3.0, 4.0])
    # mean over uniform angles of |cos| is 2/pi, so SW -> 2|shift|/pi
    value = df.sliced_wasserstein(q + shift, q, df.sw_directions(20000, seed=1))
    assert value == pytest.approx(2 * 5.0 / np.pi, rel=0.01)


def test_directions_are_unit_seeded_vectors():
    a, b = df.sw_directions(16, 0), df.sw_directions(16, 1)
    assert np.allclose(np.linalg.norm(a, axis=1), 1)
    assert np.array_equal(a, df.sw_directions(16, 0)) and not np.array_equal(a, b)


def test_area_ratio_height_and_contrast_on_a_rectangle():
    rgb = np.full((100, 120, 3), 60, np.uint8)
    mask = rect_mask(100, 120, 20, 40, 30, 10)
    rgb[mask] = 180
    got = features(rgb, mask)
    assert got["area_ratio"] == pytest.approx(300 / 12000)
    assert got["person_height_px"] == 30
    lum = lambda v: ((v / 255 + 0.055) / 1.055) ** 2.4
    assert got["michelson_contrast"] == pytest.approx((lum(180) - lum(60)) / (lum(180) + lum(60)), rel=1e-4)
    assert got["ks_lightness"] == pytest.approx(1.0)


def test_identical_person_and_background_give_no_evidence():
    rgb = np.full((80, 80, 3), 90, np.uint8)
    got = features(rgb, rect_mask(80, 80, 20, 20, 30, 15))
    assert got["ks_lightness"] == 0 and got["sw_chroma"] == pytest.approx(0) and got["edge_iou"] == 0
    assert got["michelson_contrast"] == pytest.approx(0, abs=1e-6)


def test_chroma_distance_grows_with_colour_difference():
    mask = rect_mask(80, 80, 20, 20, 30, 15)
    base = np.full((80, 80, 3), 100, np.uint8)
    near, far = base.copy(), base.copy()
    near[mask] = (110, 100, 95)
    far[mask] = (160, 90, 60)
    assert features(far, mask)["sw_chroma"] > features(near, mask)["sw_chroma"] > 0


def test_edge_iou_on_a_visible_and_an_invisible_square():
    h = w = 96
    mask = rect_mask(h, w, 30, 30, 36, 36)
    visible = np.full((h, w, 3), 40, np.uint8)
    visible[mask] = 200
    flat = np.full((h, w, 3), 40, np.uint8)
    # a step edge gives strong Sobel response on the 2 px straddling it; the band is 2*edge_band px wide
    iou = features(visible, mask, edge_band=2)["edge_iou"]
    assert 0.35 < iou < 0.65
    assert features(flat, mask)["edge_iou"] == 0
    moved = rect_mask(h, w, 10, 10, 12, 12)
    assert features(visible, moved)["edge_iou"] == 0


def test_empty_mask_gives_zero_features():
    got = features(np.zeros((40, 40, 3), np.uint8), np.zeros((40, 40), bool))
    assert set(got) == set(df.FEATURES + df.CUES)
    assert all(v == 0 for v in got.values())


def test_mask_filling_the_frame_has_no_ring():
    got = features(np.full((30, 30, 3), 50, np.uint8), np.ones((30, 30), bool))
    assert got["area_ratio"] == 1 and got["ks_lightness"] == 0 and got["sw_chroma"] == 0


def test_size_mismatch_is_an_error():
    with pytest.raises(ValueError, match="differ in size"):
        features(np.zeros((10, 10, 3), np.uint8), np.zeros((10, 12), bool))


def test_ring_is_exact_euclidean_band_and_independent_of_thread_count():
    """Pixels exactly ring_width from the mask are in the ring whatever OpenCV's thread count."""
    import cv2

    yy, xx = np.mgrid[:240, :320]
    mask = (yy - 120) ** 2 / 60**2 + (xx - 160) ** 2 / 25**2 <= 1
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    outside, _ = df._distances(mask)
    inside_pts = np.argwhere(mask)
    sample = np.argwhere(~mask)[::997]
    brute = np.sqrt(((sample[:, None, :] - inside_pts[None, :, :]) ** 2).sum(-1).min(1))
    assert np.array_equal(outside[tuple(sample.T)], brute)
    threads = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        single = features(rgb, mask)
        cv2.setNumThreads(max(threads, 2))
        multi = features(rgb, mask)
    finally:
        cv2.setNumThreads(threads)
    assert single == multi
