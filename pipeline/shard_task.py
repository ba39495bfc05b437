"""The house policy of shard tasks: retried as the retry policy says (benchfoundry/core/retry.py), uncached,
results not persisted, timed; each task declares its resource (`core/retry.ShardResource`: what it runs on), whose
retries come from
core/retry.SHARD_RETRIES and whose timeout and GPU resource from flows/task_runner.POLICIES.

Every stage's task has one shape, `<stage>_task(out, shard, config)`: the build's output root, the shard (a
typed plan or its id, JSON/pickle-friendly) and the whole `BuildConfig`, of which the task reads its own
section; its Prefect name is `<benchmark>-<stage>`.

Completion lives in the artifact store's markers (benchfoundry/core/store.py), which survive a new Prefect
database and a move to another cluster; each marker a task writes records its time (benchfoundry/core/task_clock.py).
Outside flows/, this is the one module that imports prefect.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any, TypeVar

from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.retry import SHARD_RESOURCES, ShardResource, retries_shard
from benchfoundry.core.task_clock import clock_record_path, task_clock

F = TypeVar("F", bound=Callable[..., Any])

#: The device a task runs on, read from the build's config ("CPU"/"cpu": no GPU resource needed).
DeviceOf = Callable[[BuildConfig], str]


def retry_transient(_task: Task, _run: TaskRun, state: State) -> bool:
    """Prefect's `retry_condition_fn`: the failed task's error, judged by the kernel's rule
    (benchfoundry/core/retry.retries_shard)."""
    exc = state.data if isinstance(state.data, BaseException) else state.result(raise_on_failure=False)
    return isinstance(exc, BaseException) and retries_shard(exc)


SHARD_TASK_OPTIONS: dict[str, Any] = {
    "retry_condition_fn": retry_transient,
    "cache_policy": NO_CACHE,
    "persist_result": False,
}


def timed(fn: F, name: str) -> F:
    """`fn` run inside a task clock, so the markers it writes record its time (a task `(out, shard, …)` that writes
    none records it in its clock record). Prefect keys the task by `fn` itself (`__prefect_task_source__`), not by
    this wrapper."""

    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs).arguments
        out, shard = bound.get("out"), bound.get("shard")
        record = clock_record_path(out, name, shard) if isinstance(out, str) and os.path.isdir(out) else None
        with task_clock(record):
            return fn(*args, **kwargs)

    run.__prefect_task_source__ = fn  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]


def shard_task(*, resource: ShardResource, name: str, device: DeviceOf | None = None) -> Callable[[F], Task]:
    """`@task` with the house policy (retried on transient errors only, uncached, results not persisted; timed),
    of the given resource; `device` says where a `render` or `gpu` task runs (None: on the CPU)."""
    if resource not in SHARD_RESOURCES:
        raise ValueError(f"shard resource {resource!r}: one of {SHARD_RESOURCES}")

    def define(fn: F) -> Task:
        run = timed(fn, name)
        run.shard_resource = resource  # type: ignore[attr-defined]
        run.shard_device = device  # type: ignore[attr-defined]
        return task(run, name=name, **SHARD_TASK_OPTIONS)

    return define


def resource_of(shard: Task) -> ShardResource:
    """The resource a shard task was declared with."""
    return shard.fn.shard_resource


def device_of(shard: Task, config: BuildConfig) -> str:
    """The device a shard task runs on under `config` ("CPU" when it declared none)."""
    device = shard.fn.shard_device
    return "CPU" if device is None else device(config)
