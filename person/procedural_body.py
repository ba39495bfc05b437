"""Procedural body model in SMPL file layout (docs/design/defaults.md §2): a person ~1.75 m tall on SMPL's joint tree.

The body is a union of swept tubes (torso, neck, head, nose, arms, hands, legs, feet), each a stack
of elliptical rings along a centreline through the joints it spans, closed by rounded caps. The
model follows SMPL's conventions exactly, so SMPL/AMASS poses drive it the same way:

* rest pose is a T-pose in SMPL's canonical frame: +Y up, the person faces +Z, their left is +X;
  the pelvis joint sits at the origin;
* 24 joints in SMPL order with SMPL's `kintree_table`; every joint is the mean of one ring of
  vertices centred on it (`J_regressor` rows are uniform over that ring), so regressed rest joints
  land exactly on the intended positions for every shape;
* `weights` blend smoothly between the bones on both sides of each joint (smoothstep over a few
  centimetres of the centreline), so bent limbs stay closed;
* `shapedirs` holds 10 meaningful directions (`SHAPE_NAMES`), each the difference between the
  body built with one shape parameter moved by one step and the base body;
* `posedirs` are zeros: no pose-corrective blend shapes (plain linear blend skinning).

`write_smpl_pickle` writes `SMPL_NEUTRAL.pkl` as a dict of plain numpy arrays (no chumpy), which
`smplx.SMPL` loads like the official file; smplx ignores the extra keys this file also carries:
per-corner UVs (`vt`, `ft`, OBJ convention: v = 0 is the image's bottom row), named landmark
vertices and the keypoint `vertex_ids` smplx needs for its extra joints.
"""

from __future__ import annotations

import functools
import pickle
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from benchfoundry.assets.smpl_skeleton import JOINT_NAMES, PARENTS, BodyShape, J, skeleton
from benchfoundry.person.body_mesh import COCO_KEYPOINTS

#: Bump when the generated geometry changes: cached model files are keyed by it.
MODEL_VERSION = "procedural-body-1"

#: COCO keypoint names (in COCO order) plus the top of the head: the landmark vertices.
LANDMARK_NAMES: tuple[str, ...] = (*COCO_KEYPOINTS, "head_top")

#: smplx's `vertex_ids` keys (face, feet and fingertip keypoints of its VertexJointSelector).
SMPLX_KEYPOINT_NAMES: tuple[str, ...] = (
    "nose",
    "reye",
    "leye",
    "rear",
    "lear",
    "LBigToe",
    "LSmallToe",
    "LHeel",
    "RBigToe",
    "RSmallToe",
    "RHeel",
    "lthumb",
    "lindex",
    "lmiddle",
    "lring",
    "lpinky",
    "rthumb",
    "rindex",
    "rmiddle",
    "rring",
    "rpinky",
)

NUM_POSE_BASIS = 207  # 23 joints × 9 rotation-matrix entries, as smplx's lbs expects


#: One unit of beta k moves shape parameter SHAPE_NAMES[k] by SHAPE_STEPS[k].
SHAPE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(BodyShape))
SHAPE_STEPS: tuple[float, ...] = (0.04, 0.08, 0.02, 0.012, 0.01, 0.04, 0.04, 0.05, 0.012, 0.08)

#: UV atlas: part → island (u0, v0, u1, v1). v runs along the part from its first ring to its last.
UV_ISLANDS: dict[str, tuple[float, float, float, float]] = {
    "torso": (0.0, 0.5, 0.5, 1.0),
    "left_leg": (0.0, 0.0, 0.25, 0.5),
    "right_leg": (0.25, 0.0, 0.5, 0.5),
    "left_arm": (0.5, 0.25, 0.625, 0.75),
    "right_arm": (0.625, 0.25, 0.75, 0.75),
    "head": (0.75, 0.75, 1.0, 1.0),
    "neck": (0.75, 0.625, 0.875, 0.75),
    "nose": (0.875, 0.625, 1.0, 0.75),
    "left_hand": (0.75, 0.5, 0.875, 0.625),
    "right_hand": (0.875, 0.5, 1.0, 0.625),
    "left_foot": (0.75, 0.25, 0.875, 0.5),
    "right_foot": (0.875, 0.25, 1.0, 0.5),
}
UV_MARGIN = 1.0 / 256  # gap kept free inside each island's border (texture bleeding)


