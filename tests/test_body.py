"""The procedural body model: SMPL file layout, loading through smplx, skeleton, skinning, landmarks."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.assets import smpl_skeleton
from benchfoundry.configs.person import BodyConfig
from benchfoundry.person import body_mesh, body_models, procedural_body, smplx_body

MIRROR = np.array([-1.0, 1.0, 1.0])
PAIRS = [
    (i, smpl_skeleton.JOINT_NAMES.index(n.replace("left_", "right_")))
    for i, n in enumerate(smpl_skeleton.JOINT_NAMES)
    if n.startswith("left_")
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("body-cache")


@pytest.fixture(scope="module")
def arrays(cache_dir: Path) -> dict:
    """The written SMPL pickle, read back with plain pickle (no chumpy, no smplx)."""
    path = smplx_body.procedural_model_dir(cache_dir) / "smpl" / "SMPL_NEUTRAL.pkl"
    with open(path, "rb") as fh:
        return pickle.load(fh)


@pytest.fixture(scope="module")
def upright(cache_dir: Path) -> body_mesh.BodyMesh:
    return body_models.posed_body(BodyConfig(model_type="smpl"), builtin_poses.upright_pose(), cache_dir=cache_dir)


def test_pickle_has_smpl_layout_without_chumpy(arrays: dict) -> None:
    assert "chumpy" not in sys.modules
    v = len(arrays["v_template"])
    assert 2000 < v < 10000
    assert arrays["shapedirs"].shape == (v, 3, 10)
    assert arrays["posedirs"].shape == (v, 3, 207)
    assert arrays["J_regressor"].shape == (24, v)
    assert arrays["weights"].shape == (v, 24)
    assert arrays["kintree_table"].shape == (2, 24)
    assert arrays["f"].shape[1] == 3 and arrays["f"].max() == v - 1
    np.testing.assert_allclose(arrays["weights"].sum(1), 1.0, atol=1e-12)
    np.testing.assert_allclose(arrays["J_regressor"].sum(1), 1.0, atol=1e-12)
    assert (arrays["weights"] >= 0).all() and (arrays["J_regressor"] >= 0).all()


def test_loads_through_smplx_and_is_about_175_cm(cache_dir: Path, upright: body_mesh.BodyMesh) -> None:
    import smplx

    model = smplx_body.load_body_model(BodyConfig(model_type="smpl"), cache_dir)
    assert isinstance(model, smplx.SMPL)
    assert 1.70 <= upright.height_m <= 1.80
    # standing upright, the world-frame mesh is as tall as the rest body and stands on z = 0
    assert upright.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-6)
    assert upright.vertices[:, 2].max() == pytest.approx(upright.height_m, abs=0.01)


def test_mesh_is_closed_and_outward(arrays: dict) -> None:
    """Every edge is shared by exactly two faces with opposite orientation; the volume is positive
    and that of an adult (60–100 litres)."""
    faces = arrays["f"].astype(np.int64)
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    directed = {tuple(e) for e in edges.tolist()}
    assert len(directed) == len(edges)  # no directed edge twice: consistent winding
    assert all((b, a) in directed for a, b in directed)  # closed
    tri = arrays["v_template"][faces]
    volume = np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6
    assert 0.06 < volume < 0.10


def test_regressed_joints_sit_inside_their_limbs_and_mirror(arrays: dict) -> None:
    joints = arrays["J_regressor"] @ arrays["v_template"]
    np.testing.assert_allclose(joints, smpl_skeleton.rest_joints() - smpl_skeleton.rest_joints()[0], atol=1e-9)
    for left, right in PAIRS:
        np.testing.assert_allclose(joints[left], joints[right] * MIRROR, atol=1e-9)
        assert joints[left][0] > 0  # the person's left is +X in SMPL's frame
    name = smpl_skeleton.JOINT_NAMES.index
    # leg chain goes down, arm chain goes out, spine goes up
    assert joints[name("left_hip"), 1] > joints[name("left_knee"), 1] > joints[name("left_ankle"), 1]
    assert joints[name("left_shoulder"), 0] < joints[name("left_elbow"), 0] < joints[name("left_wrist"), 0]
    assert (
        joints[0, 1]
        < joints[name("spine1"), 1]
        < joints[name("spine2"), 1]
        < joints[name("neck"), 1]
        < joints[name("head"), 1]
    )
    # every joint lies inside the body (winding number ≥ 1) and near its surface (< 13 cm)
    assert (_winding_numbers(arrays["v_template"], arrays["f"], joints) > 0.99).all()
    dist = np.linalg.norm(arrays["v_template"][None] - joints[:, None], axis=2).min(1)
    assert (dist < 0.13).all()


def _winding_numbers(verts: np.ndarray, faces: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Generalised winding number of each point (sum of signed solid angles / 4π)."""
    tri = verts[faces.astype(np.int64)][None] - points[:, None, None]  # (P,F,3,3)
    a, b, c = tri[..., 0, :], tri[..., 1, :], tri[..., 2, :]
    la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
    num = np.einsum("pfi,pfi->pf", a, np.cross(b, c))
    den = (
        la * lb * lc
        + np.einsum("pfi,pfi->pf", a, b) * lc
        + np.einsum("pfi,pfi->pf", b, c) * la
        + np.einsum("pfi,pfi->pf", c, a) * lb
    )
    return (2 * np.arctan2(num, den)).sum(1) / (4 * np.pi)


