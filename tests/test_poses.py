"""The eight built-in actions: valid SMPL body poses that look like what they are named.

Checks read the posed procedural body in the world frame (+Z up, person facing −Y, their left +X).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.assets.smpl_skeleton import JOINT_NAMES
from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.configs.person import BodyConfig
from benchfoundry.person import body_mesh, body_models


@pytest.fixture(scope="module")
def meshes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, body_mesh.BodyMesh]:
    cache = tmp_path_factory.mktemp("pose-cache")
    poses = {
        "upright": builtin_poses.upright_pose(),
        **{a: builtin_poses.action_pose(a) for a in builtin_poses.ACTIONS},
    }
    return {
        name: body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache)
        for name, pose in poses.items()
    }


def _lm(mesh: body_mesh.BodyMesh, name: str) -> np.ndarray:
    return mesh.vertices[mesh.landmarks[name]].astype(np.float64)


def test_actions_are_the_eight_released_ones() -> None:
    assert len(builtin_poses.ACTIONS) == 8 and len(set(builtin_poses.ACTIONS)) == 8
    for action in builtin_poses.ACTIONS:
        pose = builtin_poses.action_pose(action)
        assert pose.shape == (23, 3) and np.isfinite(pose).all()
        assert np.linalg.norm(pose, axis=1).max() < np.pi  # principal axis-angles
    with pytest.raises(KeyError, match="known"):
        builtin_poses.action_pose("moonwalk")


def test_action_pose_returns_a_fresh_copy() -> None:
    pose = builtin_poses.action_pose("walking")
    pose[:] = 0
    assert builtin_poses.action_pose("walking").any()


def test_every_action_differs_from_upright_and_from_each_other(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    for a, b in itertools.combinations(meshes, 2):
        gap = np.abs(meshes[a].vertices - meshes[b].vertices).max()
        assert gap > 0.15, (a, b, gap)


def test_upright_stands_straight_with_arms_down(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["upright"]
    assert m.vertices[:, 2].max() == pytest.approx(m.height_m, abs=0.005)
    for side in ("left", "right"):
        assert _lm(m, f"{side}_wrist")[2] < _lm(m, f"{side}_hip")[2] + 0.1
        assert abs(_lm(m, f"{side}_wrist")[0]) < 0.4
    assert np.abs(m.vertices[:, 0]).max() < 0.45


def test_kicking_raises_one_foot_forward(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["kicking"]
    ankles = sorted((_lm(m, "left_ankle"), _lm(m, "right_ankle")), key=lambda p: p[2])
    assert ankles[0][2] < 0.2  # standing foot on the ground
    assert ankles[1][2] > 0.5 and ankles[1][1] < -0.4  # kicking foot up and in front (−Y)


def test_stepping_over_lifts_one_knee_high(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["stepping_over"]
    lifted = max(("left", "right"), key=lambda s: _lm(m, f"{s}_knee")[2])
    other = "right" if lifted == "left" else "left"
    assert _lm(m, f"{lifted}_knee")[2] > _lm(m, f"{lifted}_hip")[2] - 0.05
    assert _lm(m, f"{lifted}_knee")[1] < -0.25
    assert _lm(m, f"{other}_ankle")[2] < 0.2


def test_sneak_crouches_and_leans_forward(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["sneak"]
    assert m.vertices[:, 2].max() < 0.93 * m.height_m
    assert _lm(m, "nose")[1] < -0.2  # head well in front of the pelvis


def test_walking_counter_swings_arms_and_legs(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["walking"]
    legs = _lm(m, "left_ankle")[1] - _lm(m, "right_ankle")[1]
    arms = _lm(m, "left_wrist")[1] - _lm(m, "right_wrist")[1]
    assert abs(legs) > 0.3 and abs(arms) > 0.15
    assert legs * arms < 0  # the arm opposite the forward leg swings forward


def test_cover_face_puts_both_hands_at_the_face(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["cover_face"]
    nose = _lm(m, "nose")
    for side in ("left", "right"):
        assert np.linalg.norm(_lm(m, f"{side}_wrist") - nose) < 0.22
    # the hands are in front of the nose: some vertex lies within 4 cm in front of it
    front = m.vertices[(m.vertices[:, 1] < nose[1]) & (np.abs(m.vertices[:, 2] - nose[2]) < 0.05)]
    assert (np.abs(front[:, 0] - nose[0]) < 0.06).any() and (nose[1] - front[:, 1]).min() < 0.04


def test_choking_puts_both_hands_at_the_throat(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["choking"]
    shoulders = (_lm(m, "left_shoulder") + _lm(m, "right_shoulder")) / 2
    nose = _lm(m, "nose")
    for side in ("left", "right"):
        w = _lm(m, f"{side}_wrist")
        assert shoulders[2] - 0.05 < w[2] < nose[2]
        assert abs(w[0]) < 0.16 and w[1] < shoulders[1]


def test_dodging_leans_the_torso_sideways(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["dodging"]
    assert abs(_lm(m, "nose")[0]) > 0.15  # head far to one side of the pelvis (x = 0)
    assert _lm(m, "head_top")[2] < 0.95 * m.height_m  # bent knees and a sideways lean lower the head


def test_guard_up_holds_fists_before_the_face_with_bent_elbows(meshes: dict[str, body_mesh.BodyMesh]) -> None:
    m = meshes["guard_up"]
    for side in ("left", "right"):
        w, e, s = _lm(m, f"{side}_wrist"), _lm(m, f"{side}_elbow"), _lm(m, f"{side}_shoulder")
        assert w[2] > s[2] and e[2] < w[2] - 0.1
        assert w[1] < s[1] - 0.1


def test_pose_config_rejects_unknown_actions_and_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="known: .*guard_up"):
        PoseConfig(actions=["walking", "moonwalk"])
    assert PoseConfig(actions=["Cover Face", "guard-up"]).actions == ["cover_face", "guard_up"]


def _relative_angles_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per joint, the angle of the rotation that takes pose `a`'s local rotation to `b`'s."""
    from scipy.spatial.transform import Rotation

    return np.degrees((Rotation.from_rotvec(a.astype(np.float64)).inv() * Rotation.from_rotvec(b)).magnitude())