@dataclass(frozen=True)
class SweepSpec:
    """A tube: elliptical rings along a polyline of key points, with rounded caps.

    `profile` rows are (u, a, b): semi-axes at centreline parameter u (key point i is at u = i);
    `a` lies along e1 = e2 × tangent, `b` along e2 (the part of `front` normal to the tangent).
    `bones[i]` is the joint driving the stretch between key points i and i+1; `blend[i]` is the
    half-width (m) of the weight transition at key point i; `tags[i]` the joint whose regressor
    ring is the ring at key point i.
    """

    part: str
    points: np.ndarray
    tags: tuple[int | None, ...]
    bones: tuple[int, ...]
    blend: tuple[float, ...]
    profile: np.ndarray
    front: tuple[float, float, float]
    caps: tuple[float, float]
    n_around: int
    step: float


@dataclass(frozen=True)
class Sweep:
    """The mesh of one tube: rings of vertices (global ids once placed), faces, UVs and weights."""

    vertices: np.ndarray  # (V,3)
    faces: np.ndarray  # (F,3) local vertex ids
    uv: np.ndarray  # (K,2) island-local in [0,1]
    uv_faces: np.ndarray  # (F,3) local uv ids
    weights: np.ndarray  # (V,24)
    rings: list[np.ndarray]  # local vertex ids of every ring (caps included)
    ring_u: np.ndarray  # centreline parameter of each ring (caps take their end's value)
    ring_a: np.ndarray  # semi-axis a of each ring
    ring_v: np.ndarray  # UV v of each ring
    tag_rings: dict[int, int]  # joint → ring index of its regressor ring
    start_pole: int | None
    end_pole: int | None


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _sweep(spec: SweepSpec, counts: tuple[int, ...]) -> Sweep:
    """Build one tube's rings, faces, per-corner UVs and skinning weights.

    `counts[i]` rings subdivide the stretch between key points i and i+1 (fixed per part, so every
    shape has the same topology).
    """
    pts = np.asarray(spec.points, dtype=np.float64)
    seg = np.diff(pts, axis=0)
    seg_len = np.linalg.norm(seg, axis=1)
    seg_dir = seg / seg_len[:, None]
    key_s = np.concatenate([[0.0], np.cumsum(seg_len)])
    us = np.concatenate([i + np.arange(n) / n for i, n in enumerate(counts)] + [[len(pts) - 1.0]])
    idx = np.minimum(np.floor(us).astype(int), len(seg) - 1)
    frac = us - idx
    centres = pts[idx] + frac[:, None] * seg[idx]
    s = key_s[idx] + frac * seg_len[idx]
    tangents = seg_dir[idx].copy()
    at_key = (frac == 0) & (idx > 0)  # interior key points: average the neighbouring directions
    tangents[at_key] = seg_dir[idx[at_key] - 1] + seg_dir[idx[at_key]]
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    prof = np.asarray(spec.profile, dtype=np.float64)
    a = np.interp(us, prof[:, 0], prof[:, 1])
    b = np.interp(us, prof[:, 0], prof[:, 2])

    # skinning weights along the centreline: interval i belongs to bones[i]
    past = [np.ones_like(s)]
    for i in range(1, len(pts) - 1):
        w = max(spec.blend[i], 1e-6)
        past.append(_smoothstep((s - key_s[i] + w) / (2 * w)))
    past.append(np.zeros_like(s))
    ring_w = np.zeros((len(s), len(JOINT_NAMES)))
    for i, bone in enumerate(spec.bones):
        ring_w[:, bone] += past[i] - past[i + 1]

    # rounded caps: quarter-ellipse rings beyond both ends, closed by poles
    psi = np.array([1.0, 2.0, 3.0]) * (np.pi / 2) / 4
    h0, h1 = spec.caps
    start = [
        (centres[0] - tangents[0] * h0 * np.sin(p), a[0] * np.cos(p), b[0] * np.cos(p), -h0 * np.sin(p))
        for p in psi[::-1]
    ]
    end = [
        (centres[-1] + tangents[-1] * h1 * np.sin(p), a[-1] * np.cos(p), b[-1] * np.cos(p), s[-1] + h1 * np.sin(p))
        for p in psi
    ]
    ring_c = np.array([c for c, *_ in start] + list(centres) + [c for c, *_ in end])
    ring_a = np.array([x for _, x, _, _ in start] + list(a) + [x for _, x, _, _ in end])
    ring_b = np.array([x for _, _, x, _ in start] + list(b) + [x for _, _, x, _ in end])
    ring_s = np.array([x for *_, x in start] + list(s) + [x for *_, x in end])
    ring_t = np.concatenate([np.repeat(tangents[:1], len(start), 0), tangents, np.repeat(tangents[-1:], len(end), 0)])
    ring_u = np.concatenate([np.full(len(start), us[0]), us, np.full(len(end), us[-1])])
    ring_weights = np.concatenate([np.repeat(ring_w[:1], len(start), 0), ring_w, np.repeat(ring_w[-1:], len(end), 0)])
    s_lo, s_hi = -h0, s[-1] + h1
    ring_v = (ring_s - s_lo) / (s_hi - s_lo)

    front = np.asarray(spec.front, dtype=np.float64)
    e2 = front[None, :] - (ring_t @ front)[:, None] * ring_t
    e2 /= np.linalg.norm(e2, axis=1, keepdims=True)
    e1 = np.cross(e2, ring_t)
    n = spec.n_around
    theta = 2 * np.pi * np.arange(n) / n
    verts = (
        ring_c[:, None, :]
        + ring_a[:, None, None] * np.sin(theta)[None, :, None] * e1[:, None, :]
        - ring_b[:, None, None] * np.cos(theta)[None, :, None] * e2[:, None, :]
    )
    n_rings = len(ring_c)
    verts = verts.reshape(-1, 3)
    weights = np.repeat(ring_weights, n, axis=0)
    start_pole, end_pole = n_rings * n, n_rings * n + 1
    verts = np.concatenate([verts, [centres[0] - tangents[0] * h0, centres[-1] + tangents[-1] * h1]])
    weights = np.concatenate([weights, ring_weights[:1], ring_weights[-1:]])

    # faces and per-corner UV ids; each ring has n+1 UVs (seam column duplicated)
    k = np.arange(n)
    r = np.arange(n_rings - 1)[:, None]
    v00, v01 = r * n + k, r * n + (k + 1) % n
    v10, v11 = (r + 1) * n + k, (r + 1) * n + (k + 1) % n
    t00, t01 = r * (n + 1) + k, r * (n + 1) + k + 1
    t10, t11 = (r + 1) * (n + 1) + k, (r + 1) * (n + 1) + k + 1
    faces = [np.stack([v00, v01, v11], -1).reshape(-1, 3), np.stack([v00, v11, v10], -1).reshape(-1, 3)]
    uv_faces = [np.stack([t00, t01, t11], -1).reshape(-1, 3), np.stack([t00, t11, t10], -1).reshape(-1, 3)]
    uv = np.stack(np.meshgrid(np.arange(n + 1) / n, ring_v), -1).reshape(-1, 2)
    pole_uv0 = len(uv)
    pole_u = (k + 0.5) / n
    uv = np.concatenate([uv, np.stack([pole_u, np.zeros(n)], -1), np.stack([pole_u, np.ones(n)], -1)])
    last = n_rings - 1
    faces += [
        np.stack([np.full(n, start_pole), (k + 1) % n, k], -1),
        np.stack([last * n + k, last * n + (k + 1) % n, np.full(n, end_pole)], -1),
    ]
    uv_faces += [
        np.stack([pole_uv0 + k, k + 1, k], -1),
        np.stack([last * (n + 1) + k, last * (n + 1) + k + 1, pole_uv0 + n + k], -1),
    ]

    tag_rings = {
        tag: len(start) + int(np.flatnonzero(np.isclose(us, i))[0])
        for i, tag in enumerate(spec.tags)
        if tag is not None
    }
    return Sweep(
        vertices=verts,
        faces=np.concatenate(faces),
        uv=uv,
        uv_faces=np.concatenate(uv_faces),
        weights=weights,
        rings=[np.arange(i * n, (i + 1) * n) for i in range(n_rings)],
        ring_u=ring_u,
        ring_a=ring_a,
        ring_v=ring_v,
        tag_rings=tag_rings,
        start_pole=start_pole,
        end_pole=end_pole,
    )


