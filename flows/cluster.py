"""The Dask cluster of a build: started and closed by the build (`dask-local`, `slurm`), or an existing
scheduler (`dask`); `local` needs none. Every worker gets the build's `PREFECT_API_URL`."""

from __future__ import annotations

import math
import os
import shlex
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchfoundry.configs.build import RunnerConfig
from benchfoundry.flows.slurm_jobs import JobWatch, refusal_line
from benchfoundry.flows.stop_signals import on_stop

#: The resource name that GPU stages request and GPU workers offer (`dask worker --resources GPU=1`).
GPU_RESOURCE = "GPU"
JOB_NAME = "benchfoundry"
#: The job script's first line.
JOB_SHEBANG = "#!/usr/bin/env bash"


def _worker_env(prefect_api_url: str | None) -> dict[str, str]:
    return {"PREFECT_API_URL": prefect_api_url} if prefect_api_url else {}


@contextmanager
def environ(updates: dict[str, str]) -> Iterator[None]:
    """`os.environ` with `updates` for the duration (processes started meanwhile inherit them), then restored."""
    previous = {name: os.environ.get(name) for name in updates}
    os.environ.update(updates)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def slurm_options(
    runner: RunnerConfig, prefect_api_url: str | None, log_directory: Path | None = None
) -> dict[str, Any]:
    """Keyword arguments of dask-jobqueue's SLURMCluster (and its SLURMJob) for the runner's `slurm` section.

    GPUs are requested with `--gres=gpu:N` (or `--gpus=N`, `gpu_request`) and offered to Dask as the `GPU`
    resource, one share per worker process; the workers export the build's Prefect API so that every task
    reports to it; a job's stdout and stderr go to `log_directory/<jobid>.out|err`.
    """
    s = runner.slurm
    directives = []
    if s.gpus_per_job:
        directives.append(f"--gres=gpu:{s.gpus_per_job}" if s.gpu_request == "gres" else f"--gpus={s.gpus_per_job}")
    if log_directory is not None:
        directives += [f"--output={log_directory}/%j.out", f"--error={log_directory}/%j.err"]
    worker_args = ["--resources", f"{GPU_RESOURCE}={s.gpus_per_job // s.processes}"] if s.gpus_per_job else []
    prologue = [f"export {k}={shlex.quote(v)}" for k, v in _worker_env(prefect_api_url).items()]
    options: dict[str, Any] = {
        # stated, so that dask's config (a DASK_JOBQUEUE__SLURM__* variable, a YAML file) puts no other
        # interpreter or program into the job script
        "shebang": JOB_SHEBANG,
        "python": sys.executable,
        "job_name": JOB_NAME,
        "queue": s.queue,
        "account": s.account,
        "cores": s.cores,
        "memory": s.memory,
        "walltime": s.walltime,
        "processes": s.processes,
        "job_extra_directives": [*directives, *s.job_extra_directives],
        "job_script_prologue": [*prologue, *s.job_script_prologue],
        "worker_extra_args": worker_args,
        "scheduler_options": {"port": s.scheduler_port, **({"interface": s.interface} if s.interface else {})},
    }
    if s.local_directory:
        options["local_directory"] = s.local_directory
    return options


def slurm_job_script(runner: RunnerConfig, prefect_api_url: str | None, scheduler: str | None = None) -> str:
    """The sbatch script a `slurm` build submits for each job (scheduler: this host and the configured port)."""
    from dask_jobqueue import SLURMCluster

    options = slurm_options(runner, prefect_api_url)
    options.pop("scheduler_options")
    address = scheduler or f"tcp://{socket.gethostname()}:{runner.slurm.scheduler_port}"
    return SLURMCluster.job_cls(scheduler=address, **options).job_script()


def _watched_job_class(watch: JobWatch) -> type:
    """dask-jobqueue's SLURMJob telling `watch` each job id it submits and each it closes, and a refusal of
    sbatch."""
    from dask_jobqueue.slurm import SLURMJob
    from distributed.core import Status

    class WatchedSLURMJob(SLURMJob):
        async def _submit_job(self, script_filename: str) -> str:
            try:
                out = await super()._submit_job(script_filename)
            except RuntimeError as exc:  # dask-jobqueue's "Command exited with non-zero exit code", stderr last
                watch.fail(refusal_line(str(exc).partition("stderr:")[2]))
                self.status = Status.failed  # the cluster closes it as a failed worker, not one never started
                raise
            watch.submitted(self._job_id_from_submit_output(out))
            return out

        async def close(self) -> None:
            if self.job_id:
                watch.closed(self.job_id)
            await super().close()

    return WatchedSLURMJob


