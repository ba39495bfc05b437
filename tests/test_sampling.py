"""Stratified sampling of SynDORBench frames and the build plan (`build --plan`): balance, coverage, items."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.benchmarks.syndor import build_plan
from benchfoundry.benchmarks.syndor.stages import sampling
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import load_config

FULL = Path(__file__).parents[1] / "configs" / "syndorbench.yaml"
#: The authors' task index (jzyee/SynDORBench task_index/create_task_idxs.py): day = morning and noon; every other
#: lighting is night and has a night-vision copy. Items per frame: one row per task (2), twice for night.
DAY = ("morning", "noon")


def items_of(frames: list[sampling.Frame]) -> int:
    return sum(2 if f.lighting.split("_")[0] in DAY else 4 for f in frames)


def full_preset_levels() -> tuple[object, sampling.Levels]:
    config = load_config(FULL)
    return config, sampling.build_levels(config, build_plan.nominal_pose_counts(config))


def _value(frame: sampling.Frame, factor: str) -> object:
    return {
        "distance": frame.zone,
        "azimuth": frame.azimuth,
        "elevation": frame.elevation,
        "lighting": frame.lighting,
        "scene": frame.scene,
        "action": frame.action,
        "texture": frame.texture,
        "pose": (frame.action, frame.pose),
    }[factor]


def assert_balanced(frames: list[sampling.Frame], levels: sampling.Levels) -> None:
    """Every level of every factor within one frame of the others (pose within its action), overall and within
    each distance; every distance × level pair holds a frame."""
    all_levels = {
        "distance": levels.zones,
        "azimuth": levels.azimuths,
        "elevation": levels.elevations,
        "lighting": levels.lightings,
        "scene": levels.scenes,
        "action": [a for a, _ in levels.poses],
        "texture": levels.textures,
    }
    for factor, values in all_levels.items():
        counts = Counter(_value(f, factor) for f in frames)
        assert max(counts[v] for v in values) - min(counts[v] for v in values) <= 1, (factor, counts)
        if factor == "distance":
            continue
        for zone in levels.zones:
            at = Counter(_value(f, factor) for f in frames if f.zone == zone)
            assert min(at[v] for v in values) >= 1, (factor, zone)
            assert max(at[v] for v in values) - min(at[v] for v in values) <= 1, (factor, zone, at)
    for action, n_poses in levels.poses:
        counts = Counter(f.pose for f in frames if f.action == action)
        assert max(counts[k] for k in range(n_poses)) - min(counts[k] for k in range(n_poses)) <= 1
        for zone in levels.zones:
            assert {f.pose for f in frames if f.action == action and f.zone == zone} == set(range(n_poses))


def test_full_preset_draws_the_papers_items_balanced() -> None:
    config, levels = full_preset_levels()
    sample = sampling.sample_frames(config, levels)
    frames = list(sample.frames)
    assert items_of(frames) == sample.items == 54_864  # the paper's QA pairs
    assert len(set(frames)) == len(frames)
    assert_balanced(frames, levels)
    per_lighting = Counter(f.lighting for f in frames)
    assert len(per_lighting) == 13 and len(set(per_lighting.values())) == 1
    grid = set(sampling.full_factorial(levels))
    assert set(frames) <= grid and len(grid) == levels.grid_size() == 3 * 32 * 13 * 3 * 8 * 4 * 10


@pytest.mark.parametrize("target", [2, 38, 1000, 3_002, 12_346])
def test_even_targets_are_met_exactly_and_never_passed(target: int) -> None:
    config, levels = full_preset_levels()
    config = config.model_copy(deep=True)
    config.syndor.sample.items = target
    sample = sampling.sample_frames(config, levels)
    assert items_of(list(sample.frames)) == sample.items == target
    assert (
        max(Counter(f.lighting for f in sample.frames).values())
        - min(Counter(f.lighting for f in sample.frames).get(name, 0) for name in levels.lightings)
        <= 1
    )


def test_same_seed_same_frames_other_seed_other_frames() -> None:
    config, levels = full_preset_levels()
    config = config.model_copy(deep=True)
    config.syndor.sample.items = 3_000
    first = sampling.sample_frames(config, levels).frames
    assert sampling.sample_frames(config, levels).frames == first
    config.seed = 1
    assert set(sampling.sample_frames(config, levels).frames) != set(first)


def test_dense_sample_and_uneven_poses_stay_distinct_and_balanced() -> None:
    """A third of a small grid, with actions of 3 and 2 poses: the repeated frames a deal makes are swapped away
    without unbalancing anything."""
    config = load_config(
        None,
        [
            "syndor.lightings=[noon_north, night]",
            "syndor.rig.azimuths_deg=[0, 90, 180]",
            "syndor.rig.elevations_deg=[0, 45]",
            "syndor.scenes=[desert, field]",
            "syndor.poses.actions=[walking, kicking]",
            "person.textures.ids=[0, 1]",
        ],
    )
    levels = sampling.build_levels(config, {"walking": 3, "kicking": 2})
    grid = levels.grid_size()
    assert grid == 2 * 3 * 2 * 2 * 3 * 2 * 5
    config.syndor.sample.items = grid  # a third of the frames (a day frame gives 2 items, a night one 4)
    frames = list(sampling.sample_frames(config, levels).frames)
    assert len(frames) == len(set(frames)) == grid // 3
    assert_balanced(frames, levels)


def test_no_target_or_a_target_past_the_factorial_takes_every_frame() -> None:
    config = load_config(
        None, ["syndor.lightings=[noon_north, night]", "syndor.rig.azimuths_deg=[0, 180]", "syndor.scenes=[desert]"]
    )
    levels = sampling.build_levels(config, {"walking": 1})
    every = set(itertools.product(levels.lightings, levels.zones, levels.azimuths, levels.elevations))
    taken = sampling.sample_frames(config, levels)
    assert {(f.lighting, f.zone, f.azimuth, f.elevation) for f in taken.frames} == every
    assert taken.target_items is None and len(taken.frames) == len(every) == taken.grid_frames
    config.syndor.sample.items = 1_000_000  # the bound, far past this grid's factorial
    assert set(sampling.sample_frames(config, levels).frames) == set(taken.frames)


def test_balance_report_counts_every_level_and_pair() -> None:
    config, levels = full_preset_levels()
    config = config.model_copy(deep=True)
    config.syndor.sample.items = 4_000
    sample = sampling.sample_frames(config, levels)
    report = sampling.balance(sample.frames, levels)
    lighting = report["lighting"]
    assert lighting["frames"] == {k: Counter(f.lighting for f in sample.frames)[k] for k in levels.lightings}
    assert lighting["spread"] <= 1 and lighting["distance_pairs"] == {
        "covered": 3 * 13,
        "of": 3 * 13,
        "min": min(Counter((f.zone, f.lighting) for f in sample.frames).values()),
    }
    assert report["pose"]["spread"] <= 1 and len(report["pose"]["frames"]) == 8 * 4


def test_plan_of_the_full_preset_needs_no_asset(capsys: pytest.CaptureFixture[str]) -> None:
    """`build --plan` on the full preset: the paper's item count, at most 3,000 task runs, nothing read (the
    preset's /data and /models paths need not exist)."""
    assert cli.main(["build", str(FULL), "--plan"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^syndor: 54,864 QA items", text, re.M), text
    runs = re.search(r"Prefect task runs: ([\d,]+) \(([^)]*)\)", text)
    assert runs and int(runs[1].replace(",", "")) <= 3000
    parts = {name: int(n.replace(",", "")) for name, n in re.findall(r"([a-z ]+) ([\d,]+)(?:,|$)", runs[2])}
    assert sum(parts.values()) == int(runs[1].replace(",", ""))
    shards = re.search(r"render shards: ([\d,]+)", text)
    assert shards and int(shards[1].replace(",", "")) == 3 * 10 * 8 * 4  # scene × texture × action × pose
    per = re.search(r"frames per shard: min ([\d,]+), mean ([\d.]+), max ([\d,]+)", text)
    assert per and float(per[2]) * 960 == pytest.approx(19_812, abs=0.005 * 960)  # the mean has two decimals
    assert not (Path.cwd() / "out" / "syndorbench").exists()


def test_full_preset_follows_the_paper_and_the_authors_release() -> None:
    """The full preset: evening in the night group with NV images (the authors' task index), 2,000 human labels
    with 400 held out, E5 for scoring and for the first stage of pose selection, an LLM for the second."""
    s = load_config(FULL).syndor
    assert s.qa.evening_group == "night" and set(s.discern.isp.apply_to) == {"evening", "night"}
    assert set(s.discern.model_lighting) == {"evening", "night"}
    labels = s.discern.labels
    assert (labels.source, labels.sample_size, labels.holdout_size) == ("human", 2000, 400)
    assert s.qa.embedding.name == "intfloat/e5-large-v2" and s.qa.embedding.path is not None
    assert s.qa.embedding.prefix == ""  # the authors' e5_score.py encodes the raw texts
    assert s.poses.selection == "embedding" and s.poses.embedding.name == "intfloat/e5-large-v2"
    assert s.poses.rerank is not None  # the second stage: the LLM's rating through the model client


def test_holdout_must_leave_images_to_train_on() -> None:
    from benchfoundry.configs.loader import ConfigError

    with pytest.raises(ConfigError, match="holdout_size"):
        load_config(None, ["syndor.discern.labels.sample_size=10", "syndor.discern.labels.holdout_size=10"])


def random_config(case: int) -> tuple[object, sampling.Levels]:
    """A random small grid (uneven poses per action) with a random even item target that leaves every distance
    room for every level."""
    from benchfoundry.benchmarks.syndor.scenes.lighting import LIGHTINGS

    rng = np.random.default_rng(case)

    def pick(pool: list, low: int, high: int) -> list:
        return sorted(rng.choice(pool, int(rng.integers(low, high + 1)), replace=False).tolist())

    actions = pick(["walking", "kicking", "sneak", "dodging"], 1, 3)
    config = load_config(
        None,
        [
            f"syndor.lightings=[{', '.join(pick(sorted(LIGHTINGS), 2, 6))}]",
            f"syndor.rig.azimuths_deg=[{', '.join(map(str, pick([0, 45, 90, 135, 180, 225, 270, 315], 2, 5)))}]",
            f"syndor.rig.elevations_deg=[{', '.join(map(str, pick([0, 22.5, 45, 67.5], 1, 3)))}]",
            f"syndor.scenes=[{', '.join(pick(['desert', 'field', 'wharf'], 1, 3))}]",
            f"syndor.poses.actions=[{', '.join(actions)}]",
            f"person.textures.ids=[{', '.join(map(str, range(int(rng.integers(1, 5)))))}]",
        ],
    )
    levels = sampling.build_levels(config, {a: int(rng.integers(1, 4)) for a in actions})
    zones = len(levels.zones)
    least = zones * max(
        len(levels.azimuths), len(levels.elevations), len(levels.scenes), len(levels.textures), len(levels.poses)
    )
    least = max(least, zones * len(levels.poses) * max(n for _, n in levels.poses))
    frames = int(rng.integers(2 * least, max(2 * least + 1, levels.grid_size() // 3)))
    config.syndor.sample.items = 2 * frames + 2 * int(rng.integers(0, frames))
    return config, levels


@pytest.mark.parametrize("case", range(12))
def test_random_grids_keep_every_guarantee(case: int) -> None:
    """Property: on any grid, the sample is distinct, inside the grid, balanced and covering, meets an even item
    target exactly, and depends on the config alone (the seed changes it)."""
    config, levels = random_config(case)
    frames = list(sampling.sample_frames(config, levels).frames)
    assert len(set(frames)) == len(frames)
    assert set(frames) <= set(sampling.full_factorial(levels))
    assert items_of(frames) == config.syndor.sample.items
    assert_balanced(frames, levels)
    assert list(sampling.sample_frames(config.model_copy(deep=True), levels).frames) == frames
    config.seed += 1
    assert set(sampling.sample_frames(config, levels).frames) != set(frames)


def test_a_frames_priority_depends_on_its_own_factors_only() -> None:
    """The same frame gets the same priority in grids with other levels around it."""
    config, small = random_config(0)
    bigger = sampling.Levels(
        zones=small.zones,
        azimuths=(*small.azimuths, 10.0),
        elevations=small.elevations,
        lightings=(*small.lightings, "extra"),
        scenes=small.scenes,
        textures=(*small.textures, 99),
        poses=(*small.poses, ("extra", 2)),
    )

    def by_frame(levels: sampling.Levels) -> dict[sampling.Frame, int]:
        grid = sampling.grid_columns(levels)
        frames = sampling.frames_of(levels, grid)
        return dict(zip(frames, sampling.priorities(levels, grid, config.seed).tolist(), strict=True))

    small_p, bigger_p = by_frame(small), by_frame(bigger)
    assert all(bigger_p[f] == p for f, p in small_p.items())
    assert len(set(bigger_p.values())) == len(bigger_p)


#: A mid-size grid (6 lightings × 3 distances × 8 cameras × 2 scenes × 4 textures × 3 actions × 3 poses).
MID = [
    "syndor.lightings=[morning_north, noon_south, evening_east, night, noon_north, morning_west]",
    "syndor.rig.azimuths_deg=[0, 90, 180, 270]",
    "syndor.rig.elevations_deg=[0, 45]",
    "syndor.scenes=[desert, field]",
    "syndor.poses.actions=[walking, kicking, sneak]",
    "person.textures.ids=[0, 1, 2, 3]",
    "syndor.sample.items=1500",
]


def mid_sample(overrides: list[str], poses: int = 3) -> set[sampling.Frame]:
    config = load_config(None, MID + overrides)
    levels = sampling.build_levels(config, dict.fromkeys(config.syndor.poses.actions, poses))
    return set(sampling.sample_frames(config, levels).frames)


@pytest.mark.parametrize(
    ("fewer", "poses", "uses_level"),
    [
        (
            ["syndor.lightings=[morning_north, noon_south, evening_east, night, noon_north]"],
            3,
            ("lighting", "morning_west"),
        ),
        (["person.textures.ids=[0, 1, 2]"], 3, ("texture", 3)),
        (["syndor.poses.actions=[walking, kicking]"], 3, ("action", "sneak")),
        ([], 2, ("pose", 2)),
        (["syndor.scenes=[desert]"], 3, ("scene", "field")),
    ],
    ids=["lighting", "texture", "action", "pose", "scene"],
)
def test_a_new_level_keeps_the_old_frames_the_balance_allows(fewer: list[str], poses: int, uses_level: tuple) -> None:
    """Adding a level: at least 90 % of the most any balanced sample could keep (the new sample's frames that do
    not use the new level) come from the old sample. Removing it again: the frames that leave are those using it
    and at most 10 % of the others (rebalancing)."""
    factor, level = uses_level
    new, old = mid_sample([]), mid_sample(fewer, poses)
    could_keep = {f for f in new if getattr(f, factor) != level}
    assert len(new & old) >= 0.9 * len(could_keep)
    assert len(could_keep - old) <= 0.1 * len(could_keep)
    assert all(getattr(f, factor) != level for f in old)


def test_a_factorial_too_large_to_draw_from_stops_the_plan_in_one_line_before_allocating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """40,000 texture ids are a valid config; their full factorial (5.76 million frames) is refused naming the
    factors before the sampler builds its grid's columns (gigabytes at 100,000 ids)."""
    import yaml

    from benchfoundry.configs.loader import PRESET_DIR

    def no_grid(*args: object) -> None:
        raise AssertionError("the grid was built")

    monkeypatch.setattr(sampling, "grid_columns", no_grid)
    monkeypatch.setattr(sampling, "full_factorial", no_grid)
    data = yaml.safe_load((PRESET_DIR / "smoke.yaml").read_text())
    data.setdefault("person", {}).setdefault("textures", {})["ids"] = list(range(40_000))
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump(data))
    assert cli.main(["build", str(path), "--plan", "--only", "syndor"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "person.textures.ids 40,000" in err[0] and f"{sampling.MAX_GRID_FRAMES:,}" in err[0]
