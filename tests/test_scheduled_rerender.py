"""The scheduled re-render runs for real: a Prefect server with its scheduler, the process work pool and queue
that prefect.yaml's header creates, `prefect deploy` of `syndorbench-rerender-weekly` on a tiny config with a
short interval, and `prefect worker start`. A scheduled run builds; a run that comes due meanwhile waits, and
another build into the same root stops at its lock; after the deployment's `overrides` add a
lighting, the next scheduled run renders only that lighting's frames, and the released files equal a build
of the new config from scratch. docs/scheduled-rerenders.md runs these commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import pandas as pd
import psutil
import pytest
import yaml
from prefect import get_client
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.settings import PREFECT_API_URL, temporary_settings
from scaleout_builds import TINY_BUILD

from benchfoundry.configs.loader import load_config
from benchfoundry.core.output_root import OutputRootBusy, hold_output_root
from benchfoundry.core.tied_process import tied_command
from benchfoundry.flows.build import build
from benchfoundry.flows.prefect_api import prefect_server

pytestmark = pytest.mark.long(minutes=3)

REPO = Path(__file__).resolve().parent.parent
POOL, QUEUE = "render-gpu", "syndorbench-out"  # prefect.yaml's, for the deployment below
DEPLOYMENT = "build-from-config/syndorbench-rerender-weekly"
INTERVAL_S = 3  # short: a second run comes due while the first (tens of seconds) still runs
#: How often the worker asks for runs: a run this many seconds late three times over was passed over.
QUERY_S = 1
THREE = "syndor.lightings=[noon_north, night, evening_west]"
#: Seconds a step may take before the test gives up (a hung worker, not a speed limit).
PATIENCE_S = 1800.0
ACTIVE = (StateType.PENDING, StateType.RUNNING)
T = TypeVar("T")


def _prefect(env: dict[str, str], *args: str) -> str:
    """`prefect ARGS` from the repo root (where prefect.yaml is); its output, or a failure quoting it."""
    done = subprocess.run(
        [sys.executable, "-m", "prefect", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"prefect {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _deploy(env: dict[str, str], config: Path, overrides: list[str]) -> None:
    _prefect(
        env,
        "--no-prompt",
        "deploy",
        "--name",
        "syndorbench-rerender-weekly",
        "--interval",
        str(INTERVAL_S),
        "--param",
        f"config_path={config}",
        "--param",
        f"overrides={json.dumps(overrides)}",
    )


@contextmanager
def _worker(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen]:
    """`prefect worker start --pool render-gpu`, tied to this process; stopped by its PID at exit, and the
    processes it started by theirs."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            tied_command([sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL]),
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            try:  # its flow runs, each in a session of its own, and their Blender workers
                below = psutil.Process(proc.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                below = []
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            for child in below:
                with suppress(psutil.NoSuchProcess):
                    child.kill()
            psutil.wait_procs(below, timeout=30)


def _wait(what: str, found: Callable[[], T | None], worker: subprocess.Popen, log_path: Path) -> T:
    deadline = time.monotonic() + PATIENCE_S
    while (value := found()) is None:
        if worker.poll() is not None or time.monotonic() > deadline:
            tail = log_path.read_text(errors="replace")[-4000:]
            pytest.fail(f"gave up waiting for {what} (worker exit {worker.poll()}):\n{tail}")
        time.sleep(1)
    return value


def worker_env(url: str, **extra: str) -> dict[str, str]:
    """The environment of the prefect commands, the worker and its flow runs against the server at `url`."""
    return {
        **os.environ,
        "PREFECT_API_URL": url,
        "BENCHFOUNDRY_HOME": str(REPO),  # prefect.yaml's pull step
        "PREFECT_WORKER_QUERY_SECONDS": str(QUERY_S),
        **extra,
    }


def make_pool(env: dict[str, str]) -> None:
    """The process work pool and its queue of one run at a time."""
    _prefect(env, "work-pool", "create", POOL, "--type", "process")
    _prefect(env, "work-queue", "create", QUEUE, "--pool", POOL, "--limit", "1")


def _runs(client: SyncPrefectClient, deployment_id: object) -> list[FlowRun]:
    runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])))
    return sorted(runs, key=lambda r: r.expected_start_time)


def _stop_schedule(client: SyncPrefectClient, deployment_id: object) -> None:
    """Pause the deployment and delete its runs that have not started (a pause keeps those already due), so
    that the run in progress is the last one and its build.json stays its record."""
    client.pause_deployment(deployment_id)
    for run in _runs(client, deployment_id):
        if run.state_type == StateType.SCHEDULED:
            client.delete_flow_run(run.id)


