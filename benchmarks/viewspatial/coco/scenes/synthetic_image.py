"""One synthetic COCO image, drawn and posed (docs/design/viewspatial.md §2, docs/design/defaults.md §6): the Anny
person with a known body yaw and head turn, a framing camera, sometimes a second person behind them to one side, objects
at known 3D positions, and the exact labels.

Person frame = world frame of person/body_mesh.py: metres, +Z up, feet on z = 0, the pelvis above the
origin, facing −Y (their left is +X). The camera orbits the person instead of the person turning: a
camera at azimuth φ counter-clockwise (seen from above) from the person's front sees body yaw φ in
benchmarks/viewspatial/coco/stages/orientation.py's convention (0 faces the camera, 90 the image's left); the body yaw
is
the pelvis's (an action may turn the chest a little: guard_up by ~17°). The head turn Δ is a rotation of
neck and head about the vertical, half each; Δ < 0 turns the head to the person's own left. The true Δ
is read back from the head's global rotation, so an action's own head turn is included. The second person
stands `depth_m` farther from the camera than the first and to one side, inside the camera's view, turned
by `turn_deg` about +Z in the world, or (`with_beside`) beside the first at about their depth on the side the first
faces, the camera panned so that the first stands toward the frame's other edge; a third person (`with_third`)
stands behind on the other side, the first between them; any person's yaw is the angle, counter-clockwise seen
from above, from their front to the ray toward the camera (`seen_yaw`), as Orient-Anything sees a crop. Each
person's noun (man, woman, boy, girl) and what the first person holds in which hand are drawn apart
(`with_people`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial.transform import Rotation

from benchfoundry.assets.actions import ACTIONS
from benchfoundry.assets.poses import UPRIGHT, PoseBuilder, action_pose
from benchfoundry.assets.smpl_skeleton import PARENTS, J
from benchfoundry.benchmarks.viewspatial.coco.config import (
    DRAW_CLEARANCE_DEG,
    FRAMINGS,
    SyntheticCocoConfig,
    head_turn_range,
)
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_geometry import (
    PosedCamera,
    box_triangles,
    cylinder_triangles,
    look_at,
)
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_people import draw_by_weight, person_as
from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.directions import HORIZONTAL_LABELS

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
#: How far below the shoulders (m) a head-and-shoulders frame's bottom edge lies: the crop offset × this.
SHOULDER_CUT_SCALE = 2.0
#: The second person: how much farther from the camera than the first (m), and how far to the side as a share
#: of the half width the camera sees at their depth.
SECOND_DEPTH_M = (0.8, 2.5)
SECOND_SIDE = (0.3, 0.75)
#: A second person beside the first: how much farther from the camera (m), and how far to the side (m, centre to
#: centre: shoulder to shoulder up to a step apart).
BESIDE_DEPTH_M = (-0.1, 0.2)
BESIDE_SIDE_M = (0.5, 0.75)
#: Pixels a panned frame leaves between the first person and its edge.
PAN_MARGIN_PX = 3.0
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
class SecondPerson:
    """The second person of an image: who, their pose, and where they stand relative to the first."""

    texture_id: int
    action: str
    head_turn_deg: float
    turn_deg: float  # rotation about +Z in the world (the first person faces −Y)
    depth_m: float  # farther from the camera than the first person
    side: float  # signed share of the half width seen at their depth (+: the image's right)
    beside_m: float = 0.0  # not 0: beside the first instead, this far to the side (m, signed as `side`)
    noun: str | None = None  # man, woman, boy, girl (their phenotype); None: person.body.phenotypes as configured


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
    second: SecondPerson | None = None
    third: SecondPerson | None = None  # on the other side of the first from the second
    noun: str | None = None  # the first person's (as SecondPerson.noun)
    held: str | None = None  # what the first person holds (held_objects.KINDS), or nothing
    held_hand: str = "right"  # in which of their own hands
    held_colour: int = 0  # which of its colours


def facing_yaw(rng: np.random.Generator, label: str) -> float:
    """A body yaw the camera sees as facing `label` (directions.facing_direction), `DRAW_CLEARANCE_DEG` clear of
    the label's bin edges."""
    half = 22.5 - DRAW_CLEARANCE_DEG
    return float((45.0 * HORIZONTAL_LABELS.index(label) - 180.0 + rng.uniform(-half, half)) % 360.0)