def _mirror(spec: SweepSpec, part: str, joint_map: dict[int, int]) -> SweepSpec:
    """The right-hand twin of a left-side tube (x → −x, left joints → right joints)."""
    points = np.asarray(spec.points) * np.array([-1.0, 1.0, 1.0])
    return replace(
        spec,
        part=part,
        points=points,
        tags=tuple(None if t is None else joint_map.get(t, t) for t in spec.tags),
        bones=tuple(joint_map.get(bone, bone) for bone in spec.bones),
    )


_LEFT_TO_RIGHT = {J[n]: J[n.replace("left_", "right_")] for n in JOINT_NAMES if n.startswith("left_")}


def _specs(shape: BodyShape, resolution: float = 1.0) -> list[SweepSpec]:
    """The tubes of the body for one shape (left limbs are mirrored into right ones); `resolution`
    multiplies the vertices around and along every tube."""
    jt, ex = skeleton(shape)
    sc, g, lg, hs = shape.stature, shape.girth, shape.limbs * shape.stature, shape.head * shape.stature
    up, fwd, side = np.array([0.0, 1, 0]), np.array([0.0, 0, 1]), np.array([1.0, 0, 0])
    belly, shoulders, hips = shape.belly * sc, shape.shoulders * sc, shape.hips * sc

    torso_profile = np.array(
        [
            (0.0, 0.14 * g * sc + hips, 0.09 * g * sc),
            (0.5, 0.165 * g * sc + hips, 0.105 * g * sc),
            (1.0, 0.17 * g * sc + hips, 0.11 * g * sc + belly / 2),
            (1.6, 0.155 * g * sc + hips / 2 + belly / 2, 0.10 * g * sc + belly),
            (2.3, 0.14 * g * sc + belly, 0.095 * g * sc + belly),
            (3.1, 0.15 * g * sc + belly / 2, 0.105 * g * sc + belly / 2),
            (4.0, 0.165 * g * sc + shoulders / 2, 0.115 * g * sc),
            (4.5, 0.175 * g * sc + shoulders, 0.10 * g * sc),
            (4.8, 0.155 * g * sc + shoulders, 0.08 * g * sc),
            (5.0, 0.08 * g * sc, 0.05 * g * sc),
        ]
    )
    torso = SweepSpec(
        part="torso",
        points=np.array(
            [ex["crotch"], jt[J["pelvis"]], jt[J["spine1"]], jt[J["spine2"]], jt[J["spine3"]], ex["torso_top"]]
        ),
        tags=(None, J["pelvis"], J["spine1"], J["spine2"], J["spine3"], None),
        bones=(J["pelvis"], J["pelvis"], J["spine1"], J["spine2"], J["spine3"]),
        blend=(0, 0, 0.05 * sc, 0.05 * sc, 0.05 * sc, 0),
        profile=torso_profile,
        front=tuple(fwd),
        caps=(0.03 * sc, 0.015 * sc),
        n_around=32,
        step=0.03 * sc,
    )
    neck = SweepSpec(
        part="neck",
        points=np.array([ex["neck_base"], jt[J["neck"]], jt[J["head"]], ex["neck_top"]]),
        tags=(None, J["neck"], J["head"], None),
        bones=(J["spine3"], J["neck"], J["head"]),
        blend=(0, 0.03 * sc, 0.025 * sc, 0),
        profile=np.array([(0.0, 0.058 * g * sc, 0.06 * g * sc), (3.0, 0.05 * g * sc, 0.055 * g * sc)]),
        front=tuple(fwd),
        caps=(0.02 * sc, 0.02 * sc),
        n_around=16,
        step=0.025 * sc,
    )
    hc, hh, ha, hb = ex["head_centre"], 0.11 * hs, 0.078 * hs, 0.095 * hs
    d = 0.8 * hh
    head_u = np.linspace(0.0, 2.0, 9)
    head_r = np.sqrt(1.0 - ((head_u - 1.0) * d / hh) ** 2)
    head = SweepSpec(
        part="head",
        points=np.array([hc - up * d, hc, hc + up * d]),
        tags=(None, None, None),
        bones=(J["head"], J["head"]),
        blend=(0, 0, 0),
        profile=np.stack([head_u, ha * head_r, hb * head_r], -1),
        front=tuple(fwd),
        caps=(hh - d, hh - d),
        n_around=24,
        step=0.015 * sc,
    )
    nose_c = hc + np.array([0.0, -0.012 * hs, 0.9 * hb])
    nose = SweepSpec(
        part="nose",
        points=np.array([nose_c - up * 0.02 * hs, nose_c + up * 0.02 * hs]),
        tags=(None, None),
        bones=(J["head"],),
        blend=(0, 0),
        profile=np.array([(0.0, 0.010 * hs, 0.014 * hs), (0.4, 0.013 * hs, 0.022 * hs), (1.0, 0.009 * hs, 0.012 * hs)]),
        front=tuple(fwd),
        caps=(0.008 * hs, 0.008 * hs),
        n_around=10,
        step=0.01 * hs,
    )
    leg = SweepSpec(
        part="left_leg",
        points=np.array(
            [
                jt[J["left_hip"]] + up * 0.07 * sc,
                jt[J["left_hip"]],
                jt[J["left_knee"]],
                jt[J["left_ankle"]],
                jt[J["left_ankle"]] - up * 0.03 * sc,
            ]
        ),
        tags=(None, J["left_hip"], J["left_knee"], J["left_ankle"], None),
        bones=(J["pelvis"], J["left_hip"], J["left_knee"], J["left_ankle"]),
        blend=(0, 0.06 * sc, 0.05 * sc, 0.03 * sc, 0),
        profile=np.array(
            [
                (0.0, 0.085 * lg, 0.085 * lg),
                (1.0, 0.088 * lg, 0.09 * lg),
                (1.35, 0.078 * lg, 0.082 * lg),
                (1.75, 0.062 * lg, 0.064 * lg),
                (2.0, 0.052 * lg, 0.055 * lg),
                (2.25, 0.053 * lg, 0.06 * lg),
                (2.5, 0.048 * lg, 0.052 * lg),
                (2.8, 0.038 * lg, 0.04 * lg),
                (3.0, 0.035 * lg, 0.037 * lg),
                (4.0, 0.033 * lg, 0.035 * lg),
            ]
        ),
        front=tuple(fwd),
        caps=(0.03 * sc, 0.015 * sc),
        n_around=20,
        step=0.03 * sc,
    )
    foot_x = jt[J["left_foot"]][0]
    foot = SweepSpec(
        part="left_foot",
        points=np.array([(foot_x, 0.045 * sc, -0.06 * sc), jt[J["left_foot"]], (foot_x, 0.035 * sc, 0.19 * sc)]),
        tags=(None, J["left_foot"], None),
        bones=(J["left_ankle"], J["left_foot"]),
        blend=(0, 0.03 * sc, 0),
        profile=np.array(
            [
                (0.0, 0.035 * sc, 0.045 * sc),
                (0.5, 0.043 * sc, 0.04 * sc),
                (1.0, 0.048 * sc, 0.03 * sc),
                (1.6, 0.045 * sc, 0.022 * sc),
                (2.0, 0.04 * sc, 0.018 * sc),
            ]
        ),
        front=tuple(up),
        caps=(0.02 * sc, 0.02 * sc),
        n_around=14,
        step=0.025 * sc,
    )
    arm = SweepSpec(
        part="left_arm",
        points=np.array(
            [
                jt[J["left_collar"]],
                jt[J["left_shoulder"]],
                jt[J["left_elbow"]],
                jt[J["left_wrist"]],
                jt[J["left_wrist"]] + side * 0.02 * sc,
            ]
        ),
        tags=(J["left_collar"], J["left_shoulder"], J["left_elbow"], J["left_wrist"], None),
        bones=(J["left_collar"], J["left_shoulder"], J["left_elbow"], J["left_wrist"]),
        blend=(0, 0.05 * sc, 0.04 * sc, 0.02 * sc, 0),
        profile=np.array(
            [
                (0.0, 0.06 * lg, 0.06 * lg),
                (1.0, 0.058 * lg, 0.056 * lg),
                (1.3, 0.05 * lg, 0.05 * lg),
                (1.7, 0.043 * lg, 0.045 * lg),
                (2.0, 0.038 * lg, 0.04 * lg),
                (2.3, 0.041 * lg, 0.043 * lg),
                (2.7, 0.033 * lg, 0.036 * lg),
                (3.0, 0.027 * lg, 0.03 * lg),
                (4.0, 0.026 * lg, 0.029 * lg),
            ]
        ),
        front=tuple(fwd),
        caps=(0.035 * sc, 0.015 * sc),
        n_around=16,
        step=0.03 * sc,
    )
    hand_j = jt[J["left_hand"]]
    hand = SweepSpec(
        part="left_hand",
        points=np.array([jt[J["left_wrist"]] + side * 0.0 * sc, hand_j, hand_j + side * 0.08 * sc]),
        tags=(None, J["left_hand"], None),
        bones=(J["left_wrist"], J["left_hand"]),
        blend=(0, 0.02 * sc, 0),
        profile=np.array(
            [
                (0.0, 0.016 * sc, 0.028 * sc),
                (0.5, 0.019 * sc, 0.042 * sc),
                (1.0, 0.017 * sc, 0.043 * sc),
                (1.6, 0.013 * sc, 0.04 * sc),
                (2.0, 0.009 * sc, 0.03 * sc),
            ]
        ),
        front=tuple(fwd),
        caps=(0.012 * sc, 0.018 * sc),
        n_around=12,
        step=0.02 * sc,
    )
    limbs = [leg, foot, arm, hand]
    mirrored = [_mirror(s, s.part.replace("left_", "right_"), _LEFT_TO_RIGHT) for s in limbs]
    return [
        replace(s, n_around=2 * round(s.n_around * resolution / 2), step=s.step / resolution)
        for s in (torso, neck, head, nose, *limbs, *mirrored)
    ]


