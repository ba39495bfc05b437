"""The eight built-in actions as SMPL joint rotations (axis-angle, 23 body joints).

Each action is authored as aims and reaches on SMPL's rest skeleton (the procedural body's joints,
which follow SMPL's T-pose proportions): "point this bone that way", "put this wrist there" (two-bone
IK with a pole for the elbow/knee). Directions and positions are in SMPL's canonical frame: +Y up,
the person faces +Z, their left is +X; positions are relative to the pelvis joint. Each bone gets
the smallest rotation, relative to its parent, that points it as asked, so the result is an
ordinary SMPL `body_pose` that drives official SMPL models and the procedural body alike.
`action_pose(action, rest)` builds the same action on another skeleton in SMPL's joint layout and rest
directions (e.g. the Anny body's, person/anny_body.py), so its reaches fit that body's proportions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from scipy.spatial.transform import Rotation

from benchfoundry.assets.actions import ACTIONS
from benchfoundry.assets.smpl_skeleton import JOINT_NAMES, PARENTS, rest_joints
from benchfoundry.core.rotations import min_rotation, unit

__all__ = ["UPRIGHT", "PoseBuilder", "action_pose", "pose_variant", "upright_pose"]

#: The calibration pose's name (not an action).
UPRIGHT = "upright"

J = {name: i for i, name in enumerate(JOINT_NAMES)}
_PALM_REST = np.array([0.0, -1.0, 0.0])  # palms face down in SMPL's T-pose


def _frame(direction: np.ndarray, normal: np.ndarray) -> np.ndarray:
    d = unit(direction)
    n = unit(normal - np.dot(normal, d) * d)
    return np.stack([d, n, np.cross(d, n)], axis=1)


class PoseBuilder:
    """Forward kinematics on the rest skeleton, with aim and two-bone reach helpers."""

    def __init__(self, rest: np.ndarray | None = None) -> None:
        joints = rest_joints() if rest is None else np.asarray(rest, dtype=np.float64).reshape(len(JOINT_NAMES), 3)
        self.rest = joints - joints[0]
        self.local = np.tile(np.eye(3), (len(JOINT_NAMES), 1, 1))

    def glob(self, j: int) -> np.ndarray:
        """Global rotation of joint j."""
        chain = []
        while j >= 0:
            chain.append(j)
            j = PARENTS[j]
        rot = np.eye(3)
        for k in reversed(chain):
            rot = rot @ self.local[k]
        return rot

    def pos(self, j: int) -> np.ndarray:
        """Posed position of joint j."""
        p = PARENTS[j]
        if p < 0:
            return self.rest[j].copy()
        return self.pos(p) + self.glob(p) @ (self.rest[j] - self.rest[p])

    def point(self, j: int, offset: tuple[float, float, float]) -> np.ndarray:
        """A point fixed to joint j's bone, `offset` from the joint in the rest frame."""
        return self.pos(j) + self.glob(j) @ np.asarray(offset, dtype=np.float64)

    def turn(self, joint: str, axis_angle: tuple[float, float, float]) -> PoseBuilder:
        """Set a joint's local rotation directly (axis-angle in its parent's frame)."""
        self.local[J[joint]] = Rotation.from_rotvec(axis_angle).as_matrix()
        return self

    def aim(self, joint: str, child: str, direction, palm=None) -> PoseBuilder:
        """Point the bone joint→child along `direction` (canonical frame); optionally turn the
        palm (hands) to face `palm`."""
        j, c = J[joint], J[child]
        parent = self.glob(PARENTS[j])
        rest_dir = unit(self.rest[c] - self.rest[j])
        target = parent.T @ unit(direction)
        if palm is None:
            self.local[j] = min_rotation(rest_dir, target)
        else:
            self.local[j] = _frame(target, parent.T @ unit(palm)) @ _frame(rest_dir, _PALM_REST).T
        return self

    def reach(self, root: str, mid: str, end: str, target, pole) -> PoseBuilder:
        """Two-bone IK: put joint `end` at `target`, bending `mid` towards `pole`."""
        r, m, e = J[root], J[mid], J[end]
        l1 = np.linalg.norm(self.rest[m] - self.rest[r])
        l2 = np.linalg.norm(self.rest[e] - self.rest[m])
        start = self.pos(r)
        to_target = np.asarray(target, dtype=np.float64) - start
        dist = float(np.clip(np.linalg.norm(to_target), abs(l1 - l2) + 1e-3, 0.999 * (l1 + l2)))
        u = unit(to_target)
        w = unit(np.asarray(pole, dtype=np.float64) - np.dot(pole, u) * u)
        cos_a = (l1 * l1 + dist * dist - l2 * l2) / (2 * l1 * dist)
        elbow = start + l1 * (cos_a * u + np.sqrt(max(0.0, 1 - cos_a * cos_a)) * w)
        self.aim(root, mid, elbow - start)
        self.aim(mid, end, start + u * dist - elbow)
        return self

    def body_pose(self) -> np.ndarray:
        """(23,3) axis-angle of joints 1…23."""
        return Rotation.from_matrix(self.local[1:]).as_rotvec().astype(np.float32)