def drawn_head_turn(rng: np.random.Generator, config: SyntheticCocoConfig) -> float:
    """A head turn Δ inside a label drawn by `config.head_turns` (the config refuses a label it cannot reach)."""
    span = head_turn_range(draw_by_weight(rng, config.head_turns), config.max_head_deg)
    assert span is not None, "SyntheticCocoConfig refuses a head-turn label beyond max_head_deg"
    return float(rng.uniform(*span))


def draw_plan(rng: np.random.Generator, config: SyntheticCocoConfig, texture_ids: list[int]) -> ImagePlan:
    """The random choices of one image: the first person's body yaw inside a facing label drawn by
    `config.facings`; their head turn beyond ±90° for `BEYOND_SHARE` of images (the labeller rejects it), else by
    `drawn_head_turn`."""
    if rng.random() < BEYOND_SHARE:
        head = float(rng.uniform(*BEYOND_DEG) * rng.choice([-1.0, 1.0]))
    else:
        head = drawn_head_turn(rng, config)
    names = [f for f in FRAMINGS if config.framings.get(f, 0.0) > 0]
    weights = np.array([config.framings[f] for f in names])
    framing = str(rng.choice(names, p=weights / weights.sum()))
    n_objects = int(rng.integers(1, 4)) if rng.random() < config.object_share else 0
    texture_id = int(rng.choice(texture_ids))
    second = draw_other(rng, config, texture_ids, [texture_id]) if rng.random() < config.two_person_share else None
    return ImagePlan(
        texture_id=texture_id,
        action=UPRIGHT if rng.random() < UPRIGHT_SHARE else str(rng.choice(list(ACTIONS))),
        body_yaw_deg=facing_yaw(rng, draw_by_weight(rng, config.facings)),
        head_turn_deg=head,
        framing=framing,
        fill=float(rng.uniform(0.88, 0.97)),
        fov_deg=float(rng.uniform(35.0, 50.0)),
        camera_height_m=float(
            rng.uniform(1.2, 1.7)
            if framing == "shoulders"
            else rng.uniform(1.1, 1.7)
            if framing == "hips"
            else rng.uniform(0.9, 1.6)
        ),
        crop_offset_m=float(rng.uniform(0.05, 0.12)),
        n_objects=n_objects,
        occluder=n_objects > 0 and framing == "whole" and rng.random() < 0.8,
        sun=(float(rng.uniform(30.0, 70.0)), float(rng.uniform(0.0, 360.0))),
        second=second,
    )


def draw_other(
    rng: np.random.Generator, config: SyntheticCocoConfig, texture_ids: list[int], taken: list[int], side: float = 0.0
) -> SecondPerson:
    """A person behind the first: a texture id not `taken` (where one is left), their pose and place; on the
    side of `side`'s sign (0: either, drawn)."""
    others = [t for t in texture_ids if t not in taken] or list(texture_ids)
    return SecondPerson(
        texture_id=int(rng.choice(others)),
        action=UPRIGHT if rng.random() < UPRIGHT_SHARE else str(rng.choice(list(ACTIONS))),
        head_turn_deg=drawn_head_turn(rng, config),
        turn_deg=float(rng.uniform(0.0, 360.0)),
        depth_m=float(rng.uniform(*SECOND_DEPTH_M)),
        side=float(rng.uniform(*SECOND_SIDE) * (math.copysign(1.0, side) if side else rng.choice([-1.0, 1.0]))),
    )


def with_third(
    rng: np.random.Generator, config: SyntheticCocoConfig, plan: ImagePlan, texture_ids: list[int]
) -> ImagePlan:
    """The plan with three people for `three_person_share` of images (`rng` the image's own for this choice, so
    the plan's other choices stay as drawn): a second person where the plan has none, and a third on the other
    side of the first from the second."""
    if rng.random() >= config.three_person_share:
        return plan
    second = plan.second or draw_other(rng, config, texture_ids, [plan.texture_id])
    third = draw_other(rng, config, texture_ids, [plan.texture_id, second.texture_id], side=-second.side)
    return replace(plan, second=second, third=third)


