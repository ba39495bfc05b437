"""A redeploy with new parameters never runs the old ones: Prefect's redeploy deletes only the scheduled runs
still in the future, so a run that was already due keeps the parameters it was created with; the flow entry
runs it with the deployment's current ones instead (flows/superseded.py). Against a real Prefect server."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from prefect import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from prefect.client.schemas.objects import FlowRun
from prefect.flow_engine import run_flow

from benchfoundry.flows.build import build_from_config

#: The old parameters fail at once naming this key; the new ones name a config file that is not there.
OLD_KEY = "no_such_section.key"


def _deploy(name: str, parameters: dict) -> uuid.UUID:
    """Create or update deployment `name` of build_from_config, hourly, as `prefect deploy` does."""
    return build_from_config.to_deployment(name=name, parameters=parameters, interval=3600).apply()


def _due_runs(deployment_id: uuid.UUID) -> list[FlowRun]:
    """Schedule runs in the last ten minutes, as the scheduler does for a schedule that came due: runs
    created for the deployment, auto-scheduled, already due."""
    now = datetime.now(UTC)
    with get_client(sync_client=True) as client:
        client._client.post(
            f"/deployments/{deployment_id}/schedule",
            json={"start_time": (now - timedelta(minutes=10)).isoformat(), "end_time": now.isoformat()},
        ).raise_for_status()
        runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])))
    return [r for r in runs if r.auto_scheduled and r.expected_start_time < now]


def _run(run_id: uuid.UUID) -> str:
    """Run the flow run in this process, as a worker's engine does; its final state's message."""
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(run_id)
    state = run_flow(build_from_config, flow_run=run, parameters=run.parameters, return_type="state")
    assert state.is_failed()
    return state.message or ""


def test_a_run_due_before_a_redeploy_runs_the_new_parameters(tmp_path: Path, prefect_server: None) -> None:
    name = f"redeploy-{uuid.uuid4().hex[:8]}"
    deployment_id = _deploy(name, {"config_path": "smoke", "overrides": [f"{OLD_KEY}=1"]})
    due = _due_runs(deployment_id)
    assert due, "the server scheduled no run in the past"
    new_config = tmp_path / "redeployed.yaml"
    assert _deploy(name, {"config_path": str(new_config)}) == deployment_id
    with get_client(sync_client=True) as client:
        kept = client.read_flow_run(due[0].id)  # Prefect keeps the run already due, with its old parameters
    assert kept.parameters["overrides"] == [f"{OLD_KEY}=1"]
    message = _run(kept.id)
    assert str(new_config) in message and OLD_KEY not in message


def test_a_run_of_an_unchanged_deployment_runs_its_own_parameters(tmp_path: Path, prefect_server: None) -> None:
    deployment_id = _deploy(
        f"unchanged-{uuid.uuid4().hex[:8]}", {"config_path": "smoke", "overrides": [f"{OLD_KEY}=1"]}
    )
    (run, *_) = _due_runs(deployment_id)
    assert OLD_KEY in _run(run.id)
