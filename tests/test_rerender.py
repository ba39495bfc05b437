"""Re-rendering renders only what is new (issue 31): frame hashes survive a new level, a changed shard renders only
its new frames, `build --plan --out` counts what a build keeps, renders and drops, unused frame files are listed
and pruned. No Blender: the worker is replaced by one that writes a file per requested frame."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pandas as pd
import pytest

from benchfoundry.benchmarks.syndor import build_plan
from benchfoundry.benchmarks.syndor import flow as syndor
from benchfoundry.benchmarks.syndor.scenes import camera_rig, render_plan, render_stage
from benchfoundry.benchmarks.syndor.stages import frame_files, night_vision_stage, sampling
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import load_config
from benchfoundry.core.render_spec import read_spec
from benchfoundry.core.store import StageStore

BASE = [
    "syndor.scenes=[field]",
    "syndor.poses.actions=[walking]",
    "person.textures.ids=[3]",
    "person.textures.size=16",
    "syndor.rig.azimuths_deg=[0, 180]",
    "syndor.rig.elevations_deg=[0]",
    "syndor.zones_ppm={near: 40, far: 25}",
    "syndor.camera.resolution_w=160",
    "syndor.camera.resolution_h=90",
    "syndor.camera.focal_mm=8.4",
]
TWO = "syndor.lightings=[noon_north, night]"
THREE = "syndor.lightings=[noon_north, night, evening_west]"


def config_of(*extra: str):
    return load_config(None, [*BASE, *extra])


@pytest.fixture
def fake_worker(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each call's frame count; every requested frame gets an image and a mask."""
    calls: list[int] = []

    def render(spec_path: str, **_: object) -> dict:
        spec = read_spec(Path(spec_path))
        for frame in spec.frames:
            Path(frame.rgb).write_bytes(b"rgb")
            Path(frame.mask).write_bytes(b"mask")
        calls.append(len(spec.frames))
        return {"seconds": 0.0}

    monkeypatch.setattr(render_stage.render_client, "render_spec", render)
    return calls


