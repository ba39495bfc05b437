"""Scale-out against real processes: determinism across schedulers, builds against a real Prefect server,
and fault injection (a killed Blender worker, a killed build, a killed Dask worker).

Every build here is the same two-shard SynDORBench build (tests/scaleout_builds.py); each is compared
file by file with one uninterrupted local build.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
from pathlib import Path

import psutil
import pytest
from scaleout_builds import (
    SHARDS,
    assert_same_outputs,
    cli_build,
    done_markers,
    environ_without_api,
    frame_in_progress,
    render_workers,
    wait_for,
    write_config,
)

from benchfoundry.configs.loader import load_config
from benchfoundry.flows.build import build, run_build
from benchfoundry.flows.prefect_api import prefect_server

pytestmark = [pytest.mark.blender, pytest.mark.long(minutes=4)]


@pytest.fixture(scope="module")
def config_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("config"))


@pytest.fixture(scope="module")
def reference(config_path: Path, tmp_path_factory: pytest.TempPathFactory, prefect_server: None) -> Path:
    """The uninterrupted local build every other build is compared with."""
    out = tmp_path_factory.mktemp("reference")
    record = build(load_config(str(config_path)), str(out), ["syndor"])
    outcome = record["benchmarks"]["syndor"]
    assert outcome["status"] == "built", outcome
    assert outcome["stages"]["render"]["shards_rendered"] == SHARDS
    return out


def test_dask_local_build_against_a_real_prefect_server_equals_the_local_build(
    reference: Path, config_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(4) local vs dask-local with 2 workers: the same files; (d) a real `prefect server start` (SQLite,
    loopback) holds the flow runs and every shard's task run, reported from the Dask workers."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    out = tmp_path / "out"
    config = load_config(str(config_path), ["runner.kind=dask-local", "runner.workers=2"])
    with prefect_server() as url, temporary_settings({PREFECT_API_URL: url}):
        assert url.startswith("http://127.0.0.1:")
        record = run_build(config, str(out), ["syndor"])
        with get_client(sync_client=True) as client:
            flows = {client.read_flow(r.flow_id).name: r.state_type.value for r in client.read_flow_runs()}

            def finished_shards() -> list:  # the server records task runs from their events, a moment later
                runs = [t for t in client.read_task_runs() if t.task_key.startswith("render_task-")]
                return runs if len(runs) >= SHARDS and all(t.state_type.value == "COMPLETED" for t in runs) else []

            shards = wait_for(finished_shards, timeout_s=120, what="the shards' task runs on the server")
    assert record["benchmarks"]["syndor"]["status"] == "built", record["benchmarks"]["syndor"]
    assert {"build", "syndor", "syndor-render", "syndor-discern"} <= set(flows), flows
    assert all(state == "COMPLETED" for state in flows.values()), flows
    assert len(shards) == SHARDS
    assert_same_outputs(out, reference)


def test_a_killed_blender_worker_is_retried_and_the_outputs_equal_an_uninterrupted_build(
    reference: Path, config_path: Path, tmp_path: Path
) -> None:
    """(a) SIGKILL the Blender worker mid-shard: the task fails, Prefect retries it, nothing differs."""
    killed: list[int] = []

    def kill_mid_shard() -> None:
        workers = wait_for(
            lambda: frame_in_progress(tmp_path) and render_workers(os.getpid()), what="a frame of a shard in progress"
        )
        workers[0].send_signal(signal.SIGKILL)
        killed.append(workers[0].pid)

    watcher = threading.Thread(target=kill_mid_shard, daemon=True)
    watcher.start()
    record = build(load_config(str(config_path)), str(tmp_path), ["syndor"])
    watcher.join(5)
    assert killed, "the watcher did not catch a worker mid-shard"
    render = record["benchmarks"]["syndor"]["stages"]["render"]
    assert record["benchmarks"]["syndor"]["status"] == "built" and render["shards_failed"] == 0
    assert_same_outputs(tmp_path, reference)


def test_a_killed_build_reruns_only_its_unfinished_shards(
    reference: Path, config_path: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """(b) SIGKILL the build process after its first shard: the rerun renders only the rest, and the
    finished shard's marker and files are not touched."""
    out = tmp_path / "out"
    proc = cli_build(config_path, out, cli_env)
    try:
        wait_for(lambda: done_markers(out) or proc.poll() is not None, what="the first finished shard")
        orphans = render_workers(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build ended before it could be killed"
    psutil.wait_procs(orphans, timeout=120)  # a worker quits when its client's pipe closes
    finished = done_markers(out)
    assert 0 < len(finished) < SHARDS
    assert json.loads((out / "build.json").read_text())["status"] == "running"  # the killed run never finished
    finished_frames = {p: p.stat().st_mtime_ns for p in (out / "syndor" / "images").rglob("*.jpg")}
    record = build(load_config(str(config_path)), str(out), ["syndor"])
    render = record["benchmarks"]["syndor"]["stages"]["render"]
    assert render["shards_rendered"] == SHARDS - len(finished), render
    assert {k: v for k, v in done_markers(out).items() if k in finished} == finished
    assert all(p.stat().st_mtime_ns == t for p, t in finished_frames.items())
    assert_same_outputs(out, reference)


def test_sigterm_stops_a_build_at_once_and_a_rerun_completes_alike(
    reference: Path, config_path: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """SIGTERM mid-shard (SLURM at walltime, `scancel`): exit 143 within 10 s (SLURM kills 30 s later), no
    process of the build left, build.json `interrupted`, the lock released; the rerun gives the same bytes."""
    out = tmp_path / "out"
    proc = cli_build(config_path, out, cli_env)
    try:
        wait_for(
            lambda: frame_in_progress(out) and render_workers(proc.pid) or proc.poll() is not None,
            what="a frame of a shard in progress",
        )
        assert proc.poll() is None, "the build ended before a shard was caught"
        below = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _, alive = psutil.wait_procs(below, timeout=5)
    assert not alive, [p.cmdline() for p in alive]
    log = Path(f"{out}.log").read_text()
    assert log.strip().splitlines()[-1].startswith("interrupted: stopped by SIGTERM") and "KeyboardInterrupt" not in log
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "interrupted" and record["interrupted_by"] == "SIGTERM"
    assert (out / ".benchfoundry.lock").read_text() == ""  # released, not left by a killed holder
    record = build(load_config(str(config_path)), str(out), ["syndor"])
    assert record["benchmarks"]["syndor"]["status"] == "built" and record["lock_taken_over"] is None
    assert_same_outputs(out, reference)


def test_a_killed_dask_worker_is_replaced_and_the_build_completes_alike(
    reference: Path, config_path: Path, tmp_path: Path
) -> None:
    """(c) dask-local with two workers, one SIGKILLed mid-shard; with no Prefect API configured the build
    starts one real server for itself and every shard's task run is recorded in its database."""
    out = tmp_path / "out"
    home = tmp_path / "prefect"
    proc = cli_build(config_path, out, environ_without_api(home), ["runner.kind=dask-local", "runner.workers=2"])
    try:
        blender = wait_for(
            lambda: frame_in_progress(out) and render_workers(proc.pid) or proc.poll() is not None,
            what="a frame of a shard in progress",
        )
        assert proc.poll() is None, "the build ended before a shard was caught"
        dask_worker = blender[0].parent()
        assert "benchfoundry.render.worker" not in " ".join(dask_worker.cmdline())
        dask_worker.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=1800) == 0, Path(f"{out}.log").read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = Path(f"{out}.log").read_text()
    assert "Prefect API for this build: http://127.0.0.1:" in log
    assert_same_outputs(out, reference)
    with sqlite3.connect(home / "prefect.db") as db:
        shards = db.execute(
            "SELECT DISTINCT name, state_type FROM task_run WHERE task_key LIKE 'render_task-%'"
        ).fetchall()
        flows = {
            name for (name,) in db.execute("SELECT flow.name FROM flow_run JOIN flow ON flow.id = flow_run.flow_id")
        }
    assert len(shards) == SHARDS and {state for _, state in shards} == {"COMPLETED"}, shards
    assert {"build", "syndor-render"} <= flows
