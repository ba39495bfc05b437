"""The neutral night-vision ISP chain (docs/design/syndor.md §3), as pure functions on arrays.

sRGB 8-bit → linear (inverse sRGB) → sensor noise in the linear domain (Poisson shot noise of
`full_well_e` electrons at 1.0, Gaussian read noise) → AGC (one gain that brings the mean
luminance to a target, capped) → denoising → CLAHE on CIE lightness L* (chroma ratios kept)
→ Reinhard tone map of luminance → sRGB 8-bit.

Denoising runs on an orthonormal opponent transform of linear RGB (white noise stays white with
the same sigma in every channel). The sigma handed to the denoiser is the noise model's at the
frame's mean level, times the AGC gain.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.syndor.discern_config import IspConfig

#: Rows: luminance-like mean, red–blue, green–magenta; orthonormal, so noise stays white.
OPPONENT = np.array(
    [
        [1 / np.sqrt(3), 1 / np.sqrt(3), 1 / np.sqrt(3)],
        [1 / np.sqrt(2), 0.0, -1 / np.sqrt(2)],
        [1 / np.sqrt(6), -2 / np.sqrt(6), 1 / np.sqrt(6)],
    ]
)
#: Rec. 709 / sRGB luminance weights.
LUMA = np.array([0.2126, 0.7152, 0.0722])

Denoiser = Callable[[np.ndarray, float], np.ndarray]

#: bm4d's native thread pool aborts the process when two threads start it at once; with more than
#: one bm4d thread per frame (it then uses every core) calls from the thread task runner take turns.
_BM4D_POOL_LOCK = threading.Lock()


def srgb_to_linear(u8: np.ndarray) -> np.ndarray:
    """Inverse sRGB transfer of an 8-bit image, float64 in [0, 1]."""
    x = u8.astype(np.float64) / 255.0
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(lin: np.ndarray) -> np.ndarray:
    """sRGB transfer of linear values (clipped to [0, 1]) to 8-bit."""
    x = np.clip(lin, 0.0, 1.0)
    y = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return np.clip(np.rint(y * 255.0), 0, 255).astype(np.uint8)


def luminance(lin: np.ndarray) -> np.ndarray:
    return lin @ LUMA


def add_sensor_noise(lin: np.ndarray, config: IspConfig, rng: np.random.Generator) -> np.ndarray:
    """Expose, then draw Poisson photo-electrons and Gaussian read noise; back in signal units."""
    electrons = np.clip(lin * config.exposure, 0.0, None) * config.full_well_e
    counts = rng.poisson(electrons).astype(np.float64)
    if config.read_noise_e > 0:
        counts += rng.normal(0.0, config.read_noise_e, size=counts.shape)
    return counts / config.full_well_e


def noise_sigma(mean_signal: float, config: IspConfig) -> float:
    """Noise standard deviation (signal units, before gain) of the sensor model at `mean_signal`."""
    if not config.noise:
        return 0.0
    variance = max(mean_signal, 0.0) / config.full_well_e + (config.read_noise_e / config.full_well_e) ** 2
    return float(np.sqrt(variance))


def agc_gain(lin: np.ndarray, config: IspConfig, mean: float | None = None) -> float:
    """Gain that brings mean luminance (`mean`, when the caller has it) to the target, capped at `agc_max_gain`."""
    if mean is None:
        mean = float(luminance(lin).mean())
    if mean <= 0:
        return float(config.agc_max_gain)
    return float(min(config.agc_target_mean / mean, config.agc_max_gain))


def to_opponent(lin: np.ndarray) -> np.ndarray:
    return lin @ OPPONENT.T


def from_opponent(opp: np.ndarray) -> np.ndarray:
    return opp @ OPPONENT


def _bm4d_profile(config: IspConfig):
    """bm4d's 2-D profile with a 2-D FFT domain (its default 16³ domain is 10× slower on images)."""
    from bm4d.profiles import BM4DProfile2D

    profile = BM4DProfile2D()
    profile.nf = (config.bm4d_fft_size, config.bm4d_fft_size, 1)
    profile.step_ht = (config.bm4d_step, config.bm4d_step, 1)
    profile.step_wiener = (config.bm4d_step, config.bm4d_step, 1)
    profile.search_window_ht = (config.bm4d_search, config.bm4d_search, 1)
    profile.search_window_wiener = (config.bm4d_search, config.bm4d_search, 1)
    profile.num_threads = config.bm4d_threads
    return profile