@dataclass(frozen=True)
class BodyGeometry:
    """The assembled procedural body for one shape, SMPL frame, pelvis joint at the origin."""

    vertices: np.ndarray  # (V,3)
    faces: np.ndarray  # (F,3)
    weights: np.ndarray  # (V,24)
    J_regressor: np.ndarray  # (24,V)
    vt: np.ndarray  # (K,2) atlas UVs
    ft: np.ndarray  # (F,3) UV ids of each face corner
    landmarks: dict[str, int]
    keypoints: dict[str, int]  # smplx vertex_ids
    part_of_vertex: np.ndarray  # (V,) index into PARTS
    vertex_u: np.ndarray  # (V,) centreline parameter of each vertex's ring within its part
    joints: np.ndarray  # intended joints (24,3), same frame as `vertices`


PARTS: tuple[str, ...] = tuple(UV_ISLANDS)


@functools.lru_cache(maxsize=4)
def _ring_counts(resolution: float = 1.0) -> dict[str, tuple[int, ...]]:
    """Rings per stretch of every part, from the template's lengths and each part's step."""
    counts = {}
    for spec in _specs(BodyShape(), resolution):
        lengths = np.linalg.norm(np.diff(np.asarray(spec.points), axis=0), axis=1)
        counts[spec.part] = tuple(max(1, int(np.ceil(length / spec.step))) for length in lengths)
    return counts


