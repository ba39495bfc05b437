"""SMPL and SMPL-X bodies (`body.model_type: smpl | smplx`) through `smplx`, posed, in the world frame.

World frame of every `BodyMesh`: metres, +Z up, feet on z = 0 (the lowest vertex), the pelvis joint
above x = y = 0, the person facing −Y, so their left is +X. SMPL's own frame (+Y up, facing +Z,
left +X) maps to it by a +90° rotation about X.

Official files (`body.model_path`) and the procedural body load the same way, as `body.model_type`
says (never guessed from the file name, so official names such as `basicmodel_neutral_lbs_10_207_0_v1.1.0.pkl`
work): SMPL pickles are read here, chumpy arrays turned into numpy arrays without importing chumpy,
and handed to `smplx.SMPL` as arrays; SMPL-X files go to `smplx.SMPLX` by path. The procedural file
(SMPL or SMPL-X layout, person/procedural_body.py and procedural_body_smplx.py) is first written, once and
atomically, into a cache folder. SMPL-X models take the first 21 joints of the (23,3) SMPL body pose (SMPL's hand
joints 22–23 have no SMPL-X counterpart); hands stay flat. `SMPL` and `SMPLX` are the two `BodyModel`s.
"""

from __future__ import annotations

import functools
import pickle
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.assets.smpl_skeleton import rest_joints
from benchfoundry.configs.person import BodyConfig, PersonConfig
from benchfoundry.person import procedural_body, procedural_body_smplx
from benchfoundry.person.body_mesh import SMPL_TO_WORLD, BodyMesh

#: smplx joints of SMPL-X that match SMPL's first 22 (SMPL-X's body_pose has 21 joints).
SMPLX_BODY_JOINTS = 21

_FACE_KEYPOINTS = {"nose": "nose", "left_eye": "leye", "right_eye": "reye", "left_ear": "lear", "right_ear": "rear"}
_JOINT_LANDMARKS = {
    "left_shoulder": 16,
    "right_shoulder": 17,
    "left_elbow": 18,
    "right_elbow": 19,
    "left_wrist": 20,
    "right_wrist": 21,
    "left_hip": 1,
    "right_hip": 2,
    "left_knee": 4,
    "right_knee": 5,
    "left_ankle": 7,
    "right_ankle": 8,
}


@dataclass(frozen=True)
class _Extras:
    """What a model file carries besides smplx's arrays: UVs, landmarks, keypoint vertex ids."""

    uv: np.ndarray | None
    landmarks: dict[str, int]
    keypoint_ids: dict[str, int] | None  # None: smplx's defaults for official files


def procedural_model_dir(cache_dir: Path, model_type: str = "smpl") -> Path:
    """Folder of the procedural model in smplx's layout (`<dir>/smpl/SMPL_NEUTRAL.pkl` or
    `<dir>/smplx/SMPLX_NEUTRAL.npz`), written once."""
    root = Path(cache_dir) / "body_model" / procedural_body.MODEL_VERSION
    path = _procedural_file(root, model_type)
    if not path.exists():
        if model_type == "smplx":
            procedural_body_smplx.write_smplx_npz(path)
        else:
            procedural_body.write_smpl_pickle(path)
    return root


def _procedural_file(root: Path, model_type: str) -> Path:
    return root / "smplx" / "SMPLX_NEUTRAL.npz" if model_type == "smplx" else root / "smpl" / "SMPL_NEUTRAL.pkl"


def _resolve_official(config: BodyConfig) -> Path:
    """The official model file; a clear error when nothing is there."""
    path = Path(config.model_path).expanduser()  # type: ignore[arg-type]
    ext = "pkl" if config.model_type == "smpl" else "npz"
    name = f"{config.model_type.upper()}_{config.gender.upper()}.{ext}"
    if path.is_file():
        return path
    for candidate in (path / config.model_type / name, path / name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"body.model_path {path}: no {name} (looked for {path / config.model_type / name} and {path / name})"
    )


def _model_file(config: BodyConfig, cache_dir: Path) -> Path:
    if config.model_path is None:
        return _procedural_file(procedural_model_dir(cache_dir, config.model_type), config.model_type)
    return _resolve_official(config)


