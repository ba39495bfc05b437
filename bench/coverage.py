"""Max-coverage frame selection: lazy greedy against plain greedy on 5,000 frames × ~1M scene voxels.

The instance is synthetic and seeded: scene voxels on a 1000 × 1000 surface grid, a smooth random
camera walk over it, and each frame seeing a window around its position (sizes like a real frame's,
~2–8k voxels, with random pixel dropout), so consecutive frames overlap as in a scan. Both
selections run on the same instance in the same process, with the full budget; the selections
must be equal.

    .venv/bin/python bench/coverage.py [--frames 5000] [--grid 1000] [--budget 32]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from bench_table import add_row

from benchfoundry.benchmarks.viewspatial.scannet.stages.coverage import greedy_lazy, greedy_plain
from benchfoundry.core.seeding import item_rng


def camera_walk(rng: np.random.Generator, n_frames: int, grid: int) -> np.ndarray:
    """A smooth random walk (positions in grid cells) reflected at the grid's edges."""
    heading = np.cumsum(rng.normal(0, 0.15, n_frames)) + rng.uniform(0, 2 * np.pi)
    steps = 6.0 * np.column_stack([np.cos(heading), np.sin(heading)])
    pos = rng.uniform(0, grid, 2) + np.cumsum(steps, axis=0)
    period = 2 * grid
    pos = np.abs((pos % period + period) % period - grid)  # reflect into [0, grid]
    return grid - pos


def frame_sets(rng: np.random.Generator, n_frames: int, grid: int) -> list[np.ndarray]:
    """Per-frame sorted voxel indices: a window around the walk, with dropout."""
    centres = camera_walk(rng, n_frames, grid)
    sets = []
    for cx, cy in centres:
        half_w, half_h = rng.integers(25, 50), rng.integers(20, 40)
        x0, x1 = int(max(cx - half_w, 0)), int(min(cx + half_w, grid))
        y0, y1 = int(max(cy - half_h, 0)), int(min(cy + half_h, grid))
        xs, ys = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1), indexing="ij")
        cells = (xs * grid + ys).ravel()
        keep = rng.random(cells.size) < rng.uniform(0.6, 0.95)
        sets.append(np.sort(cells[keep]).astype(np.int32))
    return sets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=5000)
    parser.add_argument("--grid", type=int, default=1000, help="scene voxels = grid²")
    parser.add_argument("--budget", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = item_rng(args.seed, "bench.coverage", f"{args.frames}x{args.grid}")
    n_voxels = args.grid * args.grid
    t = time.perf_counter()
    sets = frame_sets(rng, args.frames, args.grid)
    sizes = np.array([len(s) for s in sets])
    print(
        f"instance: {args.frames} frames, {n_voxels:,} scene voxels, frame sets {sizes.min()}–{sizes.max()} "
        f"(mean {sizes.mean():.0f}), {sizes.sum():,} incidences, built in {time.perf_counter() - t:.1f} s"
    )

    t, c = time.perf_counter(), time.process_time()
    lazy = greedy_lazy(sets, n_voxels, args.budget, 0.0)
    t_lazy, c_lazy = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    plain = greedy_plain(sets, n_voxels, args.budget, 0.0)
    t_plain, c_plain = time.perf_counter() - t, time.process_time() - c

    covered = np.zeros(n_voxels, dtype=bool)
    for i in plain:
        covered[sets[i]] = True
    same = lazy == plain
    print(f"budget {args.budget}: {len(plain)} frames selected, coverage {covered.mean():.1%}")
    print(f"plain greedy (anchor, full budget): {t_plain:.3f} s wall, {c_plain:.3f} s CPU")
    print(f"lazy greedy:                        {t_lazy:.4f} s wall, {c_lazy:.4f} s CPU")
    print(f"ratio plain/lazy: {t_plain / t_lazy:.0f}x wall, {c_plain / max(c_lazy, 1e-9):.0f}x CPU (goal >= 50x)")
    print(f"selections equal: {same}")
    add_row(
        "`bench/coverage.py`",
        f"lazy-greedy max-coverage selection, {args.frames:,} frames × {n_voxels:,} voxels, budget {args.budget}; "
        f"selections {'equal' if same else 'DIFFERENT'}",
        f"plain greedy, same instance and run: {t_plain:.1f} s",
        f"{t_plain / t_lazy:.0f}× faster",
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
