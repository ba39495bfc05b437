"""`build --prune` on a grown build: the render shards, feature shards and posed people of shards the current plan
no longer holds, and the textures it no longer renders, go with the unused frames; a user's file, another stage's
file and anything behind a link stay."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from test_same_bytes import SYNDOR, THREE, TWO, build

from benchfoundry.benchmarks.syndor.discern_config import DiscernConfig
from benchfoundry.benchmarks.syndor.scenes import render_plan
from benchfoundry.benchmarks.syndor.stages import frame_files
from benchfoundry.benchmarks.syndor.stages.night_vision_stage import FEATURE_STAGE, plan_feature_shards
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import load_config
from benchfoundry.configs.person import BodyConfig, PersonConfig, TextureConfig
from benchfoundry.person.prepare import texture_file_name

KEPT, GONE, EMPTY = "field_t00003_walking_p000", "field_t00004_kicking_p001", "field_empty_night_r001"
PEOPLE = "render/_person"
#: A stage's per-shard files: its rows and its marker.
_STORE = (("shards", ".parquet"), ("_done", ".json"))


def _frame(shard: str, cam: int) -> str:
    return f"images/SMPLitex_texture_{shard}/pose000/raw_images/frame0001_cam{cam:03d}_r5_phi0_theta0.jpg"


def _write(root: Path, rel: str, data: bytes = b"x") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _grown_build(root: Path) -> tuple[Path, list[str], list[str]]:
    """A build root whose render manifest holds the shards KEPT and EMPTY (three frames each) and whose stages still
    hold the files of GONE and a third feature chunk of KEPT, of an earlier plan (two frames a feature shard):
    (benchmark folder, files that must stay, files that must go)."""
    bench = root / "syndor"
    body = f"{PEOPLE}/walking_p000_{'a' * 16}.npz"
    rows = pd.DataFrame(
        {
            "shard": [KEPT] * 3 + [EMPTY] * 3,
            "img_path": [_frame(s, k) for s in (KEPT, EMPTY) for k in range(3)],
            "mask_path": [_frame(s, k).replace(".jpg", ".png") for s in (KEPT, EMPTY) for k in range(3)],
            "body_path": [body] * 3 + [None] * 3,
            "texture_id": pd.array([3] * 3 + [None] * 3, dtype="Int64"),
        }
    )
    _write(bench, f"{render_plan.STAGE}/manifest.parquet", rows.to_parquet())
    (root / "build.json").write_text(json.dumps({"config": {"syndor": {"discern": {"frames_per_shard": 2}}}}))
    features = plan_feature_shards(rows, DiscernConfig(frames_per_shard=2))
    earlier = pd.DataFrame({"shard": [GONE] * 2 + [KEPT] * 5, "img_path": [_frame("g", k) for k in range(7)]})
    gone_features = plan_feature_shards(earlier, DiscernConfig(frames_per_shard=2))
    keep = [
        *(f"render/{folder}/{s}{ext}" for s in (KEPT, EMPTY) for folder, ext in _STORE),
        *(f"{FEATURE_STAGE}/{folder}/{s}{ext}" for s in features for folder, ext in _STORE),
        body,
        body.replace(".npz", "_coco.json"),
        f"{PEOPLE}/upright_{'b' * 16}.npz",
        f"{PEOPLE}/texture_00003_{'c' * 16}_anny.png",
        "render/_done/notes.txt",
        "render/shards/README.md",
        "discern/shards/labels.parquet",
        "calibration/_done/calibration.json",
    ]
    gone = [
        *(f"render/{folder}/{GONE}{ext}" for folder, ext in _STORE),
        *(f"{FEATURE_STAGE}/{folder}/{s}{ext}" for s in set(gone_features) - set(features) for folder, ext in _STORE),
        f"{PEOPLE}/kicking_p001_{'d' * 16}.npz",
        f"{PEOPLE}/kicking_p001_{'d' * 16}_coco.json",
        f"{PEOPLE}/walking_p000_{'e' * 16}.npz",
    ]
    for rel in [*keep, *gone]:
        _write(bench, rel)
    return bench, sorted(keep), sorted(gone)


def _files(bench: Path) -> set[str]:
    return {p.relative_to(bench).as_posix() for p in bench.rglob("*") if p.is_file() and "images" not in p.parts}


def test_prune_removes_the_files_of_shards_the_plan_no_longer_holds(tmp_path: Path) -> None:
    bench, keep, gone = _grown_build(tmp_path)
    assert len(gone) >= 7  # the render shard's two files, its feature shards' and a chunk of KEPT's, three people
    record = {"benchmarks": {"syndor": {"status": "built", "stages": {"render": {"unused_files": []}}}}}
    cli._prune(tmp_path, record)
    assert _files(bench) == {*keep, "render/manifest.parquet"}
    assert record["benchmarks"]["syndor"]["stages"]["render"]["pruned_files"] == len(gone)


def test_prune_of_stale_shards_follows_no_link(tmp_path: Path) -> None:
    """A stage's `_done` folder and the people's folder swapped for links to another build's: nothing there goes."""
    bench, _, _ = _grown_build(tmp_path / "ours")
    other, _, _ = _grown_build(tmp_path / "other")
    for folder in ("render/_done", f"{FEATURE_STAGE}/shards", PEOPLE):
        (bench / folder).rename(bench / f"{folder}.moved")
        (bench / folder).symlink_to(other / folder, target_is_directory=True)
    before = _files(other)
    frame_files.prune_build(bench)
    assert _files(other) == before
    assert not (bench / f"render/shards/{GONE}.parquet").exists()
    assert (bench / f"render/_done.moved/{GONE}.json").is_file()


