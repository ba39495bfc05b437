"""SynDORBench's paper-scale rehearsal preset (configs/rehearsal-syndor.yaml) and its `scale` hook
(benchmarks/syndor/scale.py): the plan at the published counts, scaled plans proportional and balanced, the
scaled config loading to itself, a bad `scale` one error naming it."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from benchfoundry.benchmarks.syndor import build_plan, scale
from benchfoundry.benchmarks.syndor.scenes import dori
from benchfoundry.benchmarks.syndor.stages import sampling
from benchfoundry.cli import main as cli
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import ConfigError, config_dict, config_hash, load_config

PRESET = Path(__file__).parents[1] / "configs" / "rehearsal-syndor.yaml"
FULL = Path(__file__).parents[1] / "configs" / "syndorbench.yaml"
#: The paper (docs/design/syndor.md §2): QA items, frames, and the factors' levels.
PAPER_ITEMS, PAPER_FRAMES = 54_864, 19_812
SCENES, PEOPLE, ACTIONS, LIGHTINGS, CAMERAS, DISTANCES = 3, 10, 8, 13, 32, 3
#: Items of one frame per lighting × distance, counted here: 2 tasks, twice with a night-vision image (the 5
#: evening and night lightings), over the 3 distances.
UNIT = DISTANCES * (2 * 8 + 4 * 5)
#: Frames a render shard's features are computed in (discern.frames_per_shard's default), and the build's
#: single tasks (calibration, labels, QA export, report).
FEATURE_BATCH, SINGLE_TASKS = 64, 4


def plan_numbers(text: str) -> dict[str, int]:
    """Items, frames, render shards and task runs of `build --plan`'s syndor lines."""
    found = {
        "items": re.search(r"^syndor: ([\d,]+) QA items", text, re.M),
        "frames": re.search(r"^syndor: .*, from ([\d,]+) frames", text, re.M),
        "shards": re.search(r"render shards: ([\d,]+)", text),
        "task_runs": re.search(r"Prefect task runs: ([\d,]+)", text),
    }
    assert all(found.values()), text
    return {name: int(m[1].replace(",", "")) for name, m in found.items()}


def planned_frames(config: BuildConfig) -> tuple[list[sampling.Frame], sampling.Levels]:
    levels = sampling.build_levels(config, build_plan.nominal_pose_counts(config))
    return list(sampling.sample_frames(config, levels).frames), levels


def counted(frames: list[sampling.Frame]) -> dict[str, int]:
    """Items, frames, shards and task runs counted from the frames alone."""
    per_shard = Counter((f.scene, f.texture, f.action, f.pose) for f in frames)
    features = sum(math.ceil(n / FEATURE_BATCH) for n in per_shard.values())
    return {
        "items": sum(4 if f.lighting.split("_")[0] in ("evening", "night") else 2 for f in frames),
        "frames": len(frames),
        "shards": len(per_shard),
        "task_runs": len(per_shard) + features + SINGLE_TASKS,
    }


def assert_balanced(frames: list[sampling.Frame], levels: sampling.Levels) -> None:
    """Every lighting the same frames, split evenly over the distances; every other factor's levels within one
    frame of each other overall and within each distance, each level at every distance; poses within their
    action the same."""
    per_cell = Counter((f.lighting, f.zone) for f in frames)
    assert len(per_cell) == len(levels.lightings) * len(levels.zones) and len(set(per_cell.values())) == 1
    factors = {
        "azimuth": (lambda f: f.azimuth, levels.azimuths),
        "elevation": (lambda f: f.elevation, levels.elevations),
        "scene": (lambda f: f.scene, levels.scenes),
        "texture": (lambda f: f.texture, levels.textures),
        "action": (lambda f: f.action, levels.actions),
    }
    for factor, (value, values) in factors.items():
        for zone in (None, *levels.zones):
            at = Counter(value(f) for f in frames if zone in (None, f.zone))
            assert set(at) == set(values), (factor, zone)
            assert max(at.values()) - min(at.values()) <= 1, (factor, zone, at)
    for action, n in levels.poses:
        for zone in (None, *levels.zones):
            at = Counter(f.pose for f in frames if f.action == action and zone in (None, f.zone))
            assert set(at) == set(range(n)) and max(at.values()) - min(at.values()) <= 1, (action, zone, at)


def test_plan_of_the_preset_is_the_papers_load(capsys: pytest.CaptureFixture[str]) -> None:
    """`build --plan`: the paper's 54,864 items from 19,812 frames in 960 render shards and 1,924 Prefect task
    runs on embedded defaults (nothing read): 3 scenes × 10 people × 8 actions × 4 built-in poses; every count
    as the planned frames give it, balanced."""
    assert cli.main(["build", str(PRESET), "--plan"]) == 0
    printed = plan_numbers(capsys.readouterr().out)
    config = load_config(PRESET)
    frames, levels = planned_frames(config)
    assert printed == counted(frames)
    assert printed == {"items": PAPER_ITEMS, "frames": PAPER_FRAMES, "shards": 960, "task_runs": 1_924}
    assert SCENES * PEOPLE * ACTIONS * 4 == 960 and all(n == 4 for _, n in levels.poses)
    assert_balanced(frames, levels)
    assert not (Path.cwd() / "out" / "rehearsal-syndor").exists()


