"""`runner.backend=slurm` against a real one-node SLURM (tests/slurm_local.py), as its jobs meet the build: a
submission that cannot succeed stops the build in one line and leaves no job, a GPU stage runs in a job holding
the (fake) GPU, a job killed at its walltime is a lost worker replaced with a warning, and SIGTERM and SIGINT
cancel every job of the build.

Skipped only where SLURM is not installed (`.ci/run` installs slurm-wlm and munge) or not run as root
(the cluster's SlurmUser)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from prefect import flow
from scaleout_builds import cli_build, frame_in_progress, wait_for
from slurm_local import JOBS, NEEDS_SLURM, queued

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.flows.cluster import dask_cluster
from benchfoundry.flows.task_runner import submit_shards, task_runner
from benchfoundry.pipeline.shard_task import shard_task

pytestmark = [pytest.mark.long(minutes=4), *NEEDS_SLURM]


def _stopped_build(config: Path, out: Path, env: dict[str, str], extra: list[str]) -> tuple[int, str, dict]:
    """A SLURM build expected to stop by itself: its exit code, its log and its build.json."""
    with cli_build(config, out, env, [*JOBS, *extra]) as proc:
        code = proc.wait(timeout=600)
    return code, Path(f"{out}.log").read_text(), json.loads((out / "build.json").read_text())


def test_a_partition_the_cluster_lacks_stops_the_build_in_one_line(
    tiny_config: Path, tmp_path: Path, slurm_env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    code, log, record = _stopped_build(tiny_config, out, slurm_env, ["runner.slurm.queue=nosuchpartition"])
    assert code == 2, log[-3000:]
    last = log.strip().splitlines()[-1]
    assert last.startswith("error: runner.slurm.queue: ") and "invalid partition" in last.lower(), last
    assert "Traceback" not in log
    assert record["status"] == "failed" and record["error"] == last.removeprefix("error: ")
    assert not queued(slurm_env)


def test_a_job_that_pends_for_a_reason_that_never_clears_stops_the_build_in_one_line(
    tiny_config: Path, tmp_path: Path, slurm_env: dict[str, str]
) -> None:
    """A walltime over the partition's time limit (scripts/slurm-local: one day) pends as PartitionTimeLimit."""
    out = tmp_path / "out"
    extra = ["runner.slurm.walltime=2-00:00:00", "runner.slurm.pending_timeout_s=3"]
    code, log, record = _stopped_build(tiny_config, out, slurm_env, extra)
    assert code == 2, log[-3000:]
    last = log.strip().splitlines()[-1]
    assert last.startswith("error: runner.slurm: SLURM job ") and "PartitionTimeLimit" in last, last
    assert "runner.slurm.walltime" in last
    assert record["status"] == "failed"
    assert not queued(slurm_env)


@shard_task(resource="gpu", name="probe-gpu", device=lambda config: "cuda")
def _gpu_probe(out: str, shard: int, config: BuildConfig) -> dict:
    """Where a GPU-kind task ran: its Dask resource restriction and what SLURM gave its job."""
    from distributed import get_worker

    worker = get_worker()
    return {
        "restrictions": worker.state.tasks[worker.get_current_task()].resource_restrictions,
        "offered": dict(worker.state.total_resources),
        "job": os.environ.get("SLURM_JOB_ID"),
        "gpus": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }


@flow
def _gpu_probes(config: BuildConfig) -> list[dict]:
    return [f.result() for _, f in submit_shards(_gpu_probe, "out", [("0", 0)], config)]


@pytest.mark.parametrize("request_as", ["gres", "gpus"])
def test_a_gpu_stage_runs_in_a_job_holding_the_gpu(
    prefect_server: None, slurm_env: dict[str, str], tmp_path: Path, request_as: str
) -> None:
    from prefect.settings import PREFECT_API_URL

    runner = load_config(
        None,
        [*JOBS, "runner.slurm.gpus_per_job=1", f"runner.slurm.gpu_request={request_as}", "runner.slurm.max_jobs=1"],
    ).runner
    with dask_cluster(runner, str(PREFECT_API_URL.value()), tmp_path / "slurm") as bound:
        config = BuildConfig.model_validate({"runner": bound.model_dump()})
        (probe,) = _gpu_probes.with_options(task_runner=task_runner(bound))(config)
    assert probe["restrictions"] == {"GPU": 1} and probe["offered"] == {"GPU": 1}
    assert probe["gpus"] == "0"  # SLURM bound the node's one (fake, /dev/null) GPU to the job
    assert (tmp_path / "slurm" / f"{probe['job']}.err").exists()


