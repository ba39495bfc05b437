"""The Anny body: free model only (no network), phenotypes per person, actions on its rig, SMPL poses through
the joint correspondence, COCO keypoints beside the mesh, clothing on its UV layout."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.assets.smpl_skeleton import PARENTS
from benchfoundry.configs.loader import load_config
from benchfoundry.configs.person import BodyConfig, PhenotypeRanges
from benchfoundry.person import anny_body, body_mesh, body_models
from benchfoundry.person.phenotypes import draw_phenotype

K = {name: i for i, name in enumerate(body_mesh.COCO_KEYPOINTS)}
PERSON = {"gender": 0.0, "age": 0.7, "muscle": 0.5, "weight": 0.5, "height": 0.4, "proportions": 0.5}


def posed(action: str, phenotype: dict[str, float] = PERSON) -> body_mesh.BodyMesh:
    return body_models.posed_body(
        BodyConfig(), builtin_poses.upright_pose(), cache_dir=Path("/nonexistent"), phenotype=phenotype, action=action
    )


def test_anny_is_the_default_and_builds_and_poses_with_the_network_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    import anny.paths

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(anny.paths, "download_noncommercial_data", refuse)
    anny_body.load_model.cache_clear()
    assert BodyConfig().model_type == "anny"
    mesh = posed("walking")
    assert len(mesh.vertices) >= 10_000 and mesh.faces.max() < len(mesh.vertices)
    assert mesh.uv is not None and mesh.uv.shape == (len(mesh.faces), 3, 2)
    assert mesh.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-6)


def test_anny_refuses_smpl_only_settings() -> None:
    with pytest.raises(ValueError, match="anny takes no model_path"):
        BodyConfig(betas=[1.0])
    with pytest.raises(ValueError, match="phenotype"):
        body_models.posed_body(BodyConfig(), builtin_poses.upright_pose(), cache_dir=Path("/nonexistent"))


def test_people_vary_by_id_and_stand_within_the_configured_heights() -> None:
    ranges = PhenotypeRanges()
    people = [draw_phenotype(ranges, 0, i) for i in range(6)]
    assert draw_phenotype(ranges, 0, 3) == people[3]
    assert draw_phenotype(ranges, 1, 3) != people[3]
    assert {p["gender"] for p in people} == {0.0, 1.0}
    heights = anny_body.rest_heights(people)  # measured on each rest mesh
    assert np.all((heights > 1.55 - 0.005) & (heights < 1.95 + 0.005)), heights
    assert np.ptp(heights) > 0.05
    exact = draw_phenotype(PhenotypeRanges(height_m=(1.62, 1.62)), 0, 0)
    mesh = posed("upright", exact)
    assert mesh.height_m == pytest.approx(1.62, abs=0.003)
    assert np.ptp(mesh.vertices[:, 2]) == pytest.approx(1.62, abs=0.04)  # upright straightens the A-pose a little


def test_phenotype_ranges_are_checked() -> None:
    with pytest.raises(ValueError, match="body.phenotypes.age"):
        PhenotypeRanges(age=(0.9, 0.2))
    with pytest.raises(ValueError, match="body.phenotypes.height_m"):
        PhenotypeRanges(height_m=(0.5, 1.8))


@pytest.fixture(scope="module")
def actions() -> dict[str, np.ndarray]:
    names = ("upright", "kicking", "sneak", "stepping_over", "walking", "cover_face", "choking", "dodging", "guard_up")
    return {a: posed(a).keypoints.astype(np.float64) for a in names}


def test_kicking_lifts_one_foot_forward_above_knee_height(actions: dict[str, np.ndarray]) -> None:
    k = actions["kicking"]
    lifted = max(("left", "right"), key=lambda s: k[K[f"{s}_ankle"], 2])
    other = "left" if lifted == "right" else "right"
    ankle, hip = k[K[f"{lifted}_ankle"]], k[K[f"{lifted}_hip"]]
    assert ankle[2] > k[K[f"{other}_knee"], 2]  # above the standing leg's knee
    assert ankle[1] < hip[1] - 0.3  # forward: the person faces −Y


def test_cover_face_brings_both_hands_within_a_head_width_of_the_face(actions: dict[str, np.ndarray]) -> None:
    k = actions["cover_face"]
    head_width = np.linalg.norm(k[K["left_ear"]] - k[K["right_ear"]])
    face = k[[K["nose"], K["left_eye"], K["right_eye"]]].mean(0)
    for side in ("left", "right"):
        assert np.linalg.norm(k[K[f"{side}_wrist"]] - face) < head_width, side
    far = actions["upright"]
    assert np.linalg.norm(far[K["left_wrist"]] - far[[K["nose"]]].mean(0)) > 3 * head_width


def test_walking_has_feet_apart_along_the_facing_direction(actions: dict[str, np.ndarray]) -> None:
    k = actions["walking"]
    gap = k[K["left_ankle"]] - k[K["right_ankle"]]
    assert abs(gap[1]) > 0.3 and abs(gap[1]) > abs(gap[0])  # stride longer than the hips are wide
    upright = actions["upright"]
    assert abs(upright[K["left_ankle"], 1] - upright[K["right_ankle"], 1]) < 0.05


def test_the_other_actions_read_as_their_names(actions: dict[str, np.ndarray]) -> None:
    up, nose = actions["upright"], K["nose"]
    head_width = np.linalg.norm(up[K["left_ear"]] - up[K["right_ear"]])
    assert actions["sneak"][nose, 2] < up[nose, 2] - 0.1  # crouched
    step = actions["stepping_over"]
    assert max(step[K["left_knee"], 2], step[K["right_knee"], 2]) > up[K["left_knee"], 2] + 0.2  # a knee raised
    choke = actions["choking"]
    throat = (choke[nose] + choke[[K["left_shoulder"], K["right_shoulder"]]].mean(0)) / 2
    assert all(np.linalg.norm(choke[K[f"{s}_wrist"]] - throat) < head_width for s in ("left", "right"))
    dodge = actions["dodging"]
    assert abs(dodge[nose, 0] - dodge[[K["left_hip"], K["right_hip"]]].mean(0)[0]) > 0.1  # leaning aside
    guard = actions["guard_up"]
    for s in ("left", "right"):  # fists up before the face, in front of the shoulders
        assert guard[K[f"{s}_wrist"], 2] > guard[K[f"{s}_shoulder"], 2]
        assert guard[K[f"{s}_wrist"], 1] < guard[K[f"{s}_shoulder"], 1] - 0.1
    assert np.all(up[[K["left_wrist"], K["right_wrist"]], 2] < up[[K["left_hip"], K["right_hip"]], 2].mean() + 0.1)


def test_smpl_poses_drive_anny_with_the_same_bone_directions(tmp_path: Path) -> None:
    """The SMPL-layout fixture (through smplx) and Anny, posed with the same random rotations, point every
    bone between two mapped joints the same way."""
    from benchfoundry.person.body_mesh import SMPL_TO_WORLD
    from benchfoundry.person.smplx_body import _run, load_body_model

    config = BodyConfig(model_type="smpl")
    model = load_body_model(config, tmp_path)
    rng = np.random.default_rng(7)
    rest = anny_body.rest_body(PERSON)
    labels = list(anny_body.load_model()[0].bone_labels)
    worst = 0.0
    for _ in range(3):
        pose = rng.uniform(-0.6, 0.6, (23, 3))
        _, joints = _run(model, "smpl", pose, np.zeros(3), np.zeros(model.num_betas))
        smpl = joints[:24] @ SMPL_TO_WORLD.T
        heads = anny_body.pose_anny(pose, rest, PERSON).bone_heads
        for j in range(1, 24):
            child = next((c for c in range(24) if PARENTS[c] == j), None)
            if child is None or j == 9 and child != 12 or child in (22, 23):
                continue
            a = heads[labels.index(anny_body.JOINT_BONE[child])] - heads[labels.index(anny_body.JOINT_BONE[j])]
            s = smpl[child] - smpl[j]
            cos = np.dot(a, s) / np.linalg.norm(a) / np.linalg.norm(s)
            worst = max(worst, float(np.degrees(np.arccos(np.clip(cos, -1, 1)))))
    assert worst < 0.01, worst  # degrees; 7e-5 measured


def test_global_orientation_turns_anny_about_the_vertical() -> None:
    turned = body_models.posed_body(
        BodyConfig(),
        builtin_poses.upright_pose(),
        cache_dir=Path("/nonexistent"),
        phenotype=PERSON,
        action="upright",
        global_orient=np.array([0.0, np.pi / 2, 0.0]),
    )
    nose = turned.keypoints[K["nose"]]
    assert nose[0] > 0.08 and abs(nose[1]) < 0.05  # facing −Y turned +90° about up (counter-clockwise): now +X


def test_keypoints_are_saved_beside_the_mesh_in_the_world_frame(tmp_path: Path) -> None:
    from benchfoundry.person.prepare import prepare_person

    config = load_config(None, [f"output_root={tmp_path}"])
    person = prepare_person(config.person, config.seed, 0, "upright", builtin_poses.upright_pose(), "upright", tmp_path)
    saved = json.loads(person.mesh_npz.with_name(f"{person.mesh_npz.stem}_coco.json").read_text())["keypoints"]
    assert sorted(saved) == sorted(body_mesh.COCO_KEYPOINTS)
    mesh = body_mesh.read_body_mesh(person.mesh_npz)
    assert np.allclose(mesh.keypoints, np.array([saved[n] for n in body_mesh.COCO_KEYPOINTS]), atol=1e-6)
    lo, hi = mesh.vertices.min(0), mesh.vertices.max(0)
    kp = mesh.keypoints
    assert np.all((kp >= lo - 1e-6) & (kp <= hi + 1e-6))
    assert kp[K["nose"], 2] > 0.85 * hi[2] and kp[K["left_ankle"], 2] < 0.12 * hi[2]
    assert all(kp[K[f"left_{p}"], 0] > 0 > kp[K[f"right_{p}"], 0] for p in ("shoulder", "wrist", "hip", "ankle"))
    assert kp[K["nose"], 1] < kp[K["left_ear"], 1]  # the face is towards −Y


def test_clothing_on_annys_uv_layout_paints_shoes_on_the_feet_and_skin_on_the_face(tmp_path: Path) -> None:
    from benchfoundry.person.anny_texture import anny_texture
    from benchfoundry.person.textures import outfit

    size = 256
    mesh = posed("upright")
    centre = mesh.vertices[mesh.faces].mean(1)
    for texture_id in (0, 1):
        image = anny_texture(texture_id, size).astype(np.float64) / 255
        assert np.array_equal(anny_texture(texture_id, size), (image * 255).round().astype(np.uint8))
        look = outfit(texture_id)

        def sampled(faces: np.ndarray) -> np.ndarray:
            uv = mesh.uv[faces].mean(1)
            col = np.clip((uv[:, 0] * size).astype(int), 0, size - 1)
            row = np.clip(((1 - uv[:, 1]) * size).astype(int), 0, size - 1)
            return np.median(image[row, col], axis=0)

        soles = np.flatnonzero(centre[:, 2] < 0.03)
        cheeks = np.flatnonzero(
            np.linalg.norm(centre - (mesh.keypoints[K["nose"]] + [0.035, 0.01, -0.02]), axis=1) < 0.02
        )
        assert len(soles) > 20 and len(cheeks) > 5
        assert np.abs(sampled(soles) - look["shoes"]).max() < 0.08
        assert np.abs(sampled(cheeks) - look["skin"]).max() < 0.08


def test_smplitex_textures_still_need_an_official_smpl() -> None:
    from benchfoundry.configs.person import TextureConfig, check_person

    with pytest.raises(ValueError, match="needs body.model_path"):
        check_person(BodyConfig(), TextureConfig(smplitex_dir=Path("/data/smplitex")))


def test_a_person_is_the_same_mesh_whatever_the_torch_thread_count(tmp_path: Path) -> None:
    """A Dask worker runs torch on one thread, a local build on all cores: both must pose the same bytes."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        "torch.set_num_threads(int(sys.argv[1]))\n"
        "from pathlib import Path\n"
        "from benchfoundry.assets.poses import upright_pose\n"
        "from benchfoundry.configs.person import PersonConfig\n"
        "from benchfoundry.person.prepare import prepare_person\n"
        "files = prepare_person(PersonConfig(), 0, 3, 'upright', upright_pose(), 'upright', Path(sys.argv[2]))\n"
        "print(files.mesh_sha)\n"
    )
    shas = {
        threads: subprocess.run(
            [sys.executable, "-c", code, str(threads), str(tmp_path / str(threads))],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()[-1]
        for threads in (1, 2)
    }
    assert shas[1] == shas[2]
