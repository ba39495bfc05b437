"""Reliability: nothing left behind or reached through a link. A render worker's temporary folder goes when the
process that started it is killed with SIGKILL; `--prune` neither descends through nor deletes through a linked
folder; a hard link under an input root to a file outside it is refused, and never hard-linked into a release."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil


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
