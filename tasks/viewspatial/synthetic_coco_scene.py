"""One synthetic COCO image, drawn and posed (DESIGN §4.2, §5): the Anny person with a known body yaw and
head turn, a framing camera, objects at known 3D positions, and the exact labels.

Person frame = world frame of person/body.py: metres, +Z up, feet on z = 0, the pelvis above the
origin, facing −Y (their left is +X). The camera orbits the person instead of the person turning: a
camera at azimuth φ counter-clockwise (seen from above) from the person's front sees body yaw φ in
tasks/viewspatial/orientation.py's convention (0 faces the camera, 90 the image's left); the body yaw is
the pelvis's (an action may turn the chest a little: guard_up by ~17°). The head turn Δ is a rotation of
neck and head about the vertical, half each; Δ < 0 turns the head to the person's own left. The true Δ
is read back from the head's global rotation, so an action's own head turn is included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from benchfoundry.assets.body_model import PARENTS, J
from benchfoundry.assets.poses import ACTIONS, UPRIGHT, PoseBuilder, action_pose
from benchfoundry.configs.coco import SyntheticCocoConfig
from benchfoundry.configs.person import PersonConfig
from benchfoundry.tasks.viewspatial.coco_keypoints import Camera, box_triangles, cylinder_triangles, look_at

#: COCO objects as coloured primitives: name → (category id, shape, full extents in m).
OBJECTS: dict[str, tuple[int, str, tuple[float, float, float]]] = {
    "backpack": (27, "box", (0.32, 0.22, 0.45)),
    "suitcase": (33, "box", (0.46, 0.25, 0.62)),
    "bottle": (44, "cylinder", (0.09, 0.09, 0.30)),
    "chair": (62, "box", (0.50, 0.50, 0.85)),
    "potted plant": (64, "cylinder", (0.36, 0.36, 0.55)),
}
#: Objects tall and wide enough to stand in front of the shins.
OCCLUDERS = ("suitcase", "chair", "backpack")
COLOURS = (
    (0.6, 0.05, 0.04),
    (0.05, 0.12, 0.55),
    (0.08, 0.35, 0.07),
    (0.75, 0.6, 0.05),
    (0.25, 0.12, 0.05),
    (0.8, 0.8, 0.8),
    (0.8, 0.25, 0.03),
    (0.25, 0.06, 0.4),
)
#: Framings: the whole person, or the frame's bottom edge above the knees or just below the hips. A whole
#: standing person covers only ~0.15 of a 3:4 portrait frame (below COCO's 0.2 filter), so most are cropped.
FRAMINGS = ("full", "knees", "hips")
FRAMING_P = (0.2, 0.4, 0.4)
#: Share of images whose head turn lies beyond ±90° (so the labeller's rejection is exercised).
BEYOND_SHARE = 0.125
BEYOND_DEG = (95.0, 110.0)
#: Share of images in the upright pose (the rest: one of the built-in actions).
UPRIGHT_SHARE = 0.4
#: How far behind the person (toward the camera is positive, m) objects stand in a cropped framing.
BEHIND_CROPPED_M = (-4.0, -1.2)
#: Least horizontal distance (m) from the person's axis to an object's nearest side.
CLEARANCE_M = 0.3


@dataclass(frozen=True)
class SceneObject:
    name: str
    category_id: int
    shape: str
    center: tuple[float, float, float]  # world, m
    size: tuple[float, float, float]
    yaw_deg: float
    rgb: tuple[float, float, float]

    def triangles(self) -> np.ndarray:
        if self.shape == "box":
            return box_triangles(np.array(self.center), np.array(self.size), self.yaw_deg)
        return cylinder_triangles(np.array(self.center), np.array(self.size))


@dataclass(frozen=True)
class ImagePlan:
    """Everything random about one image, drawn from the seed."""

    texture_id: int
    action: str
    body_yaw_deg: float
    head_turn_deg: float  # Δ asked of neck and head
    framing: str
    fill: float  # share of the frame's height (or width) the framed person spans
    fov_deg: float  # vertical field of view
    camera_height_m: float
    crop_offset_m: float
    n_objects: int
    occluder: bool
    sun: tuple[float, float]  # elevation, bearing (deg)


def draw_plan(rng: np.random.Generator, cfg: SyntheticCocoConfig, texture_ids: list[int]) -> ImagePlan:
    """The random choices of one image."""
    if rng.random() < BEYOND_SHARE:
        head = float(rng.uniform(*BEYOND_DEG) * rng.choice([-1.0, 1.0]))
    else:
        head = float(rng.uniform(-cfg.max_head_deg, cfg.max_head_deg))
    framing = str(rng.choice(FRAMINGS, p=FRAMING_P))
    n_objects = int(rng.integers(1, 4)) if rng.random() < cfg.object_share else 0
    return ImagePlan(
        texture_id=int(rng.choice(texture_ids)),
        action=UPRIGHT if rng.random() < UPRIGHT_SHARE else str(rng.choice(list(ACTIONS))),
        body_yaw_deg=float(rng.uniform(0.0, 360.0)),
        head_turn_deg=head,
        framing=framing,
        fill=float(rng.uniform(0.88, 0.97)),
        fov_deg=float(rng.uniform(35.0, 50.0)),
        camera_height_m=float(rng.uniform(1.1, 1.7) if framing == "hips" else rng.uniform(0.9, 1.6)),
        crop_offset_m=float(rng.uniform(0.05, 0.12)),
        n_objects=n_objects,
        occluder=n_objects > 0 and framing == "full" and rng.random() < 0.8,
        sun=(float(rng.uniform(30.0, 70.0)), float(rng.uniform(0.0, 360.0))),
    )


def turned_pose(action: str, rest_joints: np.ndarray, head_turn_deg: float) -> tuple[np.ndarray, float]:
    """The action's (23,3) body pose with neck and head turned by Δ about the vertical (half each), and the
    head's resulting yaw relative to the pelvis (degrees, Δ's sign), read from the head's global rotation."""
    builder = PoseBuilder(rest_joints)
    builder.local[1:] = Rotation.from_rotvec(action_pose(action, rest_joints)).as_matrix()
    half = Rotation.from_rotvec([0.0, -math.radians(head_turn_deg) / 2, 0.0]).as_matrix()  # +Y: own left
    for joint in ("neck", "head"):
        parent = builder.glob(PARENTS[J[joint]])
        builder.local[J[joint]] = parent.T @ half @ parent @ builder.local[J[joint]]
    forward = builder.glob(J["head"]) @ np.array([0.0, 0.0, 1.0])  # SMPL frame: faces +Z, left +X
    return builder.body_pose(), -math.degrees(math.atan2(forward[0], forward[2]))


