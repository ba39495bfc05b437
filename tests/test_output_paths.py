"""Every command checks its output path before any work: one `error: PATH: reason` line and exit 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.cli.main import main


@pytest.fixture
def pano(tmp_path: Path) -> Path:
    path = tmp_path / "pano.png"
    cv2.imwrite(str(path), np.zeros((32, 64, 3), np.uint8))
    return path


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_score_out_naming_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text("{}\n")
    assert main(["score", "syndor", str(preds), "--build", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert f"{tmp_path}: is a folder" in _one_error(capsys)


def test_sphere_outputs_under_a_file_are_refused(
    tmp_path: Path, pano: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sphere", "cubemap", str(pano), str(pano), "--face-width", "16"]) == 2
    assert f"{pano}: is a file" in _one_error(capsys)
    assert main(["sphere", "crop", str(pano), "--box", "0.1,0.1,0.2,0.2", str(pano / "c.png"), "--size", "16"]) == 2
    assert f"under {pano}, which is a file" in _one_error(capsys)


def test_a_read_only_mount_is_refused_up_front(tmp_path: Path, pano: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        assert main(["sphere", "views", str(pano), str(mnt), "--size", "16"]) == 2
        assert "EROFS" in _one_error(capsys)
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)
