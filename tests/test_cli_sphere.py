"""`benchfoundry sphere cubemap | views | crop`: outputs, options and clear errors for bad panoramas."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.benchmarks.odi.cli_sphere import with_config_defaults
from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.cli.main import main, make_parser


def imread(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert image is not None, path
    return image


@pytest.fixture
def erp_png(tmp_path: Path) -> Path:
    """A 256×128 panorama: colour bands by longitude and latitude."""
    y, x = np.mgrid[0:128, 0:256]
    image = np.stack([x % 256, y * 2, (x // 32) * 30], axis=-1).astype(np.uint8)
    return sphere_images.write_image(tmp_path / "pano.png", image)


def test_cubemap_writes_six_faces_and_a_strip(erp_png: Path, tmp_path: Path) -> None:
    out = tmp_path / "cube"
    assert main(["sphere", "cubemap", str(erp_png), str(out), "--face-width", "32", "--layout", "both"]) == 0
    erp = sphere_images.read_erp(erp_png)
    faces = sphere_images.erp_to_cubemap(erp, 32)
    for name in sm.FACES:
        np.testing.assert_array_equal(imread(out / f"{name}.png"), faces[name])
    np.testing.assert_array_equal(imread(out / "strip.png"), sphere_images.faces_to_strip(faces))


def test_views_and_crop(erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "views"
    assert main(["sphere", "views", str(erp_png), str(out), "--size", "24", "--fov", "100", "--ext", ".png"]) == 0
    assert sorted(p.stem for p in out.iterdir()) == sorted(["front", "right", "back", "left", "top", "bottom"])
    assert imread(out / "top.png").shape == (24, 24, 3)
    capsys.readouterr()
    crop = tmp_path / "crop.png"
    assert (
        main(["sphere", "crop", str(erp_png), "--box", "0.25,0.4,0.35,0.5", str(crop), "--size", "40", "--margin", "0"])
        == 0
    )
    record = json.loads(capsys.readouterr().out)
    assert record["theta_deg"] == pytest.approx(-180 + 0.30 * 360)
    assert record["phi_deg"] == pytest.approx(90 - 0.45 * 180)
    assert record["fov_deg"] == pytest.approx(36.0)
    expected, _ = sphere_images.omnicot_crop(
        sphere_images.read_erp(erp_png), (0.25, 0.4, 0.35, 0.5), 40, margin_deg=0.0
    )
    np.testing.assert_array_equal(imread(crop), expected)


def test_bad_panoramas_exit_2_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corrupt = tmp_path / "corrupt.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    assert main(["sphere", "cubemap", str(corrupt), str(tmp_path / "o")]) == 2
    assert "corrupt.png" in capsys.readouterr().err
    square = sphere_images.write_image(tmp_path / "square.png", np.zeros((64, 64, 3), np.uint8))
    assert main(["sphere", "views", str(square), str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "square.png" in err and "twice the height" in err
    assert main(["sphere", "crop", str(tmp_path / "missing.png"), "--box", "0,0,1,1", str(tmp_path / "c.png")]) == 2
    assert "missing.png" in capsys.readouterr().err


def test_unwritable_output_exits_2(erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    assert main(["sphere", "views", str(erp_png), str(blocker), "--size", "8"]) == 2
    assert "taken" in capsys.readouterr().err


def test_bad_box_is_a_usage_error(erp_png: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sphere", "crop", str(erp_png), "--box", "0.1,0.2", str(tmp_path / "c.png")])
    assert exc.value.code == 2
    assert main(["sphere", "crop", str(erp_png), "--box", "0.1,0.6,0.2,0.5", str(tmp_path / "c.png")]) == 2


def test_console_script_reports_a_corrupt_file(tmp_path: Path) -> None:
    exe = shutil.which("benchfoundry") or str(Path(__file__).resolve().parents[1] / ".venv/bin/benchfoundry")
    corrupt = tmp_path / "pano.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff not really a jpeg")
    run = subprocess.run(
        [exe, "sphere", "crop", str(corrupt), "--box", "0,0,1,1", str(tmp_path / "c.png")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "pano.jpg" in run.stderr and "cannot decode" in run.stderr


def test_sphere_config_feeds_the_cli_defaults(tmp_path: Path, repo_root: Path) -> None:
    from pydantic import ValidationError

    from benchfoundry.benchmarks.odi.config import SphereConfig
    from benchfoundry.configs.loader import load_config

    overrides = ["odi.sphere.face_width=256", "odi.sphere.crop_margin_deg=5"]
    config = load_config(repo_root / "configs" / "smoke.yaml", overrides)
    assert config.odi.sphere.face_width == 256 and config.odi.sphere.crop_margin_deg == 5.0
    with pytest.raises(ValidationError, match="crop_min_fov_deg"):
        SphereConfig(crop_min_fov_deg=100, crop_max_fov_deg=60)
    with pytest.raises(ValidationError):
        SphereConfig(face_width=20000)  # three padded faces would pass OpenCV's remap limit
    args = make_parser().parse_args(["sphere", "crop", "p.png", "--box", "0,0,1,1", str(tmp_path / "c.png")])
    args = with_config_defaults(args)
    defaults = SphereConfig()
    assert (args.size, args.margin, args.min_fov, args.max_fov, args.interpolation) == (
        defaults.crop_size,
        defaults.crop_margin_deg,
        defaults.crop_min_fov_deg,
        defaults.crop_max_fov_deg,
        defaults.interpolation,
    )


def write_config(path: Path, sphere_section: str) -> Path:
    path.write_text("odi:\n  sphere:\n" + "".join(f"    {line}\n" for line in sphere_section.splitlines()))
    return path


def test_config_file_supplies_defaults_and_flags_win(
    erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "c.yaml", "face_width: 16\nview_size: 12\ncrop_size: 20\ncrop_margin_deg: 4")
    cube = tmp_path / "cube"
    assert main(["sphere", "cubemap", str(erp_png), str(cube), "--config", str(config)]) == 0
    assert imread(cube / "front.png").shape == (16, 16, 3)
    assert main(["sphere", "cubemap", str(erp_png), str(cube), "--config", str(config), "--face-width", "8"]) == 0
    assert imread(cube / "front.png").shape == (8, 8, 3)
    assert (
        main(
            ["sphere", "cubemap", str(erp_png), str(cube), "--config", str(config), "--set", "odi.sphere.face_width=24"]
        )
        == 0
    )
    assert imread(cube / "front.png").shape == (24, 24, 3)
    assert main(["sphere", "views", str(erp_png), str(tmp_path / "views"), "--set", "odi.sphere.view_size=10"]) == 0
    assert imread(tmp_path / "views" / "top.png").shape == (10, 10, 3)
    capsys.readouterr()
    # the box spans 0.1 of 360° = 36° across and 18° down: fov = 36° + margin (docs/design/odi.md §3)
    crop = tmp_path / "crop.png"
    assert main(["sphere", "crop", str(erp_png), "--box", "0.25,0.4,0.35,0.5", str(crop), "--config", str(config)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["fov_deg"] == pytest.approx(40.0) and record["size"] == 20
    assert imread(crop).shape == (20, 20, 3)
    assert (
        main(
            [
                "sphere",
                "crop",
                str(erp_png),
                "--box",
                "0.25,0.4,0.35,0.5",
                str(crop),
                "--config",
                str(config),
                "--margin",
                "0",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["fov_deg"] == pytest.approx(36.0)


def test_bad_config_exits_2_naming_file_and_field(
    erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "bad.yaml", "face_width: 1")
    assert main(["sphere", "cubemap", str(erp_png), str(tmp_path / "o"), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "odi.sphere.face_width" in err
    assert main(["sphere", "views", str(erp_png), str(tmp_path / "o"), "--set", "odi.sphere.colour=1"]) == 2
    assert "odi.sphere.colour: unknown key" in capsys.readouterr().err
    assert main(["sphere", "views", str(erp_png), str(tmp_path / "o"), "--config", str(tmp_path / "none.yaml")]) == 2
    assert "none.yaml" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_truncated_panorama_exits_2_naming_the_file(
    erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jpeg = sphere_images.write_image(tmp_path / "pano.jpg", imread(erp_png))
    data = jpeg.read_bytes()
    (tmp_path / "half.jpg").write_bytes(data[: len(data) // 2])
    assert main(["sphere", "cubemap", str(tmp_path / "half.jpg"), str(tmp_path / "o"), "--face-width", "8"]) == 2
    err = capsys.readouterr().err
    assert "half.jpg" in err and "truncated JPEG" in err
    assert not (tmp_path / "o").exists()
    (tmp_path / "padded.jpg").write_bytes(data + b"\x00" * 16 + b"\n")
    assert main(["sphere", "cubemap", str(tmp_path / "padded.jpg"), str(tmp_path / "o"), "--face-width", "8"]) == 0
    assert imread(tmp_path / "o" / "front.jpg").shape == (8, 8, 3)


def test_exr_output_of_an_eight_bit_panorama(erp_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`crop … out.exr` and `cubemap --ext .exr` from a uint8 PNG write float32 EXR of the same values."""
    erp = sphere_images.read_erp(erp_png)
    assert main(["sphere", "cubemap", str(erp_png), str(tmp_path / "cube"), "--face-width", "16", "--ext", ".exr"]) == 0
    faces = sphere_images.erp_to_cubemap(erp, 16)
    for name in sm.FACES:
        face = imread(tmp_path / "cube" / f"{name}.exr")
        assert face.dtype == np.float32
        np.testing.assert_array_equal(face, faces[name].astype(np.float32))
    deep = sphere_images.write_image(tmp_path / "deep.png", erp.astype(np.uint16) * 257)
    assert (
        main(["sphere", "crop", str(deep), str(tmp_path / "crop.exr"), "--box", "0.4,0.4,0.6,0.6", "--size", "16"]) == 0
    )
    crop = imread(tmp_path / "crop.exr")
    assert crop.dtype == np.float32 and crop.shape == (16, 16, 3) and crop.max() > 255
    capsys.readouterr()
