"""The build's task runner, the retry count of its shard tasks and the GPU annotation of GPU stages,
set in one place for every flow."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from prefect import Flow, Task
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from benchfoundry.configs.build import RunnerConfig
from benchfoundry.flows.cluster import GPU_RESOURCE


def with_runner_policy(shard: Task, runner: RunnerConfig) -> Task:
    """The same task with the retry count and delay of the build's runner config."""
    return shard.with_options(retries=runner.task_retries, retry_delay_seconds=runner.retry_delay_s)


def task_runner(runner: RunnerConfig) -> TaskRunner:
    """Threads on this machine, or the Dask scheduler at `runner.dask_address` (set by
    `flows.cluster.dask_cluster` for the clusters a build starts itself)."""
    if runner.kind == "local":
        return ThreadPoolTaskRunner(max_workers=runner.max_workers)
    if not runner.dask_address:
        raise ValueError(
            f"runner.kind {runner.kind}: no scheduler address; the build starts its cluster "
            "(flows.cluster.dask_cluster) before the flows run"
        )
    from prefect_dask import DaskTaskRunner

    return DaskTaskRunner(address=runner.dask_address)


def on_runner(stage: Flow, runner: RunnerConfig) -> Flow:
    """A (sub)flow that submits shard tasks, set to run them on the build's task runner."""
    return stage.with_options(task_runner=task_runner(runner))


def offers_gpus(runner: RunnerConfig) -> bool:
    """Whether the runner's workers offer the Dask `GPU` resource (a dask-local cluster only when
    `worker_gpus` is set; an existing scheduler's and SLURM GPU workers are started with it)."""
    if runner.kind == "dask-local":
        return runner.worker_gpus > 0
    if runner.kind == "slurm":
        return runner.slurm.gpus_per_job > 0
    return runner.kind == "dask"


@contextmanager
def _annotated() -> Iterator[None]:
    import dask

    with dask.annotate(resources={GPU_RESOURCE: 1}):
        yield


def gpu_stage(runner: RunnerConfig, needs_gpu: bool) -> AbstractContextManager[None]:
    """Tasks submitted inside carry Dask's resource annotation `GPU=1` when the stage needs a GPU and the
    runner's workers offer GPUs, so Dask runs them only on GPU workers, one per GPU."""
    return _annotated() if needs_gpu and offers_gpus(runner) else nullcontext()
