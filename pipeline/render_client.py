"""Drives render worker processes (render/worker.py) from the pipeline, which never imports bpy.

Each thread gets its own worker (Blender is not thread-safe); a worker renders one shard per
request, is replaced after `shards_per_worker` shards, and is killed when a shard exceeds its
timeout. A crash, a timeout or an error reply raises `RenderError`, so the shard's task fails
and is retried with a fresh worker.

Workers do not outlive their process's use of them: each dies with the thread that started it, SIGKILL
of the process included (benchfoundry/core/tied_process.py); none is started once the process has been
asked to stop (benchfoundry/core/stopping.py); all are closed at exit, a thread's worker is
closed once that thread has ended (the next worker started in the process reaps it), and a worker
quits by itself after `BENCHFOUNDRY_RENDER_IDLE_S` idle seconds (render/worker.py) — on a long-lived
Dask worker, neither exit nor thread end may come. So that a request never meets a worker that is
just quitting, the client itself replaces a worker that has been idle for `IDLE_MARGIN_S` (at most
half the idle time) less than that limit, read from the same variable.

With `BENCHFOUNDRY_GPU_PER_WORKER=1` (and no `BENCHFOUNDRY_GPU_INDEX` given), each thread's worker
gets its own slot (0, 1, … among this process's live rendering threads) plus
`BENCHFOUNDRY_GPU_SLOT_OFFSET` (default 0) as `BENCHFOUNDRY_GPU_INDEX`, so its Blender uses one GPU.
Slots are numbered per process: several rendering processes on one machine all start at slot 0,
so give each its own offset (e.g. 0, 4, 8 for four threads each) or they share the first GPUs.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from typing import Any

from benchfoundry.core.retry import TransientError
from benchfoundry.core.stopping import stop_requested
from benchfoundry.core.task_clock import add_render
from benchfoundry.core.tied_process import remove_when_done, tied_command
from benchfoundry.render.worker_env import GPU_INDEX_ENV, WORKER_MODULE, idle_seconds

GPU_PER_WORKER_ENV = "BENCHFOUNDRY_GPU_PER_WORKER"
GPU_SLOT_OFFSET_ENV = "BENCHFOUNDRY_GPU_SLOT_OFFSET"
#: Seconds before the worker's own idle exit at which the client stops reusing it.
IDLE_MARGIN_S = 30.0
#: The variables naming a temporary folder (Python's tempfile and Blender read TMPDIR).
TMP_ENV = ("TMPDIR", "TMP", "TEMP")
STARTUP_TIMEOUT_S = 120.0


class RenderError(TransientError):
    """A shard could not be rendered: the worker crashed, timed out or reported an error (retried)."""


class RenderWorker:
    """One `python -m benchfoundry.render.worker` process."""

    def __init__(self, slot: int = 0) -> None:
        if stop_requested() is not None:
            raise RenderError("the build is stopping: no new render worker")
        self.log = tempfile.TemporaryFile(mode="w+b")
        # the worker's temporary folder (its scratch, Blender's `blender_*`), removed when it is closed, killed
        # included, and by its janitor once this process dies (SIGKILL included): nothing is left in the
        # system's temporary folder
        self.tmp = tempfile.mkdtemp(prefix="benchfoundry-worker-")
        self.proc = subprocess.Popen(
            tied_command([sys.executable, "-m", WORKER_MODULE]),
            env={**worker_env(os.environ, slot), **dict.fromkeys(TMP_ENV, self.tmp)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
        )
        self.janitor = remove_when_done(self.tmp, self.proc.pid)
        self.owner = threading.current_thread()
        self.shards = 0
        self._read_reply(STARTUP_TIMEOUT_S, "starting")
        self.last_reply = time.monotonic()
        _LIVE.add(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def near_idle_exit(self, now: float, idle_s: float | None) -> bool:
        """Whether the worker has been idle long enough (see `reuse_limit_s`) that it may quit any moment."""
        return idle_s is not None and now - self.last_reply >= reuse_limit_s(idle_s)

    def render(self, spec_path: str | os.PathLike[str], timeout_s: float) -> dict[str, Any]:
        """Render one shard spec; returns the worker's reply."""
        try:
            self.proc.stdin.write(json.dumps({"op": "render", "spec": str(spec_path)}) + "\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except BrokenPipeError:
            raise RenderError(f"render worker {self.pid} is gone: {self._log_tail()}") from None
        reply = self._read_reply(timeout_s, f"rendering {spec_path}")
        self.last_reply = time.monotonic()
        self.shards += 1
        if not reply.get("ok"):
            raise RenderError(
                f"render worker {self.pid} failed on {spec_path}: {reply.get('error')}\n{reply.get('traceback', '')}"
            )
        return reply

    def _read_reply(self, timeout_s: float, doing: str) -> dict[str, Any]:
        stdout = self.proc.stdout
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close(kill=True)
                raise RenderError(f"render worker {self.pid} timed out after {timeout_s:g} s while {doing}")
            ready, _, _ = select.select([stdout], [], [], min(left, 1.0))
            if ready:
                line = stdout.readline()  # type: ignore[union-attr]
                if not line:
                    code = self.proc.wait()
                    self.close(kill=True)
                    raise RenderError(f"render worker {self.pid} exited ({code}) while {doing}: {self._log_tail()}")
                return json.loads(line)

    def _log_tail(self, chars: int = 2000) -> str:
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - chars))
            return self.log.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def close(self, kill: bool = False) -> None:
        """Ask the worker to quit (or kill it) and reap it."""
        _LIVE.discard(self)
        if self.alive() and not kill:
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")  # type: ignore[union-attr]
                self.proc.stdin.flush()  # type: ignore[union-attr]
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                pass
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except (BrokenPipeError, OSError):
                pass
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.janitor.stdin.close()  # type: ignore[union-attr]
        self.janitor.wait()


