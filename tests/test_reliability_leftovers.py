"""Reliability: nothing left behind or reached through a link. A render worker's temporary folder goes when the
process that started it is killed with SIGKILL; `--prune` neither descends through nor deletes through a linked
folder; a hard link under an input root to a file outside it is refused, and never hard-linked into a release."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from benchfoundry.benchmarks.syndor.stages import frame_files


def _gone(path: Path, polls: int = 600) -> bool:
    """Whether `path` disappears within `polls` polls a tenth of a second apart."""
    for _ in range(polls):
        if not path.exists():
            return True
        time.sleep(0.1)
    return False


def test_a_workers_temporary_folder_goes_when_its_client_is_killed(tmp_path: Path) -> None:
    """A process starts a render worker through the real client and is killed with SIGKILL: the worker dies with
    it (tied), and its temporary folder is removed by its janitor, nothing left in the system's temporary folder."""
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    script = (
        "import time\n"
        "from benchfoundry.pipeline.render_client import RenderWorker\n"
        "worker = RenderWorker()\n"
        "print(worker.tmp, worker.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "TMPDIR": str(system_tmp)}
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        folder, pid = proc.stdout.readline().split()
        folder_path = Path(folder)
        assert folder_path.is_dir() and folder_path.parent == system_tmp
        (folder_path / "blender_scratch").mkdir()
        (folder_path / "blender_scratch" / "frame.exr").write_bytes(b"x" * 1000)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _, alive = psutil.wait_procs([psutil.Process(int(pid))], timeout=30)
        assert not alive
        assert _gone(folder_path)
        assert not list(system_tmp.iterdir())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_closed_worker_leaves_no_janitor_and_no_folder(tmp_path: Path) -> None:
    from benchfoundry.pipeline.render_client import RenderWorker

    worker = RenderWorker()
    folder = Path(worker.tmp)
    assert folder.is_dir() and worker.janitor.poll() is None
    worker.close()
    assert not folder.exists() and worker.janitor.returncode == 0


def _frame(person: str, cam: int) -> str:
    """A frame image's name as render_plan.frame_paths writes it (tests/test_rerender.py's `frame_file`)."""
    folder = f"images/SMPLitex_texture_{person}_desert_noon_north_5.4/pose000/raw_images"
    return f"{folder}/frame0001_cam{cam:03d}_r5_phi0_theta0.jpg"


def test_prune_deletes_through_no_folder_swapped_for_a_link_after_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames are listed, then a frame's folder is replaced by a link to another build's copy of it: prune
    removes nothing there (another build's frame stays) and still removes the frames it can reach directly."""
    bench, shared = tmp_path / "syndor", tmp_path / "shared"
    used, swapped, plain = _frame("00000_walking", 1), _frame("00001_walking", 2), _frame("00002_walking", 3)
    for root in (bench, shared):
        for rel in (used, swapped, plain):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"x")
    listed = frame_files.unused_frame_files(bench, [used], [])
    assert listed == sorted([swapped, plain])
    person = bench / Path(swapped).parents[2]
    shutil.rmtree(person)
    person.symlink_to(shared / Path(swapped).parents[2], target_is_directory=True)
    monkeypatch.setattr(frame_files, "unused_frame_files", lambda *args: listed)
    assert frame_files.prune(bench, [used], []) == 1
    assert (shared / swapped).is_file() and (shared / plain).is_file() and (bench / used).is_file()
    assert not (bench / Path(plain).parents[2]).exists()


def test_prune_of_a_benchmark_folder_that_is_a_link_removes_nothing(tmp_path: Path) -> None:
    shared, used, gone = tmp_path / "shared", _frame("00000_walking", 1), _frame("00001_walking", 2)
    for rel in (used, gone):
        (shared / rel).parent.mkdir(parents=True, exist_ok=True)
        (shared / rel).write_bytes(b"x")
    (tmp_path / "syndor").symlink_to(shared, target_is_directory=True)
    assert frame_files.prune(tmp_path / "syndor", [used], []) == 0
    assert (shared / gone).is_file()


def test_a_frame_replaced_by_a_link_is_never_hard_linked_into_the_imagefolder(tmp_path: Path) -> None:
    """SynDORBench's Hugging Face imagefolder hard-links the released frames: a frame the build wrote is linked
    (same inode); a frame replaced by a symbolic link to an image outside the build is refused naming it (a hard
    link would follow the symbolic link and release the outside file)."""
    from benchfoundry.benchmarks.syndor.stages.qa_stage import write_imagefolder
    from benchfoundry.core.safe_paths import UnsafePathError

    root, outside = tmp_path / "syndor", tmp_path / "private.jpg"
    own, planted = _frame("00000_walking", 1), _frame("00001_walking", 2)
    for rel in (own, planted):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / own).write_bytes(b"the build's frame")
    outside.write_bytes(b"someone else's image")
    (root / planted).symlink_to(outside)
    row = {"nv_path": None, "human_discernable": 1}
    final = write_imagefolder(root, {("human_detection", "test"): [{**row, "img_path": own}]})
    assert (final / "human_detection" / "test" / own).samefile(root / own)
    with pytest.raises(UnsafePathError, match=planted.replace(".", r"\.")):
        write_imagefolder(root, {("human_detection", "test"): [{**row, "img_path": planted}]})
    assert outside.stat().st_nlink == 1
    assert not (final / "human_detection" / "test" / planted).exists()


def test_a_folder_on_the_way_that_is_a_link_is_refused_too(tmp_path: Path) -> None:
    from benchfoundry.core.safe_paths import UnsafePathError, own_file

    root, elsewhere = tmp_path / "build", tmp_path / "elsewhere"
    (elsewhere / "frames").mkdir(parents=True)
    (elsewhere / "frames" / "a.jpg").write_bytes(b"x")
    root.mkdir()
    (root / "images").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        own_file(root, root / "images" / "frames" / "a.jpg", "img_path")
    (root / "own").mkdir()
    (root / "own" / "b.jpg").write_bytes(b"y")
    assert own_file(root, root / "own" / "b.jpg", "img_path") == root / "own" / "b.jpg"
