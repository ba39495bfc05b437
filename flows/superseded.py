"""A scheduled run that came due before a redeploy runs with the deployment's parameters as they are now.

Prefect's redeploy deletes only the auto-scheduled runs still in the future; a run already due (late, or
picked up by a worker) keeps the parameters copied into it when the scheduler created it. The flow entry
asks the server for the deployment's current parameters instead, as the scheduler would merge them now."""

from __future__ import annotations

from typing import Any

from prefect import get_client, get_run_logger
from prefect.client.schemas.objects import Deployment, FlowRun
from prefect.runtime import flow_run


def _schedule_parameters(deployment: Deployment, run: FlowRun) -> dict[str, Any]:
    """The parameters of the schedule that created `run` (the deployment's only schedule if a redeploy
    replaced that one)."""
    creator = run.created_by.id if run.created_by else None
    schedules = deployment.schedules or []
    named = [s for s in schedules if s.id == creator] or (schedules if len(schedules) == 1 else [])
    return dict(named[0].parameters) if named else {}


def superseding_parameters() -> dict[str, Any] | None:
    """For an auto-scheduled run whose deployment's parameters changed since the run was scheduled, the
    deployment's current ones (logged, naming the deployment and the parameters that changed); else None."""
    if flow_run.id is None:
        return None
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(flow_run.id)
        if not run.auto_scheduled or run.deployment_id is None:
            return None
        deployment = client.read_deployment(run.deployment_id)
    now = {**deployment.parameters, **_schedule_parameters(deployment, run)}
    if now == run.parameters:
        return None
    changed = sorted(k for k in now.keys() | run.parameters.keys() if now.get(k) != run.parameters.get(k))
    get_run_logger().warning(
        "deployment %r was redeployed after this scheduled run was created: running with its current "
        "parameters (changed: %s), not the ones the run was scheduled with",
        deployment.name,
        ", ".join(changed),
    )
    return now
