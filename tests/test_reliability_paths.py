"""Reliability, fourth round, paths: every path read from a released file or any input stays inside its root once
links are followed, special files are refused by type before they are opened, and a refused item is a problem
row while the rest goes on (issue 36, point 1)."""

from __future__ import annotations

import base64
import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from test_eval import odi_build, viewspatial_build

from benchfoundry.benchmarks.odi.stages.panoramas import panorama_listing
from benchfoundry.benchmarks.odi.stages.sphere_images import read_erp
from benchfoundry.benchmarks.viewspatial.scannet.stages.scan_stage import scan_folders
from benchfoundry.cli.main import main
from benchfoundry.core import image_decode
from benchfoundry.core.image_decode import decode_file, image_size
from benchfoundry.core.safe_paths import UnsafePathError, inside_file
from benchfoundry.evaluation import run
from benchfoundry.evaluation.items import load_items
from benchfoundry.pipeline.model_client import Reply

SECRET = b"\xff\xd8\xff\xe0 the secret bytes of a file outside the build \xff\xd9"


def hostile_build(root: Path) -> tuple[Path, Path]:
    """A ViewSpatial build whose released file names, besides good images, a file outside the build by `..`, by
    its absolute path and through a symbolic link, and a link to the zero device; (build, the outside file)."""
    build = root / "build"
    items = viewspatial_build(build, n=8)
    outside = root / "secret.jpg"
    Image.new("RGB", (8, 8), (1, 2, 3)).save(outside)
    outside.write_bytes(outside.read_bytes() + SECRET)
    images = build / "viewspatial" / "images"
    (images / "link.jpg").symlink_to(outside)
    (images / "zero.jpg").symlink_to("/dev/zero")
    items[1]["image_path"] = ["../secret.jpg"]
    items[2]["image_path"] = [str(outside)]
    items[3]["image_path"] = ["images/link.jpg"]
    items[4]["image_path"] = ["images/zero.jpg"]
    (build / "viewspatial" / "ViewSpatial-Bench.json").write_text(json.dumps(items))
    return build, outside


def files_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.mark.parametrize("fmt", ["hf", "vlmevalkit", "lmms-eval"])
def test_an_image_outside_the_build_is_in_no_export(tmp_path: Path, fmt: str) -> None:
    build, outside = hostile_build(tmp_path)
    assert main(["export", fmt, "--build", str(build), "--to", str(tmp_path / "x")]) == 0
    written = files_bytes(tmp_path / "x")
    assert SECRET not in written and base64.b64encode(outside.read_bytes()) not in written
    summary = json.loads(next((tmp_path / "x").rglob("export.json")).read_text())
    problems = summary["benchmarks"]["viewspatial"]["problems"]
    assert sorted(int(p["item"].rsplit(":", 1)[1]) for p in problems) == [1, 2, 3, 4]


def test_eval_sends_nothing_for_an_item_whose_image_is_refused(tmp_path: Path) -> None:
    build, _ = hostile_build(tmp_path)
    items = load_items("viewspatial", build)
    assert [k for k, i in enumerate(items) if i.problem] == [1, 2, 3, 4]
    assert all(not i.images for i in items if i.problem)
    sent: list = []

    class Client:
        def chat_many(self, requests: list) -> list:
            sent.extend(requests)
            return [Reply("A", False, {}) for _ in requests]

    rows = run.ask(Client(), items, lambda item: [{"images": [str(p) for p in item.images]}])  # type: ignore[arg-type]
    assert len(sent) == 4 and [r["error"] is not None for r in rows] == [k in (1, 2, 3, 4) for k in range(8)]


def test_odi_and_syndor_items_are_held_to_their_folder(tmp_path: Path) -> None:
    items = odi_build(tmp_path)
    items[0]["image"] = "../../etc/passwd"
    (tmp_path / "odi" / "ODI-Bench.json").write_text(json.dumps(items))
    loaded = load_items("odi", tmp_path)
    assert loaded[0].problem and "climbs out" in loaded[0].problem and not loaded[0].images
    assert all(i.problem is None and i.images[0].is_file() for i in loaded[1:])


def test_a_fifo_or_a_device_is_refused_by_type_without_opening(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)  # opening it for reading would block forever: a refusal proves it was never opened
    (tmp_path / "zero.png").symlink_to("/dev/zero")
    for name in ("pipe.jpg", "zero.png"):
        with pytest.raises(ValueError, match="not a regular file"):
            decode_file(tmp_path / name)
        with pytest.raises(ValueError, match="not a regular file"):
            image_size(tmp_path / name)
        with pytest.raises(UnsafePathError, match="FIFO|device"):
            inside_file(tmp_path, name, "file_name")