def test_shape_directions_change_height_and_keep_the_regressor_consistent(cache_dir: Path) -> None:
    config = BodyConfig(model_type="smpl")
    base = body_models.posed_body(config, np.zeros((23, 3)), cache_dir=cache_dir)
    taller = body_models.posed_body(config, np.zeros((23, 3)), cache_dir=cache_dir, betas=[2.0])
    assert taller.height_m > base.height_m * 1.05
    model = smplx_body.load_body_model(config, cache_dir)
    assert model.num_betas == len(procedural_body.SHAPE_NAMES)


def test_raising_the_right_arm_moves_only_the_right_arm(cache_dir: Path, upright: body_mesh.BodyMesh) -> None:
    pose = builtin_poses.upright_pose()
    pose[smpl_skeleton.JOINT_NAMES.index("right_shoulder") - 1] = (0.0, 0.0, -1.2)  # right arm up
    raised = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache_dir)
    lm = upright.landmarks
    assert raised.vertices[lm["right_wrist"], 2] > upright.vertices[lm["right_wrist"], 2] + 0.5
    for name in ("left_wrist", "left_ankle", "right_ankle", "nose", "left_hip"):
        np.testing.assert_allclose(raised.vertices[lm[name]], upright.vertices[lm[name]], atol=1e-5)


def test_landmarks_are_on_the_correct_side_in_the_world_frame(upright: body_mesh.BodyMesh) -> None:
    """Facing −Y with +Z up, the person's left is +X; the face is on the −Y side."""
    v, lm = upright.vertices, upright.landmarks
    assert set(lm) == set(procedural_body.LANDMARK_NAMES)
    for name, vid in lm.items():
        if name.startswith("left_"):
            assert v[vid, 0] > 0.02, name
            np.testing.assert_allclose(v[lm[name.replace("left_", "right_")]], v[vid] * MIRROR, atol=1e-5)
    assert v[lm["nose"], 1] < v[lm["left_ear"], 1] - 0.05
    assert v[lm["head_top"], 2] == pytest.approx(v[:, 2].max(), abs=1e-6)
    order = ["head_top", "nose", "left_shoulder", "left_hip", "left_knee", "left_ankle"]
    heights = [v[lm[n], 2] for n in order]
    assert heights == sorted(heights, reverse=True)


def test_written_model_is_deterministic_and_reloads_identically(tmp_path: Path, cache_dir: Path) -> None:
    first = procedural_body.smpl_pickle_bytes()
    procedural_body.model_arrays.cache_clear()
    assert procedural_body.smpl_pickle_bytes() == first
    other = tmp_path / "again"
    pose = builtin_poses.action_pose("walking")
    a = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache_dir)
    written = smplx_body.procedural_model_dir(other) / "smpl" / "SMPL_NEUTRAL.pkl"
    assert written.read_bytes() == first
    b = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=other)
    np.testing.assert_array_equal(a.vertices, b.vertices)
    loaded = smplx_body.load_body_model(BodyConfig(model_type="smpl"), other)
    np.testing.assert_array_equal(
        loaded.v_template.numpy(), procedural_body.model_arrays()["v_template"].astype(np.float32)
    )


