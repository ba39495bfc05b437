"""The wall and CPU seconds of a shard task, sliced at each completion marker it writes.

`tasks/common/shard_task.shard_task` runs every shard task inside `task_clock()`; `StageStore.write_shard`
puts `lap()` into the marker as `timing`: when the slice began (Unix seconds), its wall seconds, the CPU seconds
of the task's thread plus those of the render workers it drove (reported by the worker, `add_render`), and the
frames rendered with their seconds. A task that writes several markers (a batch) gives each the slice since the
previous one. CPU spent in library thread pools (BLAS, OpenCV) other than the task's thread is not counted.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class TaskClock:
    """One slice of a task's time; `lap` closes it and starts the next."""

    start: float = field(default_factory=time.time)
    wall0: float = field(default_factory=time.perf_counter)
    cpu0: float = field(default_factory=time.thread_time)
    worker_cpu_s: float = 0.0
    render_frames: int = 0
    render_s: float = 0.0

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
        return slice_


_CLOCK: ContextVar[TaskClock | None] = ContextVar("benchfoundry_task_clock", default=None)


@contextmanager
def task_clock() -> Iterator[TaskClock]:
    """Time the enclosed task (nested: the outer clock keeps running, the inner one is used)."""
    token = _CLOCK.set(TaskClock())
    try:
        yield _CLOCK.get()  # type: ignore[misc]
    finally:
        _CLOCK.reset(token)


def current_clock() -> TaskClock | None:
    """The running task's clock, or None outside a shard task."""
    return _CLOCK.get()


def add_render(frames: int, seconds: float, cpu_seconds: float) -> None:
    """Count a render worker's frames, seconds and CPU seconds towards the running task (if any)."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.add_render(frames, seconds, cpu_seconds)