def test_the_preset_is_the_papers_design_on_embedded_defaults() -> None:
    config = load_config(PRESET)
    s = config.syndor
    assert config.person.body.model_type == "anny" and len(config.person.textures.ids) == PEOPLE
    assert config.person.textures.smplitex_dir is None and not s.poses.uses_amass and s.poses.rerank is None
    assert s.qa.embedding.path is None  # the shipped MiniLM: no model download
    assert (len(s.scenes), len(s.poses.actions), len(s.lightings)) == (SCENES, ACTIONS, LIGHTINGS)
    assert len(s.rig.azimuths_deg) * len(s.rig.elevations_deg) == CAMERAS
    assert [round(row["distance_m"], 2) for row in dori.zone_table(s.camera.spec(), s.zones_ppm)] == [
        5.38,
        10.75,
        23.04,
    ]
    assert s.zones_ppm == {
        "recognition-identification": 187.5,
        "observation-recognition": 93.75,
        "detection-observation": 43.75,
    }
    assert (s.render.samples, s.render.denoise) == (1, True)
    labels = s.discern.labels
    assert (labels.source, labels.observer, labels.sample_size, labels.holdout_size) == (
        "simulated",
        "detector",
        2000,
        400,
    )
    assert not config.odi.enabled and not config.viewspatial.enabled


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.5])
def test_scaled_plans_are_proportional_and_balanced(fraction: float, capsys: pytest.CaptureFixture[str]) -> None:
    """`--set scale=f`: items f × 54,864 to the nearest whole unit (one frame per lighting × distance), frames in
    proportion, every factor balanced; task runs as the frames' shards give them (not in proportion: a shard is a
    person, scene and pose with all its frames, and a small sample leaves most shards one frame)."""
    assert cli.main(["build", str(PRESET), "--plan", "--set", f"scale={fraction}"]) == 0
    printed = plan_numbers(capsys.readouterr().out)
    config = load_config(PRESET, [f"scale={fraction}"])
    frames, levels = planned_frames(config)
    assert printed == counted(frames)
    assert printed["items"] == config.syndor.sample.items == round(fraction * PAPER_ITEMS / UNIT) * UNIT
    assert abs(printed["items"] - fraction * PAPER_ITEMS) <= UNIT / 2
    assert abs(printed["frames"] - fraction * PAPER_FRAMES) <= UNIT / 2 * PAPER_FRAMES / PAPER_ITEMS
    assert printed["frames"] == printed["items"] // UNIT * LIGHTINGS * DISTANCES
    assert_balanced(frames, levels)
    full = counted(planned_frames(load_config(PRESET))[0])
    assert printed["shards"] <= full["shards"] and printed["task_runs"] <= full["task_runs"]
    labels = config.syndor.discern.labels
    assert labels.sample_size == max(scale.MIN_LABEL_SAMPLE, round(2000 * fraction))
    assert labels.holdout_size == max(scale.MIN_HOLDOUT, round(400 * fraction))


def test_a_tiny_fraction_keeps_every_level_at_every_distance() -> None:
    """Far below one unit the sample keeps the least that holds every level at every distance: 32 action × pose
    levels (the rehearsal's 4 built-in poses, the full preset's 4 AMASS frames) need 3 units of 13 frames a
    distance; one pose per action needs one."""
    for config in (load_config(PRESET, ["scale=0.0001"]), load_config(FULL, ["scale=0.0001"])):
        assert config.syndor.sample.items == 3 * UNIT
        frames, levels = planned_frames(config)
        assert len(frames) == 3 * LIGHTINGS * DISTANCES
        assert_balanced(frames, levels)
    one_pose = load_config(PRESET, ["scale=0.0001", "syndor.poses.builtin_variants=1"])
    assert one_pose.syndor.sample.items == UNIT
    assert_balanced(*planned_frames(one_pose))
    full = load_config(FULL, ["scale=0.0001"])
    assert full.syndor.discern.labels.sample_size == scale.MIN_LABEL_SAMPLE
    assert full.syndor.discern.labels.holdout_size == scale.MIN_HOLDOUT


def test_the_scaled_config_holds_no_scale_and_loads_to_itself(tmp_path: Path) -> None:
    config = load_config(PRESET, ["scale=0.1"])
    dumped = config_dict(config)
    assert "scale" not in dumped and dumped["syndor"]["sample"]["items"] == 5_508
    path = tmp_path / "scaled.yaml"
    path.write_text(yaml.safe_dump(dumped, sort_keys=False))
    again = load_config(path)
    assert again == config and config_hash(again) == config_hash(config)
    assert load_config(PRESET, ["scale=1"]) == load_config(PRESET)


@pytest.mark.parametrize("bad", ["0", "1.5", "x", "-0.1", "true"])
def test_a_bad_scale_is_one_error_naming_it(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"\bscale\b") as err:
        load_config(PRESET, [f"scale={bad}"])
    assert str(err.value).count("scale:") == 1


def test_a_section_the_hook_cannot_scale_is_an_error_naming_what_to_set() -> None:
    """Without `sample.items` (the full factorial) the item count needs the people, outside the section."""
    with pytest.raises(ConfigError, match=r"scale 0\.5: syndor\.sample\.items is unset"):
        load_config(None, ["scale=0.5"])


def test_a_disabled_section_is_left_as_it_is() -> None:
    """Another benchmark's rehearsal (syndor disabled, its sample unset) scales without touching this section."""
    config = load_config(None, ["syndor.enabled=false", "odi.enabled=false", "viewspatial.enabled=false"])
    assert (
        load_config(
            None, ["syndor.enabled=false", "odi.enabled=false", "viewspatial.enabled=false", "scale=0.1"]
        ).syndor
        == config.syndor
    )


def test_the_hook_never_grows_a_count() -> None:
    """A config's counts below the least a scaled build keeps stay as they are."""
    config = load_config(
        None,
        [
            "syndor.sample.items=40",
            "syndor.discern.labels.sample_size=20",
            "syndor.discern.labels.holdout_size=5",
            "scale=0.01",
        ],
    )
    assert config.syndor.sample.items == 40
    assert (config.syndor.discern.labels.sample_size, config.syndor.discern.labels.holdout_size) == (20, 5)