def test_uvs_are_per_corner_and_in_range(upright: body_mesh.BodyMesh) -> None:
    assert upright.uv is not None
    assert upright.uv.shape == (len(upright.faces), 3, 2)
    assert upright.uv.min() >= 0.0 and upright.uv.max() <= 1.0


def test_body_mesh_file_roundtrip(tmp_path: Path, upright: body_mesh.BodyMesh) -> None:
    path = body_mesh.write_body_mesh(upright, tmp_path / "mesh.npz")
    back = body_mesh.read_body_mesh(path)
    np.testing.assert_array_equal(back.vertices, upright.vertices)
    np.testing.assert_array_equal(back.uv, upright.uv)
    assert back.landmarks == upright.landmarks and back.height_m == upright.height_m


def test_missing_official_model_names_the_file(tmp_path: Path) -> None:
    config = BodyConfig(model_type="smpl", model_path=tmp_path / "models", uv_path=tmp_path / "smpl_uv.obj")
    with pytest.raises(FileNotFoundError, match="SMPL_NEUTRAL.pkl"):
        smplx_body.load_body_model(config, tmp_path)


def test_config_rejects_gendered_procedural_body() -> None:
    with pytest.raises(ValueError, match="model_path"):
        BodyConfig(model_type="smpl", gender="female")


def test_procedural_smplx_layout_loads_and_poses_like_the_smpl_layout(cache_dir: Path) -> None:
    """The SMPL-X-layout file (≥ 9,930 vertices, 55 joints) loads through smplx.SMPLX and, being the
    same surface sampled more finely, poses like the SMPL-layout body."""
    import smplx
    import torch

    config = BodyConfig(model_type="smplx")
    model = smplx_body.load_body_model(config, cache_dir)
    assert isinstance(model, smplx.SMPLX)
    assert model.get_num_verts() >= 9930 and model.J_regressor.shape[0] == 55
    for action in ("upright", "kicking", "cover_face"):
        pose = builtin_poses.upright_pose() if action == "upright" else builtin_poses.action_pose(action)
        x = body_models.posed_body(config, pose, cache_dir=cache_dir)
        s = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache_dir)
        assert x.height_m == pytest.approx(s.height_m, abs=0.005)
        assert x.uv is not None and x.uv.shape == (len(x.faces), 3, 2)
        for name in ("nose", "left_wrist", "right_ankle", "left_knee", "head_top"):
            gap = np.linalg.norm(x.vertices[x.landmarks[name]] - s.vertices[s.landmarks[name]])
            assert gap < 0.03, (action, name, gap)
    # curling the left fingers (hand pose) moves left fingertips only
    rest = model(return_verts=True).vertices[0].detach().numpy()
    curl = torch.zeros(1, 45)
    curl[0, 2::3] = -0.5  # every left finger joint about z: fingers bend down
    bent = model(left_hand_pose=curl).vertices[0].detach().numpy()
    moved = np.linalg.norm(bent - rest, axis=1) > 1e-4
    assert moved.any() and (rest[moved, 0] > 0.6).all()


def test_procedural_smplx_file_is_deterministic() -> None:
    from benchfoundry.person import procedural_body_smplx

    first = procedural_body_smplx.npz_bytes(procedural_body_smplx.model_arrays())
    procedural_body_smplx.model_arrays.cache_clear()
    assert procedural_body_smplx.npz_bytes(procedural_body_smplx.model_arrays()) == first


SMPLX_PARENTS = [
    -1,
    0,
    0,
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    9,
    9,
    12,
    13,
    14,
    16,
    17,
    18,
    19,
    15,
    15,
    15,
    20,
    25,
    26,
    20,
    28,
    29,
    20,
    31,
    32,
    20,
    34,
    35,
    20,
    37,
    38,
    21,
    40,
    41,
    21,
    43,
    44,
    21,
    46,
    47,
    21,
    49,
    50,
    21,
    52,
    53,
]