def reuse_limit_s(idle_s: float) -> float:
    """Idle seconds after which the client no longer reuses a worker that quits after `idle_s`."""
    return idle_s - min(IDLE_MARGIN_S, idle_s / 2)


def slot_device(slot: int, environ: Mapping[str, str]) -> int:
    """The GPU index of this process's `slot`: the slot plus `BENCHFOUNDRY_GPU_SLOT_OFFSET` (default 0)."""
    value = environ.get(GPU_SLOT_OFFSET_ENV, "").strip()
    try:
        offset = int(value) if value else 0
    except ValueError:
        raise ValueError(f"{GPU_SLOT_OFFSET_ENV}={value!r}: not an integer") from None
    if offset < 0:
        raise ValueError(f"{GPU_SLOT_OFFSET_ENV}={value!r}: must not be negative")
    return slot + offset


def worker_env(environ: Mapping[str, str], slot: int) -> dict[str, str]:
    """The worker's environment: pinned to GPU `slot_device(slot)` when GPUs are shared per worker and no
    index is given."""
    env = dict(environ)
    if environ.get(GPU_PER_WORKER_ENV, "").strip() not in ("", "0") and not environ.get(GPU_INDEX_ENV, "").strip():
        env[GPU_INDEX_ENV] = str(slot_device(slot, environ))
    return env


def free_slot(holders: Mapping[int, threading.Thread]) -> int:
    """The lowest slot not held by a live thread."""
    return next(i for i in itertools.count() if i not in holders or not holders[i].is_alive())


_LIVE: set[RenderWorker] = set()
_LOCAL = threading.local()
_SLOTS: dict[int, threading.Thread] = {}
_SLOTS_LOCK = threading.Lock()


def _thread_slot() -> int:
    """This thread's slot, taken on first use and kept for the thread's life.

    Slots count this process's rendering threads only; other processes on the machine number theirs
    from 0 too (`BENCHFOUNDRY_GPU_SLOT_OFFSET` shifts a process's GPU indices, `slot_device`).
    """
    slot: int | None = getattr(_LOCAL, "slot", None)
    if slot is None:
        with _SLOTS_LOCK:
            slot = free_slot(_SLOTS)
            _SLOTS[slot] = threading.current_thread()
        _LOCAL.slot = slot
    return slot


def _close_orphans() -> None:
    """Close the workers of threads that have ended (their task runner shut down)."""
    for worker in list(_LIVE):
        if not worker.owner.is_alive():
            try:
                _LIVE.remove(worker)  # atomic: only one thread closes it
            except KeyError:
                continue
            worker.close()


def render_spec(spec_path: str | os.PathLike[str], *, timeout_s: float, shards_per_worker: int) -> dict[str, Any]:
    """Render a shard spec on this thread's worker, starting or recycling it as needed (a worker that has
    done `shards_per_worker` shards, has quit or is near its idle exit is replaced first). The worker's frames,
    seconds and CPU seconds count towards the running task's clock (benchfoundry/core/task_clock.py)."""
    worker: RenderWorker | None = getattr(_LOCAL, "worker", None)
    if worker is not None and (
        not worker.alive()
        or worker.shards >= shards_per_worker
        or worker.near_idle_exit(time.monotonic(), idle_seconds(os.environ))
    ):
        worker.close()
        worker = None
    if worker is None:
        _close_orphans()
        worker = RenderWorker(_thread_slot())
        _LOCAL.worker = worker
    try:
        reply = worker.render(spec_path, timeout_s)
    except RenderError:
        worker.close(kill=True)
        _LOCAL.worker = None
        raise
    add_render(reply.get("frames", 0), reply.get("seconds", 0.0), reply.get("cpu_seconds", 0.0))
    return reply


def live_worker_pids() -> list[int]:
    """Process ids of the running workers (for tests and monitoring)."""
    return sorted(w.pid for w in list(_LIVE) if w.alive())


def close_all() -> None:
    """Close every worker of this process (at exit, and when a flow's render stage ends)."""
    for worker in list(_LIVE):
        worker.close()


atexit.register(close_all)