def job_of(worker: Any) -> str:
    """The job a worker belongs to, from its name: dask-jobqueue names a job's workers `<job's name>-<i>`."""
    return str(worker.name).rsplit("-", 1)[0]


def whole_jobs_adaptive(processes: int) -> type:
    """distributed's adaptive scaling in whole jobs of `processes` workers: its target rounded up to whole jobs, the
    workers it retires taken job by job (with `worker_key=job_of`). Left alone it asks, say, one worker where a job
    brings two, retires the second (which cancels the whole job) and submits another, over and over, until a task has
    lost four workers (dask-jobqueue#498)."""
    from distributed.deploy.adaptive import Adaptive

    class WholeJobs(Adaptive):
        async def target(self) -> int:
            return math.ceil(await super().target() / processes) * processes

    return WholeJobs


@contextmanager
def slurm_cluster(runner: RunnerConfig, prefect_api_url: str | None, log_directory: Path | None) -> Iterator[str]:
    """An adaptive SLURMCluster whose jobs are watched (flows/slurm_jobs.py) and cancelled on a stop; its
    scheduler's address."""
    from dask_jobqueue import SLURMCluster

    if log_directory is not None:
        log_directory.mkdir(parents=True, exist_ok=True)
    started: list[Any] = []  # the cluster, once up

    def longest_shard_s() -> float:
        prefixes = [p for c in started for p in list(c.scheduler.task_prefixes.values())]
        return max((p.max_exec_time for p in prefixes), default=-1.0)

    def connected_jobs() -> set[str]:
        """The ids of the jobs a worker of which is connected to the scheduler (a job of `processes` workers
        names them `<job's name>-<i>`)."""
        names = {str(w.name) for c in started for w in list(c.scheduler.workers.values())}
        jobs = [(str(name), job) for c in started for name, job in list(c.workers.items())]
        return {
            job.job_id for name, job in jobs if job.job_id and any(n == name or n.startswith(f"{name}-") for n in names)
        }

    watch = JobWatch(runner.slurm, log_directory, longest_shard_s, connected_jobs)
    options = slurm_options(runner, prefect_api_url, log_directory)
    with (
        on_stop(watch.cancel_all),
        watch.watching(),
        SLURMCluster(job_cls=_watched_job_class(watch), **options) as cluster,
    ):
        started.append(cluster)
        processes = runner.slurm.processes
        in_jobs = {"Adaptive": whole_jobs_adaptive(processes), "worker_key": job_of} if processes > 1 else {}
        cluster.adapt(minimum_jobs=runner.slurm.min_jobs, maximum_jobs=runner.slurm.max_jobs, **in_jobs)
        yield cluster.scheduler_address


@contextmanager
def dask_cluster(
    runner: RunnerConfig, prefect_api_url: str | None, log_directory: Path | None = None
) -> Iterator[RunnerConfig]:
    """The runner the flows use, with `dask_address` set to the scheduler of a cluster started here for
    `dask-local` (a LocalCluster of `workers` processes) or `slurm` (adaptive SLURM jobs, their output in
    `log_directory`), closed at exit."""
    if runner.backend == "dask-local":
        from distributed import LocalCluster

        resources = {GPU_RESOURCE: runner.worker_gpus} if runner.worker_gpus else None
        # worker processes (and the nanny's replacements for dead ones) inherit this environment
        with (
            environ(_worker_env(prefect_api_url)),
            LocalCluster(
                n_workers=runner.workers,
                threads_per_worker=1,
                processes=True,
                resources=resources,
                dashboard_address=None,
                host="127.0.0.1",
            ) as cluster,
        ):
            yield runner.model_copy(update={"dask_address": cluster.scheduler_address})
    elif runner.backend == "slurm":
        with slurm_cluster(runner, prefect_api_url, log_directory) as address:
            yield runner.model_copy(update={"dask_address": address})
    else:
        yield runner