def _padded(arrays: dict, n_vertices: int) -> dict:
    """The procedural model's smplx arrays with unused vertices (at the pelvis, pelvis-weighted)
    appended: a made-up stand-in for an official file's vertex count."""
    v = len(arrays["v_template"])
    extra = n_vertices - v
    weights = np.concatenate([arrays["weights"], np.zeros((extra, 24))])
    weights[v:, 0] = 1.0
    return {
        "v_template": np.concatenate([arrays["v_template"], np.zeros((extra, 3))]),
        "shapedirs": np.concatenate([arrays["shapedirs"], np.zeros((extra, 3, 10))]),
        "posedirs": np.zeros((n_vertices, 3, 207)),
        "J_regressor": np.concatenate([arrays["J_regressor"], np.zeros((24, extra))], axis=1),
        "weights": weights,
        "kintree_table": arrays["kintree_table"],
        "f": arrays["f"].astype(np.uint32),
    }


def _write_obj_uv(path: Path, arrays: dict) -> None:
    lines = [f"v {x} {y} {z}" for x, y, z in arrays["v_template"]]
    lines += [f"vt {u!r} {v!r}" for u, v in arrays["vt"]]
    lines += ["f " + " ".join(f"{a + 1}/{t + 1}" for a, t in zip(f, ft)) for f, ft in zip(arrays["f"], arrays["ft"])]
    path.write_text("\n".join(lines) + "\n")


def test_official_smpl_layout_files_go_through_the_same_path(tmp_path: Path, arrays: dict, cache_dir: Path) -> None:
    """A made-up SMPL file (6890 vertices, plain arrays, no extras) in smplx's folder layout, with a
    UV .obj: posed like the procedural body, with UVs from the .obj and landmarks from its regressor."""
    folder = tmp_path / "models" / "smpl"
    folder.mkdir(parents=True)
    with open(folder / "SMPL_MALE.pkl", "wb") as fh:
        pickle.dump(_padded(arrays, 6890), fh)
    _write_obj_uv(tmp_path / "smpl_uv.obj", arrays)
    config = BodyConfig(
        model_type="smpl", model_path=tmp_path / "models", gender="male", uv_path=tmp_path / "smpl_uv.obj"
    )
    pose = builtin_poses.action_pose("kicking")
    official = body_models.posed_body(config, pose, cache_dir=cache_dir)
    procedural = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache_dir)
    n = len(arrays["v_template"])
    np.testing.assert_allclose(official.vertices[:n], procedural.vertices, atol=1e-5)
    np.testing.assert_allclose(official.uv, procedural.uv, atol=1e-6)
    assert official.height_m == pytest.approx(procedural.height_m, abs=1e-6)
    joints = arrays["J_regressor"] @ arrays["v_template"]
    rest = arrays["v_template"]
    for name, joint in (("left_knee", 4), ("right_wrist", 21), ("left_shoulder", 16)):
        assert np.linalg.norm(rest[official.landmarks[name]] - joints[joint]) < 0.1


