"""What a re-render keeps: for each kind of change to the full preset (a lighting, a texture, an action, a pose,
a scene added), the frames the new sample shares with the old one and the frames left to render, with the sampler
of issue 31's start (a cyclic deal, copied here) first and the package's stable sampler last.

The old build is the full preset less one level of the factor; the new build is the full preset. Nothing is
rendered. The anchor is the most any balanced sample can keep: the new sample's frames that do not use the new
level (`ideal`); each sampler's kept frames are printed as a share of the new sample and against that anchor.

    .venv/bin/python bench/rerender.py [--config configs/syndorbench.yaml]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from bench_table import add_row

from benchfoundry.benchmarks.syndor import build_plan
from benchfoundry.benchmarks.syndor.stages import sampling
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.seeding import item_rng

FULL = Path(__file__).parents[1] / "configs" / "syndorbench.yaml"
Sampler = Callable[[BuildConfig, sampling.Levels], set[sampling.Frame]]


def _deal(size: int, levels: int, offset: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permutation((offset + np.arange(size)) % levels)


def cyclic_draw(levels: sampling.Levels, counts: Sequence[int], seed: int) -> list[sampling.Frame]:
    """The sampler before issue 31: every factor dealt cyclically over the frames ordered by lighting, shuffled
    within each distance; a new level shifts every deal after it."""
    rng = item_rng(seed, sampling.STAGE, "frames")
    n = int(sum(counts))
    zone = np.arange(n) % len(levels.zones)
    columns = {"lighting": np.repeat(np.arange(len(levels.lightings)), counts), "zone": zone}
    for name, size in (
        ("azimuth", len(levels.azimuths)),
        ("elevation", len(levels.elevations)),
        ("scene", len(levels.scenes)),
        ("texture", len(levels.textures)),
        ("action", len(levels.poses)),
    ):
        values = np.empty(n, dtype=np.int64)
        offset = 0
        for z in range(len(levels.zones)):
            at = np.flatnonzero(zone == z)
            values[at] = _deal(len(at), size, offset, rng)
            offset += len(at)
        columns[name] = values
    pose = np.empty(n, dtype=np.int64)
    for a, (_, n_poses) in enumerate(levels.poses):
        offset = 0
        for z in range(len(levels.zones)):
            at = np.flatnonzero((zone == z) & (columns["action"] == a))
            pose[at] = _deal(len(at), n_poses, offset, rng)
            offset += len(at)
    columns["pose"] = pose
    sampling._repair(columns, rng)
    return sampling.frames_of(levels, columns)


def old_sampler(config: BuildConfig, levels: sampling.Levels) -> set[sampling.Frame]:
    weights = [config.syndor.items_per_frame(lighting) for lighting in levels.lightings]
    per_lighting = levels.grid_size() // len(levels.lightings)
    counts = sampling.lighting_counts(config.syndor.sample.items, weights, per_lighting)
    return set(cyclic_draw(levels, counts, config.seed))


def new_sampler(config: BuildConfig, levels: sampling.Levels) -> set[sampling.Frame]:
    return set(sampling.sample_frames(config, levels).frames)


def changes(config: BuildConfig) -> dict[str, tuple[list[str], Callable[[sampling.Frame], bool]]]:
    """Per kind of change: the overrides of the old build (one level fewer) and which new frames use the new level."""
    s = config.syndor
    last_lighting, last_texture, last_action, last_scene = (
        s.lightings[-1],
        config.person.textures.ids[-1],
        s.poses.actions[-1],
        s.scenes[-1],
    )
    poses = s.poses.max_frames_per_action
    return {
        "a lighting": (
            [f"syndor.lightings=[{', '.join(s.lightings[:-1])}]"],
            lambda f: f.lighting == last_lighting,
        ),
        "a texture": (
            [f"person.textures.ids=[{', '.join(map(str, config.person.textures.ids[:-1]))}]"],
            lambda f: f.texture == last_texture,
        ),
        "an action": ([f"syndor.poses.actions=[{', '.join(s.poses.actions[:-1])}]"], lambda f: f.action == last_action),
        "a pose": ([f"syndor.poses.max_frames_per_action={poses - 1}"], lambda f: f.pose == poses - 1),
        "a scene": ([f"syndor.scenes=[{', '.join(s.scenes[:-1])}]"], lambda f: f.scene == last_scene),
    }


def levels_of(config: BuildConfig) -> sampling.Levels:
    return sampling.build_levels(config, build_plan.nominal_pose_counts(config))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(FULL))
    args = parser.parse_args()
    config = load_config(args.config)
    if config.syndor.sample.items is None:
        print("the config takes the full factorial: every old frame is kept", file=sys.stderr)
        return 1
    new_levels = levels_of(config)
    current = {name: sampler(config, new_levels) for name, sampler in (("old", old_sampler), ("new", new_sampler))}
    print(f"{args.config}: {len(current['new']):,} frames; kept = new sample's frames already in the old one")
    print(
        f"{'change':<12} {'ideal kept':>14} {'old kept %':>11} {'old to render':>14} {'/ ideal':>8}"
        f" {'new to render':>14} {'/ ideal':>8} {'new kept %':>11} {'s':>5}"
    )
    kept_of: dict[str, tuple[float, float, float]] = {}
    for change, (overrides, uses_new_level) in changes(config).items():
        before = load_config(args.config, overrides)
        old_levels = levels_of(before)
        t = time.perf_counter()
        row = {}
        for name, sampler in (("old", old_sampler), ("new", new_sampler)):
            frames = current[name]
            kept = len(frames & sampler(before, old_levels))
            ideal = sum(1 for f in frames if not uses_new_level(f))
            row[name] = (kept, len(frames) - kept, kept / ideal, 100 * kept / len(frames))
        ideal_pct = 100 * row["new"][0] / row["new"][2] / len(current["new"])
        old, new = row["old"], row["new"]
        print(
            f"{change:<12} {ideal_pct:>13.1f}% {old[3]:>10.1f}% {old[1]:>14,} {old[2]:>8.3f}"
            f" {new[1]:>14,} {new[2]:>8.3f} {new[3]:>10.1f}% {time.perf_counter() - t:>5.1f}"
        )
        kept_of[change] = (new[3], old[3], ideal_pct)
    add_row(
        "`bench/rerender.py`",
        f"a re-render of `{Path(args.config).name}` ({len(current['new']):,} frames) after one change, the new "
        "sample's frames already rendered, per change: "
        + "; ".join(
            f"{change} {new:.1f} % (the old cyclic sampler {old:.1f} %)" for change, (new, old, _) in kept_of.items()
        ),
        "the most a balanced sample can keep (the new sample's frames without the new level): "
        + "; ".join(f"{change} {ideal:.1f} %" for change, (_, _, ideal) in kept_of.items()),
        " / ".join(f"{new / ideal:.3f}" for new, _, ideal in kept_of.values()) + " of it",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
