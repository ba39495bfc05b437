"""Full-factorial stratified sampling of SynDORBench frames (DESIGN §2.2, `syndor.sample`).

A frame is one (scene, texture, action, pose, lighting, distance, azimuth, elevation). With `sample.items`
set, frames are drawn until their QA items reach that count (a frame gives one row per task, twice when its
lighting gets a night-vision image), seeded, so that:

- lightings get frame counts that differ by at most one, the extra frames placed so the items come as close
  to the target as they can without passing it;
- distance is dealt cyclically over the frames ordered by lighting: balanced overall and within each lighting;
- every other factor (azimuth, elevation, scene, texture, action) is dealt cyclically within each distance,
  its count carried on from one distance to the next, then shuffled there: its levels differ by at most one
  overall and within each distance, so every distance × level pair is covered once a distance holds at least
  as many frames as the factor has levels;
- pose is dealt the same way within each distance × action (actions may have different numbers of poses);
- a frame drawn twice is repaired by swapping one factor's value (action and pose together) with another frame
  of the same distance, which keeps every count: no frame renders twice.

Without `sample.items` every frame of the full factorial is taken.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.lighting import family
from benchfoundry.core.seeding import item_rng
from benchfoundry.tasks.syndor.release import TASKS

STAGE = "sample"
#: The sampled factors, in the order the balance report lists them.
FACTORS = ("distance", "azimuth", "elevation", "lighting", "scene", "action", "texture", "pose")
#: Swaps tried per repeated frame before the sample is declared impossible.
MAX_SWAPS = 10_000


class Frame(NamedTuple):
    """One sampled frame: the render shard's factors, then the frame's own (lighting, distance zone, camera)."""

    scene: str
    texture: int
    action: str
    pose: int
    lighting: str
    zone: str
    azimuth: float
    elevation: float

    def shard_key(self) -> tuple[str, int, str, int]:
        return (self.scene, self.texture, self.action, self.pose)


@dataclass(frozen=True)
class Levels:
    """The levels of every factor; `poses` gives each action its number of poses, in action order."""

    zones: tuple[str, ...]
    azimuths: tuple[float, ...]
    elevations: tuple[float, ...]
    lightings: tuple[str, ...]
    scenes: tuple[str, ...]
    textures: tuple[int, ...]
    poses: tuple[tuple[str, int], ...]

    @property
    def actions(self) -> tuple[str, ...]:
        return tuple(a for a, _ in self.poses)

    def grid_size(self) -> int:
        """Frames of the full factorial."""
        per_pose = len(self.zones) * len(self.azimuths) * len(self.elevations) * len(self.lightings)
        return per_pose * len(self.scenes) * len(self.textures) * sum(n for _, n in self.poses)


def build_levels(config: BuildConfig, pose_counts: dict[str, int]) -> Levels:
    """The configured levels; `pose_counts` is each action's number of poses (an action with none is left out)."""
    s = config.syndor
    zones = tuple(s.rig.zones or s.zones_ppm)
    return Levels(
        zones=zones,
        azimuths=tuple(float(a) for a in s.rig.azimuths_deg),
        elevations=tuple(float(e) for e in s.rig.elevations_deg),
        lightings=tuple(s.lightings),
        scenes=tuple(s.scenes),
        textures=tuple(config.person.textures.ids),
        poses=tuple((a, pose_counts[a]) for a in s.poses.actions if pose_counts.get(a, 0) > 0),
    )


def items_per_frame(config: BuildConfig, lighting: str) -> int:
    """QA items of one person frame: a row per task, and one more per task when the frame gets a night-vision image."""
    night_vision = family(lighting) in config.syndor.discern.isp.apply_to
    return len(TASKS) * (2 if night_vision else 1)