def _bm4d_turn(config: IspConfig) -> AbstractContextManager:
    """Single-threaded bm4d runs alongside other frames; its native thread pool runs one at a time."""
    return nullcontext() if config.bm4d_threads == 1 else _BM4D_POOL_LOCK


def guided_filter(guide: np.ndarray, src: np.ndarray, radius: int, eps: float) -> np.ndarray:
    """He et al.'s guided filter (box means), single-channel float."""
    size = (2 * radius + 1, 2 * radius + 1)

    def box(x: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(x, cv2.CV_64F, size, borderType=cv2.BORDER_REFLECT)

    mean_g, mean_s = box(guide), box(src)
    cov = box(guide * src) - mean_g * mean_s
    var = box(guide * guide) - mean_g * mean_g
    a = cov / (var + eps)
    b = mean_s - a * mean_g
    return box(a) * guide + box(b)


def denoise_bm4d_luma(lin: np.ndarray, sigma: float, config: IspConfig) -> np.ndarray:
    """bm4d on the opponent luminance; chroma by a guided filter steered by the denoised luminance."""
    import bm4d

    opp = to_opponent(lin)
    with _bm4d_turn(config):
        luma = np.asarray(bm4d.bm4d(opp[..., 0], sigma, profile=_bm4d_profile(config)))[..., 0]
    scale = max(float(np.ptp(luma)), 1e-6)
    guide = luma / scale
    chroma = [guided_filter(guide, opp[..., c], config.chroma_radius, config.chroma_eps) for c in (1, 2)]
    return np.clip(from_opponent(np.stack([luma, *chroma], axis=-1)), 0.0, None)


def denoise_bm4d(lin: np.ndarray, sigma: float, config: IspConfig) -> np.ndarray:
    """bm4d on each opponent channel; chroma reuses the luminance block matches (as bm3d_rgb does)."""
    import bm4d

    opp = to_opponent(lin)
    profile = _bm4d_profile(config)
    with _bm4d_turn(config):
        luma, matches = bm4d.bm4d(opp[..., 0], sigma, profile=profile, blockmatches=(True, True))
        channels = [np.asarray(luma)[..., 0]]
        for c in (1, 2):
            channels.append(np.asarray(bm4d.bm4d(opp[..., c], sigma, profile=profile, blockmatches=matches))[..., 0])
    return np.clip(from_opponent(np.stack(channels, axis=-1)), 0.0, None)


def denoise_nlmeans(lin: np.ndarray, sigma: float, config: IspConfig) -> np.ndarray:
    """OpenCV non-local means on 16-bit linear RGB (L1 patch norm)."""
    u16 = np.clip(np.rint(lin * 65535.0), 0, 65535).astype(np.uint16)
    h = float(config.nlmeans_h * sigma * 65535.0)
    out = cv2.fastNlMeansDenoising(
        u16,
        h=[h],
        templateWindowSize=config.nlmeans_template,
        searchWindowSize=config.nlmeans_search,
        normType=cv2.NORM_L1,
    )
    return out.astype(np.float64) / 65535.0


#: Field prefixes of IspConfig that only one denoiser family reads.
_DENOISER_FIELDS = {"bm4d-luma": ("bm4d_", "chroma_"), "bm4d": ("bm4d_",), "nlmeans": ("nlmeans_",), "none": ()}
_ANY_DENOISER_FIELD = tuple(sorted({prefix for prefixes in _DENOISER_FIELDS.values() for prefix in prefixes}))


def effective_settings(config: IspConfig) -> dict[str, Any]:
    """The settings that shape this chain's output: the other denoisers' parameters are left out,
    so tuning one denoiser does not redo frames built with another."""
    own = _DENOISER_FIELDS[config.denoiser]
    settings = {
        name: value
        for name, value in config.model_dump(mode="json").items()
        if not name.startswith(_ANY_DENOISER_FIELD) or name.startswith(own)
    }
    if config.denoiser == "none":
        del settings["denoise_strength"]
    return settings


def denoiser(config: IspConfig) -> Denoiser:
    """The configured denoiser as `f(linear_rgb, sigma) -> linear_rgb`."""
    choices: dict[str, Denoiser] = {
        "bm4d-luma": lambda x, s: denoise_bm4d_luma(x, s, config),
        "bm4d": lambda x, s: denoise_bm4d(x, s, config),
        "nlmeans": lambda x, s: denoise_nlmeans(x, s, config),
        "none": lambda x, s: x,
    }
    return choices[config.denoiser]


def _lab_f(t: np.ndarray) -> np.ndarray:
    d = 6 / 29
    return np.where(t > d**3, np.cbrt(t), t / (3 * d * d) + 4 / 29)


def _lab_f_inv(f: np.ndarray) -> np.ndarray:
    d = 6 / 29
    return np.where(f > d, f**3, 3 * d * d * (f - 4 / 29))


def lightness(y: np.ndarray) -> np.ndarray:
    """CIE L* of relative luminance (white = 1); above 100 for y > 1."""
    return 116.0 * _lab_f(np.clip(y, 0.0, None)) - 16.0


def clahe_lightness(lin: np.ndarray, config: IspConfig) -> np.ndarray:
    """CLAHE on 8-bit L* over [0, L*(tone_white)]; RGB scaled by the luminance ratio (chroma kept)."""
    y = luminance(lin)
    l_max = float(lightness(np.array(config.tone_white)))
    lstar = np.clip(lightness(y), 0.0, l_max)
    # 8-bit L*: OpenCV's clip limit is relative to 256 bins (on 16-bit input it collapses to 1 count)
    u8 = np.rint(lstar / l_max * 255.0).astype(np.uint8)
    clahe = cv2.createCLAHE(clipLimit=config.clahe_clip, tileGridSize=(config.clahe_tiles, config.clahe_tiles))
    new_l = clahe.apply(u8).astype(np.float64) / 255.0 * l_max
    new_y = _lab_f_inv((new_l + 16.0) / 116.0)
    ratio = np.where(y > 1e-9, new_y / np.maximum(y, 1e-9), 0.0)
    out = lin * ratio[..., None]
    dark = y <= 1e-9
    out[dark] = new_y[dark, None]
    return out


def tone_map(lin: np.ndarray, config: IspConfig) -> np.ndarray:
    """Extended Reinhard on luminance (white point `tone_white` → 1), then sRGB 8-bit."""
    y = luminance(lin)
    w2 = config.tone_white**2
    yd = y * (1.0 + y / w2) / (1.0 + y)
    ratio = np.where(y > 1e-9, yd / np.maximum(y, 1e-9), 0.0)
    return linear_to_srgb(lin * ratio[..., None])


@dataclass(frozen=True)
class IspResult:
    image: np.ndarray
    gain: float
    sigma: float
    linear: np.ndarray
    """The gained, denoised linear frame before CLAHE and tone mapping."""


def run_chain(
    srgb_u8: np.ndarray, config: IspConfig, rng: np.random.Generator, denoise: Denoiser | None = None
) -> IspResult:
    """The whole chain on an RGB 8-bit image; `denoise` replaces the configured denoiser (bench anchor)."""
    if srgb_u8.ndim != 3 or srgb_u8.shape[2] != 3:
        raise ValueError(f"expected an H×W×3 image, got shape {srgb_u8.shape}")
    lin = srgb_to_linear(srgb_u8)
    signal = add_sensor_noise(lin, config, rng) if config.noise else np.clip(lin * config.exposure, 0.0, None)
    mean = float(luminance(signal).mean())
    gain = agc_gain(signal, config, mean)
    sigma = noise_sigma(mean, config) * gain * config.denoise_strength
    amplified = signal * gain
    if config.noise and sigma > 0:
        amplified = (denoise or denoiser(config))(amplified, sigma)
    return IspResult(tone_map(clahe_lightness(amplified, config), config), gain, sigma, amplified)
