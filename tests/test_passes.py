"""Moving a rendered frame from the worker's scratch folder to its place under the output root."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest

from benchfoundry.render import passes


def _scratch_frame(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / "0000.png"
    written.write_bytes(b"frame bytes")
    return written


def test_a_frame_moves_across_filesystems_by_copy_then_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bind-mounted output root is another filesystem than /tmp: rename fails with EXDEV there."""
    written = _scratch_frame(tmp_path / "scratch")
    real_replace = os.replace

    def replace(src: os.PathLike, dst: os.PathLike) -> None:
        if Path(src) == written:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    dest = tmp_path / "out" / "images" / "frame.png"
    passes.move_output(written, str(dest))
    assert dest.read_bytes() == b"frame bytes" and not written.exists()
    assert [p.name for p in dest.parent.iterdir()] == ["frame.png"]  # no staged copy left beside it


@pytest.mark.skipif(
    not Path("/dev/shm").is_dir() or os.stat("/dev/shm").st_dev == os.stat(tempfile.gettempdir()).st_dev,
    reason="needs /dev/shm on another filesystem than the temporary folder",
)
def test_a_frame_moves_from_a_real_other_filesystem(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        written = _scratch_frame(Path(shm))
        dest = tmp_path / "frame.png"
        passes.move_output(written, str(dest))
        assert dest.read_bytes() == b"frame bytes" and not written.exists()


def test_other_os_errors_are_not_swallowed(tmp_path: Path) -> None:
    written = _scratch_frame(tmp_path / "scratch")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("a directory in the way")
    with pytest.raises(OSError):
        passes.move_output(written, str(tmp_path / "taken"))
