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
)

from benchfoundry.configs.loader import load_config
from benchfoundry.flows.build import build

pytestmark = [pytest.mark.blender, pytest.mark.long(minutes=4)]


def test_a_killed_blender_worker_is_retried_and_the_outputs_equal_an_uninterrupted_build(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path
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
    record = build(load_config(str(tiny_config)), str(tmp_path), ["syndor"])
    watcher.join(5)
    assert killed, "the watcher did not catch a worker mid-shard"
    render = record["benchmarks"]["syndor"]["stages"]["render"]
    assert record["benchmarks"]["syndor"]["status"] == "built" and render["shards_failed"] == 0
    assert_same_outputs(tmp_path, tiny_reference)


def test_a_killed_build_reruns_only_its_unfinished_shards(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """(b) SIGKILL the build process after its first shard: the rerun renders only the rest, and the
    finished shard's marker and files are not touched."""
    out = tmp_path / "out"
    with cli_build(tiny_config, out, cli_env) as proc:
        wait_for(lambda: done_markers(out) or proc.poll() is not None, what="the first finished shard")
        orphans = render_workers(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build ended before it could be killed"
    psutil.wait_procs(orphans, timeout=120)  # a worker quits when its client's pipe closes
    finished = done_markers(out)
    assert 0 < len(finished) < SHARDS
    assert json.loads((out / "build.json").read_text())["status"] == "running"  # the killed run never finished
    finished_frames = {p: p.stat().st_mtime_ns for p in (out / "syndor" / "images").rglob("*.jpg")}
    record = build(load_config(str(tiny_config)), str(out), ["syndor"])
    render = record["benchmarks"]["syndor"]["stages"]["render"]
    assert render["shards_rendered"] == SHARDS - len(finished), render
    assert {k: v for k, v in done_markers(out).items() if k in finished} == finished
    assert all(p.stat().st_mtime_ns == t for p, t in finished_frames.items())
    assert_same_outputs(out, tiny_reference)


def test_sigterm_stops_a_build_at_once_and_a_rerun_completes_alike(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """SIGTERM mid-shard (SLURM at walltime, `scancel`): exit 143 within 10 s (SLURM kills 30 s later), no
    process of the build left, build.json `interrupted`, the lock released; the rerun gives the same bytes."""
    out = tmp_path / "out"
    with cli_build(tiny_config, out, cli_env) as proc:
        wait_for(
            lambda: frame_in_progress(out) and render_workers(proc.pid) or proc.poll() is not None,
            what="a frame of a shard in progress",
        )
        assert proc.poll() is None, "the build ended before a shard was caught"
        below = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 128 + signal.SIGTERM
    _, alive = psutil.wait_procs(below, timeout=5)
    assert not alive, [p.cmdline() for p in alive]
    log = Path(f"{out}.log").read_text()
    assert log.strip().splitlines()[-1].startswith("interrupted: stopped by SIGTERM") and "KeyboardInterrupt" not in log
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "interrupted" and record["interrupted_by"] == "SIGTERM"
    assert (out / ".benchfoundry.lock").read_text() == ""  # released, not left by a killed holder
    record = build(load_config(str(tiny_config)), str(out), ["syndor"])
    assert record["benchmarks"]["syndor"]["status"] == "built" and record["lock_taken_over"] is None
    assert_same_outputs(out, tiny_reference)


def test_a_dask_local_build_with_a_killed_dask_worker_equals_the_local_build_on_its_own_server(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path, prefect_home: Path
) -> None:
    """(4) local vs dask-local with 2 workers: the same files, (c) with one Dask worker SIGKILLed mid-shard
    (replaced); (d) with no Prefect API configured the build starts one real `prefect server start` (SQLite,
    loopback), whose database holds every flow run, completed, and every shard's task run, reported from the
    Dask workers."""
    out = tmp_path / "out"
    with cli_build(
        tiny_config, out, environ_without_api(prefect_home), ["runner.backend=dask-local", "runner.workers=2"]
    ) as proc:
        blender = wait_for(
            lambda: frame_in_progress(out) and render_workers(proc.pid) or proc.poll() is not None,
            what="a frame of a shard in progress",
        )
        assert proc.poll() is None, "the build ended before a shard was caught"
        dask_worker = blender[0].parent()
        assert "benchfoundry.render.worker" not in " ".join(dask_worker.cmdline())
        dask_worker.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=1800) == 0, Path(f"{out}.log").read_text()[-3000:]
    log = Path(f"{out}.log").read_text()
    assert "Prefect API for this build: http://127.0.0.1:" in log
    assert_same_outputs(out, tiny_reference)
    with sqlite3.connect(prefect_home / "prefect.db") as db:
        shards = db.execute(
            "SELECT DISTINCT name, state_type FROM task_run WHERE task_key LIKE 'render_task-%'"
        ).fetchall()
        flows = dict(
            db.execute("SELECT flow.name, flow_run.state_type FROM flow_run JOIN flow ON flow.id = flow_run.flow_id")
        )
    assert len(shards) == SHARDS and {state for _, state in shards} == {"COMPLETED"}, shards
    assert {"build", "syndor", "syndor-render", "syndor-discern"} <= set(flows), flows
    assert set(flows.values()) == {"COMPLETED"}, flows
