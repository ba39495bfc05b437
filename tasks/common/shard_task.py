"""The house policy of shard tasks: retried only on errors a retry can fix (benchfoundry/core/retry.py),
uncached, results not persisted.

Completion lives in the artifact store's markers (benchfoundry/core/store.py), which survive a new Prefect
database and a move to another cluster. Outside flows/, this is the one module that imports prefect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from benchfoundry.core.retry import is_transient
from benchfoundry.core.stopping import stop_requested

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


def shard_task(fn: F | None = None, **overrides: Any) -> Any:
    """`@task` with the house policy: retried on transient errors only, uncached, results not persisted."""
    options = {**SHARD_TASK_OPTIONS, **overrides}
    if fn is None:
        return lambda f: task(f, **options)
    return task(fn, **options)