def build_geometry(shape: BodyShape = BodyShape(), resolution: float = 1.0) -> BodyGeometry:
    """Assemble the tubes of one shape into a single mesh with weights, regressor, UVs, landmarks."""
    specs = _specs(shape, resolution)
    counts = _ring_counts(resolution)
    sweeps = {spec.part: _sweep(spec, counts[spec.part]) for spec in specs}
    offsets, uv_offsets, v_off, t_off = {}, {}, 0, 0
    for part, sw in sweeps.items():
        offsets[part], uv_offsets[part] = v_off, t_off
        v_off += len(sw.vertices)
        t_off += len(sw.uv)
    verts = np.concatenate([sw.vertices for sw in sweeps.values()])
    faces = np.concatenate([sw.faces + offsets[p] for p, sw in sweeps.items()])
    ft = np.concatenate([sw.uv_faces + uv_offsets[p] for p, sw in sweeps.items()])
    weights = np.concatenate([sw.weights for sw in sweeps.values()])
    vt = np.concatenate([_to_island(sw.uv, UV_ISLANDS[p]) for p, sw in sweeps.items()])
    part_of_vertex = np.concatenate([np.full(len(sw.vertices), PARTS.index(p)) for p, sw in sweeps.items()])
    vertex_u = np.concatenate(
        [np.concatenate([np.repeat(sw.ring_u, len(sw.rings[0])), sw.ring_u[[0, -1]]]) for sw in sweeps.values()]
    )

    torso = sweeps["torso"]
    _blend_collars(weights, verts, torso, offsets["torso"], len(specs[0].points) - 1)

    regressor = np.zeros((len(JOINT_NAMES), len(verts)))
    for part, sw in sweeps.items():
        for joint, ring in sw.tag_rings.items():
            ids = sw.rings[ring] + offsets[part]
            regressor[joint, ids] = 1.0 / len(ids)
    if not np.all(regressor.sum(1) > 0):
        raise AssertionError("a joint has no regressor ring")

    def ring(part: str, joint: str) -> np.ndarray:
        sw = sweeps[part]
        return sw.rings[sw.tag_rings[J[joint]]] + offsets[part]

    def extreme(ids: np.ndarray, direction: tuple[float, float, float]) -> int:
        return int(ids[np.argmax(verts[ids] @ np.asarray(direction))])

    def nearest(part: str, target: np.ndarray) -> int:
        lo = offsets[part]
        return lo + int(np.argmin(np.linalg.norm(sweeps[part].vertices - target, axis=1)))

    jt, ex = skeleton(shape)
    hc = ex["head_centre"]
    hs = shape.head * shape.stature
    ha, hb = 0.078 * hs, 0.095 * hs
    eye_y = 0.02 * hs
    eye_z = hb * np.sqrt(max(0.0, 1 - (0.033 * hs / ha) ** 2 - (eye_y / (0.11 * hs)) ** 2))
    landmarks: dict[str, int] = {
        "nose": extreme(np.arange(len(sweeps["nose"].vertices)) + offsets["nose"], (0, 0, 1)),
        "head_top": offsets["head"] + int(sweeps["head"].end_pole),  # type: ignore[arg-type]
    }
    keypoints: dict[str, int] = {"nose": landmarks["nose"]}
    for side, sign, short in (("left", 1.0, "l"), ("right", -1.0, "r")):
        landmarks[f"{side}_eye"] = nearest("head", hc + np.array([sign * 0.033 * hs, eye_y, eye_z]))
        landmarks[f"{side}_ear"] = nearest("head", hc + np.array([sign * ha, -0.005 * hs, 0.0]))
        landmarks[f"{side}_shoulder"] = extreme(ring(f"{side}_arm", f"{side}_shoulder"), (0, 1, 0))
        landmarks[f"{side}_elbow"] = extreme(ring(f"{side}_arm", f"{side}_elbow"), (0, 0, -1))
        landmarks[f"{side}_wrist"] = extreme(ring(f"{side}_arm", f"{side}_wrist"), (0, 0, 1))
        landmarks[f"{side}_hip"] = extreme(ring(f"{side}_leg", f"{side}_hip"), (sign, 0, 0.5))
        landmarks[f"{side}_knee"] = extreme(ring(f"{side}_leg", f"{side}_knee"), (0, 0, 1))
        landmarks[f"{side}_ankle"] = extreme(ring(f"{side}_leg", f"{side}_ankle"), (sign, 0, 0))
        keypoints[f"{short}eye"] = landmarks[f"{side}_eye"]
        keypoints[f"{short}ear"] = landmarks[f"{side}_ear"]
        foot = sweeps[f"{side}_foot"]
        toe_ring = foot.rings[-1] + offsets[f"{side}_foot"]
        big = "LBigToe" if side == "left" else "RBigToe"
        keypoints[big] = extreme(toe_ring, (-sign, 0, 0))
        keypoints[big.replace("Big", "Small")] = extreme(toe_ring, (sign, 0, 0))
        keypoints[f"{side[0].upper()}Heel"] = offsets[f"{side}_foot"] + int(foot.start_pole)  # type: ignore[arg-type]
        hand = sweeps[f"{side}_hand"]
        tip_ring = hand.rings[-1] + offsets[f"{side}_hand"]
        keypoints[f"{short}thumb"] = extreme(ring(f"{side}_hand", f"{side}_hand"), (0, 0, 1))
        by_z = tip_ring[np.argsort(-verts[tip_ring, 2], kind="stable")]
        for name, pick in zip(
            ("index", "middle", "ring", "pinky"), np.linspace(0, len(by_z) - 1, 4).round().astype(int)
        ):
            keypoints[f"{short}{name}"] = int(by_z[pick])

    pelvis = jt[J["pelvis"]]
    return BodyGeometry(
        vertices=verts - pelvis,
        faces=faces,
        weights=weights,
        J_regressor=regressor,
        vt=vt,
        ft=ft,
        landmarks={k: landmarks[k] for k in LANDMARK_NAMES},
        keypoints={k: keypoints[k] for k in SMPLX_KEYPOINT_NAMES},
        part_of_vertex=part_of_vertex,
        vertex_u=vertex_u,
        joints=jt - pelvis,
    )


