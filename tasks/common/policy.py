"""The house policy of shard tasks: retried, uncached, results not persisted.

Completion lives in the artifact store's markers (tasks/common/store.py), which survive a new Prefect
database and a move to another cluster. Outside flows/, this is the one module that imports prefect.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from prefect import task
from prefect.cache_policies import NO_CACHE

F = TypeVar("F", bound=Callable[..., Any])

SHARD_TASK_OPTIONS: dict[str, Any] = {
    "retries": 2,
    "retry_delay_seconds": 5,
    "cache_policy": NO_CACHE,
    "persist_result": False,
}


def shard_task(fn: F | None = None, **overrides: Any) -> Any:
    """`@task` with the house policy: retried, uncached, results not persisted."""
    options = {**SHARD_TASK_OPTIONS, **overrides}
    if fn is None:
        return lambda f: task(f, **options)
    return task(fn, **options)
