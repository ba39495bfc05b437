"""The output root: checked up front, marked, locked against a second build, swept only of its own leftovers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchfoundry.core.output_root import (
    LOCK_NAME,
    MARKER_NAME,
    OutputPathError,
    OutputRootBusy,
    check_build_root,
    check_output_dir,
    check_output_file,
    hold_build_lock,
    hold_output_root,
)
from benchfoundry.core.store import sweep_build_leftovers

HOLD_SCRIPT = (
    "import sys\n"
    "from benchfoundry.core.output_root import hold_output_root\n"
    "with hold_output_root(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.readline()\n"
)


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A second process holding the lock of `tmp_path/root` until its stdin closes."""
    root = tmp_path / "root"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_SCRIPT, str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    yield proc, root
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_a_second_process_is_refused_naming_the_holder(holder: tuple[subprocess.Popen[str], Path]) -> None:
    proc, root = holder
    with pytest.raises(OutputRootBusy) as err:
        with hold_output_root(root):
            pass
    assert f"pid {proc.pid}" in str(err.value) and str(root) in str(err.value)
    assert (root / MARKER_NAME).is_file()


def test_the_lock_of_a_killed_holder_is_taken_over_and_reported(holder: tuple[subprocess.Popen[str], Path]) -> None:
    proc, root = holder
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with hold_output_root(root) as taken_over:
        assert taken_over is not None and taken_over["pid"] == proc.pid
        assert json.loads((root / LOCK_NAME).read_text())["pid"] == os.getpid()
    with hold_output_root(root) as taken_over:  # released cleanly this time
        assert taken_over is None


def test_a_clean_release_lets_the_next_process_in(holder: tuple[subprocess.Popen[str], Path]) -> None:
    proc, root = holder
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait() == 0
    with hold_output_root(root) as taken_over:
        assert taken_over is None


def _plant(kind: str, lock: Path, victim: Path) -> None:
    if kind == "symlink":
        lock.symlink_to(victim)
    elif kind == "hard link":
        os.link(victim, lock)
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.mkdir()


@pytest.mark.parametrize("kind", ["symlink", "hard link", "fifo", "folder"])
@pytest.mark.parametrize("hold", [hold_output_root, hold_build_lock], ids=["a build", "a command on a build"])
def test_a_lock_file_that_is_not_the_roots_own_is_refused_and_nothing_outside_changes(
    tmp_path: Path, kind: str, hold: object
) -> None:
    """`OUT/.benchfoundry.lock` as a symlink: every command that took the lock truncated its target (14,390 →
    4,097 bytes). A link of either kind, a FIFO or a folder there is refused naming the lock; the file it points at
    keeps its bytes."""
    root = tmp_path / "r"
    with hold_output_root(root):  # a build root, its lock released
        pass
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"root's file\n" * 1000)
    lock = root / LOCK_NAME
    lock.unlink()
    _plant(kind, lock, victim)
    with pytest.raises(OutputPathError, match=rf"{LOCK_NAME}: .*refusing to write the build's lock through it"):
        with hold(root):  # type: ignore[operator]
            pass
    assert victim.read_bytes() == b"root's file\n" * 1000


def test_the_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    with hold_output_root(tmp_path / "r"):
        with hold_output_root(tmp_path / "r"):
            pass
        probe = subprocess.run(
            [sys.executable, "-c", HOLD_SCRIPT, str(tmp_path / "r")], input="", capture_output=True, text=True
        )
        assert probe.returncode != 0 and "another build" in probe.stderr  # still held after the inner exit


def test_a_non_empty_folder_that_is_not_a_build_is_refused_unless_adopted(tmp_path: Path) -> None:
    mine = tmp_path / "u" / "docs" / "thesis.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("mine")
    with pytest.raises(OutputPathError, match="not a benchfoundry build"):
        check_build_root(tmp_path / "u")
    assert not (tmp_path / "u" / LOCK_NAME).exists() and not (tmp_path / "u" / MARKER_NAME).exists()
    assert check_build_root(tmp_path / "u", adopt=True) == tmp_path / "u"
    assert check_build_root(tmp_path / "new" / "empty") == tmp_path / "new" / "empty"
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    record = {"config_hash": "0" * 64, "benchmarks": {}, "versions": {"benchfoundry": "0.1.0"}}
    (legacy / "build.json").write_text(json.dumps(record))
    assert check_build_root(legacy) == legacy


def test_adopting_a_folder_whose_report_holds_the_users_files_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """The build writes report/ whole (build.html, index.html, a benchmark's pages): adopting a folder whose own
    report/ holds files would replace them, so it is refused naming report/; an empty report/ is fine."""
    user = tmp_path / "u"
    (user / "report").mkdir(parents=True)
    (user / "report" / "index.html").write_text("<h1>my page</h1>")
    (user / "notes.txt").write_text("mine")
    with pytest.raises(OutputPathError, match=r"--adopt-out .*: report/ already holds files"):
        check_build_root(user, adopt=True)
    assert (user / "report" / "index.html").read_text() == "<h1>my page</h1>"
    (user / "report" / "index.html").unlink()
    assert check_build_root(user, adopt=True) == user
    (user / "report").rmdir()
    (user / "report").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(OutputPathError, match="report/"):
        check_build_root(user, adopt=True)


def test_output_paths_that_cannot_be_written_are_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "f"
    a_file.write_text("x")
    with pytest.raises(OutputPathError, match="is a file"):
        check_output_dir(a_file)
    with pytest.raises(OutputPathError, match=f"under {a_file}"):
        check_output_dir(a_file / "sub" / "out")
    with pytest.raises(OutputPathError, match="is a folder"):
        check_output_file(tmp_path)
    assert check_output_file(tmp_path / "new" / "score.json") == tmp_path / "new" / "score.json"
    assert not (tmp_path / "new").exists()  # checked, not created


def _mount_tmpfs(where: Path, options: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    return (
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True).returncode
        == 0
    )


def test_a_read_only_mount_is_refused_naming_the_errno(tmp_path: Path) -> None:
    mnt = tmp_path / "ro"
    if not _mount_tmpfs(mnt, "ro,size=1m"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        with pytest.raises(OutputPathError, match="EROFS"):
            check_output_dir(mnt / "out")
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)


def test_the_sweep_removes_only_the_builds_own_leftovers(tmp_path: Path) -> None:
    root = tmp_path / "u"
    user = [root / "docs" / ".thesis.draft1.tmp", root / ".notes.abcdefgh.tmp", root / "syndor" / "notes.tmp"]
    own = [
        root / "syndor" / "render" / ".manifest.parquet.k1ll3dxx.tmp",
        root / ".build.json.a1b2c3d4.tmp",
        root / "syndor" / "render" / "_tmp" / "shard_0" / "0000.jpg",
        root / "syndor" / "index" / ".hf.x1y2z3w4" / "a",
    ]
    for path in user + own:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        os.utime(path, (time.time() - 2 * 86400,) * 2)
    swept = sweep_build_leftovers(root, ["syndor", "odi", "viewspatial"], ["build.json", MARKER_NAME])
    assert all(p.exists() for p in user)
    assert not any(p.exists() for p in own)
    assert not (root / "syndor" / "render" / "_tmp").exists() and (root / "syndor" / "render").is_dir()
    assert len(swept) == 4
