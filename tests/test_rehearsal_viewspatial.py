"""ViewSpatial-Bench's paper-scale dress rehearsal (issue 46): the `rehearsal-viewspatial` preset plans the
release's 5,712 items (Cam-Rel. Dir. 1,773, Cam-Obj. Ori. 996, Per-Obj. Ori. 996, Per-Rel. Dir. 842, Per-Sce. Sim.
1,105) on embedded defaults, its `scale` shrinks the budgets and the synthetic scans and images in proportion with
the tasks' ratios kept, its synthetic scans are distinct rooms, and a build at f = 0.01 releases its budgets."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from benchfoundry.benchmarks.viewspatial.build_plan import plan_config, planned_items
from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.scannet.config import EXCLUDED_NYU40, DirectionQAConfig
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    FLOOR_FINISHES,
    SYNTHETIC_SCENES,
    SyntheticScene,
    camera_walk,
    intrinsics_for,
    room_mesh,
    scene_room,
    synthetic_room,
    synthetic_scenes,
    walk_phase,
)
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import ConfigError, config_dict, config_hash, load_config
from benchfoundry.core.camera import project, world_to_camera
from benchfoundry.core.directions import CAMERA_LABELS, camera_direction

PRESET = "rehearsal-viewspatial"
#: The release's items of each task (ZJU-REAL/ViewSpatial-Bench: 5,712 items), by the budgets' keys.
RELEASE = {"cam_rel": 1773, "cam_obj": 996, "per_obj": 996, "per_rel": 842, "scene_sim": 1105}
SHORT = {
    "cam_rel": "Cam-Rel. Dir.",
    "cam_obj": "Cam-Obj. Ori.",
    "per_obj": "Per-Obj. Ori.",
    "per_rel": "Per-Rel. Dir.",
    "scene_sim": "Per-Sce. Sim.",
}
FRACTIONS = [0.01, 0.1, 0.5]


def test_the_preset_plans_the_releases_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["build", PRESET, "--plan"]) == 0
    printed = capsys.readouterr().out
    assert "syndor: not built" in printed and "odi: not built" in printed
    tasks = ", ".join(f"{SHORT[k]} {n:,}" for k, n in RELEASE.items())
    assert f"viewspatial: {sum(RELEASE.values()):,} benchmark items at most ({tasks})" in printed
    assert sum(RELEASE.values()) == 5712
    config = load_config(PRESET)
    vs = config.viewspatial
    assert not config.syndor.enabled and not config.odi.enabled
    # embedded defaults only: synthetic scans and images, the keypoint estimator (no weights)
    assert vs.scannet_root is None and not vs.coco.splits and vs.coco.estimator == "keypoints"
    assert vs.release.budgets.model_dump() == RELEASE and planned_items(config) == 5712
    # the synthetic data can give every budget: each task's cap over the val scans and images is above it
    plan = plan_config(config)
    assert plan["scans"] == vs.synthetic.scans
    for task, budget in RELEASE.items():
        assert plan["most_items"][task] is None or plan["most_items"][task] >= budget, task
    assert "< its budget" not in printed.split("viewspatial:")[1]
    # the synthetic COCO set renders in parts: one task a hundred images (5,000 val, 400 train)
    images = vs.coco.synthetic.images
    assert plan["task_runs"]["coco synthetic"] == sum(math.ceil(n / 100) for n in images.values()) == 54


@pytest.mark.parametrize("fraction", FRACTIONS)
def test_a_scaled_preset_is_proportional_and_keeps_the_tasks_ratios(fraction: float) -> None:
    full = load_config(PRESET).viewspatial
    config = load_config(PRESET, [f"scale={fraction}"])
    vs = config.viewspatial
    budgets = vs.release.budgets.model_dump()
    for task, n in RELEASE.items():
        assert 1 <= budgets[task] and abs(budgets[task] - n * fraction) <= 0.5, (task, budgets[task])
    # |b_i − B_i·f| <= 1/2 for every task bounds how far each pair's ratio moves: b_i·B_j − b_j·B_i =
    # (b_i − B_i·f)·B_j − (b_j − B_j·f)·B_i
    for (i, big_i), (j, big_j) in itertools.combinations(RELEASE.items(), 2):
        assert abs(budgets[i] * big_j - budgets[j] * big_i) <= 0.5 * (big_i + big_j), (i, j)
    assert planned_items(config) == sum(budgets.values())
    assert abs(sum(budgets.values()) - 5712 * fraction) <= 0.5 * len(RELEASE)
    # the data: at least f of each split's scans and images, less than one more, and at least one
    for full_counts, counts in (
        (full.synthetic.scans, vs.synthetic.scans),
        (full.coco.synthetic.images, vs.coco.synthetic.images),
    ):
        assert set(counts) == set(full_counts)
        for split, n in full_counts.items():
            assert counts[split] >= 1 and n * fraction - 1e-9 <= counts[split] < n * fraction + 1, (split, n)
    # what is not a count of the build stays
    assert vs.qa == full.qa and vs.coverage == full.coverage and vs.coco.per_rel == full.coco.per_rel
    assert vs.synthetic.model_dump(exclude={"scans"}) == full.synthetic.model_dump(exclude={"scans"})
    # the scaled data can still give its budgets
    plan = plan_config(config)
    assert plan["scans"] == vs.synthetic.scans
    for task, budget in budgets.items():
        assert plan["most_items"][task] is None or plan["most_items"][task] >= budget, task


@pytest.mark.parametrize("fraction", FRACTIONS)
def test_a_scaled_config_holds_no_scale_and_reloads_to_itself(fraction: float, tmp_path: Path) -> None:
    config = load_config(PRESET, [f"scale={fraction}"])
    dumped = config_dict(config)
    assert "scale" not in dumped
    path = tmp_path / "scaled.yaml"
    path.write_text(yaml.safe_dump(dumped))
    again = load_config(path)
    assert again == config and config_hash(again) == config_hash(config)
    assert load_config(PRESET, ["scale=1"]) == load_config(PRESET)


def test_the_synthetic_scans_are_distinct_rooms_of_the_first_ones() -> None:
    scans = load_config(PRESET).viewspatial.synthetic.scans
    scenes = synthetic_scenes(scans)
    assert Counter(s.split for s in scenes) == scans
    assert len({s.scene_id for s in scenes}) == len(scenes)
    # a split's first scan is its room as it always was
    for split, (scene_id, mirrored) in SYNTHETIC_SCENES.items():
        first = next(s for s in scenes if s.split == split)
        assert first == SyntheticScene(scene_id, split, 0)
        assert scene_room(first) == synthetic_room(scene_id, mirrored) and walk_phase(first) == 0.0
    layouts = set()
    for scene in scenes[:40]:
        room = scene_room(scene)
        size = np.asarray(room.size)
        assert room.scene_id == scene.scene_id
        assert sorted(f.label for f in room.furniture) == sorted(f.label for f in synthetic_room("x").furniture)
        for f in room.furniture:
            assert np.all(f.lo >= -1e-9) and np.all(f.hi <= size + 1e-9), (scene.scene_id, f.label)
        for a, b in itertools.combinations(room.furniture, 2):  # a piece standing on another touches it
            assert np.any(a.hi <= b.lo + 1e-9) or np.any(b.hi <= a.lo + 1e-9), (scene.scene_id, a.label, b.label)
        # the walk's eye stays in the room, above every piece it passes over
        for pose in camera_walk(room, 20, phase=walk_phase(scene)):
            if not np.isfinite(pose).all():
                continue
            eye = pose[:3, 3]
            assert np.all(eye > 0) and np.all(eye < size)
            for f in room.furniture:
                inside_xy = np.all(f.lo[:2] <= eye[:2]) and np.all(eye[:2] <= f.hi[:2])
                assert not inside_xy or eye[2] > f.hi[2], (scene.scene_id, f.label)
        layouts.add(tuple((f.label, f.center) for f in room.furniture))
    assert len(layouts) == 40


def test_a_varied_scan_is_laid_with_one_of_the_floors_and_the_first_ones_keep_their_boards() -> None:
    def floor_of(scene: SyntheticScene) -> tuple[str, tuple[float, ...]]:
        floor = next(p for p in room_mesh(scene_room(scene)).parts if p.name.endswith("_floor"))
        return floor.surface, floor.color

    scenes = synthetic_scenes({"val": 31, "train": 31})
    firsts = [s for s in scenes if s.index == 0]
    assert [floor_of(s) for s in firsts] == [("planks", FLOOR_FINISHES["planks"])] * 2
    varied = [floor_of(s) for s in scenes if s.index > 0]
    assert all(FLOOR_FINISHES[surface] == colour for surface, colour in varied)
    # each finish in a fair share of the 60 varied rooms, the same rooms every time
    assert min(Counter(surface for surface, _ in varied)[f] for f in FLOOR_FINISHES) >= 10
    assert varied == [floor_of(s) for s in scenes if s.index > 0]


def test_the_walk_sees_pairs_of_pieces_in_every_released_direction() -> None:
    """Pieces at other depths and heights: over the val room's walk (the preset's frames), pairs of pieces in view
    lie in each of the release's 18 Cam-Rel. Dir. directions (clear of a bin's edge by the QA's margin), its rarest
    front-down and back-up (1.5 % and 0.8 %) included, not only left and right of each other."""
    config = load_config(PRESET)
    synthetic, qa = config.viewspatial.synthetic, DirectionQAConfig()
    room = scene_room(synthetic_scenes(synthetic.scans)[0])
    intrinsics = intrinsics_for(synthetic.width, synthetic.height, synthetic.hfov_deg, synthetic.depth_stride)
    w, h = intrinsics.color_size
    pieces = [f for f in room.furniture if f.nyu40_id not in EXCLUDED_NYU40 and f.label != "chair"]
    found = set()
    for pose in camera_walk(room, synthetic.frames):
        if not np.isfinite(pose).all():
            continue
        in_view = []
        for f in pieces:
            corners = np.array([[(f.hi if (i >> k) & 1 else f.lo)[k] for k in range(3)] for i in range(8)])
            cam = world_to_camera(corners, pose)
            uv = project(cam, intrinsics.color)
            inside = (cam[:, 2] > 0) & (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
            if inside.sum() >= 4:
                in_view.append(world_to_camera(np.asarray([f.center]), pose)[0])
        for a, b in itertools.permutations(in_view, 2):
            direction = camera_direction(b - a, qa.vertical_min_deg, qa.vertical_only_deg)
            if direction.margin_deg >= qa.margin_deg:
                found.add(direction.label)
    assert found == set(CAMERA_LABELS)


@pytest.mark.parametrize(
    "scans", ["{val: 0, train: 1}", "{val: 3}", "{val: 1, train: 1, test: 1}", "{val: 4501, train: 1}"]
)
def test_synthetic_scans_need_one_to_4500_of_each_split(scans: str) -> None:
    with pytest.raises(ConfigError, match="viewspatial.synthetic.scans"):
        load_config(None, [f"viewspatial.synthetic.scans={scans}"])


@pytest.mark.blender
def test_a_hundredth_of_the_rehearsal_releases_its_budgets(prefect_server: None, tmp_path: Path) -> None:
    """A build of the preset at f = 0.01: each task's released count is its scaled budget, or every val item
    the data gave where that is fewer."""
    from benchfoundry.benchmarks.viewspatial.flow import viewspatial_flow

    config = load_config(PRESET, ["scale=0.01"])
    outcome = viewspatial_flow(config, str(tmp_path))
    assert outcome["status"] == "built", outcome["detail"]
    bench = json.loads((tmp_path / "viewspatial" / "ViewSpatial-Bench.json").read_text())
    released = Counter(r["question_type"] for r in bench)
    rows = pd.concat(
        [pd.read_parquet(tmp_path / "viewspatial" / stage / "manifest.parquet") for stage in ("qa", "coco")]
    )
    val = rows[(rows["split"] == "val") & ~rows.get("needs_review", pd.Series(False, rows.index)).eq(True)]
    available = Counter(val["question_type"])
    budgets = config.viewspatial.release.budgets.model_dump()
    types = {task: CATEGORIES[short] for task, short in SHORT.items()}
    for task, qtype in types.items():
        assert released[qtype] <= budgets[task], task
        assert released[qtype] == min(budgets[task], available[qtype]), (task, available[qtype])
    assert sum(released.values()) == len(bench) == outcome["items"]
    short_of = {task: available[q] for task, q in types.items() if available[q] < budgets[task]}
    assert not short_of, f"the synthetic data fell short of the budgets: {short_of}"
    assert math.isclose(
        outcome["camera_share"], round((released[types["cam_rel"]] + released[types["cam_obj"]]) / len(bench), 4)
    )
