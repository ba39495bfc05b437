"""Empty-scene renders (no person): planning, names, labels by construction, QA negatives, balance."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from test_night_vision_stage import config as discern_config
from test_night_vision_stage import make_render, run_stage

from benchfoundry.benchmarks.syndor.scenes import camera_rig, dori, render_plan, rig_spec
from benchfoundry.benchmarks.syndor.stages import label_stage, qa_stage
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.core.store import StageStore

BASE = [
    "syndor.scenes=[desert, wharf]",
    "syndor.lightings=[noon_north, night, evening_east]",
    "syndor.poses.actions=[walking, kicking]",
    "person.textures.ids=[0, 7]",
]


def _plans(*extra: str) -> dict[str, render_plan.ShardPlan]:
    return {p.shard_id: p for p in render_plan.plan_shards(load_config(None, [*BASE, *extra]))}


def test_option_adds_one_shard_per_scene_and_lighting_and_keeps_person_shards() -> None:
    off = _plans()
    on = _plans("syndor.empty_scenes=true")
    assert {k: on[k].spec_hash for k in off} == {k: p.spec_hash for k, p in off.items()}
    added = [p for k, p in on.items() if k not in off]
    assert {(p.scene, *p.lightings) for p in added} == {
        (s, light) for s in ("desert", "wharf") for light in ("noon_north", "night", "evening_east")
    }
    assert len(added) == 2 * 3 and all(p.empty_scene and p.texture_id is None for p in added)
    assert not any(p.empty_scene for p in off.values())
    assert len({p.spec_hash for p in added}) == len(added)
    # textures and actions do not change an empty scene; the moon changes only the night one
    other = _plans("syndor.empty_scenes=true", "person.textures.ids=[3]", "syndor.poses.actions=[sneak]")
    assert {k: other[k].spec_hash for k in other if other[k].empty_scene} == {p.shard_id: p.spec_hash for p in added}
    moon = _plans("syndor.empty_scenes=true", "syndor.lighting.night.moon_strength=0.05")
    assert {p.shard_id for p in added if moon[p.shard_id].spec_hash != p.spec_hash} == {
        "desert_empty_night",
        "wharf_empty_night",
    }


def test_empty_names_are_released_style_and_never_collide() -> None:
    cams = camera_rig.rig_cameras(
        dori.PRESETS["paper"],
        dori.ZONE_MIDPOINTS_PPM,
        [45.0 * i for i in range(8)],
        [22.5 * i for i in range(4)],
        np.array([0, 0, 0.9]),
    )
    person = {
        render_plan.frame_paths(t, a, "field", "night", 0, c)["img_path"]
        for t in (0, 99999)
        for a in ("walking", "guard_up")
        for c in cams
    }
    empty = [render_plan.frame_paths(None, "none", "field", "night", 0, c) for c in cams]
    pattern = re.compile(
        r"^images/SMPLitex_texture_none_empty_field_night_(\d+\.\d)/pose000/raw_images/"
        r"frame0001_cam\d{3}_r\d+_phi\d+_theta[\d.]+\.jpg$"
    )
    assert all(pattern.match(n["img_path"]) for n in empty)
    assert len({n["img_path"] for n in empty}) == len(cams) and not person & {n["img_path"] for n in empty}
    assert all(n["mask_path"] == n["img_path"].replace("/raw_images/", "/masks/")[:-4] + ".png" for n in empty)


def test_presence_negatives_follow_the_render_option() -> None:
    assert load_config(None, ["syndor.empty_scenes=true"]).syndor.qa.empty_scene_negatives is True
    assert load_config(None, []).syndor.qa.empty_scene_negatives is False
    kept_out = load_config(None, ["syndor.empty_scenes=true", "syndor.qa.empty_scene_negatives=false"])
    assert kept_out.syndor.qa.empty_scene_negatives is False


def _raw_path(row: dict) -> str:
    """The raw frame of a task-file row (an nv row shows the night-vision image in img_path)."""
    return row["raw_img_path"]


def _add_empty_rows(out: Path, manifest: str) -> list[str]:
    """Copy night frames (their person and mask included) as empty-scene rows: a label taken
    from the mask, the observer or the model would call many of them discernible."""
    frame = pd.read_parquet(manifest)
    root = out / "syndor"
    night = frame[frame["lighting"] == "night"].head(4)
    empty = night.copy()
    for col in ("img_path", "mask_path", "source_dir"):
        empty[col] = night[col].str.replace("texture_00000_walk", "texture_none_empty", regex=False)
    for src, dst in zip([*night["img_path"], *night["mask_path"]], [*empty["img_path"], *empty["mask_path"]]):
        (root / dst).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / src, root / dst)
    empty["action"], empty["shard"], empty["empty_scene"] = "none", "field_empty_night", True
    frame["empty_scene"] = False
    pd.concat([frame, empty], ignore_index=True).to_parquet(manifest)
    return empty["img_path"].tolist()


def test_empty_rows_are_labelled_zero_and_stay_out_of_the_classifier(tmp_path: Path, prefect_server: None) -> None:
    manifest = make_render(tmp_path, n_night=12, n_day=3)
    empty_paths = _add_empty_rows(tmp_path, manifest)
    result = run_stage(discern_config(), str(tmp_path), manifest)
    rows = pd.read_parquet(result["manifest"]).set_index("img_path")
    empty = rows.loc[empty_paths]
    assert (empty["raw_area_ratio"] > 0).any(), "the fixture's empty rows must carry a person-like mask"
    assert (empty["human_discernable"] == 0).all() and (empty["label_source"] == "empty").all()
    assert empty["nv_path"].notna().all()
    assert (empty["human_discernable_nv"] == 0).all() and (empty["label_source_nv"] == "empty").all()
    assert empty["sample_label"].isna().all() and empty["sample_label_nv"].isna().all()
    # the population is the person frames' raw and NV images only
    assert result["population"] == 12 + 3 + 12
    units = label_stage.labelling_units(
        StageStore(tmp_path, "syndor", "discern_features").read_manifest(), discern_config()
    )
    assert not set(units["img_path"]) & set(empty_paths)

    qa = discern_config().syndor.qa.model_copy(update={"empty_scene_negatives": True})
    summary = qa_stage.export_qa(result["manifest"], tmp_path, qa)
    index = tmp_path / "syndor" / "index"
    for split in ("night", "nv"):
        hpc = [json.loads(line) for line in (index / "human_detection" / f"{split}.jsonl").read_text().splitlines()]
        answers = {_raw_path(r): r["human_discernable"] for r in hpc}
        assert all(answers[p] == 0 for p in empty_paths)
        assert summary["balance"]["per_split"][split]["empty_scene"] == len(empty_paths)
        assert summary["balance"]["per_split"][split]["0"] >= len(empty_paths)
        actions = [json.loads(x) for x in (index / "action_recognition" / f"{split}.jsonl").read_text().splitlines()]
        assert not set(map(_raw_path, actions)) & set(empty_paths)
    assert summary["balance"]["empty_scene_rows"] == len(empty_paths)


# ---------------------------------------------------------------- Blender: the flow, option off then on

TINY = [
    "runner.max_workers=1",
    "runner.retry_delay_s=0",
    "syndor.camera.resolution_w=160",
    "syndor.camera.resolution_h=90",
    "syndor.camera.focal_mm=8.4",
    "syndor.zones_ppm={near: 40, far: 25}",
    "syndor.scenes=[field]",
    "syndor.poses.actions=[walking]",
    "person.textures.ids=[3]",
    "person.textures.size=64",
    "syndor.rig.azimuths_deg=[0, 180]",
    "syndor.rig.elevations_deg=[0]",
    "syndor.render.samples=2",
    "syndor.render.denoise=false",
    "syndor.render.max_bounces=2",
    "syndor.discern.isp.denoiser=nlmeans",
    "syndor.discern.classifier.rf_trees=10",
    "syndor.discern.classifier.xgb_trees=10",
    "odi.enabled=false",
    "viewspatial.enabled=false",
]


def _build(out: Path, *extra: str) -> dict:
    from benchfoundry.flows.build import build

    return build(load_config(None, [*TINY, *extra]), str(out), ["syndor"])["benchmarks"]["syndor"]


@pytest.mark.blender
def test_flow_adds_empty_scenes_without_rerendering_persons(tmp_path: Path, prefect_server: None) -> None:
    """Option off, then on with an action added: the walking shard is kept, and the worker renders the new kicking
    person before the empty scenes (so it must take the person out)."""
    lightings = "syndor.lightings=[noon_north, night]"
    first = _build(tmp_path, lightings)
    assert first["status"] == "built", first
    store = StageStore(tmp_path, "syndor", "render")
    # a person shard written before the empty_scene column existed
    walking = "field_t00003_walking_p000"
    store.shard_rows(walking).drop(columns=["empty_scene"]).to_parquet(store.shard_path(walking))

    second = _build(tmp_path, lightings, "syndor.poses.actions=[walking, kicking]", "syndor.empty_scenes=true")
    assert second["status"] == "built", second
    render = second["stages"]["render"]
    cams = 2 * 2  # zones × azimuths
    assert render["empty_scene_shards"] == 2 and render["shards_rendered"] == 3  # kicking person, two empty
    assert render["frames_rendered"] == 4 * cams and render["frames"] == 6 * cams
    assert render["empty_scene_frames"] == 2 * cams and render["empty_scene_share"] == round(2 / 6, 4)

    root = tmp_path / "syndor"
    index = pd.read_parquet(render["manifest"])
    assert index["empty_scene"].dtype == bool and index["empty_scene"].sum() == 2 * cams
    empty, person = index[index["empty_scene"]], index[~index["empty_scene"]]
    assert set(empty["action"]) == {"none"} and empty["img_path"].str.contains("texture_none_empty_field").all()
    assert set(zip(empty["zone"], empty["azimuth"], empty["lighting"])) == set(
        zip(person["zone"], person["azimuth"], person["lighting"])
    )
    assert index.loc[index["action"] == "walking", "empty_scene"].eq(False).all()  # the old shard's rows
    for row in empty.itertuples():
        assert not np.array(Image.open(root / row.mask_path)).any(), row.mask_path
        rgb = np.array(Image.open(root / row.img_path).convert("RGB"), dtype=float)
        assert rgb.shape == (90, 160, 3) and rgb.std() > 0.5  # a rendered scene, not a blank frame
    for row in person.itertuples():
        assert np.array(Image.open(root / row.mask_path)).any(), row.mask_path

    labelled = pd.read_parquet(second["stages"]["discern"]["manifest"])
    labelled_empty = labelled[labelled["empty_scene"]]
    assert (labelled_empty["human_discernable"] == 0).all() and (labelled_empty["label_source"] == "empty").all()
    night = labelled_empty[labelled_empty["lighting"] == "night"]
    assert len(night) == cams and (night["human_discernable_nv"] == 0).all()

    qa_index = root / "index"
    shown = set(empty["img_path"])
    hpc = {
        s: [json.loads(x) for x in (qa_index / "human_detection" / f"{s}.jsonl").read_text().splitlines()]
        for s in ("day", "night", "nv")
    }
    for split, expected in (("day", cams), ("night", cams), ("nv", cams)):
        negatives = [r for r in hpc[split] if _raw_path(r) in shown]
        assert len(negatives) == expected and all(r["human_discernable"] == 0 for r in negatives)
        assert not shown & {
            _raw_path(json.loads(x))
            for x in (qa_index / "action_recognition" / f"{split}.jsonl").read_text().splitlines()
        }
    balance = json.loads((qa_index / "balance.json").read_text())
    assert balance["empty_scene_rows"] == 2 * cams
    for split in ("day", "night", "nv"):
        counts = balance["per_split"][split]
        assert counts["empty_scene"] == cams and counts["total"] == len(hpc[split])
        assert counts["0"] == sum(r["human_discernable"] == 0 for r in hpc[split]) >= cams


@pytest.mark.parametrize("share", [0.05, 0.2, 0.3, 0.5, 0.75])
def test_share_plans_the_fewest_repeats_that_reach_it(share: float) -> None:
    plans = list(_plans("syndor.empty_scenes=true", f"syndor.empty_scene_share={share}").values())
    cameras = 3 * 8 * 4  # the default rig
    for scene in ("desert", "wharf"):
        for lighting in ("noon_north", "night", "evening_east"):
            person = sum(
                1 for p in plans if p.scene == scene and not p.empty_scene for f in p.frames if f.lighting == lighting
            )
            empty_shards = [p for p in plans if p.scene == scene and p.empty_scene and p.lightings == (lighting,)]
            assert person == 2 * 2 * cameras  # textures × actions, every camera (nothing sampled)
            assert all(len(p.frames) == cameras for p in empty_shards)
            empty = len(empty_shards) * cameras
            assert empty / (empty + person) >= share
            assert len(empty_shards) == 1 or (empty - cameras) / (empty - cameras + person) < share
    # frame-weighted: empty shards of 30 frames, person shards of 10
    frames = {p.shard_id: 30 if p.empty_scene else 10 for p in plans}
    empty_total = sum(p.empty_scene for p in plans)
    weighted = 30 * empty_total / (30 * empty_total + 10 * (len(plans) - empty_total))
    assert render_plan.empty_scene_share(plans, frames) == pytest.approx(weighted, abs=1e-4)
    assert render_plan.empty_scene_share(plans, {}) is None


def _brute_force_repeats(share: float, person_shards: int) -> int:
    """Count up from one empty shard until the empty shards reach the share of the cell's shards."""
    repeats = 1
    while repeats / (repeats + person_shards) < share:
        repeats += 1
    return repeats


