"""AMASS + BABEL pose source, on tiny AMASS/BABEL files made here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets.poses import action_pose
from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.benchmarks.syndor.stages import pose_selection


def _sequence(path: Path, frames: int, fps: float, width: int = 156, marker: float = 0.0) -> np.ndarray:
    """An AMASS-like npz whose body-pose entries encode (frame index + marker) so picks can be traced."""
    poses = np.zeros((frames, width), np.float32)
    poses[:, 3] = np.arange(frames) + marker  # first body joint, x component
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, poses=poses, trans=np.zeros((frames, 3)), betas=np.zeros(16), mocap_framerate=np.array(fps))
    return poses


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    amass_root, babel_root = tmp_path / "amass", tmp_path / "babel"
    _sequence(amass_root / "CMU" / "01" / "01_01_poses.npz", frames=100, fps=10.0)  # 10 s
    _sequence(amass_root / "CMU" / "02" / "02_01_poses.npz", frames=50, fps=10.0, width=72, marker=1000.0)
    (amass_root / "CMU" / "03").mkdir(parents=True)
    (amass_root / "CMU" / "03" / "broken_poses.npz").write_bytes(b"not a zip file")
    babel = {
        "1": {
            "feat_p": "CMU/CMU/01/01_01_poses.npz",
            "dur": 10.0,
            "seq_ann": {"labels": [{"proc_label": "walk"}]},
            "frame_ann": {
                "labels": [
                    {"proc_label": "Kick Ball", "act_cat": ["kick", "leg movements"], "start_t": 2.0, "end_t": 3.0},
                    {"proc_label": "stand", "act_cat": ["stand"], "start_t": 3.0, "end_t": 5.0},
                    {"proc_label": "walking forward", "act_cat": ["walk"], "start_t": 5.0, "end_t": 6.0},
                ]
            },
        },
        "2": {
            "feat_p": "CMU/CMU/02/02_01_poses.npz",
            "dur": 5.0,
            "frame_ann": None,
            "seq_ann": {"labels": [{"proc_label": "sneaking around", "act_cat": ["sneak"]}]},
        },
        "3": {
            "feat_p": "CMU/CMU/03/broken_poses.npz",
            "dur": 1.0,
            "frame_ann": None,
            "seq_ann": {"labels": [{"proc_label": "kick", "act_cat": ["kick"]}]},
        },
        "4": {
            "feat_p": "CMU/CMU/04/missing_poses.npz",
            "dur": 1.0,
            "frame_ann": None,
            "seq_ann": {"labels": [{"proc_label": "dodge", "act_cat": ["dodge"]}]},
        },
    }
    babel_root.mkdir()
    (babel_root / "train.json").write_text(json.dumps(babel))
    extra = {
        "9": {
            "feat_p": "CMU/CMU/02/02_01_poses.npz",
            "dur": 5.0,
            "seq_anns": [{"labels": [{"proc_label": "t pose"}]}],
            "frame_anns": [
                {"labels": [{"proc_label": "guard up", "act_cat": ["fight"], "start_t": 1.0, "end_t": 1.2}]}
            ],
        }
    }
    (babel_root / "extra_train.json").write_text(json.dumps(extra))
    (babel_root / "zz_corrupt.json").write_text("{ not json")
    return amass_root, babel_root


def test_frames_come_from_matching_labels_only(roots: tuple[Path, Path]) -> None:
    amass_root, babel_root = roots
    config = PoseConfig(
        actions=["kicking", "walking", "sneak", "dodging"],
        amass_root=amass_root,
        babel_root=babel_root,
        max_frames_per_action=3,
        selection="synonyms",
    )
    sel = pose_selection.select_poses(config)
    kicks = sel.of("kicking")
    # kick ball labelled 2.0–3.0 s at 10 fps: frames 20…30; picks spread over them, ends included
    assert [f.frame for f in kicks] == [20, 25, 30]
    assert all(f.source == "CMU/CMU/01/01_01_poses.npz" and f.label == "Kick Ball" for f in kicks)
    assert [float(f.body_pose[0, 0]) for f in kicks] == [20.0, 25.0, 30.0]  # the pose of that very frame
    walks = sel.of("walking")  # frame labels take precedence over the sequence's "walk"
    assert [f.frame for f in walks] == [50, 55, 60]
    sneaks = sel.of("sneak")  # a sequence label covers the whole 50-frame SMPL (72-wide) sequence
    assert [f.frame for f in sneaks] == [0, 24, 49]
    assert [float(f.body_pose[0, 0]) for f in sneaks] == [1000.0, 1024.0, 1049.0]
    assert all(f.body_pose.shape == (23, 3) for f in sel.frames)
    assert sel.of("dodging") == []
    assert sel.method == "synonyms" and all(f.score is None for f in sel.frames)


def test_extra_split_annotation_lists_are_read(roots: tuple[Path, Path]) -> None:
    amass_root, babel_root = roots
    config = PoseConfig(actions=["guard_up"], amass_root=amass_root, babel_root=babel_root, max_frames_per_action=10)
    guards = pose_selection.select_poses(config).of("guard_up")
    assert [(f.source, f.frame) for f in guards] == [("CMU/CMU/02/02_01_poses.npz", i) for i in (10, 11, 12)]


def test_corrupt_and_missing_inputs_are_reported_and_skipped(roots: tuple[Path, Path]) -> None:
    amass_root, babel_root = roots
    config = PoseConfig(actions=["kicking", "dodging"], amass_root=amass_root, babel_root=babel_root)
    sel = pose_selection.select_poses(config)
    items = {p["item"]: p for p in sel.problems}
    assert "zz_corrupt.json" in items
    assert "CMU/CMU/03/broken_poses.npz" in items
    assert (
        "CMU/CMU/04/missing_poses.npz" in items and "missing_poses.npz" in items["CMU/CMU/04/missing_poses.npz"]["path"]
    )
    assert "dodging" in items  # no usable frame for that action
    assert len(sel.of("kicking")) == 4  # the broken kick sequence is skipped, the good one is used


def test_label_matching_is_case_insensitive_and_whole_word() -> None:
    syn = {"kicking": ["kick"], "walking": ["walk"], "cover_face": ["cover face"]}
    actions = list(syn)
    assert pose_selection.label_action({"proc_label": "KICK the ball"}, actions, syn) == "kicking"
    assert pose_selection.label_action({"proc_label": "x", "act_cat": ["Walk"]}, actions, syn) == "walking"
    assert pose_selection.label_action({"proc_label": "sidewalk stroll"}, actions, syn) is None
    assert pose_selection.label_action({"proc_label": "cover   face with hands"}, actions, syn) == "cover_face"
    assert pose_selection.label_action({"proc_label": "stand"}, actions, syn) is None


def test_body_pose_widths() -> None:
    for width, joints in ((72, 23), (156, 21), (165, 21)):
        row = np.arange(width, dtype=np.float32)
        pose = pose_selection.amass_body_pose(row)
        assert pose.shape == (23, 3)
        np.testing.assert_array_equal(pose[:joints].reshape(-1), row[3 : 3 + 3 * joints])
        assert not pose[joints:].any()
    with pytest.raises(ValueError, match="72, 156 or 165"):
        pose_selection.amass_body_pose(np.zeros(10))


def test_builtin_source_without_amass() -> None:
    sel = pose_selection.select_poses(PoseConfig(actions=["walking", "guard_up"]))
    assert [(f.action, f.source, f.frame) for f in sel.frames] == [
        ("walking", "builtin", 0),
        ("guard_up", "builtin", 0),
    ]
    np.testing.assert_array_equal(sel.frames[0].body_pose, action_pose("walking"))


def test_config_requires_both_roots(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="amass_root and poses.babel_root"):
        PoseConfig(amass_root=tmp_path)


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    config = PoseConfig(amass_root=tmp_path, babel_root=tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="poses.babel_root .*nowhere"):
        pose_selection.select_poses(config)


def test_smplx_release_stageii_files_are_found_for_poses_names(tmp_path: Path) -> None:
    """BABEL names the SMPL+H file (`*_poses.npz`); an SMPL-X release root holds `*_stageii.npz`
    (165-wide poses, `mocap_frame_rate`): its frames are used."""
    amass_root, babel_root = tmp_path / "amass", tmp_path / "babel"
    path = amass_root / "CMU" / "05" / "05_01_stageii.npz"
    path.parent.mkdir(parents=True)
    poses = np.zeros((20, 165), np.float32)
    poses[:, 3] = np.arange(20) + 500.0
    np.savez(path, poses=poses, trans=np.zeros((20, 3)), betas=np.zeros(16), mocap_frame_rate=np.array(10.0))
    babel_root.mkdir()
    (babel_root / "train.json").write_text(
        json.dumps(
            {
                "1": {
                    "feat_p": "CMU/CMU/05/05_01_poses.npz",
                    "dur": 2.0,
                    "frame_ann": None,
                    "seq_ann": {"labels": [{"proc_label": "kick"}]},
                }
            }
        )
    )
    config = PoseConfig(actions=["kicking"], amass_root=amass_root, babel_root=babel_root, max_frames_per_action=2)
    sel = pose_selection.select_poses(config)
    assert sel.problems == []
    assert [(f.frame, float(f.body_pose[0, 0])) for f in sel.of("kicking")] == [(0, 500.0), (19, 519.0)]


def test_poses_name_is_preferred_and_a_missing_file_names_both(tmp_path: Path) -> None:
    _sequence(tmp_path / "CMU" / "06" / "06_01_poses.npz", frames=3, fps=10.0, marker=1.0)
    _sequence(tmp_path / "CMU" / "06" / "06_01_stageii.npz", frames=3, fps=10.0, marker=2.0)
    assert pose_selection.resolve_feat_p(tmp_path, "CMU/CMU/06/06_01_poses.npz").name == "06_01_poses.npz"
    with pytest.raises(FileNotFoundError, match="07_01_poses.npz or 07_01_stageii.npz"):
        pose_selection.resolve_feat_p(tmp_path, "CMU/CMU/07/07_01_poses.npz")
    assert pose_selection.feat_p_names("CMU/x/a_b.npz") == ["CMU/x/a_b.npz"]  # no _poses suffix: no other name


def test_missing_sequence_problem_names_both_release_names(roots: tuple[Path, Path]) -> None:
    amass_root, babel_root = roots
    sel = pose_selection.select_poses(PoseConfig(actions=["dodging"], amass_root=amass_root, babel_root=babel_root))
    reason = {p["item"]: p for p in sel.problems}["CMU/CMU/04/missing_poses.npz"]["reason"]
    assert "missing_poses.npz" in reason and "missing_stageii.npz" in reason
