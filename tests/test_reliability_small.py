"""Reliability, fourth round, the smaller items (issue 36, point 7): a JPEG cut short with an end marker appended,
libjpeg's warnings named by file, EXIF orientation read alike by `image_size` and `decode_file`, no render
worker's temporary folder left in the system's temporary folder."""

from __future__ import annotations

import io
import logging
import os
import sys
import tempfile
import textwrap
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from benchfoundry.core.image_decode import decode_file, image_size
from benchfoundry.pipeline import render_client


def noisy_jpeg(width: int = 96, height: int = 64) -> bytes:
    """A JPEG of noise (no part of it predictable from another), `width` × `height`."""
    pixels = np.random.default_rng(0).integers(0, 255, (height, width, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=90)
    return out.getvalue()


def test_a_jpeg_cut_short_with_an_end_marker_appended_is_refused(tmp_path: Path) -> None:
    data = noisy_jpeg()
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 2] + b"\xff\xd9")
    with pytest.raises(ValueError, match=r"cut\.jpg: .*truncated JPEG"):
        decode_file(path)
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(data)
    assert decode_file(whole).shape == (64, 96, 3)


def test_a_libjpeg_warning_names_its_file_and_is_not_printed_bare(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    data = noisy_jpeg()
    path = tmp_path / "padded.jpg"
    app0_end = 4 + int.from_bytes(data[4:6], "big")
    path.write_bytes(data[:app0_end] + b"\x00\x00\x00" + data[app0_end:])  # extraneous bytes between markers
    with caplog.at_level(logging.WARNING):
        assert decode_file(path).shape == (64, 96, 3)
    assert any(str(path) in r.getMessage() and "extraneous" in r.getMessage() for r in caplog.records)
    assert "extraneous" not in capfd.readouterr().err


def test_exif_orientation_is_read_alike_by_image_size_and_decode_file(tmp_path: Path) -> None:
    """COCO's boxes are in the stored pixels' frame: a JPEG tagged orientation 6 decodes unrotated."""
    image = Image.fromarray(np.zeros((20, 30, 3), dtype=np.uint8))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    path = tmp_path / "tagged.jpg"
    image.save(path, "JPEG", exif=exif)
    width, height = image_size(path)
    for flags in (cv2.IMREAD_COLOR, cv2.IMREAD_GRAYSCALE, cv2.IMREAD_UNCHANGED):
        assert decode_file(path, flags).shape[:2] == (height, width) == (20, 30)


def test_no_render_worker_leaves_a_folder_in_the_system_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in worker makes its temporary folders as Blender and the worker do; closed, killed included,
    they are gone, and none was made in the system's temporary folder."""
    report = tmp_path / "made.txt"
    (tmp_path / "fake_worker.py").write_text(
        textwrap.dedent(f"""
        import json, os, sys, tempfile
        made = [tempfile.mkdtemp(prefix="blender_"), tempfile.mkdtemp(prefix="benchfoundry-render-")]
        open({str(report)!r}, "w").write("\\n".join(made))
        print(json.dumps({{"ok": True, "ready": True, "pid": os.getpid()}}), flush=True)
        for line in sys.stdin:
            if json.loads(line)["op"] == "quit":
                break
        """)
    )
    monkeypatch.setattr(render_client, "WORKER_MODULE", "fake_worker")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path]))
    system_tmp = Path(tempfile.gettempdir()).resolve()
    for kill in (False, True):
        worker = render_client.RenderWorker()
        made = [Path(p) for p in report.read_text().splitlines()]
        assert all(p.is_dir() and p.resolve().parent != system_tmp for p in made)
        worker.close(kill=kill)
        assert not any(p.exists() for p in made) and not Path(worker.tmp).exists()
