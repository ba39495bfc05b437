"""The viewspatial subflow on the synthetic scans, checked against the room's known geometry.

The flow renders the two synthetic scans once (module fixture, Blender tests); answers are recomputed
here from the room description (furniture centres) and the camera walk with plain vector maths.
The scan task's failure handling and rerun rules are checked without Blender on tiny scans.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_scannet_io import SCENE, make_tiny_scan

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES, SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.stages.clothing import NAMED_COLOURS
from benchfoundry.benchmarks.viewspatial.flow import viewspatial_flow
from benchfoundry.benchmarks.viewspatial.scannet.config import EXCLUDED_NYU40, NYU40_NAMES
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    SYNTHETIC_SCENES,
    camera_walk,
    synthetic_room,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scan_stage import build_scan, label_map_rule
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import open_scan, scan_file_names
from benchfoundry.configs.loader import config_dict, load_config

pytestmark = pytest.mark.long(minutes=1)

#: Objects of the synthetic aggregation before the furniture: floor, ceiling, four walls.
N_STRUCTURE = 6
#: A small synthetic COCO set for the module's build; builds that test the scans alone make none.
SMALL_COCO = [
    "viewspatial.coco.synthetic.images={val: 12, train: 4}",
    "viewspatial.coco.synthetic.width=120",
    "viewspatial.coco.synthetic.height=160",
    "viewspatial.coco.synthetic.samples=4",
]
NO_COCO = ["viewspatial.coco.synthetic.images={}"]
COMPASS = ["front", "front-right", "right", "back-right", "back", "back-left", "left", "front-left"]


@pytest.fixture(scope="module")
def built(prefect_server: None, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("viewspatial")
    config = load_config(None, SMALL_COCO)
    outcome = viewspatial_flow(config, str(out))
    return out, outcome


def rooms() -> dict[str, object]:
    return {scene: synthetic_room(scene, mirrored) for scene, mirrored in SYNTHETIC_SCENES.values()}


def furniture_centre(scene_id: str, object_id: int, label: str) -> np.ndarray:
    item = rooms()[scene_id].furniture[object_id - N_STRUCTURE]
    assert NYU40_NAMES[item.nyu40_id] == label  # named by NYU40 class, as released ("tv" is "television")
    return np.array(item.center)


def compass_word(angle_deg: float) -> str:
    return COMPASS[int(math.floor((angle_deg % 360 + 22.5) / 45)) % 8]


def expected_camera_label(v: np.ndarray, vertical_min: float, vertical_only: float) -> str:
    """18-way label from camera-axis components (x right, y down, z forward)."""
    right, up, front = v[0], -v[1], v[2]
    elevation = math.degrees(math.atan2(abs(up), math.hypot(right, front)))
    vert = "above" if up > 0 else "down"
    if elevation >= vertical_only:
        return vert
    if elevation >= vertical_min:
        if abs(right) >= abs(front):
            return vert + ("-right" if right > 0 else "-left")
        return ("front" if front > 0 else "back") + ("-up" if up > 0 else "-down")
    return compass_word(math.degrees(math.atan2(right, front)))


@pytest.mark.blender
def test_flow_builds_both_splits(built: tuple[Path, dict]) -> None:
    out, outcome = built
    assert outcome["status"] == "built", outcome
    assert "2/2 COCO splits" in outcome["detail"]
    bench = json.loads((out / "viewspatial" / "ViewSpatial-Bench.json").read_text())
    sft = json.loads((out / "viewspatial" / "ViewSpatial-SFT.json").read_text())
    multi = json.loads((out / "viewspatial" / "ViewSpatial-SFT-multi.json").read_text())
    assert {r["question_type"] for r in bench} == set(CATEGORIES.values())
    assert outcome["released"] == {SHORT_NAMES[t]: sum(r["question_type"] == t for r in bench) for t in SHORT_NAMES}
    assert sft and len(sft) % 2 == 0 and len(multi) % 2 == 0
    assert all(isinstance(r["image"], str) and r["images"] == [r["image"]] for r in sft)
    assert all(len(r["images"]) > 1 and r["image"] == r["images"] for r in multi)
    for record in sft + multi:
        for path in record["images"]:
            assert (out / "viewspatial" / path).is_file()
    assert outcome["label_map"] and "label map" in outcome["detail"]
    for record in bench:
        assert set(record) == {"question_type", "image_path", "question", "answer", "choices"}
        for path in record["image_path"]:
            assert (out / "viewspatial" / path).is_file()
    # The -inf pose frame of each scan is reported as skipped.
    skipped = [p for p in outcome["problems"] if "non-finite pose" in p["reason"]]
    assert sorted(p["item"] for p in skipped) == sorted(f"{s}:3" for s, _ in SYNTHETIC_SCENES.values())


@pytest.mark.blender
def test_answers_agree_with_the_room_geometry(built: tuple[Path, dict]) -> None:
    out, _ = built
    qa = pd.read_parquet(out / "viewspatial" / "qa" / "manifest.parquet")
    assert len(qa) >= 20
    vs = load_config(None).viewspatial
    poses = {scene: camera_walk(room, vs.synthetic.frames) for scene, room in rooms().items()}
    for row in qa.itertuples():
        ids, labels = list(row.object_ids), list(row.labels)
        centres = [furniture_centre(row.scene_id, i, label) for i, label in zip(ids, labels)]
        if row.question_type == CATEGORIES["Cam-Rel. Dir."]:
            pose = poses[row.scene_id][row.frame_ids[0]]
            v_cam = pose[:3, :3].T @ (centres[1] - centres[0])
            expected = expected_camera_label(v_cam, vs.qa.vertical_min_deg, vs.qa.vertical_only_deg)
            assert row.answer_label == expected, row.item_id
        else:
            a, b, c = centres
            # Facing B from A in 3-D (forward f, unit), z up: "right" is (fy, −fx, 0), normalised.
            f = (b - a) / np.linalg.norm(b - a)
            right = np.array([f[1], -f[0], 0.0]) / math.hypot(f[0], f[1])
            angle = math.degrees(math.atan2((c - a) @ right, (c - a) @ f))
            assert row.answer_label == compass_word(angle), row.item_id
            assert len(set(labels)) == 3 and len(row.frame_ids) >= 2
    # Per-Sce. Sim. frames are runs whose union sees the three objects: some never share a frame.
    vis = pd.read_parquet(out / "viewspatial" / "visibility" / "manifest.parquet")
    seen = vis[vis["visibility"] >= vs.qa.run_min_visibility].groupby(["scene_id", "frame_id"])["object_id"].agg(set)
    sim = qa[qa["question_type"] == CATEGORIES["Per-Sce. Sim."]]
    apart = [
        r
        for r in sim.itertuples()
        if not any(set(r.object_ids) <= seen.get((r.scene_id, f), set()) for f in r.frame_ids)
    ]
    assert apart and all(
        set(r.object_ids) <= set().union(*(seen.get((r.scene_id, f), set()) for f in r.frame_ids)) for r in apart
    )
    # Every object is named by one of the release's 34 NYU40 classes.
    asked = {n for i, n in NYU40_NAMES.items() if i not in EXCLUDED_NYU40}
    assert len(asked) == 34 and {label for labels in qa["labels"] for label in labels} <= asked
    # The check covered the vertical labels too, and more than a couple of horizontal ones.
    assert (~qa["answer_label"].isin(COMPASS)).any()
    assert qa["answer_label"].isin(COMPASS).sum() >= 10 and qa["answer_label"].nunique() >= 6


@pytest.mark.blender
def test_every_question_is_one_of_its_tasks_wordings_naming_its_subjects(built: tuple[Path, dict]) -> None:
    """Each item's question is a wording of its task with its own objects or people in the slots; every task
    uses more than one wording."""
    out, _ = built
    vs = load_config(None, SMALL_COCO).viewspatial
    wordings = {
        CATEGORIES["Cam-Rel. Dir."]: lambda labels: [
            t.format(reference=labels[0], target=labels[1]) for t in vs.qa.cam_rel_templates
        ],
        CATEGORIES["Per-Sce. Sim."]: lambda labels: [
            t.format(a=labels[0], b=labels[1], c=labels[2]) for t in vs.qa.scene_sim_templates
        ],
        CATEGORIES["Cam-Obj. Ori."]: lambda labels: [t.format(subject=labels[0]) for t in vs.coco.cam_obj_templates],
        CATEGORIES["Per-Obj. Ori."]: lambda labels: [t.format(subject=labels[0]) for t in vs.coco.per_obj_templates],
        CATEGORIES["Per-Rel. Dir."]: lambda labels: (
            [t.format(subject=labels[0], target=labels[1]) for t in vs.coco.per_rel.templates]
            + [t.format(subject=labels[0], target=labels[1]) for t in vs.coco.per_rel.hand_templates]
        ),
    }
    rows = pd.concat([pd.read_parquet(out / "viewspatial" / s / "manifest.parquet") for s in ("qa", "coco")])
    used: dict[str, set[int]] = {}
    for row in rows.itertuples():
        options = wordings[row.question_type](list(row.labels))
        assert row.question in options, row.item_id
        used.setdefault(row.question_type, set()).add(options.index(row.question))
    assert set(used) == set(CATEGORIES.values()) and all(len(k) > 1 for k in used.values()), used
    nouns = {label for t, labels in zip(rows["question_type"], rows["labels"]) for label in labels if "Ori" in t}
    assert nouns <= {
        f"the {n}{p}"
        for n in ("man", "woman", "boy", "girl", "child", "person")
        for p in (
            "",
            " on the left",
            " on the right",
            *(f" in {c}{w}" for c in NAMED_COLOURS for w in ("", " clothes")),
        )
    }


@pytest.mark.blender
def test_every_item_obeys_the_distractor_rule(built: tuple[Path, dict]) -> None:
    out, _ = built
    bench = json.loads((out / "viewspatial" / "ViewSpatial-Bench.json").read_text())
    sft = json.loads((out / "viewspatial" / "ViewSpatial-SFT.json").read_text())
    sft += json.loads((out / "viewspatial" / "ViewSpatial-SFT-multi.json").read_text())
    mc_turns = [r["conversations"] for r in sft if r["id"].endswith(":mc")]
    records = [(r["choices"], r["answer"]) for r in bench]
    records += [
        (
            "\n".join(line for line in t[0]["value"].split("\n") if line[:3] in ("A. ", "B. ", "C. ", "D. ")),
            t[1]["value"],
        )
        for t in mc_turns
    ]
    assert records
    for choices, answer in records:
        options = {line[0]: line[3:] for line in choices.split("\n")}
        if choices == "A. left\nB. right":  # "which hand/foot": the release's two options
            assert answer in ("A. left", "B. right")
            continue
        assert sorted(options) == ["A", "B", "C", "D"] and len(set(options.values())) == 4
        truth = options[answer[0]]
        assert answer == f"{answer[0]}. {truth}"
        for letter, option in options.items():
            if letter != answer[0]:
                assert option not in truth and truth not in option


def _ray_box_depth(origins: np.ndarray, dirs: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Distance along each ray to the box surface (from outside: entry; from inside: exit)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - origins) / dirs, (hi - origins) / dirs
    t_near = np.nanmax(np.minimum(t1, t2), axis=1)
    t_far = np.nanmin(np.maximum(t1, t2), axis=1)
    hit = t_far >= np.maximum(t_near, 0)
    return np.where(hit, np.where(t_near > 0, t_near, t_far), np.inf)


@pytest.mark.blender
def test_rendered_depth_is_planar_depth_of_the_known_room(built: tuple[Path, dict]) -> None:
    out, _ = built
    scene_id = SYNTHETIC_SCENES["val"][0]
    room = rooms()[scene_id]
    scan = open_scan(out / "viewspatial" / "synthetic" / "scans" / scene_id)
    k = scan.intrinsics.depth
    for frame in scan.iter_frames(scan.frame_ids()[::6]):
        h, w = frame.depth_mm.shape
        u, v = np.meshgrid(np.arange(w), np.arange(h))
        rays_cam = np.stack([(u - k[0, 2]) / k[0, 0], (v - k[1, 2]) / k[1, 1], np.ones_like(u, float)], -1).reshape(
            -1, 3
        )
        dirs = rays_cam @ frame.pose[:3, :3].T  # unit z in camera: t along the ray is planar depth
        origins = np.broadcast_to(frame.pose[:3, 3], dirs.shape)
        t = _ray_box_depth(origins, dirs, np.zeros(3), np.asarray(room.size, float))  # the room, from inside
        for item in room.furniture:
            t = np.minimum(t, _ray_box_depth(origins, dirs, item.lo, item.hi))
        err = np.abs(frame.depth_mm.reshape(-1) / 1000.0 - t)
        assert np.median(err) < 0.005
        assert np.mean(err < 0.02) > 0.95, frame.frame_id


@pytest.mark.blender
def test_raw_and_export_layouts_hold_the_same_scan(built: tuple[Path, dict]) -> None:
    out, _ = built
    scene_id = SYNTHETIC_SCENES["train"][0]
    root = out / "viewspatial" / "synthetic"
    raw, export = open_scan(root / "scans" / scene_id), open_scan(root / "scans_export" / scene_id)
    assert raw.frame_ids() == export.frame_ids() and 3 not in raw.frame_ids()
    for a, b in zip(raw.iter_frames(), export.iter_frames()):
        np.testing.assert_array_equal(a.depth_mm, b.depth_mm)
        np.testing.assert_allclose(a.pose, b.pose, atol=1e-6)
    walk = camera_walk(rooms()[scene_id], load_config(None).viewspatial.synthetic.frames)
    for fid in raw.frame_ids():
        np.testing.assert_allclose(raw.read_frame(fid).pose, walk[fid], atol=1e-5)


@pytest.mark.blender
def test_rerun_skips_finished_scans_and_duplicates_nothing(built: tuple[Path, dict]) -> None:
    out, first = built
    vs = out / "viewspatial"
    markers = {p: p.read_text() for p in vs.glob("*/_done/*.json")}
    assert {p.parent.parent.name for p in markers} == {
        "synthetic",
        "frames",
        "visibility",
        "qa",
        "synthetic_coco",
        "coco",
    }
    bench_before = (vs / "ViewSpatial-Bench.json").read_bytes()
    sft_before = (vs / "ViewSpatial-SFT.json").read_bytes() + (vs / "ViewSpatial-SFT-multi.json").read_bytes()
    second = viewspatial_flow(load_config(None, SMALL_COCO), str(out))
    assert second["status"] == "built"
    assert {p: p.read_text() for p in vs.glob("*/_done/*.json")} == markers  # nothing redone
    assert (vs / "ViewSpatial-Bench.json").read_bytes() == bench_before
    assert (vs / "ViewSpatial-SFT.json").read_bytes() + (vs / "ViewSpatial-SFT-multi.json").read_bytes() == sft_before
    qa = pd.read_parquet(vs / "qa" / "manifest.parquet")
    assert not qa["item_id"].duplicated().any()


def _split_lists(folder: Path, val: list[str], train: list[str]) -> str:
    """Write split lists into `folder`; the `--set` that points the build at them."""
    for split, scenes in (("val", val), ("train", train)):
        (folder / f"{split}.txt").write_text("".join(f"{scene}\n" for scene in scenes))
    return f"viewspatial.split_lists={{val: {folder / 'val.txt'}, train: {folder / 'train.txt'}}}"


@pytest.mark.blender
def test_scannet_root_with_a_missing_scan_reports_it_and_builds_the_rest(
    built: tuple[Path, dict], tmp_path: Path
) -> None:
    out, _ = built
    root = out / "viewspatial" / "synthetic"
    val_scene, train_scene = SYNTHETIC_SCENES["val"][0], SYNTHETIC_SCENES["train"][0]
    config = load_config(
        None,
        [
            *NO_COCO,
            f"viewspatial.scannet_root={root}",
            "viewspatial.scans_dir=scans_export",
            "viewspatial.coverage.frame_step=1",  # the synthetic walk stands for a scan's every 10th frame
            _split_lists(tmp_path, [val_scene, "scene0999_00"], [train_scene]),
        ],
    )
    outcome = viewspatial_flow(config, str(tmp_path / "build"))
    assert outcome["status"] == "built"
    assert outcome["detail"].startswith("2/3 scans")
    missing = [p for p in outcome["problems"] if p["item"] == "scene0999_00"]
    assert len(missing) == 1 and "scene0999_00" in missing[0]["reason"]
    # The export layout gives the same questions as the raw layout the synthetic build read.
    new = pd.read_parquet(tmp_path / "build" / "viewspatial" / "qa" / "manifest.parquet")
    old = pd.read_parquet(out / "viewspatial" / "qa" / "manifest.parquet")
    assert list(new["item_id"]) == list(old["item_id"])
    assert list(new["answer"]) == list(old["answer"])


@pytest.mark.blender
def test_without_the_label_map_structure_is_excluded_by_raw_name(built: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = built
    root = out / "viewspatial" / "synthetic"
    config = load_config(
        None,
        [
            *NO_COCO,
            f"viewspatial.scannet_root={root}",
            "viewspatial.label_map=null",
            _split_lists(tmp_path, [SYNTHETIC_SCENES["val"][0]], [SYNTHETIC_SCENES["train"][0]]),
        ],
    )
    outcome = viewspatial_flow(config, str(tmp_path / "build"))
    assert outcome["status"] == "built" and outcome["label_map"] is None
    assert outcome["detail"].startswith("2/2 scans")
    assert "no label map" in outcome["detail"] and "not set" in outcome["detail"]
    vs = tmp_path / "build" / "viewspatial"
    vis = pd.read_parquet(vs / "visibility" / "manifest.parquet")
    # Every piece of furniture has rows (the otherprop trash can too); walls, floor, ceiling none.
    assert set(vis["label"]) == {f.label for room in rooms().values() for f in room.furniture}
    assert not set(vis["label"]) & {"wall", "floor", "ceiling"}
    qa = pd.read_parquet(vs / "qa" / "manifest.parquet")
    assert set(qa["split"]) == {"val", "train"}
    assert json.loads((vs / "ViewSpatial-Bench.json").read_text())


@pytest.mark.blender
def test_a_corrupt_mesh_fails_its_scan_only_and_a_new_selection_leaves_no_stale_image(
    built: tuple[Path, dict], tmp_path: Path
) -> None:
    out, _ = built
    val_scene, train_scene = SYNTHETIC_SCENES["val"][0], SYNTHETIC_SCENES["train"][0]
    root = tmp_path / "scannet"
    shutil.copytree(out / "viewspatial" / "synthetic" / "scans_export", root / "scans")
    shutil.copy(out / "viewspatial" / "synthetic" / "scannetv2-labels.combined.tsv", root)
    (root / "val.txt").write_text(f"{val_scene}\n")
    (root / "train.txt").write_text(f"{train_scene}\n")
    ply = root / "scans" / train_scene / scan_file_names(train_scene)["ply"]
    ply.write_bytes(ply.read_bytes()[:-1001])
    overrides = [
        *NO_COCO,
        f"viewspatial.scannet_root={root}",
        "viewspatial.split_lists={val: val.txt, train: train.txt}",
        "viewspatial.coverage.frame_step=1",  # the synthetic walk stands for a scan's every 10th frame
    ]
    build = tmp_path / "build" / "viewspatial"
    outcome = viewspatial_flow(load_config(None, overrides), str(build.parent))
    assert outcome["status"] == "built" and outcome["detail"].startswith("1/2 scans")
    [bad] = [p for p in outcome["problems"] if p["item"] == train_scene]
    assert str(ply) in bad["reason"] and "truncated" in bad["reason"]
    bench = json.loads((build / "ViewSpatial-Bench.json").read_text())
    assert bench and all(val_scene in path for r in bench for path in r["image_path"])
    assert json.loads((build / "ViewSpatial-SFT.json").read_text()) == []
    # A smaller frame budget selects fewer frames: the images folder holds exactly the new ones.
    images = build / "images" / val_scene
    before = {p.name for p in images.glob("*.jpg")}
    viewspatial_flow(load_config(None, [*overrides, "viewspatial.coverage.budget=2"]), str(build.parent))
    vis = pd.read_parquet(build / "visibility" / "manifest.parquet")
    after = {p.name for p in images.glob("*.jpg")}
    assert after == {f"{fid}.jpg" for fid in set(vis["frame_id"])} and len(after) <= 2 < len(before)


# --- the scan task without Blender: tiny export-layout scans ---------------------------------------

OTHER = "scene0001_00"


def tiny_scans(root: Path) -> dict[str, Path]:
    """Two tiny scans under `root` (the second a copy of the first under another scene id)."""
    first = make_tiny_scan(root / SCENE, "export")
    second = root / OTHER
    shutil.copytree(first, second)
    for kind, name in scan_file_names(SCENE).items():
        if (second / name).exists():
            (second / name).rename(second / scan_file_names(OTHER)[kind])
    return {SCENE: first, OTHER: second}


def run_scans(out: Path, scans: dict[str, Path]) -> dict[str, dict]:
    vs = load_config(None, ["viewspatial.coverage.depth_stride=1"]).viewspatial
    return {scene: build_scan(str(out), str(d), "val", "export", None, vs, 0) for scene, d in scans.items()}


def markers(out: Path, scene: str) -> dict[str, tuple[int, int, str]]:
    """(inode, mtime, spec hash) of a scan's stage markers: a rewritten marker is a new file."""
    found = {}
    for stage in ("frames", "visibility", "qa"):
        path = out / "viewspatial" / stage / "_done" / f"{scene}.json"
        found[stage] = (path.stat().st_ino, path.stat().st_mtime_ns, json.loads(path.read_text())["spec_hash"])
    return found