def _to_island(uv: np.ndarray, island: tuple[float, float, float, float]) -> np.ndarray:
    u0, v0, u1, v1 = island
    lo = np.array([u0 + UV_MARGIN, v0 + UV_MARGIN])
    span = np.array([u1 - u0 - 2 * UV_MARGIN, v1 - v0 - 2 * UV_MARGIN])
    return lo + uv * span


def _blend_collars(weights: np.ndarray, verts: np.ndarray, torso: Sweep, offset: int, top_u: float) -> None:
    """Hand the torso's shoulder corners (upper rings, far from the midline) over to the collars."""
    for ring, u, a in zip(torso.rings, torso.ring_u, torso.ring_a):
        ids = ring + offset
        lateral = _smoothstep((np.abs(verts[ids, 0]) / a - 0.55) / 0.35)
        f = lateral * _smoothstep(np.full(len(ids), (u - (top_u - 1.0)) / 0.5))
        side = np.where(verts[ids, 0] > 0, J["left_collar"], J["right_collar"])
        weights[ids] *= (1.0 - f)[:, None]
        weights[ids, side] += f


def betas_shape(betas: np.ndarray) -> BodyShape:
    """The BodyShape that betas select (linear in each parameter)."""
    base = BodyShape()
    values = {name: getattr(base, name) + step * float(b) for name, step, b in zip(SHAPE_NAMES, SHAPE_STEPS, betas)}
    return replace(base, **values)


