"""A scheduled run whose worker dies mid-build (the worker, its flow run and the Blender workers killed at once):
flows/crash-silent-runs.yaml marks the silent run Crashed, freeing the queue's and the deployment's one slot;
a new worker's next scheduled run resumes the build and releases what an uninterrupted build releases, byte for
byte. A real Prefect server with its scheduler and automations, as tests/test_scheduled_rerender.py's."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest
import yaml
from prefect import get_client
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.settings import PREFECT_API_URL, temporary_settings
from scaleout_builds import assert_same_outputs, frame_in_progress, wait_for, write_config
from scheduled_runs import (
    ACTIVE,
    DEPLOYMENT,
    REPO,
    deployment_runs,
    make_pool,
    prefect_cli,
    prefect_worker,
    stop_schedule,
    wait_on_worker,
    worker_env,
)

from benchfoundry.flows.prefect_api import prefect_server

pytestmark = pytest.mark.long(minutes=6)

#: Seconds between a flow run's heartbeats (Prefect's least), and without one before the run is Crashed.
HEARTBEAT_S, SILENT_S = 30, 45


def _automation(env: dict[str, str]) -> None:
    """flows/crash-silent-runs.yaml with the test's shorter silence."""
    automation = yaml.safe_load((REPO / "flows" / "crash-silent-runs.yaml").read_text())
    automation["trigger"]["within"] = SILENT_S
    prefect_cli(env, "automation", "create", "--from-json", json.dumps(automation))


def _kill_tree(pid: int) -> None:
    """SIGKILL process `pid` and everything below it at once, as a machine that dies."""
    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for proc in procs:
        proc.kill()
    psutil.wait_procs(procs, timeout=30)


@pytest.mark.blender
def test_a_run_whose_worker_dies_is_resumed_by_the_next_scheduled_run(
    tmp_path: Path, prefect_home: Path, tiny_reference: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    config = write_config(tmp_path)
    monkeypatch.setenv("PREFECT_HOME", str(prefect_home))
    with (
        prefect_server(scheduler=True) as url,
        temporary_settings({PREFECT_API_URL: url}),
        get_client(sync_client=True) as client,
    ):
        env = worker_env(url, PREFECT_FLOWS_HEARTBEAT_FREQUENCY=str(HEARTBEAT_S))
        make_pool(env)
        _automation(env)
        name = DEPLOYMENT.split("/")[1]
        params = ["--param", f"config_path={config}", "--param", f"out={out}", "--param", "overrides=[]"]
        prefect_cli(env, "--no-prompt", "deploy", "--name", name, "--interval", "3", *params)
        deployment = client.read_deployment_by_name(DEPLOYMENT)

        def active(but: FlowRun | None = None) -> FlowRun | None:
            """The deployment's run in progress, other than `but`."""
            runs = deployment_runs(client, deployment.id)
            return next((r for r in runs if r.state_type in ACTIVE and (but is None or r.id != but.id)), None)

        def rendering() -> FlowRun | None:
            return active() if frame_in_progress(out) else None

        with prefect_worker(env, tmp_path / "worker-1.log") as worker:
            killed = wait_for(rendering, what="a scheduled run rendering a frame")  # polled often: frames are quick
            _kill_tree(worker.pid)
        assert client.read_flow_run(killed.id).state_type == StateType.RUNNING  # nobody told the server

        with prefect_worker(env, tmp_path / "worker-2.log") as worker:
            log = tmp_path / "worker-2.log"
            resumed = wait_on_worker("the next run to start", lambda: active(but=killed), worker, log)
            stop_schedule(client, deployment.id)
            assert client.read_flow_run(killed.id).state_type == StateType.CRASHED

            def ended() -> FlowRun | None:
                run = client.read_flow_run(resumed.id)
                return run if run.state is not None and run.state.is_final() else None

            assert wait_on_worker("the resumed run to end", ended, worker, log).state_type == StateType.COMPLETED
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "finished", record.get("error")
    assert_same_outputs(out, tiny_reference)