@pytest.mark.parametrize("bad_file", ["ply", "segs"])
def test_a_corrupt_scan_is_reported_by_file_and_the_other_scan_is_built(tmp_path: Path, bad_file: str) -> None:
    scans = tiny_scans(tmp_path / "scans")
    bad = scans[OTHER] / scan_file_names(OTHER)[bad_file]
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 3])
    results = run_scans(tmp_path / "out", scans)
    assert results[SCENE]["done"] and results[SCENE]["problems"] == []
    assert len(markers(tmp_path / "out", SCENE)) == 3
    assert not results[OTHER]["done"]
    [found] = results[OTHER]["problems"]
    assert found["item"] == OTHER and found["path"] == str(scans[OTHER])
    assert str(bad) in found["reason"]
    assert not (tmp_path / "out" / "viewspatial" / "qa" / "_done" / f"{OTHER}.json").exists()


def test_an_explicit_label_map_that_is_missing_fails_the_benchmark(prefect_server: None, tmp_path: Path) -> None:
    config = load_config(None, [f"viewspatial.scannet_root={tmp_path}", "viewspatial.label_map=no-such-labels.tsv"])
    with pytest.raises(FileNotFoundError) as err:
        viewspatial_flow(config, str(tmp_path / "build"))
    message = str(err.value)
    assert "viewspatial.label_map" in message and str(tmp_path / "no-such-labels.tsv") in message
    assert "label_map: null" in message


