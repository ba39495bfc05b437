"""The Anny body model (`body.model_type: anny`, the default): MakeHuman's free body (person/anny_body.py).

A person is a phenotype drawn with the build seed (person/phenotypes.py); a built-in action is rebuilt on that
body's own skeleton so its reaches fit its proportions, any other SMPL body pose (AMASS) drives it through the
SMPL → Anny joint correspondence. Its meshes carry COCO's 17 keypoints (anny's regressor) in the same world
frame; its textures are procedural clothing on MakeHuman's UV layout (person/anny_texture.py). `ANNY` is its
`BodyModel`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from benchfoundry.assets.poses import action_pose
from benchfoundry.configs.person import BodyConfig, PersonConfig, PhenotypeRanges
from benchfoundry.person import anny_body
from benchfoundry.person.body_mesh import SMPL_TO_WORLD, BodyMesh


@functools.lru_cache(maxsize=64)
def _phenotype(ranges_json: str, seed: int, person_id: int) -> tuple[tuple[str, float], ...]:
    from benchfoundry.person.phenotypes import draw_phenotype

    return tuple(draw_phenotype(PhenotypeRanges.model_validate_json(ranges_json), seed, person_id).items())


@functools.lru_cache(maxsize=16)
def _rest(phenotype: tuple[tuple[str, float], ...]) -> anny_body.AnnyRest:
    return anny_body.rest_body(dict(phenotype))


def _posed(pose: np.ndarray, orient: np.ndarray, phenotype: dict[str, float], action: str | None) -> BodyMesh:
    """Anny posed and placed like every BodyMesh (pelvis above the origin, feet on z = 0)."""
    rest = _rest(tuple(sorted(phenotype.items())))
    if action is not None:
        pose = action_pose(action, rest.tpose_joints)
    posed = anny_body.pose_anny(pose, rest, phenotype)
    turn = SMPL_TO_WORLD @ Rotation.from_rotvec(orient).as_matrix() @ SMPL_TO_WORLD.T
    pelvis = posed.bone_heads[0]
    verts = (posed.vertices - pelvis) @ turn.T
    keypoints = (posed.keypoints - pelvis) @ turn.T
    shift = np.array([0.0, 0.0, verts[:, 2].min()])
    return BodyMesh(
        vertices=(verts - shift).astype(np.float32),
        faces=posed.faces,
        uv=posed.uv,
        landmarks=anny_body.landmarks(),
        height_m=posed.height_m,
        keypoints=(keypoints - shift).astype(np.float32),
    )


@dataclass(frozen=True)
class AnnyBody:
    """Anny as a `BodyModel`: people vary by phenotype (`body.phenotypes`), never by betas."""

    name: str = "anny"
    has_keypoints: bool = True

    def phenotype(self, body: BodyConfig, seed: int, person_id: int) -> dict[str, float]:
        return dict(_phenotype(body.phenotypes.model_dump_json(), seed, person_id))

    def rest_joints(self, phenotype: dict[str, float] | None) -> np.ndarray:
        if phenotype is None:
            raise ValueError("the Anny body needs a phenotype (person/phenotypes.draw_phenotype)")
        return _rest(tuple(sorted(phenotype.items()))).tpose_joints

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
        """With `action` the pose is rebuilt on this phenotype's skeleton and `body_pose` is not used."""
        if phenotype is None:
            raise ValueError("the Anny body needs a phenotype (person/phenotypes.draw_phenotype)")
        if betas is not None:
            raise ValueError("the Anny body has no betas: its shape is the phenotype")
        return _posed(body_pose, global_orient, phenotype, action)

    def texture(self, person: PersonConfig, texture_id: int) -> np.ndarray:
        from benchfoundry.person.anny_texture import anny_texture

        return anny_texture(texture_id, person.textures.size)


ANNY = AnnyBody()
