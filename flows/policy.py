"""The build's task runner and the retry count of its shard tasks, set in one place for every flow."""

from __future__ import annotations

from prefect import Flow, Task
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from benchfoundry.configs.build import RunnerConfig


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
