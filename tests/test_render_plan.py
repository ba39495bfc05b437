"""Shard planning, released naming and the calibration measure (no Blender)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from benchfoundry.benchmarks.syndor.config import RenderConfig
from benchfoundry.benchmarks.syndor.scenes import camera_rig, dori, render_plan, rig_spec
from benchfoundry.benchmarks.syndor.stages import calibration_stage, sampling
from benchfoundry.benchmarks.syndor.stages.pose_selection import select_poses
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.render_spec import EngineSettings
from benchfoundry.person import textures

#: The denoiser's settings `syndor.render` gained after builds had been made.
KNOBS = {"denoise_prefilter", "denoise_quality"}
BASE = [
    "syndor.scenes=[desert, wharf]",
    "syndor.lightings=[noon_north, night]",
    "syndor.poses.actions=[walking, kicking]",
    "person.textures.ids=[0, 7]",
]


def _plans(*extra: str) -> dict[str, str]:
    return {p.shard_id: p.spec_hash for p in render_plan.plan_shards(load_config(None, [*BASE, *extra]))}


def test_one_shard_per_person_with_every_lighting_and_camera() -> None:
    """A shard is a (scene, texture, action, pose) with all its frames: every lighting × camera of the full
    factorial when nothing is sampled."""
    plans = render_plan.plan_shards(load_config(None, BASE))
    combos = {(p.scene, p.texture_id, p.action, p.pose_index) for p in plans}
    assert len(plans) == len(combos) == 2 * 2 * 2
    assert len({p.shard_id for p in plans}) == len(plans)
    cameras = 3 * 8 * 4  # the default rig: 3 distances × 8 azimuths × 4 elevations
    for p in plans:
        assert len(p.frames) == len(set(p.frames)) == 2 * cameras
        assert p.lightings == ("noon_north", "night")  # frames ordered by lighting: one light switch
        assert [f.lighting for f in p.frames] == ["noon_north"] * cameras + ["night"] * cameras


def test_only_affected_shards_change() -> None:
    before = _plans()
    fewer_actions = _plans("syndor.poses.actions=[kicking]")
    assert fewer_actions and all(before[k] == h for k, h in fewer_actions.items())
    more_light = _plans("syndor.lightings=[noon_north, night, morning_west]")
    assert set(more_light) == set(before) and all(more_light[k] != before[k] for k in before)
    night = _plans("syndor.lighting.night.moon_strength=0.05")
    assert set(night) == set(before) and all(night[k] != before[k] for k in before)  # every shard has a night frame
    day_only = ["syndor.lightings=[noon_north]"]
    assert _plans(*day_only) == _plans(*day_only, "syndor.lighting.night.moon_strength=0.05")
    samples = _plans("syndor.render.samples=64")
    assert all(samples[k] != before[k] for k in before)
    workers = _plans("syndor.render.shards_per_worker=1")
    assert workers == before  # the worker life cycle does not change pixels


def _render_keys(config: BuildConfig) -> list[object]:
    """What decides whether SynDOR's rendered work is redone: the render settings hash (the manifest's frames),
    each shard's and frame's spec hash, the calibration's."""
    plans = render_plan.plan_shards(config)
    hashes = [(p.shard_id, p.spec_hash, p.frame_hashes) for p in plans]
    return [render_plan.render_settings_hash(config.syndor), hashes, calibration_stage.calibration_hash(config)]


