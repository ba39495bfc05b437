"""The wall and CPU seconds of a shard task, sliced at each completion marker it writes.

`pipeline/shard_task.shard_task` runs every shard task inside `task_clock()`; `StageStore.write_shard`
puts `lap()` into the marker as `timing`: when the slice began (Unix seconds), its wall seconds, the CPU seconds
of the task's thread plus those of the render workers it drove (reported by the worker, `add_render`), and the
frames rendered with their seconds. A task that writes several markers (a batch) gives each the slice since the
previous one. A task that writes no marker (a render of files outside a store, a coarse export) records its time
as a clock record instead (`clock_record_path`: `<out>/<benchmark>/_clock/<stage>/<shard>.json`), which
benchfoundry/core/timings.py reads like a marker's. CPU spent in library thread pools (BLAS, OpenCV) other than the
task's thread is not counted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The folder, under a benchmark's, of the clock records of tasks that wrote no marker.
CLOCK_DIR = "_clock"


@dataclass
class TaskClock:
    """One slice of a task's time; `lap` closes it and starts the next."""

    start: float = field(default_factory=time.time)
    wall0: float = field(default_factory=time.perf_counter)
    cpu0: float = field(default_factory=time.thread_time)
    worker_cpu_s: float = 0.0
    render_frames: int = 0
    render_s: float = 0.0
    laps: int = 0

    def add_render(self, frames: int, seconds: float, cpu_seconds: float) -> None:
        self.render_frames += int(frames)
        self.render_s += float(seconds)
        self.worker_cpu_s += float(cpu_seconds)

    def lap(self) -> dict[str, float | int]:
        wall, cpu = time.perf_counter(), time.thread_time()
        slice_ = {
            "start": self.start,
            "seconds": round(wall - self.wall0, 3),
            "cpu_seconds": round(cpu - self.cpu0 + self.worker_cpu_s, 3),
            "render_frames": self.render_frames,
            "render_seconds": round(self.render_s, 3),
        }
        self.start, self.wall0, self.cpu0 = self.start + (wall - self.wall0), wall, cpu
        self.worker_cpu_s, self.render_frames, self.render_s = 0.0, 0, 0.0
        self.laps += 1
        return slice_


_CLOCK: ContextVar[TaskClock | None] = ContextVar("benchfoundry_task_clock", default=None)


def clock_record_path(out: str | os.PathLike[str], task_name: str, shard: Any) -> Path:
    """Where a task named `<benchmark>-<stage>` records the time of a shard when it wrote no marker: the shard
    itself names the file when it is a plain id, else a digest of its repr."""
    benchmark, _, stage = task_name.partition("-")
    key = shard if isinstance(shard, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", shard) else None
    key = key or hashlib.sha256(repr(shard).encode()).hexdigest()[:16]
    return Path(out) / benchmark / CLOCK_DIR / (stage or benchmark) / f"{key}.json"


def _write_record(path: Path, timing: dict[str, float | int]) -> None:
    """The clock record, through a temporary name (one a killed build's sweep knows, like the store's) and a
    rename; a failed write loses the figures only."""
    staged: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        staged = Path(name)
        with os.fdopen(fd, "w") as f:
            json.dump({"timing": timing}, f)
        os.chmod(staged, 0o644)
        os.replace(staged, path)
    except OSError:
        if staged is not None:
            staged.unlink(missing_ok=True)


@contextmanager
def task_clock(record: Path | None = None) -> Iterator[TaskClock]:
    """Time the enclosed task (nested: the outer clock keeps running, the inner one is used); when it wrote no
    marker, its whole time goes to `record` (if given), failed attempts included."""
    clock = TaskClock()
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)
        if record is not None and clock.laps == 0:
            _write_record(record, clock.lap())


def current_clock() -> TaskClock | None:
    """The running task's clock, or None outside a shard task."""
    return _CLOCK.get()


def add_render(frames: int, seconds: float, cpu_seconds: float) -> None:
    """Count a render worker's frames, seconds and CPU seconds towards the running task (if any)."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.add_render(frames, seconds, cpu_seconds)
