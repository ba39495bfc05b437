"""The build's task runner and the policy of its shard tasks, set in one place for every flow: each task's retries
from the retry policy (benchfoundry/core/retry.shard_retries: its resource's, the runner config's `task_retries` /
`retry_delay_s` over them), its timeout and GPU resource from one table per shard resource (`POLICIES`; the resource is
declared where a task is defined, pipeline/shard_task.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from prefect import Flow, Task
from prefect.futures import PrefectFuture
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from benchfoundry.configs.build import BuildConfig, RunnerConfig
from benchfoundry.core.retry import ShardResource, shard_retries
from benchfoundry.flows.cluster import GPU_RESOURCE
from benchfoundry.pipeline.shard_task import device_of, resource_of


@dataclass(frozen=True)
class ResourcePolicy:
    """How the tasks of one resource run besides their retries (core/retry.SHARD_RETRIES): a timeout (None: none), and
    whether they take Dask's GPU resource when their device is not the CPU."""

    timeout_s: float | None
    gpu: bool


POLICIES: dict[ShardResource, ResourcePolicy] = {
    "render": ResourcePolicy(timeout_s=None, gpu=True),
    "compute": ResourcePolicy(timeout_s=None, gpu=False),
    "model": ResourcePolicy(timeout_s=None, gpu=False),
    "gpu": ResourcePolicy(timeout_s=None, gpu=True),
}


def with_runner_policy(shard: Task, runner: RunnerConfig) -> Task:
    """The same task with its resource's policy and retries, the runner config's retry count and delay where it sets
    them."""
    resource = resource_of(shard)
    retries = shard_retries(resource, runner.task_retries, runner.retry_delay_s)
    return shard.with_options(
        retries=retries.retries, retry_delay_seconds=retries.delay_s, timeout_seconds=POLICIES[resource].timeout_s
    )


def needs_gpu(shard: Task, config: BuildConfig) -> bool:
    """Whether the task takes a GPU under `config`: its resource takes one and its device is not the CPU."""
    return POLICIES[resource_of(shard)].gpu and device_of(shard, config).lower() != "cpu"


def submit_shards(
    shard: Task, out: str, shards: Iterable[tuple[str, Any]], config: BuildConfig
) -> list[tuple[str, PrefectFuture]]:
    """Submit `shard(out, s, config)` for every `(id, s)` with the build's policy, GPU tasks with Dask's `GPU=1`
    annotation; the `(id, future)` pairs `flows.collect.collect_shards` waits on."""
    task = with_runner_policy(shard, config.runner)
    with _gpu_annotation(config.runner, needs_gpu(shard, config)):
        return [(sid, task.submit(out, s, config)) for sid, s in shards]


def task_runner(runner: RunnerConfig) -> TaskRunner:
    """Threads on this machine, or the Dask scheduler at `runner.dask_address` (set by
    `flows.cluster.dask_cluster` for the clusters a build starts itself)."""
    if runner.backend == "local":
        return ThreadPoolTaskRunner(max_workers=runner.max_workers)
    if not runner.dask_address:
        raise ValueError(
            f"runner.backend {runner.backend}: no scheduler address; the build starts its cluster "
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
    if runner.backend == "dask-local":
        return runner.worker_gpus > 0
    if runner.backend == "slurm":
        return runner.slurm.gpus_per_job > 0
    return runner.backend == "dask"


@contextmanager
def _annotated() -> Iterator[None]:
    import dask

    with dask.annotate(resources={GPU_RESOURCE: 1}):
        yield


def _gpu_annotation(runner: RunnerConfig, gpu: bool) -> AbstractContextManager[None]:
    """Tasks submitted inside carry Dask's resource annotation `GPU=1` when they need a GPU and the runner's
    workers offer GPUs, so Dask runs them only on GPU workers, one per GPU."""
    return _annotated() if gpu and offers_gpus(runner) else nullcontext()
