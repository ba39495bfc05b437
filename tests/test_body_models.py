"""The body model registry: `person.body.model_type` picks one `BodyModel`, whose posed meshes keep the interface's
properties, and a body model registered elsewhere is posed and textured by `prepare_person` unchanged."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.configs.person import BodyConfig, PersonConfig
from benchfoundry.person import body_models
from benchfoundry.person.anny_model import ANNY
from benchfoundry.person.body_mesh import COCO_KEYPOINTS, BodyMesh, read_body_mesh
from benchfoundry.person.prepare import has_keypoints, phenotype_of, prepare_person, texture_file_name
from benchfoundry.person.smplx_body import SMPL, SMPLX
from benchfoundry.person.textures import read_texture_png

MODEL_TYPES = typing.get_args(BodyConfig.model_fields["model_type"].annotation)


def test_every_configurable_model_type_has_one_registered_body_model() -> None:
    assert set(body_models.BODY_MODELS) == set(MODEL_TYPES)
    picked = {t: body_models.body_model_of(BodyConfig(model_type=t)) for t in MODEL_TYPES}
    assert picked == {"anny": ANNY, "smpl": SMPL, "smplx": SMPLX}
    assert all(model.name == t for t, model in picked.items())


def test_an_unregistered_model_type_is_refused_by_name() -> None:
    config = BodyConfig().model_copy(update={"model_type": "nobody"})
    with pytest.raises(ValueError, match="model_type 'nobody'"):
        body_models.body_model_of(config)


@pytest.mark.parametrize("model_type", MODEL_TYPES)
def test_each_body_model_poses_a_mesh_with_the_interfaces_properties(model_type: str, tmp_path: Path) -> None:
    person = PersonConfig(body=BodyConfig(model_type=model_type))
    model = body_models.body_model_of(person.body)
    phenotype = phenotype_of(person, 7, 0)
    assert (phenotype is None) == (model_type != "anny")
    mesh = body_models.posed_body(
        person.body, builtin_poses.upright_pose(), cache_dir=tmp_path, phenotype=phenotype, action="upright"
    )
    faces = mesh.faces
    assert mesh.vertices.dtype == np.float32 and mesh.vertices.shape[1] == 3
    assert faces.dtype == np.int32 and faces.min() == 0 and faces.max() == len(mesh.vertices) - 1
    assert mesh.uv is not None and mesh.uv.shape == (len(faces), 3, 2) and 0 <= mesh.uv.min() <= mesh.uv.max() <= 1
    assert mesh.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-6)  # feet on z = 0
    assert abs(float(np.ptp(mesh.vertices[:, 2])) - mesh.height_m) < 0.1  # standing: about its rest height
    assert set(COCO_KEYPOINTS) <= set(mesh.landmarks)
    assert has_keypoints(person) == model.has_keypoints == (mesh.keypoints is not None)
    if mesh.keypoints is not None:
        near = mesh.vertices[[mesh.landmarks[n] for n in COCO_KEYPOINTS]]
        assert mesh.keypoints.shape == (17, 3)
        assert np.linalg.norm(mesh.keypoints - near, axis=1).max() < 0.15  # each keypoint by its landmark vertex
    rest = model.rest_joints(phenotype)
    assert rest.shape == (24, 3) and rest[15, 1] > rest[0, 1]  # SMPL's frame: the head above the pelvis (+Y up)
    assert texture_file_name(person, 3).endswith(f"_{model_type}.png")


class ToyBody:
    """A body model the project does not know: a tetrahedron, sized by its phenotype, every keypoint at its top."""

    name = "toy"
    has_keypoints = True

    def __init__(self) -> None:
        self.posed: list[tuple[str | None, dict[str, float] | None]] = []

    def phenotype(self, body: BodyConfig, seed: int, person_id: int) -> dict[str, float]:
        return {"size": 1.0 + person_id}

    def rest_joints(self, phenotype: dict[str, float] | None) -> np.ndarray:
        return np.zeros((24, 3))

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
        self.posed.append((action, phenotype))
        size = 1.0 if phenotype is None else phenotype["size"]
        vertices = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], dtype=np.float32) * size
        return BodyMesh(
            vertices=vertices,
            faces=np.array([(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)], dtype=np.int32),
            uv=np.zeros((4, 3, 2), dtype=np.float32),
            landmarks={"head_top": 3},
            height_m=size,
            keypoints=np.repeat(vertices[3:], 17, axis=0),
        )

    def texture(self, person: PersonConfig, texture_id: int) -> np.ndarray:
        return np.full((4, 4, 3), texture_id, dtype=np.uint8)


def test_a_body_model_registered_in_a_test_is_what_prepare_person_poses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    toy = ToyBody()
    monkeypatch.setitem(body_models.BODY_MODELS, "toy", toy)
    person = PersonConfig().model_copy(update={"body": BodyConfig().model_copy(update={"model_type": "toy"})})
    files = prepare_person(person, 5, 2, "toy_walk", builtin_poses.action_pose("walking"), "walking", tmp_path)
    assert toy.posed == [("walking", {"size": 3.0})]
    mesh = read_body_mesh(files.mesh_npz)
    np.testing.assert_array_equal(mesh.vertices.max(0), [3.0, 3.0, 3.0])
    assert files.texture_png.name.endswith("_toy.png") and files.texture_png.name.startswith("texture_00002_")
    assert read_texture_png(files.texture_png).max() == 2
    coco = json.loads(files.mesh_npz.with_name(f"{files.mesh_npz.stem}_coco.json").read_text())
    assert coco["keypoints"]["nose"] == [0.0, 0.0, 3.0]