def test_official_smplx_layout_file_uses_its_21_body_joints(tmp_path: Path, arrays: dict, cache_dir: Path) -> None:
    """A made-up SMPL-X .npz (10,475 vertices, 55 joints) loads through smplx.SMPLX and poses like
    the procedural SMPL body: SMPL-X's body_pose is SMPL's first 21 joints."""
    import smplx

    base = _padded(arrays, 10475)
    to_smplx = {22: 25, 23: 40}  # SMPL hand joints → SMPL-X first index-finger joints
    weights = np.zeros((10475, 55))
    regressor = np.zeros((55, 10475))
    for j in range(24):
        weights[:, to_smplx.get(j, j)] = base["weights"][:, j]
        regressor[to_smplx.get(j, j)] = base["J_regressor"][j]
    for j in range(22, 55):
        if not regressor[j].any():
            regressor[j] = regressor[SMPLX_PARENTS[j]]
    np.savez(
        tmp_path / "SMPLX_NEUTRAL.npz",
        v_template=base["v_template"],
        f=base["f"],
        weights=weights,
        J_regressor=regressor,
        kintree_table=np.stack([SMPLX_PARENTS, np.arange(55)]),
        shapedirs=np.concatenate([base["shapedirs"], np.zeros((10475, 3, 10))], axis=2),
        posedirs=np.zeros((10475, 3, 486)),
        hands_componentsl=np.eye(45),
        hands_componentsr=np.eye(45),
        hands_meanl=np.zeros(45),
        hands_meanr=np.zeros(45),
        lmk_faces_idx=np.zeros(51, np.int64),
        lmk_bary_coords=np.tile([1.0, 0.0, 0.0], (51, 1)),
    )
    _write_obj_uv(tmp_path / "smplx_uv.obj", arrays)
    config = BodyConfig(model_path=tmp_path, model_type="smplx", uv_path=tmp_path / "smplx_uv.obj")
    assert isinstance(smplx_body.load_body_model(config, cache_dir), smplx.SMPLX)
    pose = builtin_poses.action_pose("guard_up")
    got = body_models.posed_body(config, pose, cache_dir=cache_dir)
    want = body_models.posed_body(BodyConfig(model_type="smpl"), pose, cache_dir=cache_dir)
    np.testing.assert_allclose(got.vertices[: len(arrays["v_template"])], want.vertices, atol=1e-5)
    np.testing.assert_allclose(got.uv, want.uv, atol=1e-6)
    assert set(got.landmarks) == set(procedural_body.LANDMARK_NAMES)


@pytest.mark.parametrize(
    "name, gender",
    [("basicmodel_neutral_lbs_10_207_0_v1.1.0.pkl", "neutral"), ("basicModel_f_lbs_10_207_0_v1.0.0.pkl", "female")],
)
def test_official_smpl_file_names_load_as_smpl(
    tmp_path: Path, arrays: dict, cache_dir: Path, name: str, gender: str
) -> None:
    """Official SMPL names do not start with "SMPL": the type comes from body.model_type, not the name."""
    import smplx

    with open(tmp_path / name, "wb") as fh:
        pickle.dump(_padded(arrays, 6890), fh)
    _write_obj_uv(tmp_path / "smpl_uv.obj", arrays)
    config = BodyConfig(model_type="smpl", model_path=tmp_path / name, gender=gender, uv_path=tmp_path / "smpl_uv.obj")
    assert isinstance(smplx_body.load_body_model(config, cache_dir), smplx.SMPL)
    got = body_models.posed_body(config, builtin_poses.action_pose("walking"), cache_dir=cache_dir)
    want = body_models.posed_body(
        BodyConfig(model_type="smpl"), builtin_poses.action_pose("walking"), cache_dir=cache_dir
    )
    np.testing.assert_allclose(got.vertices[: len(arrays["v_template"])], want.vertices, atol=1e-5)


def test_smplx_type_wins_over_an_smpl_looking_name(tmp_path: Path, cache_dir: Path) -> None:
    """An SMPL-X .npz named SMPL_* loads as SMPL-X when body.model_type says so."""
    import smplx

    from benchfoundry.person import procedural_body_smplx

    path = procedural_body_smplx.write_smplx_npz(tmp_path / "SMPL_renamed.npz")
    with np.load(path) as npz:
        _write_obj_uv(tmp_path / "uv.obj", {k: npz[k] for k in ("v_template", "vt", "f", "ft")})
    config = BodyConfig(model_path=path, model_type="smplx", uv_path=tmp_path / "uv.obj")
    model = smplx_body.load_body_model(config, cache_dir)
    assert isinstance(model, smplx.SMPLX) and model.J_regressor.shape[0] == 55


