"""Sphere geometry: analytic markers, round trips, seams and poles, py360convert agreement, a real panorama."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import py360convert
import pytest

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.core.seeding import item_rng

PY360_KEYS = dict(zip("FRBLUD", sm.FACES))


def erp_directions(width: int) -> np.ndarray:
    """Unit vectors of an ERP's pixel centres, straight from docs/design/odi.md §1 (independent of the module)."""
    height = width // 2
    y, x = np.mgrid[0:height, 0:width] + 0.5
    theta = np.radians(-180.0 + x / width * 360.0)
    phi = np.radians(90.0 - y / height * 180.0)
    return np.stack([np.cos(phi) * np.sin(theta), np.sin(phi), np.cos(phi) * np.cos(theta)], axis=-1)


def smooth_field(vec: np.ndarray) -> np.ndarray:
    """A field on the sphere, quadratic in the direction: no seam, no pole singularity, |∇| ≤ ~110 per radian."""
    x, y, z = vec[..., 0], vec[..., 1], vec[..., 2]
    return 127.0 + 50.0 * x + 30.0 * y * z + 40.0 * y - 20.0 * x * z


def smooth_erp(width: int) -> np.ndarray:
    return smooth_field(erp_directions(width)).astype(np.float32)


def noise_erp(width: int, channels: int = 3) -> np.ndarray:
    rng = item_rng(0, "test-sphere", f"noise-{width}-{channels}")
    return rng.integers(0, 256, (width // 2, width, channels), dtype=np.uint8)


def face_directions(face: str, n: int) -> np.ndarray:
    """Pixel-centre directions of a default-grid cube face, from a hand-written table of face axes."""
    axes = {  # right, up, forward of each face (world x right, y up, z forward)
        "front": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
        "right": ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
        "back": ((-1, 0, 0), (0, 1, 0), (0, 0, -1)),
        "left": ((0, 0, 1), (0, 1, 0), (-1, 0, 0)),
        "up": ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
        "down": ((1, 0, 0), (0, 0, 1), (0, -1, 0)),
    }[face]
    right, up, forward = (np.array(a, dtype=np.float64) for a in axes)
    v, u = np.mgrid[0:n, 0:n] + 0.5
    a = 2 * u / n - 1
    b = 1 - 2 * v / n
    vec = a[..., None] * right + b[..., None] * up + forward
    return vec / np.linalg.norm(vec, axis=-1, keepdims=True)


def assert_same_samples(a: np.ndarray, b: np.ndarray, share: float = 1e-3) -> None:
    """Equal up to OpenCV's fixed-point sample positions: two float32 grids that differ in the last
    bit can round a sample to neighbouring 1/32-px steps, moving a value by ≤ contrast/32 ≤ 8 levels
    (255/32). Allowed on a small share of pixels only; 1 grey level everywhere else."""
    diff = np.abs(a.astype(int) - b.astype(int))
    assert diff.max() <= 8 and (diff > 1).mean() <= share, (diff.max(), (diff > 1).mean())


def to_u8(hdr: np.ndarray) -> np.ndarray:
    return np.clip(255.0 * hdr / (1.0 + hdr), 0, 255).astype(np.uint8)


def studio_worlds() -> list[Path]:
    """Blender's studio-light world panoramas, located from the installed bpy wheel without importing it."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(list(spec.submodule_search_locations)[0])
    return sorted(root.glob("*/datafiles/studiolights/world/*.exr"))


@pytest.fixture(scope="module")
def real_panorama() -> np.ndarray:
    worlds = studio_worlds()
    if not worlds:
        pytest.skip("bpy is not installed or ships no datafiles/studiolights/world/*.exr")
    forest = [p for p in worlds if p.name == "forest.exr"] or worlds
    return sphere_images.read_erp(forest[0])


# --- coordinate maps -------------------------------------------------------------------------


def test_erp_pixel_angles_follow_design_formula() -> None:
    theta, phi = sm.erp_pixel_to_angles(np.array([0.0, 512.0, 1024.0]), np.array([0.0, 256.0, 512.0]), 1024, 512)
    np.testing.assert_allclose(theta, [-180.0, 0.0, 180.0])
    np.testing.assert_allclose(phi, [90.0, 0.0, -90.0])
    x, y = sm.angles_to_erp_pixel(np.array([179.99, -180.0, 90.0]), np.array([0.0, 45.0, -45.0]), 1024, 512)
    np.testing.assert_allclose(x, [1024 * 359.99 / 360, 0.0, 768.0])
    np.testing.assert_allclose(y, [256.0, 128.0, 384.0])


def test_world_axes() -> None:
    np.testing.assert_allclose(sm.angles_to_vectors(0, 0), [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(sm.angles_to_vectors(90, 0), [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(sm.angles_to_vectors(-37, 90), [0, 1, 0], atol=1e-12)
    theta, phi = sm.vectors_to_angles(np.array([[0, 0, -1.0], [-1, 0, 0], [0, -2, 0]]))
    np.testing.assert_allclose(theta[:2], [-180.0, -90.0])
    np.testing.assert_allclose(phi, [0.0, 0.0, -90.0])


def test_view_and_cube_pixel_maps_invert_each_other() -> None:
    rng = item_rng(0, "test-sphere", "roundtrip-points")
    for view in (
        sm.View(35.0, -20.0, 100.0, 70.0, 320, 200, roll_deg=25.0),
        sm.View(-170.0, 80.0, 60.0, 60.0, 64, 64, align_corners=True),
    ):
        u = rng.uniform(0, view.width, 500)
        v = rng.uniform(0, view.height, 500)
        theta, phi = sm.view_pixel_to_angles(view, u, v)
        u2, v2, inside = sm.angles_to_view_pixel(view, theta, phi)
        assert inside.all()
        np.testing.assert_allclose(u2, u, atol=1e-7)
        np.testing.assert_allclose(v2, v, atol=1e-7)
    theta = rng.uniform(-180, 180, 2000)
    phi = np.degrees(np.arcsin(rng.uniform(-1, 1, 2000)))
    face, u, v = sm.angles_to_cube_pixel(theta, phi, 96)
    assert set(np.unique(face)) == set(range(6))
    for k, name in enumerate(sm.FACES):
        t2, p2 = sm.cube_pixel_to_angles(name, u[face == k], v[face == k], 96)
        np.testing.assert_allclose(sm.angles_to_vectors(t2, p2), sm.angles_to_vectors(theta, phi)[face == k], atol=1e-9)
    # a point behind the camera is not inside the view
    _, _, inside = sm.angles_to_view_pixel(sm.View.square(0, 0, 90, 64), 180.0, 0.0)
    assert not inside


def test_perspective_pixel_positions_are_analytic() -> None:
    """Offsets of δ to the right / up land tan(δ)/tan(fov/2)·n/2 px right / up of the centre; roll turns them."""
    n, fov, delta = 400, 90.0, 20.0
    shift = math.tan(math.radians(delta)) / math.tan(math.radians(fov / 2)) * n / 2
    view = sm.View.square(40.0, 0.0, fov, n)
    u, v, _ = sm.angles_to_view_pixel(view, 40.0 + delta, 0.0)
    assert (float(u), float(v)) == pytest.approx((n / 2 + shift, n / 2))
    u, v, _ = sm.angles_to_view_pixel(view, 40.0, delta)
    assert (float(u), float(v)) == pytest.approx((n / 2, n / 2 - shift))
    # roll +90°: the camera's up turns to its right, so what lies to the right shows at the top
    rolled = sm.View.square(40.0, 0.0, fov, n, roll_deg=90.0)
    u, v, _ = sm.angles_to_view_pixel(rolled, 40.0 + delta, 0.0)
    assert (float(u), float(v)) == pytest.approx((n / 2, n / 2 - shift))


def test_cube_neighbours_match_the_cube_edges() -> None:
    """The padding table equals the twelve shared edges written out by hand (py360convert's `_pad`)."""
    n = 5
    idx = np.arange(6 * n * n).reshape(6, n, n)
    f = {name: idx[k] for k, name in enumerate(sm.FACES)}
    expected = {
        ("front", "top"): f["up"][-1, :],
        ("right", "top"): f["up"][::-1, -1],
        ("back", "top"): f["up"][0, ::-1],
        ("left", "top"): f["up"][:, 0],
        ("front", "bottom"): f["down"][0, :],
        ("right", "bottom"): f["down"][:, -1],
        ("back", "bottom"): f["down"][-1, ::-1],
        ("left", "bottom"): f["down"][::-1, 0],
        ("front", "left"): f["left"][:, -1],
        ("front", "right"): f["right"][:, 0],
        ("right", "left"): f["front"][:, -1],
        ("right", "right"): f["back"][:, 0],
        ("back", "left"): f["right"][:, -1],
        ("back", "right"): f["left"][:, 0],
        ("left", "left"): f["back"][:, -1],
        ("left", "right"): f["front"][:, 0],
        ("up", "top"): f["back"][0, ::-1],
        ("up", "bottom"): f["front"][0, :],
        ("up", "left"): f["left"][0, :],
        ("up", "right"): f["right"][0, ::-1],
        ("down", "top"): f["front"][-1, :],
        ("down", "bottom"): f["back"][-1, ::-1],
        ("down", "left"): f["left"][-1, ::-1],
        ("down", "right"): f["right"][-1, :],
    }
    table = sm.cube_neighbours(n)
    for (face, side), want in expected.items():
        faces, rows, cols = table[sm.FACES.index(face)][side]
        np.testing.assert_array_equal(idx[faces, rows, cols], want, err_msg=f"{face} {side}")


# --- image operations ------------------------------------------------------------------------


def test_marker_lands_on_the_analytic_face_pixel() -> None:
    """A one-pixel ERP marker shows up at the face pixel computed from the hand-written face axes."""
    width, n = 2048, 128
    rng = item_rng(0, "test-sphere", "markers")
    for face in sm.FACES:
        for _ in range(3):
            r, c = rng.integers(20, n - 20, 2)
            vec = face_directions(face, n)[r, c]
            theta = math.degrees(math.atan2(vec[0], vec[2]))
            phi = math.degrees(math.asin(vec[1]))
            erp = np.zeros((width // 2, width), np.float32)
            erp[int((90 - phi) / 180 * width // 2), int((theta + 180) / 360 * width) % width] = 1.0
            out = sphere_images.erp_to_cubemap(erp, n)[face]
            peak = np.unravel_index(np.argmax(out), out.shape)
            # the marker pixel is 0.18° wide, a face pixel ≥ 0.35°: the peak is the pixel or a neighbour
            assert abs(peak[0] - r) <= 1 and abs(peak[1] - c) <= 1, (face, (r, c), peak)


def test_faces_sample_a_smooth_field_everywhere_poles_and_seam_included() -> None:
    width, n = 1024, 128
    faces = sphere_images.erp_to_cubemap(smooth_erp(width), n)
    for face in sm.FACES:
        truth = smooth_field(face_directions(face, n))
        # bilinear on the ERP grid (0.35° spacing): error ≤ h²/8·|f''| ≈ 0.01 for |f''| ≤ 250/rad²
        np.testing.assert_allclose(faces[face], truth, atol=0.05, err_msg=face)


def test_erp_cubemap_erp_round_trip() -> None:
    """Two bilinear resamplings of a smooth field: error ≤ 2·h²/8·|f''| with h the coarser grid.

    Face pixels of a 128-px face are ≤ 0.9° apart (2/128 rad at the face centre), so
    2·(0.0157²/8)·250 ≈ 0.02; near a cube vertex a sample also uses the replicated corner of the
    padded face, adding up to |∇f|·h/2 ≈ 0.9 in a few pixels: 99.9 % within 0.05, all within 1.
    """
    width = 512
    erp = smooth_erp(width)
    for align in (False, True):
        back = sphere_images.cubemap_to_erp(
            sphere_images.erp_to_cubemap(erp, 128, align_corners=align), width, align_corners=align
        )
        err = np.abs(back - erp)
        assert np.quantile(err, 0.999) < 0.05 and err.max() < 1.0, (align, err.max())
    strip = sphere_images.faces_to_strip(sphere_images.erp_to_cubemap(erp, 128))
    assert strip.shape == (128, 768)
    np.testing.assert_array_equal(
        sphere_images.cubemap_to_erp(strip, width),
        sphere_images.cubemap_to_erp(sphere_images.strip_to_faces(strip), width),
    )


def test_neighbouring_faces_agree_along_shared_edges() -> None:
    erp = smooth_erp(1024)
    aligned = sphere_images.erp_to_cubemap(erp, 64, align_corners=True)
    default = sphere_images.erp_to_cubemap(erp, 64)
    pairs = [
        (("front", np.s_[:, -1]), ("right", np.s_[:, 0])),
        (("right", np.s_[:, -1]), ("back", np.s_[:, 0])),
        (("back", np.s_[:, -1]), ("left", np.s_[:, 0])),
        (("left", np.s_[:, -1]), ("front", np.s_[:, 0])),
        (("front", np.s_[0, :]), ("up", np.s_[-1, :])),
        (("front", np.s_[-1, :]), ("down", np.s_[0, :])),
        (("back", np.s_[0, :]), ("up", np.s_[0, ::-1])),
        (("left", np.s_[0, :]), ("up", np.s_[:, 0])),
        (("right", np.s_[0, :]), ("up", np.s_[::-1, -1])),
        (("right", np.s_[-1, :]), ("down", np.s_[:, -1])),
        (("back", np.s_[-1, :]), ("down", np.s_[-1, ::-1])),
        (("left", np.s_[-1, :]), ("down", np.s_[::-1, 0])),
    ]
    for (fa, sa), (fb, sb) in pairs:
        # the corner-aligned grid samples the very same edge directions on both faces
        np.testing.assert_allclose(aligned[fa][sa], aligned[fb][sb], atol=0.02, err_msg=f"{fa}/{fb}")
        # the default grid samples half a pixel (≤ 0.7°) on either side: |∇f| ≤ 110/rad → ≤ 1.4
        np.testing.assert_allclose(default[fa][sa], default[fb][sb], atol=1.5, err_msg=f"{fa}/{fb}")


def test_seam_is_seamless() -> None:
    """A view across θ = ±180° equals the same view at θ = 0 of the ERP rolled by half its width."""
    erp = noise_erp(512)
    rolled = np.roll(erp, 256, axis=1)
    for phi, roll in ((0.0, 0.0), (50.0, 15.0), (-88.0, 0.0)):
        across = sphere_images.erp_to_perspective(erp, sm.View.square(180.0, phi, 70.0, 96, roll))
        centred = sphere_images.erp_to_perspective(rolled, sm.View.square(0.0, phi, 70.0, 96, roll))
        assert_same_samples(across, centred)  # a wrong seam column would differ on ≥ 1 % of pixels


def test_poles_blend_across_the_pole() -> None:
    """Looking straight up, a field that is 1 on one side of the pole and 0 on the other stays split."""
    width = 512
    vec = erp_directions(width)
    erp = (vec[..., 0] > 0).astype(np.float32)  # right half of the sphere
    top = sphere_images.erp_to_perspective(erp, sm.View.square(0.0, 90.0, 20.0, 64))
    # columns left of the centre see x < 0, right of it x > 0; a wrap to the other pole would give 0.5-ish rows
    assert top[:, :30].max() < 0.05 and top[:, 34:].min() > 0.95


def test_agrees_with_py360convert_e2c_and_e2p() -> None:
    """Within 1 grey level on the same inputs once the grid convention is mapped (align_corners=True).

    Noise is the worst case for bilinear: both use OpenCV's 1/32-px fixed-point positions.
    """
    erp = noise_erp(512)
    ref = py360convert.e2c(erp, 64, cube_format="dict")
    mine = sphere_images.erp_to_cubemap(erp, 64, align_corners=True)
    for key, face in PY360_KEYS.items():
        assert np.abs(ref[key].astype(int) - mine[face].astype(int)).max() <= 1, face
    horizon = py360convert.e2c(erp, 64, cube_format="horizon")
    assert np.abs(horizon.astype(int) - sphere_images.faces_to_strip(mine).astype(int)).max() <= 1
    smooth = np.clip(smooth_erp(1024), 0, 255).astype(np.uint8)
    for fov, theta, phi, roll in ((90, 30, 10, 0), (60, -170, 80, 0), (100, 179, -85, 20), ((80, 50), 40, -30, -35)):
        hfov, vfov = (fov, fov) if isinstance(fov, int) else fov
        ref = py360convert.e2p(smooth, fov, theta, phi, (50, 70), in_rot_deg=roll)
        view = sm.View(theta, phi, hfov, vfov, 70, 50, roll_deg=roll, align_corners=True)
        assert np.abs(ref.astype(int) - sphere_images.erp_to_perspective(smooth, view).astype(int)).max() <= 1
    # the default grid: py360convert's fov with tan(fov/2) scaled by (n − 1)/n
    n = 64
    scaled = math.degrees(2 * math.atan((n - 1) / n))
    default = sphere_images.erp_to_cubemap(smooth, n)
    for face, (theta, phi) in sm.FACE_CENTRES.items():
        ref = py360convert.e2p(smooth, scaled, theta, phi, (n, n))
        assert np.abs(ref.astype(int) - default[face].astype(int)).max() <= 1, face


def test_cubemap_to_erp_close_to_py360convert_c2e() -> None:
    """py360convert's c2e reads a face pixel at (a+1)/2·w instead of its own e2c grid's (a+1)/2·(w−1):
    up to one face pixel off at a face's far edge. On a field changing ≤ 110/rad, one 128-px face
    pixel (≤ 0.0157 rad) is ≤ 1.8 grey levels."""
    width = 512
    faces = sphere_images.erp_to_cubemap(smooth_erp(width), 128, align_corners=True)
    ref = py360convert.c2e({k: faces[f] for k, f in PY360_KEYS.items()}, width // 2, width, cube_format="dict")
    mine = sphere_images.cubemap_to_erp(faces, width, align_corners=True)
    assert np.abs(ref - mine).max() < 1.8


def test_real_panorama_agrees_with_py360convert(real_panorama: np.ndarray) -> None:
    """Blender's forest world (1024×512 HDR), tone-mapped to 8 bits.

    A few pixels at sharp edges differ by more than 1 (see `assert_same_samples`).
    """
    assert real_panorama.shape == (512, 1024, 3) and real_panorama.dtype == np.float32
    u8 = to_u8(real_panorama)
    ref = py360convert.e2c(u8, 256, cube_format="dict")
    mine = sphere_images.erp_to_cubemap(u8, 256, align_corners=True)
    assert_same_samples(py360convert.utils.cube_dict2h(ref), sphere_images.faces_to_strip(mine), share=1e-4)
    for fov, theta, phi, roll in ((90, 30, 10, 0), (120, 0, 90, 0), (45, -60, -30, -35)):
        ref = py360convert.e2p(u8, fov, theta, phi, (200, 300), in_rot_deg=roll)
        view = sm.View(theta, phi, fov, fov, 300, 200, roll_deg=roll, align_corners=True)
        assert_same_samples(ref, sphere_images.erp_to_perspective(u8, view), share=1e-4)
    # float HDR values pass through untouched: the same views in float32 differ only by float rounding
    ref = py360convert.e2c(real_panorama, 64, cube_format="dict")
    mine = sphere_images.erp_to_cubemap(real_panorama, 64, align_corners=True)
    for key, face in PY360_KEYS.items():
        np.testing.assert_allclose(mine[face], ref[key], rtol=0.02, atol=0.02)


def test_omnicot_views_are_the_cube_faces_at_90_degrees() -> None:
    erp = noise_erp(512)
    views = sphere_images.omnicot_views(erp, 64)
    faces = sphere_images.erp_to_cubemap(erp, 64)
    assert list(views) == ["front", "right", "back", "left", "top", "bottom"]
    for name, face in sm.VIEW_FACES.items():
        np.testing.assert_array_equal(views[name], faces[face])
    wide = sphere_images.omnicot_views(erp, 32, fov_deg=120.0)
    assert wide["top"].shape == (32, 32, 3)


def test_omnicot_crop_view_follows_design_formula() -> None:
    box = (0.40, 0.30, 0.50, 0.45)
    view = sphere_images.omnicot_crop_view(box, 256, margin_deg=10.0)
    assert view.theta_deg == pytest.approx(-180 + 0.45 * 360)
    assert view.phi_deg == pytest.approx(90 - 0.375 * 180)
    assert view.hfov_deg == pytest.approx(max(0.10 * 360, 0.15 * 180) + 10)  # 46°
    assert sphere_images.omnicot_crop_view((0.5, 0.5, 0.51, 0.51), 64).hfov_deg == 30.0
    assert sphere_images.omnicot_crop_view((0.1, 0.1, 0.9, 0.9), 64).hfov_deg == 120.0
    wrapped = sphere_images.omnicot_crop_view((0.95, 0.4, 0.05, 0.6), 64, margin_deg=0.0)
    assert wrapped.theta_deg == pytest.approx(-180.0) and wrapped.hfov_deg == pytest.approx(36.0)
    for bad in ((0.5, 0.6, 0.6, 0.5), (-0.1, 0.1, 0.2, 0.2), (0.1, 0.1, float("nan"), 0.2)):
        with pytest.raises(ValueError, match="box"):
            sphere_images.omnicot_crop_view(bad, 64)


def test_omnicot_crop_centres_the_box() -> None:
    width = 1024
    erp = np.zeros((width // 2, width), np.float32)
    erp[190:196, 700:706] = 1.0  # a small object
    box = (700 / width, 190 / 512, 706 / width, 196 / 512)
    crop, view = sphere_images.omnicot_crop(erp, box, 101, margin_deg=5.0)
    assert view.hfov_deg == 30.0
    ys, xs = np.nonzero(crop > 0.5)
    assert abs(ys.mean() - 50.5) < 1.0 and abs(xs.mean() - 50.5) < 1.0


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("channels", [None, 1, 2, 3, 4])
def test_dtypes_and_channels_survive(dtype: type, channels: int | None) -> None:
    erp = np.zeros((64, 128) + ((channels,) if channels else ()), dtype)
    view = sm.View.square(10, 20, 60, 16)
    out = sphere_images.erp_to_perspective(erp, view)
    assert out.dtype == dtype and out.shape == (16, 16) + ((channels,) if channels else ())
    faces = sphere_images.erp_to_cubemap(erp, 8)
    back = sphere_images.cubemap_to_erp(faces, 128)
    assert back.dtype == dtype and back.shape == erp.shape


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.bool_])
def test_nearest_copies_label_values_exactly(dtype: type) -> None:
    width = 256
    rng = item_rng(0, "test-sphere", f"labels-{np.dtype(dtype).name}")
    if dtype is np.bool_:
        ids = rng.integers(0, 2, (width // 2, width)).astype(bool)
    else:
        ids = rng.integers(0, np.iinfo(dtype).max, (width // 2, width), dtype=dtype)
    view = sm.View.square(-150, -60, 80, 48)
    crop = sphere_images.erp_to_perspective(ids, view, "nearest")
    assert crop.dtype == ids.dtype and np.isin(crop, ids).all()
    # and each crop pixel is the ERP pixel its centre falls in
    theta, phi = sm.view_pixel_to_angles(view, *np.meshgrid(np.arange(48) + 0.5, np.arange(48) + 0.5))
    x, y = sm.angles_to_erp_pixel(theta, phi, width, width // 2)
    expected = ids[np.clip(np.floor(y).astype(int), 0, width // 2 - 1), np.floor(x).astype(int) % width]
    assert (crop == expected).mean() > 0.995  # pixels exactly on a cell edge may round either way
    faces = sphere_images.erp_to_cubemap(ids, 32, "nearest")
    back = sphere_images.cubemap_to_erp(faces, width, "nearest")
    assert back.dtype == ids.dtype and np.isin(back, ids).all()


def test_bilinear_refuses_label_dtypes() -> None:
    with pytest.raises(TypeError, match="nearest"):
        sphere_images.erp_to_perspective(np.zeros((32, 64), np.int32), sm.View.square(0, 0, 60, 8))


def test_12k_panorama() -> None:
    """A 12288-wide ERP (under OpenCV's 32,767 limit, sampled without any padded copy)."""
    width = 12288
    erp = np.zeros((width // 2, width), np.uint8)
    x, y = sm.angles_to_erp_pixel(177.0, -30.0, width, width // 2)
    erp[int(y) - 2 : int(y) + 3, int(x) - 2 : int(x) + 3] = 255
    view = sm.View.square(179.0, -30.0, 10.0, 129)
    crop = sphere_images.erp_to_perspective(erp, view)
    u, v, inside = sm.angles_to_view_pixel(view, 177.0 + 0.5 * 360 / width, -30.0 - 0.5 * 180 / (width // 2))
    ys, xs = np.nonzero(crop > 128)
    assert inside and abs(xs.mean() + 0.5 - float(u)) < 1.0 and abs(ys.mean() + 0.5 - float(v)) < 1.0
    # a 6°-wide patch there lands on the back-face pixel whose direction is nearest (hand-written axes)
    erp[int(y) - 100 : int(y) + 100, int(x) - 100 : int(x) + 100] = 255
    back = sphere_images.erp_to_cubemap(erp, 32)["back"]
    target = sm.angles_to_vectors(177.0, -30.0)
    nearest = np.unravel_index(np.argmax(face_directions("back", 32) @ target), (32, 32))
    assert back[nearest] == 255 and back.sum() < 255 * 16


def test_size_limits_and_bad_inputs() -> None:
    with pytest.raises(ValueError, match="2:1"):
        sphere_images.erp_to_perspective(np.zeros((10, 30), np.uint8), sm.View.square(0, 0, 60, 8))
    with pytest.raises(ValueError, match="32767"):
        sphere_images.erp_to_perspective(np.zeros((16384, 32768), np.uint8), sm.View.square(0, 0, 60, 8))
    with pytest.raises(ValueError, match="remap"):
        faces = {f: np.broadcast_to(np.uint8(0), (10921, 10921)) for f in sm.FACES}
        sphere_images.cubemap_to_erp(faces, 1024)
    assert sphere_images.MAX_FACE_WIDTH == 10920
    with pytest.raises(ValueError, match="missing.*down"):
        sphere_images.cubemap_to_erp({f: np.zeros((8, 8), np.uint8) for f in sm.FACES[:5]}, 64)
    with pytest.raises(ValueError, match="fov"):
        sm.View.square(0, 0, 180, 8)


def test_grid_cache_reuses_and_evicts_by_size() -> None:
    cache = sphere_images.GridCache(max_bytes=100)
    calls = []

    def build(name: str) -> np.ndarray:
        calls.append(name)
        return np.zeros(60, np.uint8)

    a = cache.get("a", lambda: build("a"), lambda v: v.nbytes)
    assert cache.get("a", lambda: build("a"), lambda v: v.nbytes) is a and calls == ["a"]
    cache.get("b", lambda: build("b"), lambda v: v.nbytes)  # 120 bytes > 100: "a" goes
    cache.get("a", lambda: build("a"), lambda v: v.nbytes)
    assert calls == ["a", "b", "a"]


def test_read_and_write(tmp_path: Path, real_panorama: np.ndarray) -> None:
    path = sphere_images.write_image(tmp_path / "pano.exr", real_panorama)
    np.testing.assert_array_equal(sphere_images.read_erp(path), real_panorama)
    with pytest.raises(ValueError, match="float32"):
        sphere_images.write_image(tmp_path / "pano.png", real_panorama)
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    with pytest.raises(ValueError, match="broken.jpg"):
        sphere_images.read_erp(tmp_path / "broken.jpg")
    sphere_images.write_image(tmp_path / "square.png", np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError, match="square.png.*twice the height"):
        sphere_images.read_erp(tmp_path / "square.png")


def test_truncated_panorama_is_refused_naming_the_file(tmp_path: Path) -> None:
    """OpenCV's imread decodes half a JPEG into a full image with grey rows; read_erp must refuse it."""
    erp = np.clip(smooth_erp(256), 0, 255).astype(np.uint8)
    for ext in (".jpg", ".png"):
        whole = sphere_images.write_image(tmp_path / f"whole{ext}", erp)
        data = whole.read_bytes()
        (tmp_path / f"half{ext}").write_bytes(data[: len(data) // 2])
        with pytest.raises(ValueError, match=rf"half\{ext}: .*truncated"):
            sphere_images.read_erp(tmp_path / f"half{ext}")
    (tmp_path / "padded.jpg").write_bytes((tmp_path / "whole.jpg").read_bytes() + b"\x00" * 64)
    np.testing.assert_array_equal(
        sphere_images.read_erp(tmp_path / "padded.jpg"), sphere_images.read_erp(tmp_path / "whole.jpg")
    )


def test_eight_bit_formats_refuse_wider_integers(tmp_path: Path) -> None:
    deep = np.full((8, 16, 3), 30000, np.uint16)
    for ext in (".jpg", ".JPEG", ".webp", ".bmp"):
        with pytest.raises(ValueError, match=rf"pano{ext}.*8 bits.*\.png"):
            sphere_images.write_image(tmp_path / f"pano{ext}", deep)
        assert not (tmp_path / f"pano{ext}").exists()
    with pytest.raises(ValueError, match="int16"):
        sphere_images.write_image(tmp_path / "pano.jpg", deep.astype(np.int16))
    np.testing.assert_array_equal(sphere_images.read_erp(sphere_images.write_image(tmp_path / "pano.png", deep)), deep)
    eight = np.full((8, 16, 3), 200, np.uint8)
    assert sphere_images.read_erp(sphere_images.write_image(tmp_path / "pano.bmp", eight)).max() == 200


def test_exr_stores_integer_images_as_float32_of_the_same_values(tmp_path: Path) -> None:
    """OpenCV's EXR writer takes only float: uint8 / uint16 / int16 panoramas come back as float32, values kept."""
    rng = np.random.default_rng(3)
    for dtype, top in ((np.uint8, 255), (np.uint16, 65535), (np.int16, 32767), (np.float16, 2048)):
        image = rng.integers(0, top + 1, (8, 16, 3)).astype(dtype)
        back = sphere_images.read_erp(sphere_images.write_image(tmp_path / f"{np.dtype(dtype).name}.exr", image))
        assert back.dtype == np.float32
        np.testing.assert_array_equal(back, image.astype(np.float64))
    wide = np.full((8, 16), 2**24 + 1, np.int32)
    with pytest.raises(ValueError, match=r"ids\.exr: .*int32.*\.tif"):
        sphere_images.write_image(tmp_path / "ids.exr", wide)
    assert not (tmp_path / "ids.exr").exists()


def test_radiance_hdr_refuses_integer_images_it_would_rescale(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"pano\.hdr: .*floats only"):
        sphere_images.write_image(tmp_path / "pano.hdr", np.full((8, 16, 3), 300, np.uint16))
    assert not (tmp_path / "pano.hdr").exists()


def test_unencodable_combination_is_a_value_error_naming_the_path(tmp_path: Path) -> None:
    """Radiance HDR holds 1, 3 or 4 channels: two channels must be a ValueError, not a cv2.error."""
    with pytest.raises(ValueError, match=r"two\.hdr: OpenCV cannot encode"):
        sphere_images.write_image(tmp_path / "two.hdr", np.zeros((8, 16, 2), np.float32))
    with pytest.raises(ValueError, match=r"pano\.jpg: a float32 image needs \.tif or \.exr"):
        sphere_images.write_image(tmp_path / "pano.jpg", np.zeros((8, 16), np.float32))
