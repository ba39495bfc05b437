"""The procedural body in SMPL-X file layout (`SMPLX_NEUTRAL.npz`, 55 joints), for `smplx.SMPLX`.

The same tubes as the SMPL-layout body (`procedural_body`), built at a finer resolution because smplx
hard-codes SMPL-X keypoint vertex ids up to 9,929. What SMPL-X adds is modelled plainly:

* the hand is a mitten: its part beyond the knuckles is split across its width into four bands
  that the index, middle, ring and pinky chains bend; the thumb joints sit along the palm's front
  edge and move no vertices (there is no thumb);
* the jaw joint moves the lower front of the head; the eye joints move no vertices (no eyeballs);
* the 10 expression directions are zeros, `posedirs` (V,3,486) are zeros, the hand PCA basis is
  the identity with a flat (zero) mean;
* the 51 static face landmarks (`lmk_faces_idx`, `lmk_bary_coords`) sit on a schematic face
  (brows, nose, eyes, mouth) on the head's front.

smplx's hard-coded SMPL-X keypoint vertex ids (its joints beyond 55) mean nothing on this mesh: use
the named landmarks stored in the file. Bytes are deterministic (fixed zip timestamps).
"""

from __future__ import annotations

import functools
import io
import zipfile
from pathlib import Path

import numpy as np

from benchfoundry.assets import smpl_skeleton
from benchfoundry.person import procedural_body as bm

#: Finer tubes than the SMPL-layout body, so that there are ≥ 9,930 vertices.
RESOLUTION = 1.5
MIN_VERTICES = 9930

JOINT_NAMES: tuple[str, ...] = (
    smpl_skeleton.JOINT_NAMES[:22]
    + ("jaw", "left_eye_smplhf", "right_eye_smplhf")
    + tuple(
        f"{side}_{finger}{k}"
        for side in ("left", "right")
        for finger in ("index", "middle", "pinky", "ring", "thumb")
        for k in (1, 2, 3)
    )
)
PARENTS: tuple[int, ...] = (
    smpl_skeleton.PARENTS[:22]
    + (15, 15, 15)
    + tuple(
        p for wrist, base in ((20, 25), (21, 40)) for f in range(5) for p in (wrist, base + 3 * f, base + 3 * f + 1)
    )
)
J = {name: i for i, name in enumerate(JOINT_NAMES)}
FINGERS = ("index", "middle", "ring", "pinky")  # front (+Z) to back across the T-pose hand
NUM_POSE_BASIS = 54 * 9
NUM_EXPRESSIONS = 10


def _ring_ids(geo: bm.BodyGeometry, part: str, u: float) -> np.ndarray:
    """Vertex ids of the ring of `part` whose centreline parameter is nearest `u` (an inner ring)."""
    in_part = np.flatnonzero(geo.part_of_vertex == bm.PARTS.index(part))
    ring_us = np.unique(geo.vertex_u[in_part])
    nearest = ring_us[np.argmin(np.abs(ring_us - u))]
    return in_part[geo.vertex_u[in_part] == nearest]


def _bands(z: np.ndarray, centre: float, half_width: float, n: int) -> np.ndarray:
    """Band index 0…n−1 of each z across [centre − half_width, centre + half_width], front (+z) first."""
    t = (centre + half_width - z) / (2 * half_width)
    return np.clip((t * n).astype(int), 0, n - 1)


def _regressor_and_weights(geo: bm.BodyGeometry) -> tuple[np.ndarray, np.ndarray]:
    """SMPL-X J_regressor (55,V) and weights (V,55) from the SMPL-layout ones."""
    v = geo.vertices
    n = len(v)
    regressor = np.zeros((55, n))
    weights = np.zeros((n, 55))
    regressor[:22] = geo.J_regressor[:22]
    weights[:, :22] = geo.weights[:, :22]

    head_c = geo.joints[smpl_skeleton.J["head"]] + np.array([0.0, 0.065, 0.0])
    jaw_ring = _ring_ids(geo, "head", 0.7)
    regressor[J["jaw"], jaw_ring] = 1.0 / len(jaw_ring)
    eye_ring = _ring_ids(geo, "head", 1.25)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        ids = eye_ring[(v[eye_ring, 0] * sign > 0) & (v[eye_ring, 2] > head_c[2])]
        regressor[J[f"{side}_eye_smplhf"], ids] = 1.0 / len(ids)

    head = geo.part_of_vertex == bm.PARTS.index("head")
    lower_front = bm._smoothstep((head_c[1] - 0.04 - v[:, 1]) / 0.03) * bm._smoothstep((v[:, 2] - head_c[2]) / 0.04)
    jaw = np.where(head, lower_front, 0.0)
    weights[:, J["jaw"]] = jaw * weights[:, smpl_skeleton.J["head"]]
    weights[:, smpl_skeleton.J["head"]] *= 1.0 - jaw

    for side in ("left", "right"):
        hand = geo.part_of_vertex == bm.PARTS.index(f"{side}_hand")
        knuckles = _ring_ids(geo, f"{side}_hand", 1.0)
        centre = v[knuckles, 2].mean()
        half = np.abs(v[knuckles, 2] - centre).max() + 1e-9
        for k, finger in enumerate(FINGERS):
            for joint, u in zip((1, 2, 3), (1.0, 1.5, 1.8)):
                ring = _ring_ids(geo, f"{side}_hand", u)
                ids = ring[_bands(v[ring, 2], centre, half, 4) == k]
                regressor[J[f"{side}_{finger}{joint}"], ids] = 1.0 / len(ids)
        for joint, u in zip((1, 2, 3), (0.35, 0.5, 0.65)):
            ring = _ring_ids(geo, f"{side}_hand", u)
            ids = ring[_bands(v[ring, 2], v[ring, 2].mean(), np.abs(v[ring, 2] - v[ring, 2].mean()).max(), 4) == 0]
            regressor[J[f"{side}_thumb{joint}"], ids] = 1.0 / len(ids)
        # the SMPL hand joint's share goes to the finger chain of the vertex's band, along the finger
        share = np.where(hand, geo.weights[:, smpl_skeleton.J[f"{side}_hand"]], 0.0)
        band = _bands(v[:, 2], centre, half, 4)
        u = geo.vertex_u
        second, third = bm._smoothstep((u - 1.4) / 0.2), bm._smoothstep((u - 1.7) / 0.2)
        for k, finger in enumerate(FINGERS):
            mine = share * (band == k)
            weights[:, J[f"{side}_{finger}1"]] += mine * (1 - second)
            weights[:, J[f"{side}_{finger}2"]] += mine * (second - third)
            weights[:, J[f"{side}_{finger}3"]] += mine * third
    return regressor, weights


