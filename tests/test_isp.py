"""The night-vision ISP chain: transfer functions, noise model, AGC, denoisers, CLAHE, tone map."""

from __future__ import annotations

import numpy as np
import pytest

from benchfoundry.benchmarks.syndor.discern_config import IspConfig
from benchfoundry.benchmarks.syndor.stages import isp


def night_scene(h: int = 96, w: int = 128) -> np.ndarray:
    """A dark 8-bit sRGB frame: dim sky gradient, textured ground, a brighter upright blob."""
    yy, xx = np.mgrid[0:h, 0:w]
    lin = np.zeros((h, w, 3))
    lin[...] = (0.02 + 0.01 * yy / h)[..., None] * np.array([0.6, 0.7, 1.0])
    ground = yy > 0.6 * h
    lin[ground] = (0.015 + 0.01 * np.sin(xx / 5.0))[ground][:, None] * np.array([1.0, 1.2, 0.8])
    person = ((xx - w / 2) / (w / 16)) ** 2 + ((yy - h / 2) / (h / 4)) ** 2 <= 1
    lin[person] = [0.05, 0.035, 0.025]
    return isp.linear_to_srgb(lin)


def test_srgb_round_trip_is_exact_on_8_bit():
    values = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=2)
    assert np.array_equal(isp.linear_to_srgb(isp.srgb_to_linear(values)), values)


def test_srgb_matches_the_standard_breakpoints():
    lin = isp.srgb_to_linear(np.array([[[0, 10, 255]]], dtype=np.uint8))[0, 0]
    assert lin[0] == 0 and lin[2] == pytest.approx(1.0)
    assert lin[1] == pytest.approx((10 / 255) / 12.92)


def test_opponent_transform_is_orthonormal():
    assert np.allclose(isp.OPPONENT @ isp.OPPONENT.T, np.eye(3))
    x = np.random.default_rng(0).random((5, 7, 3))
    assert np.allclose(isp.from_opponent(isp.to_opponent(x)), x)


def test_sensor_noise_follows_the_poisson_gaussian_model():
    config = IspConfig(full_well_e=1000.0, read_noise_e=5.0)
    level = 0.2
    flat = np.full((200, 200, 3), level)
    noisy = isp.add_sensor_noise(flat, config, np.random.default_rng(1))
    expected = np.sqrt(level / 1000.0 + (5.0 / 1000.0) ** 2)
    assert noisy.mean() == pytest.approx(level, rel=0.01)
    assert noisy.std() == pytest.approx(expected, rel=0.02)
    assert isp.noise_sigma(level, config) == pytest.approx(expected)


def test_noise_is_seeded():
    config = IspConfig()
    frame = night_scene()
    a = isp.run_chain(frame, config, np.random.default_rng(3)).image
    b = isp.run_chain(frame, config, np.random.default_rng(3)).image
    c = isp.run_chain(frame, config.model_copy(update={"denoiser": "none"}), np.random.default_rng(4)).image
    d = isp.run_chain(frame, config.model_copy(update={"denoiser": "none"}), np.random.default_rng(5)).image
    assert np.array_equal(a, b)
    assert not np.array_equal(c, d)


def test_agc_reaches_the_target_or_the_cap():
    config = IspConfig(agc_target_mean=0.2, agc_max_gain=8.0)
    assert isp.agc_gain(np.full((4, 4, 3), 0.05), config) == pytest.approx(4.0)
    assert isp.agc_gain(np.full((4, 4, 3), 0.001), config) == pytest.approx(8.0)


@pytest.mark.parametrize("name", ["bm4d-luma", "bm4d", "nlmeans"])
def test_denoisers_bring_a_noisy_frame_closer_to_the_clean_one(name):
    config = IspConfig(denoiser=name)
    yy, xx = np.mgrid[0:64, 0:64]
    clean = np.stack([0.3 + 0.1 * (xx > 32), 0.25 + 0.1 * (yy > 20), np.full(xx.shape, 0.2)], axis=-1)
    sigma = 0.05
    noisy = clean + np.random.default_rng(0).normal(0, sigma, clean.shape)
    out = isp.denoiser(config)(noisy, sigma)
    assert out.shape == clean.shape
    assert np.mean((out - clean) ** 2) < 0.5 * np.mean((noisy - clean) ** 2)


def test_guided_filter_keeps_constants_and_smooths_noise():
    rng = np.random.default_rng(2)
    guide = rng.random((40, 40))
    assert np.allclose(isp.guided_filter(guide, np.full((40, 40), 0.7), 3, 1e-3), 0.7)
    noise = rng.normal(0, 1, (40, 40))
    assert isp.guided_filter(np.zeros((40, 40)), noise, 3, 1e-3).std() < 0.3 * noise.std()


