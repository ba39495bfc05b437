"""The body model interface: what every body model that `person.body.model_type` names gives the project.

A body model poses a person (an SMPL body pose, or a built-in action rebuilt on its own skeleton) into a
`BodyMesh` in the world frame (person/body_mesh.py), draws that person's phenotype if it has one, says whether
its meshes carry COCO's keypoints, and paints texture ids on its UV layout. person/body_models.py registers the
implementations by name; everything outside person/ reaches them through it or person/prepare.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from benchfoundry.configs.person import BodyConfig, PersonConfig
from benchfoundry.person.body_mesh import BodyMesh


class BodyModel(Protocol):
    """One body model (e.g. person/smplx_body.py's SMPL and SMPL-X, person/anny_model.py's Anny)."""

    #: Its `person.body.model_type`; also the last part of its texture cache file names.
    name: str
    #: Whether its meshes carry COCO's 17 keypoints (`BodyMesh.keypoints`).
    has_keypoints: bool

    def phenotype(self, body: BodyConfig, seed: int, person_id: int) -> dict[str, float] | None:
        """Person `person_id`'s phenotype, the same for the same seed and id (None: people vary by betas)."""
        ...

    def rest_joints(self, phenotype: dict[str, float] | None) -> np.ndarray:
        """(24,3) joints in SMPL's layout, canonical frame and T-pose directions of the skeleton built-in actions
        are built on for this person (assets/poses.action_pose's `rest`)."""
        ...

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
        """The body in `body_pose` ((23,3) SMPL axis-angle) turned by `global_orient` (axis-angle, SMPL frame), in
        the world frame; `action` (a built-in action or UPRIGHT) may be rebuilt on the body's own skeleton instead.
        Files the model writes (a procedural model) go into `cache_dir`."""
        ...

    def texture(self, person: PersonConfig, texture_id: int) -> np.ndarray:
        """Texture `texture_id` on this body's UV layout: (H, W, 3) uint8 RGB, row 0 at the top."""
        ...