def load_body_model(config: BodyConfig, cache_dir: Path) -> Any:
    """The smplx model (`smplx.SMPL` or `smplx.SMPLX`): official files, or the procedural body."""
    return _load(
        str(_model_file(config, cache_dir)),
        config.model_type,
        config.gender,
        len(config.betas),
        config.model_path is None,
    )


#: Arrays smplx.SMPL reads from a model pickle.
SMPL_KEYS = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table", "f")


class _ChumpyStub:
    """Stands in for any chumpy class while unpickling: keeps the pickled state (a leaf `Ch`
    stores its array under `x`); constructor arguments, if a pickle passes any, are ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state


#: What SMPL model pickles may reference besides chumpy: numpy arrays, scipy sparse matrices
#: (`J_regressor`), plain builtin containers and the object reconstructor; anything else (a callable a
#: crafted file could run) is refused.
_PICKLE_MODULES = ("numpy", "scipy.sparse")
_SAFE_BUILTINS = {
    "object",
    "set",
    "frozenset",
    "list",
    "dict",
    "tuple",
    "slice",
    "complex",
    "bytearray",
    "int",
    "float",
    "bool",
    "str",
    "bytes",
}
_PICKLE_GLOBALS = {
    ("copy_reg", "_reconstructor"),
    ("copyreg", "_reconstructor"),
    ("_codecs", "encode"),
    *((m, n) for m in ("__builtin__", "builtins") for n in _SAFE_BUILTINS),
}


class _ModelUnpickler(pickle.Unpickler):
    """Unpickles SMPL model files without chumpy (every `chumpy.*` class becomes `_ChumpyStub`),
    allowing only the globals model files use."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "chumpy" or module.startswith("chumpy."):
            return _ChumpyStub
        if (module, name) in _PICKLE_GLOBALS or any(module == m or module.startswith(m + ".") for m in _PICKLE_MODULES):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"an SMPL model file does not reference {module}.{name}")


def _chumpy_array(value: _ChumpyStub) -> np.ndarray | None:
    """The array a pickled chumpy object stores (`x`), or None (a chumpy expression without one)."""
    state = value.state[0] if isinstance(value.state, tuple) else value.state
    x = state.get("x") if isinstance(state, dict) else None
    return None if x is None else np.asarray(x)


def read_smpl_pickle(path: Path) -> dict[str, Any]:
    """An SMPL model pickle (official, possibly with chumpy arrays, or procedural) as plain values.

    chumpy objects become the numpy arrays they store; ones storing none are dropped, and a missing
    `SMPL_KEYS` entry is an error naming the file and the key.
    """
    with open(path, "rb") as fh:
        raw = _ModelUnpickler(fh, encoding="latin1").load()
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: an SMPL model pickle holds a dict, not {type(raw).__name__}")
    data = {k: _chumpy_array(v) if isinstance(v, _ChumpyStub) else v for k, v in raw.items()}
    data = {k: v for k, v in data.items() if v is not None}
    missing = [k for k in SMPL_KEYS if k not in data]
    if missing:
        raise ValueError(f"{path}: no {missing} array(s) (chumpy expressions without stored values?)")
    return data


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=8)
def _load(path: str, model_type: str, gender: str, n_betas: int, procedural: bool) -> Any:
    import smplx
    from smplx.utils import Struct

    kwargs: dict[str, Any] = {"gender": gender, "num_betas": max(10, n_betas)}
    try:
        if model_type == "smplx":
            ext = Path(path).suffix.lstrip(".")
            if ext not in ("npz", "pkl"):
                raise ValueError(f"an SMPL-X model file is .npz or .pkl, not .{ext}")
            with _LOCK:
                return smplx.SMPLX(model_path=path, ext=ext, use_pca=False, **kwargs)
        extras = _procedural_extras(path) if procedural else None
        if extras is not None and extras.keypoint_ids is not None:
            kwargs["vertex_ids"] = extras.keypoint_ids
        data = Struct(**read_smpl_pickle(Path(path)))
        with _LOCK:
            return smplx.SMPL(model_path=path, data_struct=data, **kwargs)
    except (
        pickle.UnpicklingError,
        ImportError,
        EOFError,
        ValueError,
        KeyError,
        AttributeError,
        IndexError,
        TypeError,
    ) as exc:
        raise RuntimeError(f"{path}: not a readable {model_type.upper()} model file: {exc}") from exc