def test_coco_images_a_fifo_and_a_link_out_are_problem_rows(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from benchfoundry.benchmarks.viewspatial.coco.stages.people import check_image

    images = tmp_path / "images"
    images.mkdir()
    os.mkfifo(images / "fifo.jpg")
    Image.new("RGB", (8, 6)).save(tmp_path / "outside.jpg")
    (images / "out.jpg").symlink_to(tmp_path / "outside.jpg")
    Image.new("RGB", (8, 6)).save(images / "good.jpg")

    def person(name: str) -> SimpleNamespace:  # what check_image reads of a person
        return SimpleNamespace(file_name=name, size=(8, 6))

    assert "not a regular file" in str(check_image(images, person("fifo.jpg")))
    assert "outside" in str(check_image(images, person("out.jpg")))
    assert check_image(images, person("good.jpg")) is None


def test_a_scene_id_that_climbs_out_is_a_problem_and_the_rest_go_on(tmp_path: Path) -> None:
    scans = tmp_path / "scans"
    (scans / "scene0000_00").mkdir(parents=True)
    (tmp_path / "elsewhere" / "scene0900_00").mkdir(parents=True)
    (scans / "scene0001_00").symlink_to(tmp_path / "elsewhere" / "scene0900_00")
    wanted = [("val", "scene0000_00"), ("val", "../../elsewhere/scene0900_00"), ("val", "scene0001_00")]
    kept, problems = scan_folders(scans, wanted)
    assert kept == [("val", "scene0000_00")]
    assert [p["item"] for p in problems] == ["../../elsewhere/scene0900_00", "scene0001_00"]


def test_panoramas_a_link_out_and_a_fifo_are_refused_an_empty_folder_names_the_field(tmp_path: Path) -> None:
    root = tmp_path / "panos"
    root.mkdir()
    with pytest.raises(ValueError, match="odi.panorama_root"):
        panorama_listing(root)
    Image.new("RGB", (16, 8)).save(tmp_path / "outside.png")
    (root / "a_out.png").symlink_to(tmp_path / "outside.png")
    os.mkfifo(root / "b_fifo.jpg")
    Image.new("RGB", (16, 8)).save(root / "c_good.png")
    paths, refused = panorama_listing(root)
    assert paths == [root / "c_good.png"]
    assert [p["item"] for p in refused] == ["a_out.png", "b_fifo.jpg"]


def test_two_panoramas_that_would_get_one_id_are_both_refused_by_name(tmp_path: Path) -> None:
    """`court yard.png` and `court_yard.png` would be one store shard and one released id: one would vanish."""
    for name in ("court yard.png", "court_yard.png", "plaza.png"):
        Image.new("RGB", (16, 8)).save(tmp_path / name)
    paths, refused = panorama_listing(tmp_path)
    assert paths == [tmp_path / "plaza.png"]
    assert sorted(Path(p["path"]).name for p in refused) == ["court yard.png", "court_yard.png"]
    assert all("'court yard.png', 'court_yard.png'" in p["reason"] and "rename one" in p["reason"] for p in refused)


def png_header_only(path: Path, width: int, height: int) -> None:
    """A valid 1-bit greyscale PNG of `width` × `height` (small on disk, huge once decoded)."""
    row = b"\x00" + bytes((width + 7) // 8)
    raw = zlib.compressobj(9)
    body = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(image_decode.PNG_START + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def test_a_valid_huge_panorama_is_refused_from_its_header_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.png"
    png_header_only(path, 46340, 23170)  # within OpenCV's pixel limit, beyond remap's width
    assert image_size(path) == (46340, 23170)

    def no_decode(*args: object) -> np.ndarray:
        raise AssertionError("decoded before its size was checked")

    monkeypatch.setattr(image_decode.cv2, "imdecode", no_decode)
    with pytest.raises(ValueError, match="remap"):
        read_erp(path)


@pytest.mark.parametrize("names", [("courtyard.png", "courtyard.jpg"), ("hall.PNG", "hall.tif", "hall.webp")])
def test_panoramas_that_share_a_stem_and_so_one_truth_are_both_refused(tmp_path: Path, names: tuple[str, ...]) -> None:
    """`courtyard.png` and `courtyard.jpg` shared `courtyard.json` by stem: the second image was released with
    the first's truth (40 items, no problem). Every panorama of a shared stem is refused, naming the others."""
    for name in (*names, "plaza.png"):
        Image.new("RGB", (16, 8)).save(tmp_path / name, format="PNG")
    paths, refused = panorama_listing(tmp_path)
    assert paths == [tmp_path / "plaza.png"]
    assert sorted(Path(p["path"]).name for p in refused) == sorted(names)
    assert all("share one stem" in p["reason"] and all(repr(n) in p["reason"] for n in names) for p in refused)
