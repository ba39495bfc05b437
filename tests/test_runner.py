"""Runner backends: the SLURM job script dask-jobqueue writes from the config, config checks, and the GPU
resource annotation as a real Dask scheduler sees it."""

from __future__ import annotations

import re
import subprocess

import pytest
from prefect import flow

from benchfoundry.cli import main as cli
from benchfoundry.configs.build import BuildConfig, RunnerConfig
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.flows.cluster import dask_cluster
from benchfoundry.flows.task_runner import offers_gpus, submit_shards, task_runner
from benchfoundry.pipeline.shard_task import shard_task

SLURM = [
    "runner.backend=slurm",
    "runner.slurm.queue=gpu-long",
    "runner.slurm.account=vision42",
    "runner.slurm.cores=16",
    "runner.slurm.memory=64GB",
    "runner.slurm.walltime=1-12:00:00",
    "runner.slurm.processes=4",
    "runner.slurm.gpus_per_job=4",
    "runner.slurm.job_extra_directives=[--constraint=a100, --exclusive]",
    "runner.slurm.job_script_prologue=[module load cuda/12.4]",
    "runner.prefect_host=login1",
    "runner.prefect_port=4200",
    "runner.slurm.scheduler_port=8786",
]


def _job_script(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, overrides: list[str]) -> str:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    with temporary_settings(restore_defaults={PREFECT_API_URL}):
        args = ["runner", "job-script", "smoke", "--scheduler", "tcp://login1:8786"]
        assert cli.main([*args, *(x for o in overrides for x in ("--set", o))]) == 0
    return capsys.readouterr().out


