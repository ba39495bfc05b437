"""The body models by name (`person.body.model_type`), the one place a body model is chosen.

A new body model is one module implementing `body_model.BodyModel`, its entry in `BODY_MODELS` and its name in
configs/person.py's `BodyConfig.model_type`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchfoundry.configs.person import BodyConfig
from benchfoundry.person.anny_model import ANNY
from benchfoundry.person.body_mesh import BodyMesh
from benchfoundry.person.body_model import BodyModel
from benchfoundry.person.smplx_body import SMPL, SMPLX

BODY_MODELS: dict[str, BodyModel] = {model.name: model for model in (ANNY, SMPL, SMPLX)}


def body_model_of(body: BodyConfig) -> BodyModel:
    """The body model `body.model_type` names."""
    try:
        return BODY_MODELS[body.model_type]
    except KeyError:
        raise ValueError(
            f"person.body.model_type {body.model_type!r}: no such body model {sorted(BODY_MODELS)}"
        ) from None


def posed_body(
    config: BodyConfig,
    body_pose: np.ndarray,
    *,
    cache_dir: Path,
    global_orient: np.ndarray | None = None,
    betas: np.ndarray | list[float] | None = None,
    phenotype: dict[str, float] | None = None,
    action: str | None = None,
) -> BodyMesh:
    """The body `config` names in `body_pose` ((23,3) SMPL axis-angle), in the world frame (person/body_mesh.py).

    `global_orient` (axis-angle, SMPL frame) turns the body before the world rotation; `betas` default to
    `config.betas`. Anny needs `phenotype`; with `action` (a built-in action or UPRIGHT) Anny rebuilds the pose on its
    own skeleton and `body_pose` is not used.
    """
    pose = np.asarray(body_pose, dtype=np.float64)
    if pose.shape != (23, 3):
        raise ValueError(f"body_pose must be (23,3) axis-angle, got {pose.shape}")
    orient = np.zeros(3) if global_orient is None else np.asarray(global_orient, dtype=np.float64).reshape(3)
    return body_model_of(config).pose(
        config, pose, orient, cache_dir=cache_dir, betas=betas, phenotype=phenotype, action=action
    )