def test_the_denoiser_knobs_at_their_defaults_keep_the_render_keys_of_earlier_builds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the denoiser's defaults, the smoke preset's render keys are those of a release without
    `denoise_prefilter`/`denoise_quality` (its render hash took every render field but the worker's life cycle),
    and its engine the settings that release built; FAST reaches the shard's engine and redoes every shard."""
    prefilter, quality = "syndor.render.denoise_prefilter", "syndor.render.denoise_quality"
    smoke = load_config("smoke", [f"{prefilter}=ACCURATE", f"{quality}=HIGH"])
    r = smoke.syndor.render
    keys = _render_keys(smoke)
    life_cycle = {"shards_per_worker", "shard_timeout_s", "threads"}
    with monkeypatch.context() as m:
        m.setattr(
            RenderConfig, "engine_settings", lambda self: self.model_dump(mode="json", exclude=life_cycle | KNOBS)
        )
        assert _render_keys(smoke) == keys
    earlier = EngineSettings(
        device=r.device,
        samples=r.samples,
        denoise=r.denoise,
        max_bounces=r.max_bounces,
        threads=r.threads,
        image_format=r.image_format,
        jpeg_quality=r.jpeg_quality,
        persistent_data=True,
    )
    assert rig_spec.rig_shard(smoke, None, "desert", []).engine == earlier
    fast = load_config("smoke", [f"{prefilter}=FAST", f"{quality}=HIGH"])
    assert rig_spec.rig_shard(fast, None, "desert", []).engine == replace(earlier, denoise_prefilter="FAST")
    fast_keys = _render_keys(fast)
    assert fast_keys[0] != keys[0] and fast_keys[2] != keys[2]
    assert all(a[1] != b[1] and not set(a[2]) & set(b[2]) for a, b in zip(fast_keys[1], keys[1], strict=True))
    balanced = load_config("smoke", [f"{prefilter}=ACCURATE", f"{quality}=BALANCED"])
    assert rig_spec.rig_shard(balanced, None, "desert", []).engine.denoise_quality == "BALANCED"
    assert _render_keys(balanced)[0] not in (keys[0], fast_keys[0])
    with pytest.raises(ValueError, match="denoise_prefilter"):
        load_config("smoke", [f"{prefilter}=SLOW"])


def test_released_names() -> None:
    spec = dori.PRESETS["paper"]
    cams = camera_rig.rig_cameras(
        spec, dori.ZONE_MIDPOINTS_PPM, [45.0 * i for i in range(8)], [22.5 * i for i in range(4)], np.array([0, 0, 0.9])
    )
    pattern = re.compile(
        r"^images/SMPLitex_texture_00012_walking_field_night_(\d+\.\d)/pose002/raw_images/"
        r"frame0001_cam(\d{3})_r(\d+)_phi(\d+)_theta([\d.]+)\.jpg$"
    )
    seen = set()
    for cam in cams:
        names = render_plan.frame_paths(12, "walking", "field", "night", 2, cam)
        m = pattern.match(names["img_path"])
        assert m, names["img_path"]
        radius, number, r_int, phi, theta = m.groups()
        assert float(radius) == pytest.approx(cam.distance_m, abs=0.05)
        assert int(r_int) == int(cam.distance_m)
        assert int(number) == int(phi) // 45 * 4 + int(float(theta) / 22.5)
        assert names["mask_path"] == names["img_path"].replace("/raw_images/", "/masks/")[:-4] + ".png"
        assert names["source_dir"] == names["img_path"].split("/pose002/")[0]
        seen.add(names["img_path"])
    assert len(seen) == 96
    assert {render_plan.radius_label(c.distance_m) for c in cams} == {"5.4", "10.8", "23.0"}


def test_measure_ppm() -> None:
    mask = np.zeros((360, 640), bool)
    mask[100:200, 300:320] = True  # 100 px for a 1.75 m person: 57.14 px/m
    ok = calibration_stage.measure_ppm(mask, 1.75, 100 / 1.75 * 1.019)
    assert ok["mask_height_px"] == 100 and ok["measured_ppm"] == pytest.approx(100 / 1.75)
    assert ok["within_tolerance"]  # 1.9% off
    off = calibration_stage.measure_ppm(mask, 1.75, 100 / 1.75 * 1.03)
    assert not off["within_tolerance"]  # 3% and 2.9 px off
    small = np.zeros((90, 160), bool)
    small[40:60, 80] = True  # 20 px; 1 px off is 5%, allowed by the 1 px rule
    assert calibration_stage.measure_ppm(small, 1.75, 21 / 1.75)["within_tolerance"]
    clipped = np.zeros((90, 160), bool)
    clipped[0:50, 80] = True
    result = calibration_stage.measure_ppm(clipped, 1.75, 50 / 1.75)
    assert not result["whole_in_frame"] and not result["within_tolerance"]
    assert calibration_stage.measure_ppm(np.zeros((9, 16), bool), 1.75, 40)["measured_ppm"] is None


def test_distance_labels_must_differ() -> None:
    with pytest.raises(ValueError, match="same distance label"):
        render_plan.plan_shards(load_config(None, ["syndor.zones_ppm={a: 100, b: 100.2}"]))


def test_new_texture_renders_only_its_shards() -> None:
    before = _plans()
    more = _plans("person.textures.ids=[0, 7, 9]")
    assert {k: more[k] for k in before} == before and len(more) == len(before) * 3 // 2


def test_sampled_shards_hold_exactly_the_sampled_frames() -> None:
    """With `sample.items` the shards hold the sample's frames, each once, grouped by person; the same config plans
    the same shards."""
    config = load_config(None, [*BASE, "syndor.sample.items=120"])
    poses = select_poses(config.syndor.poses)
    levels = sampling.build_levels(config, render_plan.pose_counts(poses, config.syndor.poses.actions))
    sample = sampling.sample_frames(config, levels)
    plans = render_plan.plan_shards(config, poses, sample)
    planned = {
        sampling.Frame(
            p.scene, p.texture_id, p.action, p.pose_index, f.lighting, f.zone, f.azimuth_deg, f.elevation_deg
        )
        for p in plans
        for f in p.frames
    }
    assert planned == set(sample.frames) and sum(len(p.frames) for p in plans) == len(sample.frames)
    by_id = {p.shard_id: p for p in plans}
    again = {p.shard_id: p for p in render_plan.plan_shards(config, poses)}
    assert {k: p.spec_hash for k, p in again.items()} == {k: p.spec_hash for k, p in by_id.items()}


def _summary(masks: dict[str, tuple[np.ndarray, float]], height_m: float = 1.75) -> dict:
    rows = pd.DataFrame(
        [
            {
                "zone": zone,
                "distance_m": 10.0 + i,
                "target_ppm": target,
                "target_height_px": target * height_m,
                "body_height_m": height_m,
                **calibration_stage.measure_ppm(mask, height_m, target),
            }
            for i, (zone, (mask, target)) in enumerate(masks.items())
        ]
    )
    return calibration_stage.calibration_summary(rows, "report/calibration.png")


def _person(rows: int, top: int = 10, shape: tuple[int, int] = (360, 640)) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[top : top + rows, 300:320] = True
    return mask


def test_calibration_failure_names_each_zone_outside_tolerance() -> None:
    # 100 px for 1.75 m = 57.14 px/m: 1% off passes; 5% (≈5 px) off fails; a clipped person fails
    summary = _summary(
        {
            "near": (_person(100), 100 / 1.75 * 1.01),
            "mid": (_person(100), 100 / 1.75 * 1.05),
            "far": (_person(100, top=0), 100 / 1.75),
        }
    )
    reason = calibration_stage.calibration_failure(summary)
    assert not summary["passed"] and reason is not None
    assert "near" not in reason
    assert f"mid measured {100 / 1.75:.2f} vs target {100 / 1.75 * 1.05:.2f} px/m" in reason
    assert f"far measured {100 / 1.75:.2f} vs target {100 / 1.75:.2f} px/m, person not whole in the frame" in reason


def test_calibration_failure_is_none_when_every_distance_passes() -> None:
    summary = _summary({"near": (_person(100), 100 / 1.75), "far": (_person(20), 21 / 1.75)})
    assert summary["passed"] and calibration_stage.calibration_failure(summary) is None
    empty = _summary({"near": (np.zeros((90, 160), bool), 40.0)})
    assert "near measured no person in the mask vs target 40.00 px/m" in calibration_stage.calibration_failure(empty)


def test_new_embedded_textures_re_render_every_frame_they_are_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A texture's pixels are its id, its settings and the embedded textures' version (person/textures.py): a new
    version changes every person shard's and frame's hash, the calibration's and the synthetic COCO parts', or an
    earlier build keeps frames of the old textures that a build from scratch paints anew."""
    from benchfoundry.benchmarks.syndor.stages import calibration_stage
    from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_stage

    config = load_config(None, BASE)
    plans = render_plan.plan_shards(config)
    calibration, part = calibration_stage.calibration_hash(config), synthetic_stage._part_hash("val", range(4), config)
    monkeypatch.setattr(textures, "TEXTURE_VERSION", textures.TEXTURE_VERSION + 1)
    again = {p.shard_id: p for p in render_plan.plan_shards(config)}
    people = [p for p in plans if p.texture_id is not None]
    assert people and all(again[p.shard_id].spec_hash != p.spec_hash for p in people)
    assert all(not set(again[p.shard_id].frame_hashes) & set(p.frame_hashes) for p in people)
    assert calibration_stage.calibration_hash(config) != calibration
    assert synthetic_stage._part_hash("val", range(4), config) != part