def _holds(out: Path) -> bool:
    """Whether a build holds `out`: its build.json, written under the lock, says `running`."""
    try:
        return json.loads((out / "build.json").read_text())["status"] == "running"
    except (OSError, ValueError):
        return False


def _render(out: Path) -> dict:
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "finished", record.get("error")
    return record["benchmarks"]["syndor"]["stages"]["render"]


@pytest.mark.blender
def test_scheduled_runs_build_then_render_only_a_new_lightings_frames(
    tmp_path: Path, prefect_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY_BUILD, "output_root": str(out)}))
    # the server's SQLite database, and the home of the prefect commands, worker and flow runs started below
    monkeypatch.setenv("PREFECT_HOME", str(prefect_home))
    worker_log = tmp_path / "worker.log"
    with (
        prefect_server(scheduler=True) as url,
        temporary_settings({PREFECT_API_URL: url}),
        get_client(sync_client=True) as client,
    ):
        env = worker_env(url)
        make_pool(env)
        _deploy(env, config, [])
        deployment = client.read_deployment_by_name(DEPLOYMENT)
        assert deployment.global_concurrency_limit.limit == 1 and deployment.work_queue_name == QUEUE
        with _worker(env, worker_log) as worker:

            def running(overrides: list[str]) -> FlowRun | None:
                runs = _runs(client, deployment.id)
                active = [r for r in runs if r.state_type in ACTIVE]
                assert len(active) <= 1, [(r.name, r.state_name) for r in active]  # never two on one root
                return next((r for r in active if r.parameters.get("overrides") == overrides), None)

            first = _wait("the first scheduled run", lambda: running([]), worker, worker_log)
            assert first.auto_scheduled

            def waiting() -> FlowRun | None:
                """A run that came due (the worker polled since) and did not start while the first one runs and
                holds the output root (its build.json says `running`)."""
                assert client.read_flow_run(first.id).state_type in ACTIVE, "ended before a run came due"
                if not _holds(out):
                    return None
                now = time.time()
                return next(
                    (
                        r
                        for r in _runs(client, deployment.id)
                        if r.id != first.id
                        and r.state_type == StateType.SCHEDULED
                        and r.expected_start_time.timestamp() < now - 3 * QUERY_S
                    ),
                    None,
                )

            _wait("a second run to come due", waiting, worker, worker_log)
            with pytest.raises(OutputRootBusy, match="another build is writing here"), hold_output_root(out):
                pass
            _stop_schedule(client, deployment.id)

            def ended(run: FlowRun) -> Callable[[], FlowRun | None]:
                def final() -> FlowRun | None:
                    now = client.read_flow_run(run.id)
                    return now if now.state is not None and now.state.is_final() else None

                return final

            assert _wait("the first run to end", ended(first), worker, worker_log).state_type == StateType.COMPLETED
            built = _render(out)
            index = pd.read_parquet(built["manifest"])
            assert built["frames_rendered"] == len(index) == 8  # 2 actions × 2 lightings × 2 distances

            _deploy(env, config, [THREE])  # the deployment's overrides add a lighting
            client.resume_deployment(deployment.id)
            second = _wait("a scheduled run with the new lighting", lambda: running([THREE]), worker, worker_log)
            assert second.auto_scheduled
            _stop_schedule(client, deployment.id)
            assert _wait("the second run to end", ended(second), worker, worker_log).state_type == StateType.COMPLETED

        ran = [r for r in _runs(client, deployment.id) if r.start_time is not None]
        assert [r.id for r in ran] == [first.id, second.id]
        assert ran[0].end_time <= ran[1].start_time
        render = _render(out)
        index = pd.read_parquet(render["manifest"])
        new = index[index["lighting"] == "evening_west"]
        assert render["frames_rendered"] == len(new) == 4 and render["frames_kept"] == len(index) - len(new) == 8
        assert (render["changes"]["kept"], render["changes"]["render"], render["changes"]["leaving"]) == (8, 4, 0)

        fresh_build = build(load_config(str(config), [THREE]), str(scratch), ["syndor"])["benchmarks"]["syndor"]
        assert fresh_build["status"] == "built", fresh_build
    fresh = pd.read_parquet(scratch / "syndor" / "render" / "manifest.parquet")
    pd.testing.assert_frame_equal(fresh, index)
    for column in ("img_path", "mask_path"):
        for rel in index[column]:
            assert (scratch / "syndor" / rel).read_bytes() == (out / "syndor" / rel).read_bytes(), rel