def test_job_script_carries_every_slurm_setting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _job_script(capsys, monkeypatch, SLURM)
    assert script.startswith("#!/usr/bin/env bash\n")
    subprocess.run(["bash", "-n"], input=script, text=True, check=True)  # valid shell
    lines = [line for line in script.splitlines() if line.strip()]
    directives = [line.removeprefix("#SBATCH ") for line in lines if line.startswith("#SBATCH")]
    first_command = next(i for i, line in enumerate(lines[1:], 1) if not line.startswith("#"))
    assert all(not line.startswith("#SBATCH") for line in lines[first_command:])  # sbatch reads only the header
    for expected in (
        "-J benchfoundry",
        "-p gpu-long",
        "-A vision42",
        "--cpus-per-task=16",
        "-t 1-12:00:00",
        "--gres=gpu:4",
        "--constraint=a100",
        "--exclusive",
    ):
        assert expected in directives, (expected, directives)
    mem = next(d for d in directives if d.startswith("--mem="))
    assert int(re.fullmatch(r"--mem=(\d+)G", mem).group(1)) == round(64e9 / 2**30)  # 64 GB in GiB
    body = lines[first_command:]
    assert body[0] == "export PREFECT_API_URL=http://login1:4200/api" and body[1] == "module load cuda/12.4"
    worker = body[-1].split()
    assert worker[1:4] == ["-m", "distributed.cli.dask_worker", "tcp://login1:8786"]
    option = {worker[i]: worker[i + 1] for i in range(4, len(worker) - 1) if worker[i].startswith("--")}
    assert option["--nworkers"] == "4" and option["--nthreads"] == str(16 // 4)
    assert option["--resources"] == "GPU=1"  # 4 GPUs over 4 worker processes


def test_job_script_without_gpus_requests_none(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _job_script(capsys, monkeypatch, ["runner.backend=slurm"])
    assert "--gres" not in script and "--resources" not in script
    assert "export PREFECT_API_URL=" in script


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["runner.backend=dask"], "runner"),
        (["runner.slurm.min_jobs=5", "runner.slurm.max_jobs=2"], "runner.slurm"),
        (["runner.slurm.gpus_per_job=3", "runner.slurm.processes=2"], "runner.slurm"),
        (["runner.slurm.walltime=4h"], "runner.slurm.walltime"),
        (["runner.backend=kubernetes"], "runner.backend"),
    ],
)
def test_bad_runner_settings_name_the_field(overrides: list[str], field: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(None, overrides)
    assert any(line.lstrip().startswith(field) for line in str(err.value).splitlines()), str(err.value)


def test_which_runners_offer_gpus() -> None:
    assert not offers_gpus(RunnerConfig())
    assert not offers_gpus(RunnerConfig(backend="dask-local"))
    assert offers_gpus(RunnerConfig(backend="dask-local", worker_gpus=1))
    assert offers_gpus(RunnerConfig(backend="dask", dask_address="tcp://h:8786"))
    assert not offers_gpus(load_config(None, ["runner.backend=slurm"]).runner)
    assert offers_gpus(load_config(None, ["runner.backend=slurm", "runner.slurm.gpus_per_job=2"]).runner)


def _restrictions() -> dict | None:
    """The resource restrictions the Dask scheduler gave this task, as its worker holds them."""
    from distributed import get_worker

    worker = get_worker()
    return worker.state.tasks[worker.get_current_task()].resource_restrictions


@shard_task(resource="render", name="probe-render", device=lambda config: config.syndor.render.device)
def _render_probe(out: str, shard: int, config: BuildConfig) -> dict | None:
    return _restrictions()


@shard_task(resource="compute", name="probe-compute")
def _compute_probe(out: str, shard: int, config: BuildConfig) -> dict | None:
    return _restrictions()


@flow
def _probes(config: BuildConfig) -> dict[str, list]:
    submitted = {
        "render": submit_shards(_render_probe, "out", [(str(i), i) for i in range(2)], config),
        "compute": submit_shards(_compute_probe, "out", [(str(i), i) for i in range(2)], config),
    }
    return {kind: [f.result() for _, f in futures] for kind, futures in submitted.items()}


@pytest.mark.parametrize("device, render_gpu", [("CUDA", [{"GPU": 1}] * 2), ("CPU", [None] * 2)])
def test_gpu_kinds_carry_the_gpu_resource_on_dask_when_their_device_is_not_the_cpu(
    prefect_server: None, device: str, render_gpu: list
) -> None:
    from prefect.settings import PREFECT_API_URL

    with dask_cluster(RunnerConfig(backend="dask-local", workers=1, worker_gpus=1), str(PREFECT_API_URL.value())) as r:
        assert r.dask_address and r.dask_address.startswith("tcp://127.0.0.1:")
        config = BuildConfig.model_validate({"runner": r.model_dump(), "syndor": {"render": {"device": device}}})
        probes = _probes.with_options(task_runner=task_runner(r))(config)
    assert probes == {"render": render_gpu, "compute": [None] * 2}


@pytest.mark.parametrize(
    "override",
    [
        'runner.slurm.queue="local\nid > owned"',
        'runner.slurm.account="acct; id > owned"',
        'runner.slurm.memory="32GB\n#!/bin/sh"',
        'runner.slurm.job_extra_directives=["--exclusive\nid > owned"]',
        'runner.slurm.job_extra_directives=["--constraint=a100 $(id)"]',
    ],
)
def test_a_slurm_value_that_would_end_its_sbatch_line_is_refused_naming_it(override: str) -> None:
    """The job script writes these after `#SBATCH`; a newline there would be a bare shell line in the job."""
    with pytest.raises(ConfigError, match=re.escape(override.split("=")[0])):
        load_config("smoke", [override, "runner.backend=slurm"])


def test_ordinary_slurm_values_are_kept() -> None:
    config = load_config(
        "smoke",
        [
            "runner.backend=slurm",
            "runner.slurm.queue=gpu-a100",
            "runner.slurm.memory=32GB",
            "runner.slurm.local_directory=$TMPDIR",
            "runner.slurm.job_extra_directives=[--constraint=a100|h100, --gres=gpu:a100:2, --exclusive]",
        ],
    )
    assert config.runner.slurm.job_extra_directives == ["--constraint=a100|h100", "--gres=gpu:a100:2", "--exclusive"]