@functools.lru_cache(maxsize=8)
def _procedural_extras(path: str) -> _Extras:
    """UVs, landmarks and (SMPL layout) keypoint ids stored in a procedural model file."""
    if path.endswith(".npz"):  # SMPL-X layout: smplx uses its own keypoint ids
        with np.load(path) as npz:
            data = {k: npz[k] for k in ("landmark_names", "landmark_vertex_ids", "vt", "ft")}
        keypoints = None
    else:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
        keypoints = dict(zip(data["keypoint_names"].tolist(), data["keypoint_vertex_ids"].tolist()))
    landmarks = dict(zip(data["landmark_names"].tolist(), data["landmark_vertex_ids"].tolist()))
    uv = data["vt"][data["ft"]].astype(np.float32)
    uv.setflags(write=False)  # shared by every BodyMesh of this model
    return _Extras(uv=uv, landmarks=landmarks, keypoint_ids=keypoints)


@functools.lru_cache(maxsize=8)
def _official_extras(model: Any, model_type: str, uv_path: str | None) -> _Extras:
    """Landmarks of an official model: smplx's face keypoints, the vertex each body joint's
    regressor weighs most, the highest rest vertex; UVs from the configured .obj."""
    from smplx.vertex_ids import vertex_ids

    table = vertex_ids["smplx" if model_type == "smplx" else "smplh"]
    landmarks = {name: int(table[key]) for name, key in _FACE_KEYPOINTS.items()}
    regressor = model.J_regressor.detach().cpu().numpy()
    for name, joint in _JOINT_LANDMARKS.items():
        landmarks[name] = int(np.argmax(regressor[joint]))
    landmarks["head_top"] = int(np.argmax(model.v_template.detach().cpu().numpy()[:, 1]))
    uv = None if uv_path is None else read_obj_uv(Path(uv_path), np.asarray(model.faces))
    if uv is not None:
        uv.setflags(write=False)  # shared by every BodyMesh of this model
    return _Extras(uv=uv, landmarks=landmarks, keypoint_ids=None)


def read_obj_uv(path: Path, faces: np.ndarray) -> np.ndarray:
    """Per-corner UVs (F,3,2) from an .obj (`vt` lines and `f v/vt …` triangles); its faces must be
    the model's `faces` (same vertices, same order), else the UVs belong to another layout."""
    if not path.is_file():
        raise FileNotFoundError(f"body.uv_path {path}: no such file")
    vts: list[tuple[float, float]] = []
    corners: list[list[int]] = []
    vertex_ids: list[list[int]] = []
    try:
        for line in path.read_text().splitlines():
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "vt":
                vts.append((float(parts[1]), float(parts[2])))
            elif parts[0] == "f":
                refs = [p.split("/") for p in parts[1:4]]
                vertex_ids.append([int(r[0]) - 1 for r in refs])
                corners.append([int(r[1]) - 1 for r in refs])
    except (ValueError, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"body.uv_path {path}: malformed vt/f line ({exc})") from None
    faces = np.asarray(faces).reshape(-1, 3)
    if len(corners) != len(faces):
        raise ValueError(f"body.uv_path {path}: {len(corners)} faces, the model has {len(faces)}")
    differ = np.flatnonzero((np.asarray(vertex_ids, dtype=np.int64).reshape(-1, 3) != faces).any(axis=1))
    if len(differ):
        i = int(differ[0])
        raise ValueError(
            f"body.uv_path {path}: {len(differ)} face(s) differ from the model's (first: face {i} has vertices "
            f"{[v + 1 for v in vertex_ids[i]]}, the model {[int(v) + 1 for v in faces[i]]}, 1-based): another UV layout"
        )
    try:
        return np.asarray(vts, dtype=np.float32)[np.asarray(corners)]
    except IndexError:
        raise ValueError(f"body.uv_path {path}: a face refers to a vt past the {len(vts)} given") from None


