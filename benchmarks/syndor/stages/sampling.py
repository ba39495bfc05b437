"""Full-factorial stratified sampling of SynDORBench frames (docs/design/syndor.md §2, `syndor.sample`).

A frame is one (scene, texture, action, pose, lighting, distance, azimuth, elevation). With `sample.items`
set, frames are drawn until their QA items reach that count (a frame gives one row per task, twice when its
lighting gets a night-vision image), seeded, so that:

- lightings get frame counts that differ by at most one, the extra frames placed so the items come as close
  to the target as they can without passing it;
- the counts per level are fixed first: distance dealt cyclically over the frames ordered by lighting (balanced
  overall and within each lighting); every other factor (azimuth, elevation, scene, texture, action) dealt over
  the distances, the deal carried on from one distance to the next, so its levels differ by at most one overall
  and within each distance (every distance × level pair is covered once a distance holds at least as many frames
  as the factor has levels); pose the same way within each distance × action;
- the frames are then chosen by priority: each frame of the full factorial has a priority hashed from its own
  factor values and the seed, and frames are taken in priority order while every (distance, level) count they
  fall in has room; the few counts left open are filled by the open levels side by side. A frame's priority
  does not depend on the other levels, so when a factor gains or loses a level the same frames win again: the
  new sample keeps as many old frames as the balance allows (bench/rerender.py measures it);
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
from benchfoundry.core.seeding import item_rng, seed_sequence

STAGE = "sample"
#: The sampled factors, in the order the balance report lists them.
FACTORS = ("distance", "azimuth", "elevation", "lighting", "scene", "action", "texture", "pose")
#: Swaps tried per repeated frame before the sample is declared impossible.
MAX_SWAPS = 10_000
#: Frames taken from the priority order at a time.
CHUNK = 50_000
#: The largest full factorial the sampler draws from (its columns are held in memory, about 0.3 kB a frame): four
#: times the paper's factors with 40 people; larger designs are refused before anything is allocated.
MAX_GRID_FRAMES = 5_000_000


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


def _cyclic_counts(sizes: Sequence[int], levels: int) -> np.ndarray:
    """Counts per level of blocks of `sizes` items dealt cyclically, the deal carried on from one block to the
    next: within one of each other in every block and overall."""
    counts = np.zeros((len(sizes), levels), dtype=np.int64)
    offset = 0
    for b, size in enumerate(sizes):
        counts[b] = np.bincount((offset + np.arange(size)) % levels, minlength=levels)
        offset += size
    return counts


def _level_hashes(seed: int, factor: str, values: Sequence[Any]) -> np.ndarray:
    """A stable 64-bit hash per level of one factor (its name and value, and the seed)."""
    return np.array(
        [seed_sequence(seed, STAGE, f"{factor}={v!r}").generate_state(1, dtype=np.uint64)[0] for v in values],
        dtype=np.uint64,
    )


def _mix(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: every bit of the result depends on every bit of `x`."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def grid_columns(levels: Levels) -> dict[str, np.ndarray]:
    """The level indices of every frame of the full factorial (pose as an index into every action's poses)."""
    pose_of = [(a, k) for a, (_, n) in enumerate(levels.poses) for k in range(n)]
    sizes = {
        "lighting": len(levels.lightings),
        "zone": len(levels.zones),
        "azimuth": len(levels.azimuths),
        "elevation": len(levels.elevations),
        "scene": len(levels.scenes),
        "texture": len(levels.textures),
        "action_pose": len(pose_of),
    }
    mesh = np.indices(tuple(sizes.values())).reshape(len(sizes), -1)
    columns = dict(zip(sizes, mesh, strict=True))
    action_pose = np.array(pose_of, dtype=np.int64).reshape(-1, 2)
    columns["action"] = action_pose[columns["action_pose"], 0]
    columns["pose"] = action_pose[columns["action_pose"], 1]
    return columns


def priorities(levels: Levels, columns: dict[str, np.ndarray], seed: int) -> np.ndarray:
    """Each frame's priority: a hash of its own factor values and the seed, so that a frame keeps its priority
    whatever levels the other frames have."""
    values = {
        "lighting": levels.lightings,
        "zone": levels.zones,
        "azimuth": levels.azimuths,
        "elevation": levels.elevations,
        "scene": levels.scenes,
        "texture": levels.textures,
        "action_pose": [(a, k) for a, n in levels.poses for k in range(n)],
    }
    h = np.zeros(len(columns["zone"]), dtype=np.uint64)
    for factor, vals in values.items():
        h = _mix(h ^ _level_hashes(seed, factor, vals)[columns[factor]])
    return h


def targets(levels: Levels, counts: Sequence[int]) -> dict[str, np.ndarray]:
    """Frames per (distance, level) of every factor: distance dealt over the frames ordered by lighting, every other
    factor over the distances (pose over distance × action), each deal carried on, so within one everywhere."""
    lz = _cyclic_counts(counts, len(levels.zones))
    per_zone = lz.sum(axis=0)
    out = {"lighting": lz.T}
    for name, size in (
        ("azimuth", len(levels.azimuths)),
        ("elevation", len(levels.elevations)),
        ("scene", len(levels.scenes)),
        ("texture", len(levels.textures)),
        ("action", len(levels.poses)),
    ):
        out[name] = _cyclic_counts(per_zone, size)
    out["action_pose"] = np.concatenate(
        [_cyclic_counts(out["action"][:, a], n) for a, (_, n) in enumerate(levels.poses)], axis=1
    )
    return out


#: The factors a frame's (distance, level) cells are counted on; lighting and pose sit on distance as well.
CELL_FACTORS = ("lighting", "azimuth", "elevation", "scene", "texture", "action", "action_pose")


def draw_frames(levels: Levels, counts: Sequence[int], seed: int) -> list[Frame]:
    """Distinct frames, `counts[i]` of lighting i, as the module docstring says; sorted."""
    grid = grid_columns(levels)
    want = targets(levels, counts)
    order = np.argsort(priorities(levels, grid, seed), kind="stable")
    room: list[int] = []
    cells = []
    for name in CELL_FACTORS:
        cells.append(len(room) + grid["zone"] * want[name].shape[1] + grid[name])
        room += want[name].ravel().tolist()
    cell_of = np.stack(cells, axis=1)
    n = int(sum(counts))
    chosen: list[int] = []
    for start in range(0, len(order), CHUNK):
        block = order[start : start + CHUNK]
        # Room only shrinks: a frame with a cell already full at the chunk's start is refused below anyway.
        block = block[np.asarray(room)[cell_of[block]].all(axis=1)]
        for i, frame_cells in zip(block.tolist(), cell_of[block].tolist(), strict=True):
            if all(room[c] for c in frame_cells):
                chosen.append(i)
                for c in frame_cells:
                    room[c] -= 1
        if len(chosen) == n:
            break
    columns = {name: grid[name][chosen] for name in KEY_COLUMNS}
    _fill(columns, want, room, levels, seed)
    _repair(columns, item_rng(seed, STAGE, "repair"))
    return sorted(frames_of(levels, columns), key=_frame_order(levels))


def frames_of(levels: Levels, columns: dict[str, np.ndarray]) -> list[Frame]:
    """The frames of columns of level indices (`KEY_COLUMNS`)."""
    return [
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
        for i in range(len(columns["zone"]))
    ]


def _fill(
    columns: dict[str, np.ndarray], want: dict[str, np.ndarray], room: list[int], levels: Levels, seed: int
) -> None:
    """Add the frames the priority pass left open: per distance, every factor's open levels, shuffled, side by side
    (repeated frames are repaired afterwards)."""
    pose_of = [(a, k) for a, (_, n) in enumerate(levels.poses) for k in range(n)]
    open_cells: dict[str, np.ndarray] = {}
    offset = 0
    for name in CELL_FACTORS:
        size = want[name].size
        open_cells[name] = np.array(room[offset : offset + size], dtype=np.int64).reshape(want[name].shape)
        offset += size
    added: dict[str, list[int]] = {name: [] for name in KEY_COLUMNS}
    for z in range(len(levels.zones)):
        rng = item_rng(seed, STAGE, f"fill-{z}")
        lists = {
            name: rng.permutation(np.repeat(np.arange(cells.shape[1]), cells[z])) for name, cells in open_cells.items()
        }
        added["zone"] += [z] * len(lists["lighting"])
        for name in ("lighting", "azimuth", "elevation", "scene", "texture"):
            added[name] += lists[name].tolist()
        added["action"] += [pose_of[p][0] for p in lists["action_pose"]]
        added["pose"] += [pose_of[p][1] for p in lists["action_pose"]]
    for name in KEY_COLUMNS:
        columns[name] = np.concatenate([columns[name], np.array(added[name], dtype=np.int64)])


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
    weights = [config.syndor.items_per_frame(lighting) for lighting in levels.lightings]
    grid = levels.grid_size()
    if grid > MAX_GRID_FRAMES:
        raise ValueError(
            f"syndor: the full factorial holds {grid:,} frames (person.textures.ids {len(levels.textures):,} × "
            f"{len(levels.scenes)} scenes × {sum(n for _, n in levels.poses)} action poses × "
            f"{len(levels.lightings)} lightings × {len(levels.zones) * len(levels.azimuths) * len(levels.elevations)}"
            f" cameras); the sampler draws from at most {MAX_GRID_FRAMES:,}: fewer levels of a factor"
        )
    per_lighting = grid // len(levels.lightings) if levels.lightings else 0
    if target is None or target >= per_lighting * sum(weights):
        frames = full_factorial(levels)
    else:
        counts = lighting_counts(target, weights, per_lighting)
        frames = draw_frames(levels, counts, config.seed)
    items = sum(weights[levels.lightings.index(f.lighting)] for f in frames)
    return Sample(tuple(frames), items, target, grid)


def frame_value(frame: Frame, factor: str) -> Any:
    """A frame's level of one of `FACTORS` (pose as `action/poseNNN`)."""
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
        counts = Counter(frame_value(f, factor) for f in frames)
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
            pairs = Counter((f.zone, frame_value(f, factor)) for f in frames)
            cells = [pairs.get((z, level), 0) for z in levels.zones for level in all_levels[factor]]
            entry["distance_pairs"] = {
                "covered": sum(1 for c in cells if c),
                "of": len(cells),
                "min": min(cells, default=0),
            }
        report[factor] = entry
    return report
