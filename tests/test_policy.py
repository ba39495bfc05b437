"""The task policy: retries from the runner config, and a Dask runner that really uses other processes."""

from __future__ import annotations

import os
from pathlib import Path

from prefect import flow

from benchfoundry.configs.build import RunnerConfig
from benchfoundry.flows.cluster import dask_cluster
from benchfoundry.flows.task_runner import task_runner, with_runner_policy
from benchfoundry.tasks.common.shard_task import shard_task


@shard_task
def _fails_until(marker_dir: str, failures: int) -> int:
    """Fails `failures` times (counted in files, so the count survives retries), then returns the attempt."""
    attempts = len(list(Path(marker_dir).iterdir())) + 1
    (Path(marker_dir) / f"attempt{attempts}").touch()
    if attempts <= failures:
        raise TimeoutError(f"attempt {attempts} fails")  # transient: retried
    return attempts


@flow
def _retrying(marker_dir: str, failures: int, runner: RunnerConfig) -> int:
    return with_runner_policy(_fails_until, runner)(marker_dir, failures)


def test_retries_come_from_the_runner_config(tmp_path: Path, prefect_server: None) -> None:
    runner = RunnerConfig(task_retries=2, retry_delay_s=0)
    recovers, gives_up = tmp_path / "recovers", tmp_path / "gives_up"
    recovers.mkdir()
    gives_up.mkdir()
    assert _retrying(str(recovers), 2, runner) == 3
    state = _retrying(str(gives_up), 3, runner, return_state=True)
    assert state.is_failed()
    assert len(list(gives_up.iterdir())) == 3


@shard_task
def _pid(_: int) -> int:
    return os.getpid()


@flow
def _pids(n: int) -> list[int]:
    return [f.result() for f in [_pid.submit(i) for i in range(n)]]


def test_dask_runner_runs_tasks_in_worker_processes(prefect_server: None) -> None:
    from prefect.settings import PREFECT_API_URL

    with dask_cluster(RunnerConfig(kind="dask-local", workers=2), str(PREFECT_API_URL.value())) as bound:
        pids = _pids.with_options(task_runner=task_runner(bound))(4)
    assert len(pids) == 4
    assert os.getpid() not in pids


def test_local_runner_uses_threads_of_this_process(prefect_server: None) -> None:
    runner = task_runner(RunnerConfig(kind="local", max_workers=2))
    assert set(_pids.with_options(task_runner=runner)(3)) == {os.getpid()}