def _side(v, sign: float) -> np.ndarray:
    """Mirror a left-side vector to the given side (+1 left, −1 right)."""
    return np.asarray(v, dtype=np.float64) * np.array([sign, 1.0, 1.0])


def _arms_down(p: PoseBuilder) -> None:
    for side, sign in (("left", 1.0), ("right", -1.0)):
        p.aim(f"{side}_shoulder", f"{side}_elbow", _side((0.26, -0.97, 0.0), sign))
        p.aim(f"{side}_elbow", f"{side}_wrist", _side((0.2, -0.98, 0.06), sign))


def _leg(p: PoseBuilder, side: str, offset, pole=(0.0, 0.0, 1.0)) -> None:
    """Put the ankle at `offset` from the hip (canonical frame), the knee bending towards `pole`."""
    hip = p.pos(J[f"{side}_hip"])
    p.reach(f"{side}_hip", f"{side}_knee", f"{side}_ankle", hip + np.asarray(offset), pole)


def _upright(p: PoseBuilder) -> None:
    _arms_down(p)


def _walking(p: PoseBuilder) -> None:
    p.turn("spine1", (0.05, 0, 0))
    _leg(p, "left", (0.0, -0.76, 0.22))
    _leg(p, "right", (0.0, -0.70, -0.28))
    p.aim("right_ankle", "right_foot", (0.0, -0.6, 0.8))
    p.aim("left_shoulder", "left_elbow", (0.15, -0.95, -0.3)).aim("left_elbow", "left_wrist", (0.1, -0.95, -0.15))
    p.aim("right_shoulder", "right_elbow", (-0.15, -0.95, 0.3)).aim("right_elbow", "right_wrist", (-0.1, -0.6, 0.75))


def _kicking(p: PoseBuilder) -> None:
    p.turn("spine1", (-0.12, 0, 0)).turn("spine2", (-0.05, 0, 0))
    p.aim("right_hip", "right_knee", (0.0, 0.15, 1.0)).aim("right_knee", "right_ankle", (0.0, 0.35, 1.0))
    p.aim("right_ankle", "right_foot", (0.0, 0.5, 0.85))
    _leg(p, "left", (0.02, -0.78, -0.05))
    p.aim("left_shoulder", "left_elbow", (0.5, -0.8, 0.35)).aim("left_elbow", "left_wrist", (-0.1, 0.5, 0.85))
    p.aim("right_shoulder", "right_elbow", (-0.6, -0.7, -0.35)).aim("right_elbow", "right_wrist", (-0.3, -0.5, 0.8))