@shard_task(resource="compute", name="probe-job")
def _job_probe(out: str, shard: int, config: BuildConfig) -> str:
    """The job a short task ran in."""
    time.sleep(1.0)
    return os.environ["SLURM_JOB_ID"]


@flow
def _job_probes(config: BuildConfig) -> list[str]:
    return [f.result() for _, f in submit_shards(_job_probe, "out", [(str(k), k) for k in range(6)], config)]


def test_jobs_of_two_worker_processes_are_kept_not_cancelled_and_asked_again(
    prefect_server: None, slurm_env: dict[str, str], tmp_path: Path
) -> None:
    """With two processes a job, adaptive scaling left alone retires one of a job's workers (the whole job goes) and
    submits another, over and over (dask-jobqueue#498; 19 to 25 jobs for these 6 tasks here); scaled in whole jobs,
    one job runs them all."""
    from prefect.settings import PREFECT_API_URL

    overrides = [*JOBS, "runner.slurm.cores=2", "runner.slurm.processes=2", "runner.slurm.max_jobs=1"]
    runner = load_config(None, overrides).runner
    with dask_cluster(runner, str(PREFECT_API_URL.value()), tmp_path / "slurm") as bound:
        config = BuildConfig.model_validate({"runner": bound.model_dump()})
        jobs = _job_probes.with_options(task_runner=task_runner(bound))(config)
    assert len(set(jobs)) == 1
    assert [p.stem for p in (tmp_path / "slurm").glob("*.out")] == jobs[:1]


@shard_task(resource="compute", name="probe-walltime")
def _outlive_the_walltime(out: str, shard: int, config: BuildConfig) -> str:
    """Outlives its job's walltime the first time it runs (a file in `out` says it started), returns at once
    after; the job it ran in."""
    started = Path(out) / "started"
    if not started.exists():
        started.write_text(os.environ["SLURM_JOB_ID"])
        time.sleep(900)
    return os.environ["SLURM_JOB_ID"]


@flow
def _walltime_probe(out: str, config: BuildConfig) -> list[str]:
    return [f.result() for _, f in submit_shards(_outlive_the_walltime, out, [("0", 0)], config)]


def test_a_job_killed_at_its_walltime_is_a_lost_worker_replaced_with_a_warning(
    prefect_server: None, slurm_env: dict[str, str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from prefect.settings import PREFECT_API_URL

    runner = load_config(None, [*JOBS, "runner.slurm.walltime=00:01:00", "runner.slurm.max_jobs=1"]).runner
    with dask_cluster(runner, str(PREFECT_API_URL.value()), tmp_path / "slurm") as bound:
        config = BuildConfig.model_validate({"runner": bound.model_dump()})
        (second,) = _walltime_probe.with_options(task_runner=task_runner(bound))(str(tmp_path), config)
    first = (tmp_path / "started").read_text()
    assert second != first  # the shard ran again, on a new job
    assert "DUE TO TIME LIMIT" in (tmp_path / "slurm" / f"{first}.err").read_text()
    warnings = [line for line in capfd.readouterr().err.splitlines() if line.startswith("warning: runner.slurm")]
    assert warnings and f"SLURM job {first} was killed at its walltime" in warnings[0], warnings
    assert not queued(slurm_env)


@pytest.mark.blender
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_cancels_every_job_of_the_build(
    tiny_config: Path, tmp_path: Path, slurm_env: dict[str, str], signum: signal.Signals
) -> None:
    """SIGTERM / SIGINT mid-shard: exit 128 + the signal within 10 s, build.json `interrupted`, no job of the
    build pending or running."""
    out = tmp_path / "out"
    with cli_build(tiny_config, out, slurm_env, [*JOBS, "runner.slurm.max_jobs=2"]) as proc:
        wait_for(lambda: frame_in_progress(out) or proc.poll() is not None, what="a frame of a shard in progress")
        assert proc.poll() is None, "the build ended before a shard was caught"
        assert queued(slurm_env)
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 128 + signum
    assert not queued(slurm_env)
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "interrupted" and record["interrupted_by"] == signal.Signals(signum).name
