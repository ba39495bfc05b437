"""The one way every benchmark prepares its person for the render worker: pose, mesh file, texture file.

A person is a texture id of `person.textures.ids`: with Anny also a phenotype drawn with the build seed
(person/phenotypes.py). `prepare_person` poses that person's body, writes the mesh (`<name>_<mesh sha>.npz`,
with COCO keypoints beside it in `<mesh>_coco.json` when the body model has them) and the texture into the caller's
cache folder, each once: the mesh is named by its content, the texture by `texture_file_name` (the id, the
texture settings other than the id list, the embedded textures' version, the body model's name).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.store import spec_hash
from benchfoundry.person.body_mesh import COCO_KEYPOINTS, BodyMesh, write_body_mesh
from benchfoundry.person.body_models import body_model_of, posed_body
from benchfoundry.person.textures import texture_settings


@dataclass(frozen=True)
class PersonFiles:
    """A prepared person: the files the worker loads, and the posed body they hold."""

    mesh_npz: Path
    texture_png: Path
    mesh_sha: str
    body: BodyMesh

    @property
    def vertices_min(self) -> tuple[float, float, float]:
        return tuple(self.body.vertices.astype(float).min(0))

    @property
    def vertices_max(self) -> tuple[float, float, float]:
        return tuple(self.body.vertices.astype(float).max(0))

    @property
    def aim(self) -> np.ndarray:
        """The centre of the posed mesh's bounding box (where a rig camera aims)."""
        return (np.array(self.vertices_min) + np.array(self.vertices_max)) / 2


def phenotype_of(person: PersonConfig, seed: int, texture_id: int) -> dict[str, float] | None:
    """The phenotype of person `texture_id` (a texture id names one person; None for body models without one)."""
    return body_model_of(person.body).phenotype(person.body, seed, texture_id)


def has_keypoints(person: PersonConfig) -> bool:
    """Whether the person's posed meshes carry COCO's 17 keypoints."""
    return body_model_of(person.body).has_keypoints


def rest_joints_of(person: PersonConfig, seed: int, texture_id: int) -> np.ndarray:
    """(24,3) joints (SMPL's layout and canonical frame) of the skeleton built-in actions are built on for person
    `texture_id` (assets/poses.action_pose's `rest`)."""
    return body_model_of(person.body).rest_joints(phenotype_of(person, seed, texture_id))


def person_body(
    person: PersonConfig, seed: int, texture_id: int, body_pose: np.ndarray, action: str | None, cache: Path
) -> BodyMesh:
    """The posed body of person `texture_id`; `action` (a built-in action or UPRIGHT) is rebuilt on Anny's own
    skeleton, `body_pose` ((23,3) SMPL axis-angle) is used otherwise. Procedural models live in `cache/model`."""
    phenotype = phenotype_of(person, seed, texture_id)
    return posed_body(person.body, body_pose, cache_dir=cache / "model", phenotype=phenotype, action=action)


def person_texture(person: PersonConfig, texture_id: int) -> np.ndarray:
    """Texture `texture_id` on the body's UV layout (the body model paints it)."""
    return body_model_of(person.body).texture(person, texture_id)


def texture_file_name(person: PersonConfig, texture_id: int) -> str:
    """The texture's cache key: its id, the texture settings but the id list with the embedded textures' version,
    the body model's name."""
    settings = spec_hash(texture_settings(person.textures))
    return f"texture_{texture_id:05d}_{settings}_{body_model_of(person.body).name}.png"


def texture_file(person: PersonConfig, texture_id: int, cache: Path) -> Path:
    """Texture `texture_id` as a PNG in `cache`, written once."""
    path = Path(cache) / texture_file_name(person, texture_id)
    if not path.exists():
        from PIL import Image

        with atomic_path(path) as tmp:
            Image.fromarray(person_texture(person, texture_id)).save(tmp, format="PNG")
    return path


def prepare_person(
    person: PersonConfig, seed: int, texture_id: int, name: str, body_pose: np.ndarray, action: str | None, cache: Path
) -> PersonFiles:
    """Pose person `texture_id` and write their mesh (named `name` and its content) and texture into `cache`."""
    cache = Path(cache)
    body = person_body(person, seed, texture_id, body_pose, action, cache)
    mesh_sha = hashlib.sha256(body.vertices.tobytes() + body.faces.tobytes()).hexdigest()[:16]
    mesh_npz = cache / f"{name}_{mesh_sha}.npz"
    if not mesh_npz.exists():
        write_body_mesh(body, mesh_npz)
    coco = mesh_npz.with_name(f"{mesh_npz.stem}_coco.json")
    if body.keypoints is not None and not coco.exists():
        write_json_atomic(
            coco,
            {
                "frame": "world: metres, +Z up, feet on z = 0, facing -Y",
                "keypoints": {n: [float(x) for x in k] for n, k in zip(COCO_KEYPOINTS, body.keypoints)},
            },
        )
    return PersonFiles(mesh_npz, texture_file(person, texture_id, cache), mesh_sha, body)