def test_repeats_match_counting_up_for_many_shares_and_cells() -> None:
    rng = np.random.default_rng(0)
    shares = [*np.round(np.arange(0.01, 1.0, 0.01), 2), *rng.uniform(0.001, 0.99, 300), 1 / 3, 2 / 3, 0.1 + 0.2]
    for share in shares:
        for person_shards in (0, 1, 2, 3, 4, 7, 10, 12, 48, 99, 100, 360):
            assert render_plan.empty_scene_repeats(float(share), person_shards) == _brute_force_repeats(
                float(share), person_shards
            ), (share, person_shards)
    assert render_plan.empty_scene_repeats(None, 12) == 1


def test_repeats_are_new_scenes_and_keep_the_first_empty_shard() -> None:
    single = _plans("syndor.empty_scenes=true")
    repeated = _plans("syndor.empty_scenes=true", "syndor.empty_scene_share=0.5")
    assert {k: repeated[k].spec_hash for k in single} == {k: p.spec_hash for k, p in single.items()}
    assert all(single[k].scene_seed is None for k in single)
    extra = [p for k, p in repeated.items() if k not in single]
    assert len(extra) == 2 * 3 * 3 and all(p.empty_scene for p in extra)  # 4 repeats per cell: 3 new
    assert len({p.scene_seed for p in extra}) == len(extra) and None not in {p.scene_seed for p in extra}
    assert len({p.spec_hash for p in repeated.values()}) == len(repeated)
    config = load_config(None, [*BASE, "syndor.empty_scenes=true", "syndor.empty_scene_share=0.5"])
    assert rig_spec.rig_shard(config, None, "desert", [], extra[0].scene_seed).scene_seed == extra[0].scene_seed
    assert rig_spec.rig_shard(config, None, "desert", []).scene_seed == config.seed
    # each repeat writes under its own pose folder: no two empty frames share a path
    cams = camera_rig.rig_cameras(
        dori.PRESETS["paper"], dori.ZONE_MIDPOINTS_PPM, [0.0, 45.0], [0.0], np.array([0, 0, 0.9])
    )
    paths = [
        render_plan.frame_paths(None, p.action, p.scene, p.lightings[0], p.pose_index, c)["img_path"]
        for p in repeated.values()
        if p.empty_scene
        for c in cams
    ]
    assert len(set(paths)) == len(paths)


def test_share_is_checked_by_config() -> None:
    with pytest.raises(ConfigError, match=r"syndor.*empty_scenes: true"):
        load_config(None, ["syndor.empty_scene_share=0.5"])
    for bad in ("0", "1", "-0.2"):
        with pytest.raises(ConfigError, match=r"syndor\.empty_scene_share"):
            load_config(None, ["syndor.empty_scenes=true", f"syndor.empty_scene_share={bad}"])
    assert len(_plans("syndor.empty_scenes=true")) == len(_plans()) + 2 * 3