def _fake_chumpy_pickle(monkeypatch: pytest.MonkeyPatch, data: dict, wrap: tuple[str, ...]) -> bytes:
    """`data` pickled with `wrap` keys as leaf Ch objects of a stand-in module `chumpy.ch` (array in
    `__dict__['x']`, as chumpy stores it) and `J` as a Ch expression storing no array; the stand-in
    module is gone again when this returns."""
    import types

    module = types.ModuleType("chumpy.ch")

    class Ch:
        def __init__(self, x: np.ndarray | None) -> None:
            if x is not None:
                self.x = x
            self._dirty_vars: set = set()

    Ch.__module__, Ch.__qualname__ = "chumpy.ch", "Ch"
    module.Ch = Ch  # type: ignore[attr-defined]
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "chumpy", types.ModuleType("chumpy"))
        m.setitem(sys.modules, "chumpy.ch", module)
        wrapped = {k: Ch(v) if k in wrap else v for k, v in data.items()} | {"J": Ch(None)}
        raw = pickle.dumps(wrapped, protocol=2)
    assert b"chumpy.ch" in raw
    return raw


def test_chumpy_arrays_are_read_without_chumpy(
    tmp_path: Path, arrays: dict, monkeypatch: pytest.MonkeyPatch, cache_dir: Path
) -> None:
    plain = _padded(arrays, 6890)
    chumpy_keys = ("v_template", "shapedirs", "posedirs", "weights")
    path = tmp_path / "basicmodel_m_lbs_10_207_0_v1.1.0.pkl"
    path.write_bytes(_fake_chumpy_pickle(monkeypatch, plain, chumpy_keys))
    assert "chumpy" not in sys.modules
    data = smplx_body.read_smpl_pickle(path)
    assert set(data) == set(plain)  # the array-less expression J is dropped
    for key, value in plain.items():
        np.testing.assert_array_equal(data[key], value)
    _write_obj_uv(tmp_path / "smpl_uv.obj", arrays)
    config = BodyConfig(model_type="smpl", model_path=path, gender="male", uv_path=tmp_path / "smpl_uv.obj")
    got = body_models.posed_body(config, builtin_poses.upright_pose(), cache_dir=cache_dir)
    want = body_models.posed_body(BodyConfig(model_type="smpl"), builtin_poses.upright_pose(), cache_dir=cache_dir)
    np.testing.assert_allclose(got.vertices[: len(arrays["v_template"])], want.vertices, atol=1e-5)
    assert "chumpy" not in sys.modules


def test_chumpy_expression_in_a_needed_key_names_file_and_key(
    tmp_path: Path, arrays: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _padded(arrays, 6890)
    plain.pop("posedirs")
    path = tmp_path / "basicModel_f.pkl"
    path.write_bytes(_fake_chumpy_pickle(monkeypatch, plain, ("v_template",)))
    with pytest.raises(ValueError, match=r"basicModel_f\.pkl.*posedirs"):
        smplx_body.read_smpl_pickle(path)
    config = BodyConfig(model_type="smpl", model_path=path, gender="female", uv_path=tmp_path / "uv.obj")
    with pytest.raises(RuntimeError, match=r"basicModel_f\.pkl.*posedirs"):
        smplx_body.load_body_model(config, tmp_path)


def test_uv_obj_with_other_face_vertices_is_rejected(tmp_path: Path, arrays: dict) -> None:
    path = tmp_path / "uv.obj"
    _write_obj_uv(path, arrays)
    np.testing.assert_array_equal(
        smplx_body.read_obj_uv(path, arrays["f"]), arrays["vt"][arrays["ft"]].astype(np.float32)
    )
    other = dict(arrays, f=arrays["f"].copy())
    other["f"][7] = other["f"][7, ::-1]  # same count, one face wound the other way
    _write_obj_uv(path, other)
    with pytest.raises(ValueError, match=r"body\.uv_path .*uv\.obj: 1 face\(s\) differ.*face 7"):
        smplx_body.read_obj_uv(path, arrays["f"])


def test_official_model_needs_uv_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"body\.model_path .*body\.uv_path"):
        BodyConfig(model_type="smpl", model_path=tmp_path)


def test_a_model_pickle_cannot_call_arbitrary_functions(tmp_path: Path) -> None:
    """The chumpy-free unpickler allows numpy, scipy.sparse and plain containers only."""

    class Payload:
        def __reduce__(self):
            return (print, ("a crafted model file ran code",))

    path = tmp_path / "SMPL_NEUTRAL.pkl"
    path.write_bytes(pickle.dumps({"v_template": Payload()}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match=r"does not reference (__builtin__|builtins)\.print"):
        smplx_body.read_smpl_pickle(path)