def _face_landmarks(geo: bm.BodyGeometry, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """51 static face landmarks (brows 10, nose 9, eyes 12, mouth 20) as faces + barycentric coords."""
    hc = geo.joints[smpl_skeleton.J["head"]] + np.array([0.0, 0.065, 0.0])
    eye = [
        (sx * 0.033 + 0.012 * np.cos(a), 0.02 + 0.006 * np.sin(a))
        for sx in (-1, 1)
        for a in np.linspace(0, 2 * np.pi, 6, endpoint=False)
    ]
    points = (
        [(x, 0.042) for x in (-0.055, -0.045, -0.033, -0.022, -0.012, 0.012, 0.022, 0.033, 0.045, 0.055)]
        + [(0.0, y) for y in (0.02, 0.01, 0.0, -0.01)]
        + [(x, -0.025) for x in (-0.016, -0.008, 0.0, 0.008, 0.016)]
        + eye
        + [(0.025 * np.cos(a), -0.045 + 0.01 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
        + [(0.018 * np.cos(a), -0.045 + 0.004 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    )
    on_head = np.isin(geo.part_of_vertex[faces[:, 0]], [bm.PARTS.index("head"), bm.PARTS.index("nose")])
    candidates = np.flatnonzero(on_head)
    tri = geo.vertices[faces[candidates]]
    centroids = tri.mean(1)
    ids, bary = [], []
    for x, y in points:
        row = np.abs(centroids[:, 1] - (hc[1] + y)) < 0.012
        best = np.flatnonzero(row)[np.argmax(centroids[row, 2] - 4.0 * np.abs(centroids[row, 0] - x))]
        target = np.array([x, hc[1] + y, centroids[best, 2]])
        ids.append(candidates[best])
        bary.append(_barycentric(tri[best], target))
    return np.array(ids, dtype=np.int64), np.array(bary)


def _barycentric(tri: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Barycentric coordinates of p's projection onto a triangle, clipped into it."""
    a, b, c = tri
    m = np.stack([b - a, c - a], axis=1)
    st = np.linalg.lstsq(m, p - a, rcond=None)[0]
    w = np.clip(np.array([1.0 - st.sum(), st[0], st[1]]), 0.0, None)
    return w / w.sum()


@functools.lru_cache(maxsize=1)
def model_arrays() -> dict[str, np.ndarray]:
    """The SMPL-X-layout arrays of the procedural body (plus UVs and landmarks)."""
    base = bm.build_geometry(resolution=RESOLUTION)
    n = len(base.vertices)
    if n < MIN_VERTICES:
        raise AssertionError(f"SMPL-X layout needs ≥ {MIN_VERTICES} vertices, built {n}")
    shapedirs = np.zeros((n, 3, len(bm.SHAPE_NAMES) + NUM_EXPRESSIONS))
    for k in range(len(bm.SHAPE_NAMES)):
        betas = np.zeros(len(bm.SHAPE_NAMES))
        betas[k] = 1.0
        shapedirs[:, :, k] = bm.build_geometry(bm.betas_shape(betas), RESOLUTION).vertices - base.vertices
    regressor, weights = _regressor_and_weights(base)
    lmk_faces, lmk_bary = _face_landmarks(base, base.faces)
    return {
        "v_template": base.vertices,
        "f": base.faces.astype(np.int32),
        "shapedirs": shapedirs,
        "posedirs": np.zeros((n, 3, NUM_POSE_BASIS), dtype=np.float32),
        "J_regressor": regressor,
        "weights": weights,
        "kintree_table": np.stack([np.array(PARENTS, dtype=np.int64), np.arange(55, dtype=np.int64)]),
        "hands_componentsl": np.eye(45),
        "hands_componentsr": np.eye(45),
        "hands_meanl": np.zeros(45),
        "hands_meanr": np.zeros(45),
        "lmk_faces_idx": lmk_faces,
        "lmk_bary_coords": lmk_bary,
        "vt": base.vt,
        "ft": base.ft.astype(np.int32),
        "landmark_names": np.array(bm.LANDMARK_NAMES),
        "landmark_vertex_ids": np.array([base.landmarks[k] for k in bm.LANDMARK_NAMES], dtype=np.int64),
        "joint_names": np.array(JOINT_NAMES),
        "model_version": np.array(bm.MODEL_VERSION),
    }


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A compressed .npz with fixed member timestamps (same arrays → same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    return buffer.getvalue()


def write_smplx_npz(path: Path) -> Path:
    """Write the procedural model as `SMPLX_NEUTRAL.npz`, atomically."""
    from benchfoundry.core.atomic_files import write_bytes_atomic

    return write_bytes_atomic(path, npz_bytes(model_arrays()))
