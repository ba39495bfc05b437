"""Person textures: procedural clothing on the body's UV atlas, SMPLitex PNG loading."""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.assets import smpl_skeleton
from benchfoundry.configs.person import TextureConfig
from benchfoundry.person import procedural_body
from benchfoundry.person.textures import load_texture, procedural_texture


def test_deterministic_per_id_and_different_between_ids() -> None:
    first = procedural_texture(3, 64)
    assert first.shape == (64, 64, 3) and first.dtype == np.uint8
    np.testing.assert_array_equal(first, procedural_texture(3, 64))
    textures = [procedural_texture(i, 64) for i in range(6)]
    for a, b in itertools.combinations(range(6), 2):
        assert np.abs(textures[a].astype(int) - textures[b].astype(int)).mean() > 5, (a, b)


def _sample(texture: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Nearest texel at UVs (OBJ convention: v = 0 is the bottom row)."""
    size = texture.shape[0]
    cols = np.clip((uv[..., 0] * size).astype(int), 0, size - 1)
    rows = np.clip(((1.0 - uv[..., 1]) * size).astype(int), 0, size - 1)
    return texture[rows, cols].astype(np.float64)


def test_every_face_maps_inside_one_island() -> None:
    arrays = procedural_body.model_arrays()
    uv = arrays["vt"][arrays["ft"]]  # (F,3,2)
    part = procedural_body.build_geometry().part_of_vertex[arrays["f"][:, 0]]
    for k, name in enumerate(procedural_body.PARTS):
        u0, v0, u1, v1 = procedural_body.UV_ISLANDS[name]
        corners = uv[part == k].reshape(-1, 2)
        assert ((corners[:, 0] >= u0) & (corners[:, 0] <= u1) & (corners[:, 1] >= v0) & (corners[:, 1] <= v1)).all(), (
            name
        )


def test_painted_regions_land_on_the_right_body_parts() -> None:
    """Sampled through the body's own UVs: hands and neck show the same skin, feet show shoes
    that differ from skin, and the thighs show trousers that differ from the chest's shirt."""
    arrays = procedural_body.model_arrays()
    geo = procedural_body.build_geometry()
    uv = arrays["vt"][arrays["ft"]].mean(1)
    part = np.array(procedural_body.PARTS)[geo.part_of_vertex[arrays["f"][:, 0]]]
    height = geo.vertices[arrays["f"][:, 0], 1] + smpl_skeleton.rest_joints()[0][1]
    for texture_id in range(4):
        tex = procedural_texture(texture_id, 256)

        def colour(mask: np.ndarray) -> np.ndarray:
            return np.median(_sample(tex, uv[mask]), axis=0)

        hands, neck = colour(part == "left_hand"), colour(part == "neck")
        shoes = colour(part == "left_foot")
        assert np.abs(hands - neck).max() < 12
        assert np.abs(shoes - hands).max() > 12
        thigh = colour((part == "left_leg") & (height > 0.65) & (height < 0.8))
        chest = colour((part == "torso") & (height > 1.2) & (height < 1.35))
        assert np.abs(thigh - chest).max() > 3


def test_load_texture_procedural_by_default() -> None:
    config = TextureConfig(size=32)
    np.testing.assert_array_equal(load_texture(config, 2), procedural_texture(2, 32))


def test_load_texture_reads_smplitex_png_as_rgb(tmp_path: Path) -> None:
    rgb = np.zeros((8, 8, 3), np.uint8)
    rgb[..., 0] = 200  # red
    rgb[2:4, :, 2] = 90
    cv2.imwrite(str(tmp_path / "SMPLitex_texture_00007.png"), rgb[:, :, ::-1])
    got = load_texture(TextureConfig(smplitex_dir=tmp_path), 7)
    np.testing.assert_array_equal(got, rgb)


def test_missing_or_corrupt_smplitex_file_is_named(tmp_path: Path) -> None:
    config = TextureConfig(smplitex_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="SMPLitex_texture_00001.png"):
        load_texture(config, 1)
    (tmp_path / "SMPLitex_texture_00002.png").write_bytes(b"\x89PNG broken")
    with pytest.raises(ValueError, match="SMPLitex_texture_00002.png"):
        load_texture(config, 2)


def test_texture_config_validation() -> None:
    with pytest.raises(ValueError, match="distinct"):
        TextureConfig(ids=[1, 1])
    with pytest.raises(ValueError, match="id"):
        TextureConfig(file_pattern="texture.png")


_RENDER = """
import sys, numpy as np, bpy
mesh_npz, tex_png, out_png = sys.argv[1:4]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
d = np.load(mesh_npz)
me = bpy.data.meshes.new("p")
me.from_pydata(d["vertices"].tolist(), [], d["faces"].tolist())
me.uv_layers.new(name="uv").data.foreach_set("uv", d["uv"].astype(np.float32).reshape(-1))
mat = bpy.data.materials.new("m")
nodes, links = mat.node_tree.nodes, mat.node_tree.links
tex = nodes.new("ShaderNodeTexImage")
tex.image = bpy.data.images.load(tex_png)
tex.interpolation = "Closest"
emit = nodes.new("ShaderNodeEmission")
links.new(tex.outputs["Color"], emit.inputs["Color"])
links.new(emit.outputs["Emission"], nodes["Material Output"].inputs["Surface"])
me.materials.append(mat)
scene.collection.objects.link(bpy.data.objects.new("p", me))
cam = bpy.data.cameras.new("c")
cam.type, cam.ortho_scale = "ORTHO", 2.0
co = bpy.data.objects.new("c", cam)
co.location, co.rotation_euler = (0.0, -5.0, 0.9), (np.pi / 2, 0.0, 0.0)
scene.collection.objects.link(co)
scene.camera = co
scene.render.engine = "CYCLES"
scene.cycles.samples, scene.cycles.use_denoising, scene.cycles.filter_width = 4, False, 0.01
scene.view_settings.view_transform = "Standard"
scene.render.resolution_x, scene.render.resolution_y = 100, 200
scene.render.filepath = out_png
bpy.ops.render.render(write_still=True)
"""


@pytest.mark.blender
def test_blender_shows_the_texture_where_the_uvs_say(tmp_path: Path) -> None:
    """Blender (v = 0 at the image bottom) renders, front-on and unlit, the texel our own UV lookup
    predicts for the chest, a thigh and a shoe: the atlas convention holds in the renderer."""
    import subprocess
    import sys

    from benchfoundry.configs.person import BodyConfig
    from benchfoundry.person import body_mesh, body_models

    mesh = body_models.posed_body(
        BodyConfig(model_type="smpl"), builtin_poses.upright_pose(), cache_dir=tmp_path / "cache"
    )
    body_mesh.write_body_mesh(mesh, tmp_path / "mesh.npz")
    tex = procedural_texture(5, 256)
    cv2.imwrite(str(tmp_path / "tex.png"), tex[:, :, ::-1])
    (tmp_path / "render.py").write_text(_RENDER)
    subprocess.run(
        [
            sys.executable,
            str(tmp_path / "render.py"),
            str(tmp_path / "mesh.npz"),
            str(tmp_path / "tex.png"),
            str(tmp_path / "out.png"),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    image = cv2.imread(str(tmp_path / "out.png"))[:, :, ::-1].astype(np.float64)
    tri = mesh.vertices[mesh.faces]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    centre = tri.mean(1)
    for target in ((0.0, 1.25), (0.1, 0.7), (0.13, 0.06)):  # chest, left thigh, left shoe (x, z)
        facing = (normal[:, 1] < -0.5 * np.linalg.norm(normal, axis=1)) & (np.abs(centre[:, 0] - target[0]) < 0.02)
        near = np.flatnonzero(facing & (np.abs(centre[:, 2] - target[1]) < 0.02))
        face = near[np.argmin(centre[near, 1])]  # the frontmost: what the camera sees
        expected = _sample(tex, mesh.uv[face].mean(0)[None])[0]
        col, row = int(50 + centre[face, 0] * 100), int(100 - (centre[face, 2] - 0.9) * 100)
        got = image[row - 1 : row + 2, col - 1 : col + 2].reshape(-1, 3)
        assert np.abs(got - expected).sum(1).min() < 30, (target, got.mean(0), expected)


def test_smplitex_textures_need_an_official_smpl_model_with_uvs(tmp_path: Path) -> None:
    from benchfoundry.configs.person import BodyConfig, check_person

    smplitex = TextureConfig(smplitex_dir=tmp_path)
    with pytest.raises(ValueError, match=r"textures\.smplitex_dir needs body\.model_path .*body\.uv_path"):
        check_person(BodyConfig(model_type="smpl"), smplitex)
    smplx_body = BodyConfig(model_path=tmp_path, model_type="smplx", uv_path=tmp_path / "uv.obj")
    with pytest.raises(ValueError, match=r"textures\.smplitex_dir needs body\.model_type smpl"):
        check_person(smplx_body, smplitex)
    check_person(BodyConfig(model_type="smpl", model_path=tmp_path, uv_path=tmp_path / "uv.obj"), smplitex)
    check_person(BodyConfig(model_type="smpl"), TextureConfig())  # procedural textures on the procedural body
    check_person(smplx_body, TextureConfig())


def test_a_texture_file_goes_through_the_guarded_decoder(tmp_path: Path) -> None:
    from PIL import Image as PILImage

    from benchfoundry.person.textures import read_texture_png

    grey16 = np.arange(64, dtype=np.uint16).reshape(8, 8) * 1000
    PILImage.fromarray(grey16).save(tmp_path / "t16.png")
    image = read_texture_png(tmp_path / "t16.png")
    assert image.shape == (8, 8, 3) and image.dtype == np.uint8
    assert image[7, 7, 0] == round(63000 / 65535 * 255)
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(ValueError, match=f"texture {tmp_path / 'empty.png'}: .*empty"):
        read_texture_png(tmp_path / "empty.png")