def test_clahe_raises_local_contrast_of_a_dim_frame():
    config = IspConfig()
    lin = isp.srgb_to_linear(night_scene()) * 4
    before = isp.lightness(isp.luminance(lin))
    after = isp.lightness(isp.luminance(isp.clahe_lightness(lin, config)))
    assert after.std() > before.std()


def test_tone_map_is_monotone_and_maps_white_point_to_display_white():
    config = IspConfig(tone_white=4.0)
    grey = np.linspace(0, 4.0, 50)[:, None, None] * np.ones((1, 1, 3))
    out = isp.tone_map(grey, config)[:, 0, 0].astype(int)
    assert np.all(np.diff(out) >= 0)
    assert out[-1] == 255 and out[0] == 0


def test_chain_brightens_a_night_frame_and_keeps_its_shape():
    frame = night_scene()
    result = isp.run_chain(frame, IspConfig(), np.random.default_rng(0))
    assert result.image.shape == frame.shape and result.image.dtype == np.uint8
    assert result.gain > 1
    assert result.image.mean() > frame.mean()


def test_noise_free_chain_has_no_noise_and_skips_the_denoiser():
    frame = night_scene()
    config = IspConfig(noise=False)
    calls = []
    result = isp.run_chain(frame, config, np.random.default_rng(0), denoise=lambda x, s: calls.append(s) or x)
    again = isp.run_chain(frame, config, np.random.default_rng(99))
    assert calls == [] and result.sigma == 0
    assert np.array_equal(result.image, again.image)


def test_chain_rejects_a_grey_image():
    with pytest.raises(ValueError, match="H×W×3"):
        isp.run_chain(np.zeros((8, 8), np.uint8), IspConfig(), np.random.default_rng(0))


@pytest.mark.parametrize("denoiser", ["bm4d-luma", "bm4d"])
def test_bm4d_gives_the_same_bytes_alone_and_beside_other_frames(denoiser):
    """The default (one bm4d thread per frame) is bit-reproducible, also when frames run concurrently."""
    from concurrent.futures import ThreadPoolExecutor

    config = IspConfig(denoiser=denoiser)
    rng = np.random.default_rng(0)
    frames = [np.clip(0.3 + rng.normal(0, 0.05, (32, 32, 3)), 0, 1) for _ in range(6)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(lambda f: isp.denoiser(config)(f, 0.05), frames))
    alone = [isp.denoiser(config)(f, 0.05) for f in frames]
    assert all(np.array_equal(a, b) for a, b in zip(together, alone))


def test_multithreaded_bm4d_takes_turns_from_several_threads():
    """bm4d's own thread pool (bm4d_threads=0) would abort the process if started twice at once."""
    from concurrent.futures import ThreadPoolExecutor

    config = IspConfig(denoiser="bm4d-luma", bm4d_threads=0)
    rng = np.random.default_rng(1)
    frames = [np.clip(0.3 + rng.normal(0, 0.05, (32, 32, 3)), 0, 1) for _ in range(4)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(lambda f: isp.denoiser(config)(f, 0.05), frames))
    single = [isp.denoiser(IspConfig(denoiser="bm4d-luma"))(f, 0.05) for f in frames]
    assert all(np.allclose(a, b, atol=1e-2) for a, b in zip(together, single))  # noise sigma is 0.05


@pytest.mark.parametrize(
    "denoiser, own, other",
    [
        ("bm4d-luma", {"bm4d_step": 3, "chroma_radius": 2}, {"nlmeans_h": 2.0}),
        ("bm4d", {"bm4d_search": 5}, {"chroma_radius": 2, "nlmeans_search": 11}),
        ("nlmeans", {"nlmeans_h": 2.0}, {"bm4d_step": 3, "chroma_eps": 0.1}),
        ("none", {}, {"bm4d_step": 3, "nlmeans_h": 2.0, "chroma_radius": 2, "denoise_strength": 2.0}),
    ],
)
def test_only_the_active_denoisers_settings_identify_the_chain(denoiser, own, other):
    """Feature shards hash `effective_settings`: tuning another denoiser must not redo them, tuning this one must."""
    base = IspConfig(denoiser=denoiser)
    same = isp.effective_settings(base)
    assert isp.effective_settings(base.model_copy(update=other)) == same
    for name, value in own.items():
        assert isp.effective_settings(base.model_copy(update={name: value})) != same
    assert isp.effective_settings(base.model_copy(update={"clahe_clip": 3.0})) != same  # shared by every chain
