"""What the scheduled-run tests share (tests/test_scheduled_rerender.py, tests/test_scheduled_worker_killed.py): the
prefect command line from the repository root, prefect.yaml's work pool and queue, a worker tied to the test, and
waiting on it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import psutil
import pytest
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from prefect.client.schemas.objects import FlowRun, StateType

from benchfoundry.core.tied_process import tied_command

REPO = Path(__file__).resolve().parent.parent
POOL, QUEUE = "render-gpu", "syndorbench-out"  # prefect.yaml's
DEPLOYMENT = "build-from-config/syndorbench-rerender-weekly"
#: How often the worker asks for runs: a run this many seconds late three times over was passed over.
QUERY_S = 1
#: Seconds a step may take before the test gives up (a hung worker, not a speed limit).
PATIENCE_S = 1800.0
ACTIVE = (StateType.PENDING, StateType.RUNNING)
T = TypeVar("T")


def prefect_cli(env: dict[str, str], *args: str) -> str:
    """`prefect ARGS` from the repo root (where prefect.yaml is); its output, or a failure quoting it."""
    done = subprocess.run(
        [sys.executable, "-m", "prefect", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"prefect {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@contextmanager
def prefect_worker(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen]:
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


def wait_on_worker(what: str, found: Callable[[], T | None], worker: subprocess.Popen, log_path: Path) -> T:
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
    prefect_cli(env, "work-pool", "create", POOL, "--type", "process")
    prefect_cli(env, "work-queue", "create", QUEUE, "--pool", POOL, "--limit", "1")


def deployment_runs(client: SyncPrefectClient, deployment_id: object) -> list[FlowRun]:
    runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])))
    return sorted(runs, key=lambda r: r.expected_start_time)


def stop_schedule(client: SyncPrefectClient, deployment_id: object) -> None:
    """Pause the deployment and delete its runs that have not started (a pause keeps those already due), so
    that the run in progress is the last one and its build.json stays its record."""
    client.pause_deployment(deployment_id)
    for run in deployment_runs(client, deployment_id):
        if run.state_type == StateType.SCHEDULED:
            client.delete_flow_run(run.id)
