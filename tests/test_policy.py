"""The task policy: a resource's retries in the retry policy (core/retry.py) and its timeout and GPU in one table per
shard resource, retries from the runner config over them, every stage's task in one shape, and a Dask runner that
really uses other processes."""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path

import pytest
from prefect import Task, flow

from benchfoundry.configs.build import BuildConfig, RunnerConfig
from benchfoundry.core import retry
from benchfoundry.flows import task_runner as task_runner_module
from benchfoundry.flows.cluster import dask_cluster
from benchfoundry.flows.task_runner import ResourcePolicy, needs_gpu, task_runner, with_runner_policy
from benchfoundry.pipeline.shard_task import resource_of, shard_task

BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


def _stage_tasks() -> dict[str, Task]:
    """Every shard task defined in a module of the benchmarks' folders, by `module:name`."""
    found = {}
    for path in sorted(BENCHMARKS_DIR.rglob("*.py")):
        if path.name == "lmms_eval_utils.py" or path.name == "vlmevalkit_dataset.py":
            continue  # run inside the harnesses, importing nothing of the project
        module = importlib.import_module(
            "benchfoundry." + ".".join(path.relative_to(BENCHMARKS_DIR.parent).with_suffix("").parts)
        )
        for name, value in vars(module).items():
            if isinstance(value, Task) and value.fn.__module__ == module.__name__:
                found[f"{path.relative_to(BENCHMARKS_DIR)}:{name}"] = value
    return found


def test_every_stage_task_has_the_one_shape_and_name() -> None:
    tasks = _stage_tasks()
    assert len(tasks) >= 12
    for where, shard in tasks.items():
        module, name = where.split(":")
        assert module.endswith("_stage.py") and name.endswith("_task"), where
        assert list(inspect.signature(shard.fn).parameters) == ["out", "shard", "config"], where
        assert inspect.signature(shard.fn).parameters["config"].annotation in ("BuildConfig", BuildConfig), where
        benchmark = module.split("/")[0]
        assert shard.name.startswith(f"{benchmark}-"), where
        assert resource_of(shard) in retry.SHARD_RESOURCES


def test_a_kind_policy_changed_in_its_one_place_reaches_every_render_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(retry.SHARD_RETRIES, "render", retry.ShardRetries(retries=7, delay_s=11.0))
    monkeypatch.setitem(task_runner_module.POLICIES, "render", ResourcePolicy(timeout_s=1234.0, gpu=True))
    tasks = _stage_tasks()
    render = {where for where, shard in tasks.items() if resource_of(shard) == "render"}
    assert render == {
        "syndor/scenes/render_stage.py:render_task",
        "syndor/stages/calibration_stage.py:calibration_task",
        "odi/scenes/panorama_stage.py:panorama_task",
        "viewspatial/scannet/scenes/synthetic_stage.py:synthetic_task",
        "viewspatial/coco/scenes/synthetic_stage.py:synthetic_coco_task",
    }
    for where, shard in tasks.items():
        applied = with_runner_policy(shard, RunnerConfig())
        options = (applied.retries, applied.retry_delay_seconds, applied.timeout_seconds)
        assert (options == (7, 11.0, 1234.0)) == (where in render), where


def test_the_runner_config_overrides_the_kind_policy() -> None:
    shard = _stage_tasks()["syndor/scenes/render_stage.py:render_task"]
    applied = with_runner_policy(shard, RunnerConfig(task_retries=0, retry_delay_s=1.5))
    assert (applied.retries, applied.retry_delay_seconds) == (0, 1.5)


def test_render_and_gpu_tasks_need_the_gpu_only_off_the_cpu() -> None:
    tasks = _stage_tasks()
    render, annotate = (
        tasks["syndor/scenes/render_stage.py:render_task"],
        tasks["odi/stages/annotate_stage.py:annotate_task"],
    )
    qa = tasks["odi/stages/qa_stage.py:qa_task"]
    cpu = BuildConfig()
    gpu = BuildConfig.model_validate(
        {
            "syndor": {"render": {"device": "OPTIX"}},
            "odi": {
                "annotator": "groundedsam",
                "groundedsam": {
                    "device": "cuda:0",
                    **dict.fromkeys(("dino_checkpoint", "text_encoder", "sam_checkpoint"), "w"),
                },
            },
        }
    )
    assert not any(needs_gpu(t, cpu) for t in (render, annotate, qa))
    assert needs_gpu(render, gpu) and needs_gpu(annotate, gpu) and not needs_gpu(qa, gpu)


@shard_task(resource="compute", name="fails-until")
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


@shard_task(resource="compute", name="pid")
def _pid(_: int) -> int:
    return os.getpid()


@flow
def _pids(n: int) -> list[int]:
    return [f.result() for f in [_pid.submit(i) for i in range(n)]]


def test_dask_runner_runs_tasks_in_worker_processes(prefect_server: None) -> None:
    from prefect.settings import PREFECT_API_URL

    with dask_cluster(RunnerConfig(backend="dask-local", workers=2), str(PREFECT_API_URL.value())) as bound:
        pids = _pids.with_options(task_runner=task_runner(bound))(4)
    assert len(pids) == 4
    assert os.getpid() not in pids


def test_local_runner_uses_threads_of_this_process(prefect_server: None) -> None:
    runner = task_runner(RunnerConfig(backend="local", max_workers=2))
    assert set(_pids.with_options(task_runner=runner)(3)) == {os.getpid()}