def lighting_counts(items: int, weights: Sequence[int], capacity: int) -> list[int]:
    """Frames per lighting (items per frame `weights`): m or m + 1 each, at most `capacity`, with the most items
    that do not pass `items`; the extra frames go to the subset of lightings that comes closest (the first found,
    in lighting order)."""
    total = sum(weights)
    base = min(items // total, capacity)
    counts = [base] * len(weights)
    rest = items - base * total
    if base == capacity or rest <= 0:
        return counts
    reachable: dict[int, tuple[int, ...]] = {0: ()}
    for i, w in enumerate(weights):
        for reached, chosen in list(reachable.items()):
            if reached + w <= rest and reached + w not in reachable:
                reachable[reached + w] = (*chosen, i)
    for i in reachable[max(reachable)]:
        counts[i] += 1
    return counts


def _deal(size: int, levels: int, offset: int, rng: np.random.Generator) -> np.ndarray:
    """`size` level indices dealt cyclically from `offset`, shuffled."""
    return rng.permutation((offset + np.arange(size)) % levels)


def full_factorial(levels: Levels) -> list[Frame]:
    """Every frame, in shard then lighting then camera order."""
    return [
        Frame(scene, tex, action, k, lighting, zone, az, el)
        for scene, tex, (action, n) in itertools.product(levels.scenes, levels.textures, levels.poses)
        for k in range(n)
        for lighting, zone, az, el in itertools.product(
            levels.lightings, levels.zones, levels.azimuths, levels.elevations
        )
    ]


def draw_frames(levels: Levels, counts: Sequence[int], seed: int) -> list[Frame]:
    """Distinct frames, `counts[i]` of lighting i, dealt as the module docstring says; sorted."""
    rng = item_rng(seed, STAGE, "frames")
    n = int(sum(counts))
    lighting = np.repeat(np.arange(len(levels.lightings)), counts)
    zone = np.arange(n) % len(levels.zones)
    columns = {"lighting": lighting, "zone": zone}
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
    _repair(columns, rng)
    frames = [
        Frame(
            levels.scenes[columns["scene"][i]],
            levels.textures[columns["texture"][i]],
            levels.poses[columns["action"][i]][0],
            int(columns["pose"][i]),
            levels.lightings[columns["lighting"][i]],
            levels.zones[columns["zone"][i]],
            levels.azimuths[columns["azimuth"][i]],
            levels.elevations[columns["elevation"][i]],
        )
        for i in range(n)
    ]
    return sorted(frames, key=_frame_order(levels))


#: The columns that make a frame (level indices), in one order.
KEY_COLUMNS = ("lighting", "zone", "azimuth", "elevation", "scene", "texture", "action", "pose")


def _key(columns: dict[str, np.ndarray], i: int) -> tuple[int, ...]:
    return tuple(int(columns[c][i]) for c in KEY_COLUMNS)


def _repair(columns: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Make every frame distinct by swapping one factor (action with its pose) between frames of one distance."""
    n = len(columns["zone"])
    keys = Counter(_key(columns, i) for i in range(n))
    by_zone = {int(z): np.flatnonzero(columns["zone"] == z) for z in np.unique(columns["zone"])}
    swappable = (("azimuth",), ("elevation",), ("scene",), ("texture",), ("action", "pose"))
    for i in range(n):
        tries = 0
        while keys[_key(columns, i)] > 1:
            tries += 1
            if tries > MAX_SWAPS:
                raise ValueError(
                    f"syndor.sample.items: cannot draw {n} distinct balanced frames from this grid; "
                    "ask for fewer items or add factor levels"
                )
            j = int(rng.choice(by_zone[int(columns["zone"][i])]))
            names = swappable[int(rng.integers(len(swappable)))]
            if j == i or all(columns[c][i] == columns[c][j] for c in names):
                continue
            old_i, old_j = _key(columns, i), _key(columns, j)
            for c in names:
                columns[c][i], columns[c][j] = columns[c][j], columns[c][i]
            new_i, new_j = _key(columns, i), _key(columns, j)
            keys[old_i] -= 1
            keys[old_j] -= 1
            if keys[new_i] == 0 and keys[new_j] == 0 and new_i != new_j:
                keys[new_i] += 1
                keys[new_j] += 1
                continue
            keys[old_i] += 1
            keys[old_j] += 1
            for c in names:
                columns[c][i], columns[c][j] = columns[c][j], columns[c][i]


def _frame_order(levels: Levels) -> Any:
    """Sort key: shard (scene, texture, action, pose), then lighting, distance and camera, in configured order."""
    rank = {
        "scene": {v: i for i, v in enumerate(levels.scenes)},
        "texture": {v: i for i, v in enumerate(levels.textures)},
        "action": {v: i for i, v in enumerate(levels.actions)},
        "lighting": {v: i for i, v in enumerate(levels.lightings)},
        "zone": {v: i for i, v in enumerate(levels.zones)},
        "azimuth": {v: i for i, v in enumerate(levels.azimuths)},
        "elevation": {v: i for i, v in enumerate(levels.elevations)},
    }
    return lambda f: (
        rank["scene"][f.scene],
        rank["texture"][f.texture],
        rank["action"][f.action],
        f.pose,
        rank["lighting"][f.lighting],
        rank["zone"][f.zone],
        rank["azimuth"][f.azimuth],
        rank["elevation"][f.elevation],
    )


@dataclass(frozen=True)
class Sample:
    """The frames a build renders, the items they give and the target they were drawn for (None: full factorial)."""

    frames: tuple[Frame, ...]
    items: int
    target_items: int | None
    grid_frames: int

    def summary(self, levels: Levels) -> dict[str, Any]:
        """What build.json and the plan record: counts and the achieved balance per factor."""
        return {
            "target_items": self.target_items,
            "items": self.items,
            "frames": len(self.frames),
            "full_factorial_frames": self.grid_frames,
            "balance": balance(self.frames, levels),
        }


def sample_frames(config: BuildConfig, levels: Levels) -> Sample:
    """The frames of `syndor.sample` over `levels`: a balanced draw for `sample.items`, else the full factorial
    (also when the target reaches the full factorial's items)."""
    target = config.syndor.sample.items
    weights = [items_per_frame(config, lighting) for lighting in levels.lightings]
    grid = levels.grid_size()
    per_lighting = grid // len(levels.lightings) if levels.lightings else 0
    if target is None or target >= per_lighting * sum(weights):
        frames = full_factorial(levels)
    else:
        counts = lighting_counts(target, weights, per_lighting)
        frames = draw_frames(levels, counts, config.seed)
    items = sum(weights[levels.lightings.index(f.lighting)] for f in frames)
    return Sample(tuple(frames), items, target, grid)


def _value(frame: Frame, factor: str) -> Any:
    return {
        "distance": frame.zone,
        "azimuth": frame.azimuth,
        "elevation": frame.elevation,
        "lighting": frame.lighting,
        "scene": frame.scene,
        "action": frame.action,
        "texture": frame.texture,
        "pose": f"{frame.action}/pose{frame.pose:03d}",
    }[factor]


def factor_levels(levels: Levels) -> dict[str, list[Any]]:
    """Every level of every factor (pose as `action/poseNNN`)."""
    return {
        "distance": list(levels.zones),
        "azimuth": list(levels.azimuths),
        "elevation": list(levels.elevations),
        "lighting": list(levels.lightings),
        "scene": list(levels.scenes),
        "action": list(levels.actions),
        "texture": list(levels.textures),
        "pose": [f"{a}/pose{k:03d}" for a, n in levels.poses for k in range(n)],
    }


def balance(frames: Sequence[Frame], levels: Levels) -> dict[str, Any]:
    """Per factor: frames per level, the least and most, the spread (most − least; for pose within each action)
    and, for every factor but distance, how many distance × level pairs hold a frame and the fewest frames of one."""
    all_levels = factor_levels(levels)
    report: dict[str, Any] = {}
    for factor in FACTORS:
        counts = Counter(_value(f, factor) for f in frames)
        per_level = {str(level): counts.get(level, 0) for level in all_levels[factor]}
        values = list(per_level.values()) or [0]
        spread = max(values) - min(values)
        if factor == "pose":
            spread = max(
                (
                    max(c) - min(c)
                    for a, n in levels.poses
                    for c in [[counts.get(f"{a}/pose{k:03d}", 0) for k in range(n)]]
                ),
                default=0,
            )
        entry: dict[str, Any] = {"frames": per_level, "min": min(values), "max": max(values), "spread": spread}
        if factor != "distance":
            pairs = Counter((f.zone, _value(f, factor)) for f in frames)
            cells = [pairs.get((z, level), 0) for z in levels.zones for level in all_levels[factor]]
            entry["distance_pairs"] = {
                "covered": sum(1 for c in cells if c),
                "of": len(cells),
                "min": min(cells, default=0),
            }
        report[factor] = entry
    return report