def with_beside(rng: np.random.Generator, config: SyntheticCocoConfig, plan: ImagePlan) -> ImagePlan:
    """The plan with its second person beside the first for `beside_share` of images that have one (`rng` the
    image's own for this choice): `BESIDE_DEPTH_M` farther, `BESIDE_SIDE_M` to the side the first faces in the
    image (either, drawn, when they face the camera or away from it); a third person on that side moves to the
    other."""
    if plan.second is None or rng.random() >= config.beside_share:
        return plan
    faced = -math.sin(math.radians(plan.body_yaw_deg))  # the facing's image-right component
    sign = math.copysign(1.0, faced) if abs(faced) > 0.25 else float(rng.choice([-1.0, 1.0]))
    second = replace(
        plan.second,
        depth_m=float(rng.uniform(*BESIDE_DEPTH_M)),
        beside_m=sign * float(rng.uniform(*BESIDE_SIDE_M)),
    )
    third = plan.third
    if third is not None and math.copysign(1.0, third.side) == sign:
        third = replace(third, side=-third.side)
    return replace(plan, second=second, third=third)


def with_people(rng: np.random.Generator, config: SyntheticCocoConfig, plan: ImagePlan) -> ImagePlan:
    """The plan with each person's noun drawn by `config.people`'s weights and, for `held_share` of images, an
    object the first person holds in one hand (`rng` the image's own for these choices, so the plan's other
    choices stay as drawn)."""
    nouns = [draw_by_weight(rng, config.people) for _ in range(3)]
    held = rng.random() < config.held_share
    name = str(rng.choice(config.held_objects))
    hand = str(rng.choice(["left", "right"]))
    colour = int(rng.integers(1 << 16))
    return replace(
        plan,
        noun=nouns[0],
        second=plan.second and replace(plan.second, noun=nouns[1]),
        third=plan.third and replace(plan.third, noun=nouns[2]),
        held=name if held else None,
        held_hand=hand,
        held_colour=colour,
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


def person_pose(person: PersonConfig, seed: int, plan: ImagePlan | SecondPerson) -> tuple[np.ndarray, float]:
    """The (23,3) body pose of the plan's person (their action with the head turned on their own skeleton) and
    the true head turn Δ relative to the pelvis."""
    from benchfoundry.person.prepare import rest_joints_of

    rest = rest_joints_of(person_as(person, plan.noun), seed, plan.texture_id)
    return turned_pose(plan.action, rest, plan.head_turn_deg)


def turn_about_z(points: np.ndarray, turn_deg: float, location: np.ndarray) -> np.ndarray:
    """Points of a person's own frame placed in the world: turned by `turn_deg` about +Z, then moved (as
    Blender's object rotation and location)."""
    a = math.radians(turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(points, dtype=np.float64) @ rot.T + np.asarray(location, dtype=np.float64)


def front_of(turn_deg: float) -> np.ndarray:
    """The world direction a person turned by `turn_deg` faces (unturned: −Y)."""
    a = math.radians(turn_deg)
    return np.array([math.sin(a), -math.cos(a), 0.0])


def seen_yaw(turn_deg: float, location: np.ndarray, camera: PosedCamera) -> float:
    """The yaw the camera sees (orientation.py's convention): from the person's front to the ray toward the
    camera, counter-clockwise seen from above, degrees in [0, 360)."""
    front = front_of(turn_deg)
    toward = camera.C - np.asarray(location, dtype=np.float64)
    cross = front[0] * toward[1] - front[1] * toward[0]
    return math.degrees(math.atan2(cross, front[0] * toward[0] + front[1] * toward[1])) % 360.0


def second_location(second: SecondPerson, camera: PosedCamera) -> np.ndarray:
    """Where the second person stands: `depth_m` beyond the first along the camera's horizontal view, and
    `side` of the half width the camera sees at that depth to the image's right (negative: left), or `beside_m`
    metres when not 0."""
    toward = camera.C[:2] / np.linalg.norm(camera.C[:2])
    right = np.array([-toward[1], toward[0]])
    depth = float(np.linalg.norm(camera.C[:2])) + second.depth_m
    half_width = depth * camera.width / 2 / camera.f
    lateral = second.beside_m or second.side * half_width
    xy = -toward * second.depth_m + right * lateral
    return np.array([xy[0], xy[1], 0.0])


def frame_camera(vertices: np.ndarray, keypoints: np.ndarray, plan: ImagePlan, width: int, height: int) -> PosedCamera:
    """A camera at azimuth = body yaw, framing the person (whole, or cut above the knees, below the hips or
    below the shoulders: the part above the cut fills `fill` of the frame's height, or of its width when
    wider, from the top)."""
    f = height / (2 * math.tan(math.radians(plan.fov_deg) / 2))
    if plan.framing == "knees":
        cut = float(keypoints[13:15, 2].max()) + plan.crop_offset_m
    elif plan.framing == "hips":
        cut = float(keypoints[11:13, 2].min()) - plan.crop_offset_m
    elif plan.framing == "shoulders":
        cut = float(keypoints[5:7, 2].min()) - SHOULDER_CUT_SCALE * plan.crop_offset_m
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
        # Whole and head-and-shoulders framings fit the width too (a portrait frame is narrower than shoulders
        # framed to the chest), which leaves the cut above the bottom edge.
        distance *= max(span_u, span_v) if plan.framing in ("whole", "shoulders") else span_v
        middle = (uv[:, 1].max() + uv[:, 1].min()) / 2
        if plan.framing != "whole":  # the top at 1 − fill of the height, the cut at (or above) the bottom edge
            middle = uv[:, 1].min() - (1 - plan.fill) * height + height / 2
        target[2] -= (middle - height / 2) / f * distance
    eye = target + distance * direction + [0, 0, plan.camera_height_m - target[2]]
    camera = look_at(eye, target, f, width, height)
    beside = plan.second.beside_m if plan.second is not None else 0.0
    return panned(camera, kept, eye, target, beside) if beside else camera


def panned(camera: PosedCamera, kept: np.ndarray, eye: np.ndarray, target: np.ndarray, side: float) -> PosedCamera:
    """The camera turned about the vertical through `eye` toward `side`'s sign (+: the image's right), so that the
    framed points `kept` move toward the other edge and stop `PAN_MARGIN_PX` short of it (its place and pitch
    kept; a pitched camera's turn is measured again, three times); unturned when they reach that far already."""
    edge = (camera.width / 2 - PAN_MARGIN_PX) * (-1.0 if side > 0 else 1.0)  # where the extreme point goes

    def extreme(cam: PosedCamera) -> float:
        u = cam.project(kept)[0][:, 0] - cam.width / 2
        return float(u.min() if side > 0 else u.max())

    if extreme(camera) * np.sign(edge) >= abs(edge):
        return camera
    aim = np.asarray(target, dtype=np.float64)
    for _ in range(3):
        # the horizontal angle from the extreme point to the edge (+: turn left, counter-clockwise seen from above)
        angle = math.atan(edge / camera.f) - math.atan(extreme(camera) / camera.f)
        c, s = math.cos(angle), math.sin(angle)
        x, y = aim[0] - eye[0], aim[1] - eye[1]
        aim = np.array([eye[0] + c * x - s * y, eye[1] + s * x + c * y, aim[2]])
        camera = look_at(eye, aim, camera.f, camera.width, camera.height)
    return camera


def place_objects(
    rng: np.random.Generator, plan: ImagePlan, camera: PosedCamera, others: tuple[np.ndarray, ...] = ()
) -> list[SceneObject]:
    """`plan.n_objects` objects of distinct categories on the floor around the person (the first in front of
    the shins when `plan.occluder`), clear of the person, of the other people standing at `others` and of each
    other."""
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
                along = rng.uniform(-1.0, 0.8) if plan.framing == "whole" else rng.uniform(*BEHIND_CROPPED_M)
                wider = (distance - along) / distance
                xy = right * rng.choice([-1, 1]) * rng.uniform(0.35, 0.9) * half_width * wider + toward * along
            if (
                np.linalg.norm(xy) >= CLEARANCE_M + radius
                and all(np.linalg.norm(xy - p[:2]) >= CLEARANCE_M + radius for p in others)
                and all(np.linalg.norm(xy - o.center[:2]) >= radius + math.hypot(*o.size[:2]) / 2 for o in placed)
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