def _extras(config: BodyConfig, cache_dir: Path, model: Any) -> _Extras:
    if config.model_path is None:
        return _procedural_extras(str(_model_file(config, cache_dir)))
    return _official_extras(model, config.model_type, None if config.uv_path is None else str(config.uv_path))


def _run(
    model: Any, model_type: str, body_pose: np.ndarray, global_orient: np.ndarray, betas: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """smplx forward pass → (vertices (V,3), joints (J,3)) in SMPL's frame."""
    import torch

    pose = body_pose[:SMPLX_BODY_JOINTS] if model_type == "smplx" else body_pose
    with torch.no_grad():
        out = model(
            betas=torch.as_tensor(betas, dtype=torch.float32)[None],
            body_pose=torch.as_tensor(pose.reshape(1, -1), dtype=torch.float32),
            global_orient=torch.as_tensor(global_orient, dtype=torch.float32).reshape(1, 3),
            transl=torch.zeros(1, 3),
        )
    return out.vertices[0].numpy().astype(np.float64), out.joints[0].numpy().astype(np.float64)


def _betas(config: BodyConfig, model: Any, betas: np.ndarray | list[float] | None) -> np.ndarray:
    values = np.asarray(config.betas if betas is None else betas, dtype=np.float64).reshape(-1)
    if len(values) > model.num_betas:
        raise ValueError(f"{len(values)} betas given; the body model has {model.num_betas} shape directions")
    return np.pad(values, (0, model.num_betas - len(values)))


def _posed(config: BodyConfig, pose: np.ndarray, orient: np.ndarray, cache_dir: Path, betas: Any) -> BodyMesh:
    """The smplx body in `pose`, turned by `orient`, placed in the world frame (module docstring)."""
    model = load_body_model(config, cache_dir)
    extras = _extras(config, cache_dir, model)
    shape = _betas(config, model, betas)
    verts, joints = _run(model, config.model_type, pose, orient, shape)
    world = verts @ SMPL_TO_WORLD.T
    pelvis = joints[0] @ SMPL_TO_WORLD.T
    world -= np.array([pelvis[0], pelvis[1], world[:, 2].min()])
    return BodyMesh(
        vertices=world.astype(np.float32),
        faces=np.asarray(model.faces, dtype=np.int32),
        uv=extras.uv,
        landmarks=dict(extras.landmarks),
        height_m=_rest_height(model, tuple(shape.tolist())),
    )


@dataclass(frozen=True)
class SmplxBody:
    """An SMPL-layout body model through smplx (`BodyModel`): its people vary by `body.betas`, built-in actions
    come as SMPL body poses (authored on SMPL's skeleton), textures are SMPLitex maps or procedural clothing."""

    name: str
    has_keypoints: bool = False

    def phenotype(self, body: BodyConfig, seed: int, person_id: int) -> None:
        return None

    def rest_joints(self, phenotype: dict[str, float] | None) -> np.ndarray:
        return rest_joints()

    def pose(
        self,
        config: BodyConfig,
        body_pose: np.ndarray,
        global_orient: np.ndarray,
        *,
        cache_dir: Path,
        betas: np.ndarray | list[float] | None,
        phenotype: dict[str, float] | None,
        action: str | None,
    ) -> BodyMesh:
        """`body_pose` posed (`phenotype` and `action` are not used: the caller's pose is the action's)."""
        return _posed(config, body_pose, global_orient, cache_dir, betas)

    def texture(self, person: PersonConfig, texture_id: int) -> np.ndarray:
        from benchfoundry.person.textures import load_texture

        return load_texture(person.textures, texture_id)


SMPL = SmplxBody("smpl")
SMPLX = SmplxBody("smplx")


@functools.lru_cache(maxsize=64)
def _rest_height(model: Any, betas: tuple[float, ...]) -> float:
    """Height (SMPL's y extent) of the shaped rest body: template plus shape blend shapes."""
    import torch

    with torch.no_grad():
        rest = model.forward_shape(betas=torch.tensor([betas], dtype=torch.float32)).v_shaped[0].numpy()
    return float(rest[:, 1].max() - rest[:, 1].min())
