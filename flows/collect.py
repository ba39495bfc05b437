"""Waiting on a stage's shard futures (`collect_shards`; submitted and waited on at once: `run_shards`): one helper
for every flow. Each wait is a stage's wall-time window, recorded for build.json's timings (`recording_stages`,
benchfoundry/core/timings.py)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from prefect import Task
from prefect.futures import PrefectFuture

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.timings import StageWindow
from benchfoundry.flows.progress import StageProgress
from benchfoundry.flows.task_runner import submit_shards

#: The open recordings (`recording_stages`); every collect appends its window to each.
_RECORDINGS: list[list[StageWindow]] = []


@contextmanager
def recording_stages() -> Iterator[list[StageWindow]]:
    """The windows of the stages collected in this process while the block runs."""
    windows: list[StageWindow] = []
    _RECORDINGS.append(windows)
    try:
        yield windows
    finally:
        _RECORDINGS.remove(windows)


def collect_shards(
    stage: str, futures: Iterable[tuple[str, PrefectFuture]], paths: Mapping[str, str] | None = None
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The results of the (item, future) pairs that finished, in order, and a `failed` problem naming
    the item (and its input path, when `paths` has one) for each task that raised after its retries.
    A progress bar of the stage (shards done / total, failures) goes to the terminal (stderr)."""
    started = time.time()
    results, failed = [], []
    pairs = list(futures)
    progress = StageProgress(stage, len(pairs))
    for item, future in pairs:
        try:
            results.append(future.result())
        except Exception as exc:
            failed.append(
                problem(stage, item, f"{type(exc).__name__}: {exc}"[:2000], kind="failed", path=(paths or {}).get(item))
            )
        progress.advance(ok=len(failed) == progress.failed)
    window = StageWindow(stage, started, time.time(), len(pairs), len(failed))
    for windows in list(_RECORDINGS):
        windows.append(window)
    return results, failed


def run_shards(
    stage: str,
    task: Task,
    out: str,
    shards: Iterable[tuple[str, Any]],
    config: BuildConfig,
    paths: Mapping[str, str] | None = None,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """A stage's `(id, shard)` pairs submitted to `task` (`flows.task_runner.submit_shards`) and waited on: the
    results and failed problems of `collect_shards`."""
    return collect_shards(stage, submit_shards(task, out, shards, config), paths)