def _sneak(p: PoseBuilder) -> None:
    p.turn("spine1", (0.35, 0, 0)).turn("spine2", (0.15, 0, 0)).turn("spine3", (0.05, 0, 0))
    p.turn("neck", (-0.35, 0, 0)).turn("head", (-0.15, 0, 0))
    _leg(p, "left", (0.03, -0.60, 0.25), pole=(0.0, 0.3, 1.0))
    _leg(p, "right", (-0.03, -0.62, -0.22))
    p.aim("left_ankle", "left_foot", (0.0, -0.3, 1.0)).aim("right_ankle", "right_foot", (0.0, -0.6, 0.8))
    for side, sign, reach in (("left", 1.0, (0.05, -0.05, 0.35)), ("right", -1.0, (0.05, 0.0, 0.30))):
        shoulder = p.pos(J[f"{side}_shoulder"])
        p.reach(
            f"{side}_shoulder",
            f"{side}_elbow",
            f"{side}_wrist",
            shoulder + _side(reach, sign),
            _side((0.3, -1.0, 0.0), sign),
        )
        p.aim(f"{side}_wrist", f"{side}_hand", (0.0, -1.0, 0.3))


def _stepping_over(p: PoseBuilder) -> None:
    p.turn("spine1", (0.12, 0, 0))
    p.aim("left_hip", "left_knee", (0.05, 0.2, 1.0)).aim("left_knee", "left_ankle", (0.0, -1.0, 0.15))
    p.aim("left_ankle", "left_foot", (0.0, 0.1, 1.0))
    _leg(p, "right", (0.0, -0.78, -0.08))
    p.aim("left_shoulder", "left_elbow", (0.25, -0.9, -0.35)).aim("left_elbow", "left_wrist", (0.2, -0.8, 0.1))
    p.aim("right_shoulder", "right_elbow", (-0.5, -0.7, 0.5)).aim("right_elbow", "right_wrist", (-0.3, -0.3, 0.9))


def _hands_at(p: PoseBuilder, target: np.ndarray, wrist, pole, hand) -> None:
    """Both wrists at `target` + `wrist` (mirrored for the right), elbows towards `pole`, palms
    turned in and the hands pointing at `target` + `hand`."""
    for side, sign in (("left", 1.0), ("right", -1.0)):
        w = target + _side(wrist, sign)
        p.reach(f"{side}_shoulder", f"{side}_elbow", f"{side}_wrist", w, _side(pole, sign))
        p.aim(f"{side}_wrist", f"{side}_hand", target + _side(hand, sign) - w, palm=(0.0, 0.0, -1.0))


def _cover_face(p: PoseBuilder) -> None:
    p.turn("spine1", (0.1, 0, 0)).turn("neck", (0.2, 0, 0)).turn("head", (0.1, 0, 0))
    _leg(p, "left", (0.01, -0.77, 0.05))
    _leg(p, "right", (-0.01, -0.77, 0.05))
    face = p.point(J["head"], (0.0, 0.065, 0.10))
    _hands_at(p, face, wrist=(0.045, -0.10, 0.07), pole=(0.4, -1.0, -0.2), hand=(0.025, 0.06, 0.03))


def _choking(p: PoseBuilder) -> None:
    p.turn("spine1", (-0.05, 0, 0)).turn("neck", (-0.25, 0, 0)).turn("head", (-0.1, 0, 0))
    _leg(p, "left", (0.02, -0.77, 0.06))
    _leg(p, "right", (-0.02, -0.76, -0.15))
    throat = p.point(J["neck"], (0.0, 0.02, 0.06))
    _hands_at(p, throat, wrist=(0.09, -0.07, 0.05), pole=(1.0, -0.7, -0.3), hand=(0.03, 0.02, 0.0))


def _dodging(p: PoseBuilder) -> None:
    p.turn("spine1", (0.0, 0.0, 0.22)).turn("spine2", (0.0, 0.0, 0.15)).turn("spine3", (0.05, 0.0, 0.1))
    p.turn("head", (0.0, 0.0, 0.1))
    _leg(p, "left", (0.22, -0.68, 0.05), pole=(0.3, 0.0, 1.0))
    _leg(p, "right", (-0.12, -0.66, 0.05), pole=(-0.3, 0.0, 1.0))
    p.aim("left_ankle", "left_foot", (0.0, -0.3, 1.0)).aim("right_ankle", "right_foot", (0.0, -0.3, 1.0))
    p.aim("left_shoulder", "left_elbow", (0.6, 0.35, 0.5)).aim("left_elbow", "left_wrist", (-0.1, 0.6, 0.7))
    p.aim("right_shoulder", "right_elbow", (-0.6, -0.75, 0.1)).aim("right_elbow", "right_wrist", (-0.4, -0.5, 0.6))