@pytest.fixture
def image_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every requested frame gets a noisy image with a bright box and its mask, drawn from the frame's seed."""

    def render(spec_path: str, **_: object) -> dict:
        spec = read_spec(Path(spec_path))
        for frame in spec.frames:
            rng = np.random.default_rng(frame.seed)
            h, w = spec.camera.resolution_h, spec.camera.resolution_w
            rgb = rng.integers(0, 60, (h, w, 3), dtype=np.uint8)
            mask = np.zeros((h, w), np.uint8)
            top, left = int(rng.integers(5, h // 2)), int(rng.integers(5, w // 2))
            mask[top : top + h // 3, left : left + w // 8] = 255
            rgb[mask > 0] = rng.integers(60, 255)
            cv2.imwrite(frame.rgb, rgb)
            cv2.imwrite(frame.mask, mask)
        return {"seconds": 0.0}

    monkeypatch.setattr(render_stage.render_client, "render_spec", render)


def test_a_frames_hash_survives_a_new_lighting_and_follows_its_render_settings() -> None:
    before = {p.shard_id: p for p in render_plan.plan_shards(config_of(TWO))}
    after = {p.shard_id: p for p in render_plan.plan_shards(config_of(THREE))}
    (shard,) = before
    old = dict(zip(before[shard].frames, before[shard].frame_hashes, strict=True))
    new = dict(zip(after[shard].frames, after[shard].frame_hashes, strict=True))
    assert before[shard].spec_hash != after[shard].spec_hash
    assert all(new[f] == h for f, h in old.items())
    assert len(set(new.values())) == len(new)
    other = render_plan.plan_shards(config_of(THREE, "syndor.render.samples=3"))[0]
    assert not set(other.frame_hashes) & set(new.values())


def test_a_changed_shard_renders_only_its_new_frames(tmp_path: Path, fake_worker: list[int]) -> None:
    (first,) = render_plan.plan_shards(config_of(TWO))
    render_stage.render_shard(config_of(TWO), str(tmp_path), first)
    assert fake_worker == [len(first.frames)]
    store = StageStore(tmp_path, "syndor", render_plan.STAGE)
    old_files = {tmp_path / "syndor" / p for p in store.shard_rows(first.shard_id)["img_path"]}
    stamps = {p: p.stat().st_mtime_ns for p in old_files}
    (second,) = render_plan.plan_shards(config_of(THREE))
    render_stage.render_shard(config_of(THREE), str(tmp_path), second)
    new_frames = [f for f in second.frames if f.lighting == "evening_west"]
    assert fake_worker == [len(first.frames), len(new_frames)]
    marker = store.marker(second.shard_id)
    assert (marker["frames_rendered"], marker["frames_kept"]) == (len(new_frames), len(first.frames))
    rows = store.shard_rows(second.shard_id)
    assert len(rows) == len(second.frames) and all((tmp_path / "syndor" / p).is_file() for p in rows["img_path"])
    assert all(p.stat().st_mtime_ns == stamps[p] for p in old_files)  # kept, not rewritten
    (tmp_path / "syndor" / rows["img_path"].iloc[0]).unlink()  # a lost file renders again
    (third,) = render_plan.plan_shards(config_of(THREE, "syndor.lighting.night.exposure=0.5"))
    render_stage.render_shard(config_of(THREE, "syndor.lighting.night.exposure=0.5"), str(tmp_path), third)
    night = sum(f.lighting == "night" for f in third.frames)
    assert fake_worker[-1] == night + (rows["lighting"].iloc[0] != "night")


def test_a_marker_whose_frame_files_lead_elsewhere_does_not_keep_the_frame(
    tmp_path: Path, fake_worker: list[int]
) -> None:
    """A marker is input: a frame recorded as `../` files that exist outside the benchmark's folder, or as another
    frame's files, is rendered again; the frames recorded truly are kept."""
    (first,) = render_plan.plan_shards(config_of(TWO))
    render_stage.render_shard(config_of(TWO), str(tmp_path), first)
    store = StageStore(tmp_path, "syndor", render_plan.STAGE)
    marker = store.marker(first.shard_id)
    files = marker["frame_files"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "i.jpg").write_bytes(b"x")
    (outside / "m.png").write_bytes(b"x")
    hashes = list(first.frame_hashes)
    (tmp_path / "syndor" / files[hashes[0]][0]).unlink()
    (tmp_path / "syndor" / files[hashes[0]][1]).unlink()
    files[hashes[0]] = ["../outside/i.jpg", "../outside/m.png"]
    (tmp_path / "syndor" / files[hashes[1]][0]).unlink()
    files[hashes[1]] = files[hashes[2]]
    marker_path = next(store.dir.glob(f"_done/{first.shard_id}.json"))
    marker_path.write_text(json.dumps({**marker, "frame_files": files}))
    (second,) = render_plan.plan_shards(config_of(THREE))
    render_stage.render_shard(config_of(THREE), str(tmp_path), second)
    new_frames = sum(f.lighting == "evening_west" for f in second.frames)
    assert fake_worker[-1] == new_frames + 2
    rows = store.shard_rows(second.shard_id)
    assert all((tmp_path / "syndor" / p).is_file() for p in [*rows["img_path"], *rows["mask_path"]])


def released(frames: set[sampling.Frame], settings: str = "x") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "scene": f.scene,
                "texture_id": f.texture,
                "action": f.action,
                "pose": f.pose,
                "lighting": f.lighting,
                "zone": f.zone,
                "azimuth": f.azimuth,
                "elevation": f.elevation,
                "render_settings_hash": settings,
                "empty_scene": False,
            }
            for f in frames
        ]
    )


