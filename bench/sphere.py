"""Sphere geometry against py360convert: 8192×4096 RGB ERP → six 2048² faces, → 20 crops of 1024².

Run: `.venv/bin/python bench/sphere.py [--reps N]`. Prints ms per call for py360convert (the
anchor) and for benchfoundry in the same run, the ratio anchor / ours, and the largest
difference of the outputs. Both run on py360convert's sampling grid (`align_corners=True`,
see benchmarks/odi/stages/sphere_coords.py) so the outputs are comparable pixel for pixel. "cold" is the
first call for a size or view (the remap grid is built), "warm" a repeated call.

Exits 1 (with a message on stderr) when an output of ours differs from py360convert's by more than
1 grey level on more than MAX_SHARE = 1e-3 of its values, or by more than MAX_DIFF = 8 levels
anywhere. That is the tolerance of tests/test_sphere.py (`assert_same_samples`): OpenCV samples at
1/32-px fixed-point positions, so float32 grids differing in the last bit can move a noisy sample
by up to 255/32 ≈ 8 levels on rare pixels. Measured on this panorama: > 1 on at most 0.021% of a
face's values and 0.035% of a crop's, max |Δ| 5.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import py360convert
from bench_table import add_row

from benchfoundry.benchmarks.odi.stages import sphere_coords, sphere_images
from benchfoundry.core.seeding import item_rng

ERP_H, ERP_W = 4096, 8192
FACE_W = 2048
CROP = 1024
N_CROPS = 20
MAX_SHARE = 1e-3
MAX_DIFF = 8


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000.0, out


def panorama() -> np.ndarray:
    """A smooth scene plus per-pixel noise, the hardest case for equal outputs."""
    rng = item_rng(0, "bench", "sphere")
    y, x = np.mgrid[0:ERP_H, 0:ERP_W].astype(np.float32)
    base = 128 + 60 * np.sin(x / ERP_W * 2 * np.pi * 5) * np.cos(y / ERP_H * np.pi * 3)
    rgb = np.stack([base, base[::-1], np.roll(base, ERP_W // 3, axis=1)], axis=-1)
    rgb += rng.normal(0, 25, rgb.shape).astype(np.float32)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def diff(a: np.ndarray, b: np.ndarray) -> tuple[int, float]:
    """Max abs difference and the share of values differing by more than 1 grey level."""
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return int(d.max()), float((d > 1).mean())


def within_tolerance(d: tuple[int, float]) -> bool:
    """Whether a (max |Δ|, share > 1) pair is within MAX_DIFF and MAX_SHARE."""
    return d[0] <= MAX_DIFF and d[1] <= MAX_SHARE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="warm repetitions of the cubemap (median)")
    args = parser.parse_args()
    erp = panorama()
    rows: list[tuple[str, float, float, str]] = []

    sphere_images.GRID_CACHE.clear()
    anchor_cold, ref = timed(lambda: py360convert.e2c(erp, FACE_W, cube_format="dict"))
    ours_cold, mine = timed(lambda: sphere_images.erp_to_cubemap(erp, FACE_W, align_corners=True))
    face_diffs = [diff(ref[k], mine[f]) for k, f in zip("FRBLUD", sphere_coords.FACES)]
    worst = max(face_diffs, key=lambda d: d[0])
    outside = [
        f"face {f}: max |Δ| {d[0]}, >1 on {d[1]:.4%}"
        for f, d in zip(sphere_coords.FACES, face_diffs)
        if not within_tolerance(d)
    ]
    anchor_warm = statistics.median(
        timed(lambda: py360convert.e2c(erp, FACE_W, cube_format="dict"))[0] for _ in range(args.reps)
    )
    ours_warm = statistics.median(
        timed(lambda: sphere_images.erp_to_cubemap(erp, FACE_W, align_corners=True))[0] for _ in range(args.reps)
    )
    cube_diff = f"max |Δ| {worst[0]}, >1 on {worst[1]:.4%}"
    rows += [
        ("ERP → 6 faces 2048², cold", anchor_cold, ours_cold, cube_diff),
        ("ERP → 6 faces 2048², warm", anchor_warm, ours_warm, cube_diff),
    ]

    rng = item_rng(0, "bench", "sphere-crops")
    thetas = rng.uniform(-180, 180, N_CROPS)
    phis = rng.uniform(-80, 80, N_CROPS)
    fovs = np.linspace(60, 120, N_CROPS)
    views = [sphere_coords.View.square(t, p, f, CROP, align_corners=True) for t, p, f in zip(thetas, phis, fovs)]
    for label in ("cold", "warm"):
        anchor_ms, ours_ms, worst = [], [], (0, 0.0)
        for view in views:
            a_ms, ref_crop = timed(
                lambda: py360convert.e2p(erp, view.hfov_deg, view.theta_deg, view.phi_deg, (CROP, CROP))
            )
            o_ms, crop = timed(lambda: sphere_images.erp_to_perspective(erp, view))
            anchor_ms.append(a_ms)
            ours_ms.append(o_ms)
            crop_diff = diff(ref_crop, crop)
            worst = max(worst, crop_diff, key=lambda d: d[0])
            if label == "cold" and not within_tolerance(crop_diff):
                outside.append(
                    f"crop θ {view.theta_deg:.1f}° φ {view.phi_deg:.1f}° fov {view.hfov_deg:.1f}°: "
                    f"max |Δ| {crop_diff[0]}, >1 on {crop_diff[1]:.4%}"
                )
        rows.append(
            (
                f"ERP → 20 crops 1024², 60–120°, {label}",
                statistics.mean(anchor_ms),
                statistics.mean(ours_ms),
                f"max |Δ| {worst[0]}, >1 on {worst[1]:.4%}",
            )
        )

    print(f"{'operation':<38}{'py360convert ms':>17}{'ours ms':>10}{'ratio':>8}  outputs")
    for name, anchor, ours, note in rows:
        print(f"{name:<38}{anchor:>17.1f}{ours:>10.1f}{anchor / ours:>7.1f}×  {note}")
    for (name, anchor, ours, note), (_, warm_anchor, warm_ours, _) in zip(rows[::2], rows[1::2], strict=True):
        unit = " per crop" if "crops" in name else ""
        add_row(
            "`bench/sphere.py`",
            f"{name.removesuffix(', cold')} ({erp.shape[1]}×{erp.shape[0]} RGB ERP), first call / repeat: "
            f"{ours:.0f} / {warm_ours:.0f} ms{unit}; outputs against the anchor: {note}",
            f"py360convert {py360convert.__version__} {'e2c' if 'faces' in name else 'e2p'}: "
            f"{anchor:.0f} / {warm_anchor:.0f} ms{unit}",
            f"{anchor / ours:.1f}× / {warm_anchor / warm_ours:.1f}× faster",
        )
    if outside:
        print(
            f"error: outputs differ from py360convert beyond the tolerance (|Δ| > 1 on ≤ {MAX_SHARE:.1%}, "
            f"|Δ| ≤ {MAX_DIFF}):\n  " + "\n  ".join(outside),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