def test_without_the_recorded_frames_per_shard_no_feature_shard_goes(tmp_path: Path) -> None:
    bench, _, gone = _grown_build(tmp_path)
    (tmp_path / "build.json").write_text("{}")
    frame_files.prune_build(bench)
    assert all((bench / rel).is_file() for rel in gone if rel.startswith(FEATURE_STAGE))


@pytest.mark.blender
@pytest.mark.long(minutes=2)
def test_a_grown_build_pruned_holds_only_its_plans_shard_files(tmp_path: Path, prefect_server: None) -> None:
    """Three people, two actions, three poses: a third lighting takes two render shards out of the plan. After
    `--prune`, the render and feature stages hold only the current plan's shards and the people cache only the
    meshes the manifest names."""
    grown = ["person.textures.ids=[3, 4, 5]", "syndor.sample.items=12", "syndor.poses.builtin_variants=3"]
    before = {p.shard_id for p in render_plan.plan_shards(load_config(None, [*SYNDOR, TWO, *grown]))}
    plan = {p.shard_id for p in render_plan.plan_shards(load_config(None, [*SYNDOR, THREE, *grown]))}
    assert before - plan
    build(tmp_path, *SYNDOR, TWO, *grown)
    record = build(tmp_path, *SYNDOR, THREE, *grown)
    cli._prune(tmp_path, record)
    bench = tmp_path / "syndor"
    rows = pd.read_parquet(bench / "render/manifest.parquet")
    features = set(plan_feature_shards(rows, load_config(None, [*SYNDOR, THREE, *grown]).syndor.discern))
    for stage, ids in (("render", plan), (FEATURE_STAGE, features)):
        for folder, ext in _STORE:
            assert {p.name.removesuffix(ext) for p in (bench / stage / folder).iterdir()} == ids, (stage, folder)
    meshes = {p.name for p in (bench / PEOPLE).glob("*_p[0-9][0-9][0-9]_*.npz")}
    assert meshes == {Path(p).name for p in rows["body_path"].dropna()}
    person = load_config(None, [*SYNDOR, THREE, *grown]).person
    textures = {p.name for p in (bench / PEOPLE).glob("texture_*.png")}
    assert textures == {texture_file_name(person, int(t)) for t in rows["texture_id"].dropna()}


def test_prune_removes_the_textures_the_manifest_no_longer_renders(tmp_path: Path) -> None:
    """Textures were left behind: a person no shard renders any more (t00004, GONE's), and person 3's textures of an
    earlier texture size and of another body model. The textures the build renders, and a user's PNG, stay."""
    bench, keep, gone = _grown_build(tmp_path)
    person = PersonConfig(textures=TextureConfig(ids=[3, 4], size=64))
    record = {"person": person.model_dump(mode="json"), "syndor": {"discern": {"frames_per_shard": 2}}}
    (tmp_path / "build.json").write_text(json.dumps({"config": record}))
    earlier = person.model_copy(update={"textures": TextureConfig(ids=[3, 4], size=32)})
    other_body = person.model_copy(update={"body": BodyConfig(model_type="smpl")})
    used = f"{PEOPLE}/{texture_file_name(person, 3)}"
    stale = [f"{PEOPLE}/{texture_file_name(p, i)}" for p, i in ((person, 4), (earlier, 3), (other_body, 3))]
    assert len({used, *stale}) == 4
    for rel in [used, *stale, f"{PEOPLE}/texture_notes.png"]:
        _write(bench, rel)
    old_settings = f"{PEOPLE}/texture_00003_{'c' * 16}_anny.png"  # _grown_build's, of settings not recorded now
    frame_files.prune_build(bench)
    assert _files(bench) == {*keep, used, f"{PEOPLE}/texture_notes.png", "render/manifest.parquet"} - {old_settings}


def test_without_the_recorded_person_config_no_texture_goes(tmp_path: Path) -> None:
    bench, _, _ = _grown_build(tmp_path)
    texture = _write(bench, f"{PEOPLE}/{texture_file_name(PersonConfig(), 9)}")
    frame_files.prune_build(bench)
    assert texture.is_file()