def test_a_default_label_map_that_is_missing_falls_back_to_raw_names(tmp_path: Path) -> None:
    """ScanNet's own label map, missing, excludes by raw name however the config came to hold it: left at its
    default, written out, scaled, or recorded by a build and loaded again; another missing name fails."""
    default = load_config(None).viewspatial
    assert default.label_map and not (tmp_path / default.label_map).exists()
    written = load_config(None, [f"viewspatial.label_map={default.label_map}"]).viewspatial
    scaled = load_config("rehearsal-viewspatial", [f"viewspatial.scannet_root={tmp_path}", "scale=0.5"]).viewspatial
    recorded = tmp_path / "recorded.yaml"
    recorded.write_text(yaml.safe_dump(config_dict(load_config(None, [f"viewspatial.scannet_root={tmp_path}"]))))
    for section in (default, written, scaled, load_config(str(recorded)).viewspatial):
        nyu40_of, rule = label_map_rule(tmp_path, section)
        assert nyu40_of is None and "no label map" in rule and "not found" in rule
    other = load_config(None, ["viewspatial.label_map=labels-of-mine.tsv"]).viewspatial
    with pytest.raises(FileNotFoundError, match="viewspatial.label_map"):
        label_map_rule(tmp_path, other)
    nyu40_of, rule = label_map_rule(tmp_path, load_config(None, ["viewspatial.label_map=null"]).viewspatial)
    assert nyu40_of is None and "not set" in rule