@functools.lru_cache(maxsize=4)
def model_arrays() -> dict[str, np.ndarray]:
    """The SMPL-layout arrays of the procedural model (plus UVs, landmarks and keypoint ids)."""
    base = build_geometry()
    shapedirs = np.zeros(base.vertices.shape + (len(SHAPE_NAMES),))
    for k in range(len(SHAPE_NAMES)):
        betas = np.zeros(len(SHAPE_NAMES))
        betas[k] = 1.0
        shapedirs[:, :, k] = build_geometry(betas_shape(betas)).vertices - base.vertices
    n = len(base.vertices)
    return {
        "v_template": base.vertices.astype(np.float64),
        "shapedirs": shapedirs,
        "posedirs": np.zeros((n, 3, NUM_POSE_BASIS), dtype=np.float32),
        "J_regressor": base.J_regressor,
        "weights": base.weights,
        "kintree_table": np.stack([np.array(PARENTS, dtype=np.int64), np.arange(24, dtype=np.int64)]),
        "f": base.faces.astype(np.int32),
        "vt": base.vt,
        "ft": base.ft.astype(np.int32),
        "landmark_names": np.array(LANDMARK_NAMES),
        "landmark_vertex_ids": np.array([base.landmarks[k] for k in LANDMARK_NAMES], dtype=np.int64),
        "keypoint_names": np.array(SMPLX_KEYPOINT_NAMES),
        "keypoint_vertex_ids": np.array([base.keypoints[k] for k in SMPLX_KEYPOINT_NAMES], dtype=np.int64),
        "joint_names": np.array(JOINT_NAMES),
        "model_version": np.array(MODEL_VERSION),
    }