def person_pose(person: PersonConfig, seed: int, plan: ImagePlan) -> tuple[np.ndarray, float]:
    """The (23,3) body pose of the plan's person (their action with the head turned on their own skeleton) and
    the true head turn Δ relative to the pelvis."""
    from benchfoundry.person import anny_body
    from benchfoundry.person.prepare import phenotype_of

    rest = anny_body.rest_body(phenotype_of(person, seed, plan.texture_id))
    return turned_pose(plan.action, rest.tpose_joints, plan.head_turn_deg)


def frame_camera(vertices: np.ndarray, keypoints: np.ndarray, plan: ImagePlan, width: int, height: int) -> Camera:
    """A camera at azimuth = body yaw, framing the person (whole, or cut above the knees / below the hips)."""
    f = height / (2 * math.tan(math.radians(plan.fov_deg) / 2))
    if plan.framing == "knees":
        cut = float(keypoints[13:15, 2].max()) + plan.crop_offset_m
    elif plan.framing == "hips":
        cut = float(keypoints[11:13, 2].min()) - plan.crop_offset_m
    else:
        cut = -np.inf
    kept = vertices[vertices[:, 2] >= cut].astype(np.float64)
    a = math.radians(plan.body_yaw_deg)
    direction = np.array([math.sin(a), -math.cos(a), 0.0])
    target = np.array([0.0, 0.0, (kept[:, 2].min() + kept[:, 2].max()) / 2])
    distance = 3.0
    for _ in range(6):
        camera = look_at(
            target + distance * direction + [0, 0, plan.camera_height_m - target[2]], target, f, width, height
        )
        uv, _ = camera.project(kept)
        span_v = (uv[:, 1].max() - uv[:, 1].min()) / (plan.fill * height)
        span_u = (uv[:, 0].max() - uv[:, 0].min()) / (plan.fill * width)
        distance *= span_v if plan.framing != "full" else max(span_u, span_v)
        middle = (uv[:, 1].max() + uv[:, 1].min()) / 2
        if plan.framing != "full":  # the top at 1 − fill of the height, the cut at the frame's bottom edge
            middle = uv[:, 1].min() - (1 - plan.fill) * height + height / 2
        target[2] -= (middle - height / 2) / f * distance
    return look_at(target + distance * direction + [0, 0, plan.camera_height_m - target[2]], target, f, width, height)


def place_objects(rng: np.random.Generator, plan: ImagePlan, camera: Camera) -> list[SceneObject]:
    """`plan.n_objects` objects of distinct categories on the floor around the person (the first in front of
    the shins when `plan.occluder`), clear of the person and of each other."""
    toward = camera.C[:2] / np.linalg.norm(camera.C[:2])
    right = np.array([-toward[1], toward[0]])  # the camera's right on the floor (camera looks along −toward)
    distance = float(np.linalg.norm(camera.C[:2]))
    half_width = distance * camera.width / 2 / camera.f
    placed: list[SceneObject] = []
    names = list(OBJECTS)
    for k in range(plan.n_objects):
        occluder = plan.occluder and k == 0
        name = str(rng.choice([n for n in OCCLUDERS if n in names] if occluder else names))
        names.remove(name)
        category, shape, size = OBJECTS[name]
        size = tuple(float(s * rng.uniform(0.9, 1.15)) for s in size)
        radius = math.hypot(size[0], size[1]) / 2
        for _ in range(50):
            if occluder:
                xy = toward * (CLEARANCE_M + radius + rng.uniform(0.0, 0.15)) + right * rng.uniform(-0.08, 0.08)
            else:
                # A cropped frame's bottom edge cuts the floor near the person: floor objects stand farther back.
                along = rng.uniform(-1.0, 0.8) if plan.framing == "full" else rng.uniform(*BEHIND_CROPPED_M)
                wider = (distance - along) / distance
                xy = right * rng.choice([-1, 1]) * rng.uniform(0.35, 0.9) * half_width * wider + toward * along
            if np.linalg.norm(xy) >= CLEARANCE_M + radius and all(
                np.linalg.norm(xy - o.center[:2]) >= radius + math.hypot(*o.size[:2]) / 2 for o in placed
            ):
                break
        else:
            continue
        yaw = float(rng.uniform(0.0, 360.0)) if shape == "box" else 0.0
        placed.append(
            SceneObject(
                name,
                category,
                shape,
                (float(xy[0]), float(xy[1]), size[2] / 2),
                size,
                yaw,
                COLOURS[int(rng.integers(len(COLOURS)))],
            )
        )
    return placed
