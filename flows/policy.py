"""Task retry and caching policy, and the task runner, set in one place for every flow.

Shard tasks are not cached by Prefect: completion lives in the artifact store's markers
(tasks/store.py), which survive a new Prefect database and a move to another cluster.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from prefect import Flow, Task, task
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from benchfoundry.flows.params import RunnerConfig

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


def with_runner_policy(shard: Task, runner: RunnerConfig) -> Task:
    """The same task with the retry count and delay of the build's runner config."""
    return shard.with_options(retries=runner.task_retries, retry_delay_seconds=runner.retry_delay_s)


def task_runner(runner: RunnerConfig) -> TaskRunner:
    """Threads on this machine, or a Dask cluster for more than one machine."""
    if runner.kind == "dask":
        from prefect_dask import DaskTaskRunner

        if runner.dask_address:
            return DaskTaskRunner(address=runner.dask_address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": runner.dask_workers, "threads_per_worker": 1})
    return ThreadPoolTaskRunner(max_workers=runner.max_workers)


def on_runner(stage: Flow, runner: RunnerConfig) -> Flow:
    """A (sub)flow that submits shard tasks, set to run them on the build's task runner."""
    return stage.with_options(task_runner=task_runner(runner))