def smpl_pickle_bytes() -> bytes:
    """`SMPL_NEUTRAL.pkl` contents: a pickled dict of plain numpy arrays (deterministic bytes)."""
    return pickle.dumps(model_arrays(), protocol=4)


def write_smpl_pickle(path: Path) -> Path:
    """Write the procedural model as an SMPL pickle, atomically."""
    from benchfoundry.core.atomic_files import write_bytes_atomic

    return write_bytes_atomic(path, smpl_pickle_bytes())


@dataclass(frozen=True)
class TextureLayout:
    """Where a texture painter finds body regions on the UV atlas (island-local coordinates).

    `marks[part][name]` is the island-local v of a ring (v runs along the part, 0 at its first
    cap); `face[name]` the island-local (u, v) of a face feature on the head island, where u = 0.5
    is the front of the face.
    """

    islands: dict[str, tuple[float, float, float, float]]
    margin: float
    marks: dict[str, dict[str, float]]
    face: dict[str, tuple[float, float]]


@functools.lru_cache(maxsize=1)
def texture_layout() -> TextureLayout:
    """The template's UV layout: islands, joint lines along the limbs and torso, face features."""
    specs = {spec.part: spec for spec in _specs(BodyShape())}
    counts = _ring_counts()
    sweeps = {part: _sweep(spec, counts[part]) for part, spec in specs.items()}

    def v_at(part: str, u: float) -> float:
        sw = sweeps[part]
        core = slice(3, len(sw.ring_u) - 3)  # main rings (three cap rings at each end)
        return float(np.interp(u, sw.ring_u[core], sw.ring_v[core]))

    head = sweeps["head"]
    n = specs["head"].n_around
    _, ex = skeleton(BodyShape())
    hc = ex["head_centre"]
    front = 0.095 * float(np.sqrt(1 - 0.45**2))

    def face_uv(offset: tuple[float, float, float]) -> tuple[float, float]:
        local = int(np.argmin(np.linalg.norm(head.vertices - (hc + np.asarray(offset)), axis=1)))
        if local >= len(head.rings) * n:
            raise AssertionError("a face feature fell on a pole")
        return (local % n) / n, float(head.ring_v[local // n])

    return TextureLayout(
        islands=dict(UV_ISLANDS),
        margin=UV_MARGIN,
        marks={
            "torso": {"waist": v_at("torso", 1.45)},
            "arm": {"shoulder": v_at("left_arm", 1.0), "elbow": v_at("left_arm", 2.0), "wrist": v_at("left_arm", 3.0)},
            "leg": {"hip": v_at("left_leg", 1.0), "knee": v_at("left_leg", 2.0), "ankle": v_at("left_leg", 3.0)},
        },
        face={
            "left_eye": face_uv((0.033, 0.02, front)),
            "right_eye": face_uv((-0.033, 0.02, front)),
            "mouth": face_uv((0.0, -0.045, 0.085)),
            "hairline": face_uv((0.0, 0.075, 0.06)),
        },
    )
