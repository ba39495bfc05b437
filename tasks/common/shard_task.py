"""The house policy of shard tasks: retried only on errors a retry can fix (benchfoundry/core/retry.py),
uncached, results not persisted, timed.

Completion lives in the artifact store's markers (benchfoundry/core/store.py), which survive a new Prefect
database and a move to another cluster; each marker a task writes records its time (benchfoundry/core/task_clock.py).
Outside flows/, this is the one module that imports prefect.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from benchfoundry.core.retry import is_transient
from benchfoundry.core.stopping import stop_requested
from benchfoundry.core.task_clock import task_clock

F = TypeVar("F", bound=Callable[..., Any])


def retry_transient(_task: Task, _run: TaskRun, state: State) -> bool:
    """Prefect's `retry_condition_fn`: retry only an error on the kernel's allow-list of transient ones
    (benchfoundry/core/retry.py), and nothing once the build has been asked to stop."""
    if stop_requested() is not None:
        return False
    exc = state.data if isinstance(state.data, BaseException) else state.result(raise_on_failure=False)
    return isinstance(exc, BaseException) and is_transient(exc)


SHARD_TASK_OPTIONS: dict[str, Any] = {
    "retries": 2,
    "retry_delay_seconds": 5,
    "retry_condition_fn": retry_transient,
    "cache_policy": NO_CACHE,
    "persist_result": False,
}


def timed(fn: F) -> F:
    """`fn` run inside a task clock, so the markers it writes record its time. Prefect keys the task by `fn`
    itself (`__prefect_task_source__`), not by this wrapper."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with task_clock():
            return fn(*args, **kwargs)

    run.__prefect_task_source__ = fn  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]


def shard_task(fn: F | None = None, **overrides: Any) -> Any:
    """`@task` with the house policy: retried on transient errors only, uncached, results not persisted; timed."""
    options = {**SHARD_TASK_OPTIONS, **overrides}
    if fn is None:
        return lambda f: task(timed(f), **options)
    return task(timed(fn), **options)