def test_plan_against_a_build_counts_kept_new_and_leaving_frames(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 4th lighting in place of none, with a sampled build: the plan's figures are the set differences of the
    two samples, and the new lighting's frames are all to render."""
    sample = [
        "syndor.sample.items=120",
        "syndor.rig.azimuths_deg=[0, 90, 180, 270]",
        "syndor.rig.elevations_deg=[0, 45]",
    ]
    three, four = (
        config_of(THREE, *sample),
        config_of("syndor.lightings=[noon_north, night, evening_west, noon_south]", *sample),
    )

    def frames(config) -> set[sampling.Frame]:
        return set(sampling.sample_frames(config, sampling.build_levels(config, {"walking": 1})).frames)

    old, new = frames(three), frames(four)
    manifest = tmp_path / "syndor" / "render" / "manifest.parquet"
    manifest.parent.mkdir(parents=True)
    released(old, render_plan.render_settings_hash(four.syndor)).to_parquet(manifest)
    changes = build_plan.frame_changes(
        *build_plan.built_frames(manifest, render_plan.render_settings_hash(four.syndor)), new
    )
    assert (changes["kept"], changes["render"], changes["leaving"]) == (len(old & new), len(new - old), len(old - new))
    lighting = changes["per_factor"]["lighting"]
    assert lighting["noon_south"] == {"kept": 0, "render": sum(f.lighting == "noon_south" for f in new), "leaving": 0}
    assert changes["kept"] >= 0.8 * sum(f.lighting != "noon_south" for f in new)
    stale = build_plan.frame_changes(*build_plan.built_frames(manifest, "other settings"), new)
    assert (stale["kept"], stale["render"]) == (0, len(new))
    config_file = tmp_path / "four.yaml"
    config_file.write_text(json.dumps(four.model_dump(mode="json")))
    assert cli.main(["build", str(config_file), "--plan", "--out", str(tmp_path), "--only", "syndor"]) == 0
    text = capsys.readouterr().out
    assert f"{changes['kept']:,} frames kept, {changes['render']:,} to render, {changes['leaving']:,} leaving" in text


def frame_file(person: str, folder: str, cam: int, ext: str = "jpg") -> str:
    """A frame file's name as render_plan.frame_paths writes it."""
    source = f"images/SMPLitex_texture_{person}_desert_noon_north_5.4"
    return f"{source}/pose000/{folder}/frame0001_cam{cam:03d}_r5_phi0_theta0.{ext}"


def test_unused_frame_files_are_listed_and_pruned(tmp_path: Path) -> None:
    bench = tmp_path / "syndor"
    used = [frame_file("00000_walking", "raw_images", 1), frame_file("00000_walking", "masks", 1, "png")]
    gone = [
        frame_file("00001_walking", "raw_images", 2),
        frame_file("00001_walking", "masks", 2, "png"),
        frame_file("00001_walking", "nv_images", 2),
    ]
    for rel in [*used, frame_file("00000_walking", "nv_images", 1), *gone]:
        (bench / rel).parent.mkdir(parents=True, exist_ok=True)
        (bench / rel).write_bytes(b"x")
    assert frame_files.unused_frame_files(bench, [used[0]], [used[1]]) == sorted(gone)
    assert frame_files.prune(bench, [used[0]], [used[1]]) == len(gone)
    assert not (bench / Path(gone[0]).parents[2]).exists() and all((bench / rel).is_file() for rel in used)
    assert frame_files.unused_frame_files(bench, [used[0]], [used[1]]) == []


@pytest.mark.parametrize("texture_id, ext", [(0, ".jpg"), (12, ".png"), (None, ".jpg")])
def test_every_frame_name_the_plan_gives_is_one_prune_recognises(texture_id: int | None, ext: str) -> None:
    """frame_files.FRAME_FILE and render_plan.frame_paths describe one naming: every image, mask and night-vision
    name of every rig camera (people and empty scenes) matches, so `--prune` can never miss or mistake a frame."""
    syndor = config_of(THREE).syndor
    cameras = camera_rig.rig_cameras(
        syndor.camera.spec(),
        render_plan.zones(syndor),
        syndor.rig.azimuths_deg,
        syndor.rig.elevations_deg,
        np.array([0.0, 0.0, 0.9]),
    )
    for cam in cameras:
        names = render_plan.frame_paths(texture_id, "walking", "desert", "evening_west", 3, cam, ext)
        for name in (names["img_path"], names["mask_path"], night_vision_stage.nv_relpath(names["img_path"])):
            assert frame_files.FRAME_FILE.fullmatch(name), name


def test_prune_removes_no_users_file_and_follows_no_link(tmp_path: Path) -> None:
    """A user's photo and README in a frame folder, a link to a file elsewhere, a linked folder of another
    build's frames, and an `images` folder that is itself a link: none is listed, so `--prune` removes none."""
    bench, shared = tmp_path / "syndor", tmp_path / "shared"
    used = [frame_file("00000_walking", "raw_images", 1), frame_file("00000_walking", "masks", 1, "png")]
    other = frame_file("00002_kicking", "raw_images", 3)
    for rel in [*used, other]:
        for root in (bench, shared):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"x")
    folder = (bench / used[0]).parent
    (folder / "holiday.jpg").write_bytes(b"a user's photo")
    (folder / "README").write_text("mine")
    (folder / "frame0001_cam009_r5_phi0_theta0.jpg").symlink_to(shared / other)
    (bench / Path(other).parents[2]).rename(tmp_path / "moved")
    (bench / Path(other).parents[2]).symlink_to(shared / Path(other).parents[2], target_is_directory=True)
    assert frame_files.unused_frame_files(bench, [used[0]], [used[1]]) == []
    assert frame_files.prune(bench, [used[0]], [used[1]]) == 0
    assert (shared / other).is_file() and (folder / "holiday.jpg").is_file() and (folder / "README").is_file()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "images").symlink_to(shared / "images", target_is_directory=True)
    assert frame_files.unused_frame_files(linked, [], []) == []


