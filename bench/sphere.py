"""Sphere geometry against py360convert: 8192×4096 RGB ERP → six 2048² faces, → 20 crops of 1024².

Run: `.venv/bin/python bench/sphere.py [--reps N]`. Prints ms per call for py360convert (the
anchor) and for benchfoundry in the same run, the ratio anchor / ours, and the largest
difference of the outputs. Both run on py360convert's sampling grid (`align_corners=True`,
see tasks/sphere_maps.py) so the outputs are comparable pixel for pixel. "cold" is the
first call for a size or view (the remap grid is built), "warm" a repeated call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np
import py360convert

from benchfoundry.tasks import sphere, sphere_maps
from benchfoundry.tasks.seeding import item_rng

ERP_H, ERP_W = 4096, 8192
FACE_W = 2048
CROP = 1024
N_CROPS = 20


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="warm repetitions of the cubemap (median)")
    args = parser.parse_args()
    erp = panorama()
    rows: list[tuple[str, float, float, str]] = []

    sphere.GRID_CACHE.clear()
    anchor_cold, ref = timed(lambda: py360convert.e2c(erp, FACE_W, cube_format="dict"))
    ours_cold, mine = timed(lambda: sphere.erp_to_cubemap(erp, FACE_W, align_corners=True))
    worst = max((diff(ref[k], mine[f]) for k, f in zip("FRBLUD", sphere_maps.FACES)), key=lambda d: d[0])
    anchor_warm = statistics.median(
        timed(lambda: py360convert.e2c(erp, FACE_W, cube_format="dict"))[0] for _ in range(args.reps))
    ours_warm = statistics.median(
        timed(lambda: sphere.erp_to_cubemap(erp, FACE_W, align_corners=True))[0] for _ in range(args.reps))
    cube_diff = f"max |Δ| {worst[0]}, >1 on {worst[1]:.4%}"
    rows += [("ERP → 6 faces 2048², cold", anchor_cold, ours_cold, cube_diff),
             ("ERP → 6 faces 2048², warm", anchor_warm, ours_warm, cube_diff)]

    rng = item_rng(0, "bench", "sphere-crops")
    thetas = rng.uniform(-180, 180, N_CROPS)
    phis = rng.uniform(-80, 80, N_CROPS)
    fovs = np.linspace(60, 120, N_CROPS)
    views = [sphere_maps.View.square(t, p, f, CROP, align_corners=True) for t, p, f in zip(thetas, phis, fovs)]
    for label in ("cold", "warm"):
        anchor_ms, ours_ms, worst = [], [], (0, 0.0)
        for view in views:
            a_ms, ref_crop = timed(lambda: py360convert.e2p(erp, view.hfov_deg, view.theta_deg, view.phi_deg,
                                                            (CROP, CROP)))
            o_ms, crop = timed(lambda: sphere.erp_to_perspective(erp, view))
            anchor_ms.append(a_ms)
            ours_ms.append(o_ms)
            worst = max(worst, diff(ref_crop, crop), key=lambda d: d[0])
        rows.append((f"ERP → 20 crops 1024², 60–120°, {label}", statistics.mean(anchor_ms),
                     statistics.mean(ours_ms), f"max |Δ| {worst[0]}, >1 on {worst[1]:.4%}"))

    print(f"{'operation':<38}{'py360convert ms':>17}{'ours ms':>10}{'ratio':>8}  outputs")
    for name, anchor, ours, note in rows:
        print(f"{name:<38}{anchor:>17.1f}{ours:>10.1f}{anchor / ours:>7.1f}×  {note}")


if __name__ == "__main__":
    main()