def _guard_up(p: PoseBuilder) -> None:
    """Orthodox boxing guard: left foot and shoulder forward, fists before the chin, elbows down."""
    p.turn("spine1", (0.08, -0.2, 0)).turn("spine3", (0.0, -0.1, 0)).turn("head", (0.1, 0.25, 0))
    _leg(p, "left", (0.04, -0.74, 0.2))
    _leg(p, "right", (-0.05, -0.74, -0.18))
    chin = p.point(J["head"], (0.0, -0.02, 0.09))
    for side, sign, offset in (("left", 1.0, (0.08, -0.03, 0.22)), ("right", -1.0, (0.07, -0.06, 0.1))):
        wrist = chin + _side(offset, sign)
        p.reach(f"{side}_shoulder", f"{side}_elbow", f"{side}_wrist", wrist, _side((0.3, -1.0, 0.0), sign))
        p.aim(f"{side}_wrist", f"{side}_hand", _side((-0.2, 0.3, 1.0), sign))


_BUILDERS: dict[str, Callable[[PoseBuilder], None]] = {
    "kicking": _kicking,
    "sneak": _sneak,
    "stepping_over": _stepping_over,
    "walking": _walking,
    "cover_face": _cover_face,
    "choking": _choking,
    "dodging": _dodging,
    "guard_up": _guard_up,
}


def _build(name: str, rest: np.ndarray | None) -> np.ndarray:
    builder = PoseBuilder(rest)
    (_upright if name == UPRIGHT else _BUILDERS[name])(builder)
    return builder.body_pose()


@functools.cache
def _built(name: str) -> np.ndarray:
    pose = _build(name, None)
    pose.setflags(write=False)
    return pose


def action_pose(action: str, rest: np.ndarray | None = None) -> np.ndarray:
    """(23,3) axis-angle body pose of a built-in action (or UPRIGHT); `rest` (24,3): the joints, in
    SMPL's canonical frame and T-pose directions, of the skeleton to build it on (default: the
    procedural body's)."""
    if action not in _BUILDERS and action != UPRIGHT:
        raise KeyError(f"unknown action {action!r}; known: {list(ACTIONS)}")
    return _built(action).copy() if rest is None else _build(action, rest)


def upright_pose(rest: np.ndarray | None = None) -> np.ndarray:
    """Standing straight, arms down beside the body: the pose of calibration frames."""
    return action_pose(UPRIGHT, rest)


#: The joints a pose variant turns (the body pose's joints are JOINT_NAMES[1:]) and how far at most, degrees.
VARIED_JOINTS = (
    "spine1",
    "spine2",
    "spine3",
    "neck",
    "head",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
)
VARIANT_MAX_DEG = 12.0


def pose_variant(action: str, variant: int) -> np.ndarray:
    """(23,3) body pose of built-in `action`'s variant number `variant`: 0 is `action_pose(action)` itself, each
    other turns the trunk, head and limbs by a few degrees (at most `VARIANT_MAX_DEG` about a random axis),
    drawn from the action and the number alone, so that a variant is the same pose in every build."""
    pose = action_pose(action)
    if variant == 0:
        return pose
    rng = np.random.default_rng([variant, *action.encode()])
    rotations = Rotation.from_rotvec(pose.astype(np.float64))
    turned = rotations.as_rotvec()
    for name in VARIED_JOINTS:
        k = J[name] - 1
        axis = unit(rng.normal(size=3))
        turn = Rotation.from_rotvec(axis * np.radians(rng.uniform(-VARIANT_MAX_DEG, VARIANT_MAX_DEG)))
        turned[k] = (rotations[k] * turn).as_rotvec()
    return turned.astype(pose.dtype)