@pytest.mark.parametrize("action", builtin_poses.ACTIONS)
def test_a_pose_variant_is_the_action_turned_a_little_at_the_varied_joints_only(action: str) -> None:
    base = builtin_poses.action_pose(action)
    assert np.array_equal(builtin_poses.pose_variant(action, 0), base)
    varied = [JOINT_NAMES.index(n) - 1 for n in builtin_poses.VARIED_JOINTS]
    variants = [builtin_poses.pose_variant(action, k) for k in (1, 2, 3)]
    for variant in variants:
        angles = _relative_angles_deg(base, variant)
        assert np.all(angles <= builtin_poses.VARIANT_MAX_DEG + 1e-6)
        assert np.all(angles[np.setdiff1d(np.arange(23), varied)] < 1e-6)
        assert angles[varied].max() > 1.0
    assert not np.allclose(variants[0], variants[1])
    assert np.array_equal(builtin_poses.pose_variant(action, 2), variants[1])  # the same pose in every build


def test_without_amass_each_action_gets_its_builtin_variants() -> None:
    from benchfoundry.benchmarks.syndor.stages.pose_selection import BUILTIN, select_poses

    selection = select_poses(PoseConfig(actions=["walking", "kicking"], builtin_variants=3))
    assert [(f.action, f.source, f.frame) for f in selection.frames] == [
        (a, BUILTIN, k) for a in ("walking", "kicking") for k in range(3)
    ]
    assert selection.summary()["frames"] == {"walking": 3, "kicking": 3}