def test_a_changed_scan_is_redone_and_an_untouched_or_moved_one_is_not(tmp_path: Path) -> None:
    scans = tiny_scans(tmp_path / "scans")
    out = tmp_path / "out"
    run_scans(out, scans)
    first = {scene: markers(out, scene) for scene in scans}
    assert all(r["done"] for r in run_scans(out, scans).values())
    assert {scene: markers(out, scene) for scene in scans} == first
    # A moved ScanNet root and a copied build: same contents, nothing redone.
    shutil.copytree(tmp_path / "scans", tmp_path / "moved")
    shutil.copytree(out, tmp_path / "copy")
    hashes = {scene: {k: v[2] for k, v in m.items()} for scene, m in first.items()}
    copied = {scene: markers(tmp_path / "copy", scene) for scene in scans}
    run_scans(tmp_path / "copy", {scene: tmp_path / "moved" / scene for scene in scans})
    assert {scene: markers(tmp_path / "copy", scene) for scene in scans} == copied
    assert {scene: {k: v[2] for k, v in m.items()} for scene, m in copied.items()} == hashes
    # One changed pose: that scan's stages are redone, the other scan's are not.
    pose = scans[OTHER] / "pose" / "0.txt"
    matrix = np.loadtxt(pose)
    matrix[0, 3] += 0.25
    np.savetxt(pose, matrix)
    run_scans(out, scans)
    assert markers(out, SCENE) == first[SCENE]
    changed = markers(out, OTHER)
    assert all(changed[stage][2] != first[OTHER][stage][2] for stage in changed)


def test_a_scannet_root_where_every_scan_fails_fails_the_benchmark(prefect_server: None, tmp_path: Path) -> None:
    (tmp_path / "scans" / "scene0998_00").mkdir(parents=True)  # a scan folder with nothing readable in it
    config = load_config(
        None,
        [
            *NO_COCO,
            f"viewspatial.scannet_root={tmp_path}",
            "viewspatial.label_map=null",
            _split_lists(tmp_path, ["scene0998_00", "scene0999_00"], []),
        ],
    )
    outcome = viewspatial_flow(config, str(tmp_path / "build"))
    assert outcome["status"] == "failed" and outcome["detail"].startswith("0/2 scans")
    assert sorted(p["item"] for p in outcome["problems"]) == ["scene0998_00", "scene0999_00"]