def _frame_build(root: Path, used: list[str], gone: list[str]) -> None:
    """A build root whose render manifest names `used` (image, mask) and whose images folder also holds `gone`."""
    bench = root / "syndor"
    for rel in [*used, *gone]:
        (bench / rel).parent.mkdir(parents=True, exist_ok=True)
        (bench / rel).write_bytes(b"x")
    manifest = bench / render_plan.STAGE / "manifest.parquet"
    manifest.parent.mkdir(parents=True)
    pd.DataFrame({"img_path": [used[0]], "mask_path": [used[1]]}).to_parquet(manifest)


@pytest.mark.parametrize("status", ["finished", "not built"])
def test_build_prune_asks_only_the_benchmarks_this_build_built(tmp_path: Path, status: str) -> None:
    """`build --prune` calls each built benchmark's prune hook (SynDORBench's removes the frames its manifest does
    not name and records how many went); one the build did not build (`--only`) keeps every file."""
    used = [frame_file("00000_walking", "raw_images", 1), frame_file("00000_walking", "masks", 1, "png")]
    gone = [frame_file("00001_walking", "raw_images", 2), frame_file("00001_walking", "masks", 2, "png")]
    _frame_build(tmp_path, used, gone)
    render = {"unused_files": gone}
    record = {"benchmarks": {"syndor": {"status": status, "stages": {"render": render}}}}
    cli._prune(tmp_path, record)
    left = {str(p.relative_to(tmp_path / "syndor")) for p in (tmp_path / "syndor" / "images").rglob("*.jpg")}
    left |= {str(p.relative_to(tmp_path / "syndor")) for p in (tmp_path / "syndor" / "images").rglob("*.png")}
    if status == "not built":
        assert left == {*used, *gone} and render == {"unused_files": gone}
    else:
        assert left == set(used) and render == {"unused_files": [], "pruned_files": len(gone)}
    assert json.loads((tmp_path / "build.json").read_text())["benchmarks"]["syndor"]["stages"]["render"] == render


DISCERN = [
    "syndor.discern.labels.observer=threshold",
    "syndor.discern.classifier.rf_trees=5",
    "syndor.discern.classifier.xgb_trees=5",
    "syndor.discern.frames_per_shard=3",
    "syndor.discern.isp.denoiser=nlmeans",
]


def _render_and_discern(config, out: Path) -> dict:
    store = StageStore(out, "syndor", render_plan.STAGE)
    for plan in render_plan.plan_shards(config):
        render_stage.render_shard(config, str(out), plan)
    return syndor.discern_flow(config, str(out), str(store.write_manifest()))


def test_a_new_lighting_computes_features_of_its_frames_only(
    tmp_path: Path, image_worker: None, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Night vision and features after a re-render that adds a lighting: only its frames are computed, and the
    features and labelled manifests are the bytes of a build of the new config from scratch."""
    computed: list[str] = []
    compute = night_vision_stage.frame_values

    def counted(config: object, root: Path, row: dict) -> dict:
        computed.append(str(row["lighting"]))
        return compute(config, root, row)

    monkeypatch.setattr(night_vision_stage, "frame_values", counted)
    first = _render_and_discern(config_of(TWO, *DISCERN), tmp_path / "out")
    assert len(computed) == first["frames"] == first["frames_computed"]
    computed.clear()
    again = _render_and_discern(config_of(THREE, *DISCERN), tmp_path / "out")
    assert computed and set(computed) == {"evening_west"}
    assert (again["frames_computed"], again["frames_reused"]) == (len(computed), first["frames"])
    scratch = _render_and_discern(config_of(THREE, *DISCERN), tmp_path / "scratch")
    for name in ("features_manifest", "manifest"):
        assert Path(again[name]).read_bytes() == Path(scratch[name]).read_bytes()
