"""The scheduled re-render runs for real: a Prefect server with its scheduler, the process work pool and queue
that prefect.yaml's header creates, `prefect deploy` of `syndorbench-rerender-weekly` on a tiny config with a
short interval, and `prefect worker start`. A scheduled run builds; a run that comes due meanwhile waits, and
another build into the same root stops at its lock; after the deployment's `overrides` add a
lighting, the next scheduled run renders only that lighting's frames, and the released files equal a build
of the new config from scratch. docs/scheduled-rerenders.md runs these commands."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import yaml
from prefect import get_client
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.settings import PREFECT_API_URL, temporary_settings
from scaleout_builds import TINY_BUILD
from scheduled_runs import (
    ACTIVE,
    DEPLOYMENT,
    QUERY_S,
    QUEUE,
    deployment_runs,
    make_pool,
    prefect_cli,
    prefect_worker,
    stop_schedule,
    wait_on_worker,
    worker_env,
)

from benchfoundry.configs.loader import load_config
from benchfoundry.core.output_root import OutputRootBusy, hold_output_root
from benchfoundry.flows.build import build
from benchfoundry.flows.prefect_api import prefect_server

pytestmark = pytest.mark.long(minutes=3)

INTERVAL_S = 3  # short: a second run comes due while the first (tens of seconds) still runs
THREE = "syndor.lightings=[noon_north, night, evening_west]"


def _deploy(env: dict[str, str], config: Path, overrides: list[str]) -> None:
    prefect_cli(
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
        with prefect_worker(env, worker_log) as worker:

            def running(overrides: list[str]) -> FlowRun | None:
                runs = deployment_runs(client, deployment.id)
                active = [r for r in runs if r.state_type in ACTIVE]
                assert len(active) <= 1, [(r.name, r.state_name) for r in active]  # never two on one root
                return next((r for r in active if r.parameters.get("overrides") == overrides), None)

            first = wait_on_worker("the first scheduled run", lambda: running([]), worker, worker_log)
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
                        for r in deployment_runs(client, deployment.id)
                        if r.id != first.id
                        and r.state_type == StateType.SCHEDULED
                        and r.expected_start_time.timestamp() < now - 3 * QUERY_S
                    ),
                    None,
                )

            wait_on_worker("a second run to come due", waiting, worker, worker_log)
            with pytest.raises(OutputRootBusy, match="another build is writing here"), hold_output_root(out):
                pass
            stop_schedule(client, deployment.id)

            def ended(run: FlowRun) -> Callable[[], FlowRun | None]:
                def final() -> FlowRun | None:
                    now = client.read_flow_run(run.id)
                    return now if now.state is not None and now.state.is_final() else None

                return final

            assert (
                wait_on_worker("the first run to end", ended(first), worker, worker_log).state_type
                == StateType.COMPLETED
            )
            built = _render(out)
            index = pd.read_parquet(built["manifest"])
            assert built["frames_rendered"] == len(index) == 8  # 2 actions × 2 lightings × 2 distances

            _deploy(env, config, [THREE])  # the deployment's overrides add a lighting
            client.resume_deployment(deployment.id)
            second = wait_on_worker(
                "a scheduled run with the new lighting", lambda: running([THREE]), worker, worker_log
            )
            assert second.auto_scheduled
            stop_schedule(client, deployment.id)
            assert (
                wait_on_worker("the second run to end", ended(second), worker, worker_log).state_type
                == StateType.COMPLETED
            )

        ran = [r for r in deployment_runs(client, deployment.id) if r.start_time is not None]
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
