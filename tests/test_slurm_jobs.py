"""The SLURM job watch's one-line failure without SLURM: once the build has failed, neither Prefect's flow-run
log nor tornado's shows a traceback (the failure, raised in the main thread, may land inside a C extension that
wraps it in an Exception Prefect then logs), and the filters leave with the block."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchfoundry.configs.build import SlurmConfig
from benchfoundry.flows import slurm_jobs, slurm_local
from benchfoundry.flows.slurm_jobs import ClusterFailed, JobWatch

#: Prefect's flow-run logger (prefect.logging.loggers.flow_run_logger) and tornado's, which logs a refused sbatch.
LOGGERS = ("prefect.flow_runs", "tornado.application")


def _record(with_traceback: bool) -> logging.LogRecord:
    try:
        raise ValueError("Error calling function `_ser_model`: ClusterFailed: …")
    except ValueError:
        info = sys.exc_info() if with_traceback else None
    return logging.LogRecord("prefect.flow_runs", logging.ERROR, __file__, 1, "Encountered exception", None, info)


def test_after_a_failure_no_traceback_is_logged_and_the_failure_is_raised() -> None:
    watch = JobWatch(SlurmConfig(), None)
    with pytest.raises(ClusterFailed, match="runner.slurm.queue"):
        with watch.watching():
            assert all(watch in logging.getLogger(name).filters for name in LOGGERS)
            assert watch.filter(_record(True)) and watch.filter(_record(False))
            watch.failure = "runner.slurm.queue: sbatch refused the build's job"
            assert not watch.filter(_record(True)) and watch.filter(_record(False))
    assert not any(watch in logging.getLogger(name).filters for name in LOGGERS)


def test_a_local_cluster_that_does_not_start_is_one_error_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flows/slurm_local.local_slurm, which the tests and bench/rehearsal_faults.py share: `up` failing raises its
    stderr, and `down` runs all the same, on the same folder and port (a daemon it did start goes)."""
    calls = tmp_path / "calls"
    script = tmp_path / "slurm-local"
    lines = [
        "#!/bin/sh",
        f'echo "$1 $SLURM_LOCAL_DIR $SLURM_LOCAL_PORT" >> {calls}',
        '[ "$1" = down ] || { echo "munged: no" >&2; exit 3; }',
    ]
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    monkeypatch.setattr(slurm_local, "SCRIPT", script)
    with pytest.raises(RuntimeError, match=r"up failed \(3\): munged: no"):
        with slurm_local.local_slurm(tmp_path / "cluster", {"PATH": "/usr/bin:/bin"}):
            pytest.fail("the block ran without a cluster")
    up, down = (line.split() for line in calls.read_text().splitlines())
    assert up[0] == "up" and down[0] == "down" and up[1:] == down[1:] == [str(tmp_path / "cluster"), up[2]]


def test_a_local_cluster_whose_port_was_taken_starts_again_on_fresh_ports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A daemon that found its port taken (another process bound it after the draw) is no failed start: the
    cluster is stopped and started on a fresh pair, once; a cluster whose ports are taken every time is the last
    try's error."""
    calls = tmp_path / "calls"
    script = tmp_path / "slurm-local"
    lines = [
        "#!/bin/sh",
        f'echo "$1 $SLURM_LOCAL_PORT" >> {calls}',
        f'[ "$1" = up ] && [ "$(grep -c ^up {calls})" -le "$TAKEN" ] && '
        '{ echo "slurmd did not start: Unable to bind listen port: Address already in use" >&2; exit 1; }',
        "exit 0",
    ]
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    monkeypatch.setattr(slurm_local, "SCRIPT", script)
    with slurm_local.local_slurm(tmp_path / "cluster", {"PATH": "/usr/bin:/bin", "TAKEN": "1"}) as env:
        assert env["SLURM_CONF"] == str(tmp_path / "cluster" / "slurm.conf")
    calls_made = [line.split() for line in calls.read_text().splitlines()]
    assert [c[0] for c in calls_made] == ["up", "down", "up", "down"]
    assert calls_made[0][1] == calls_made[1][1] != calls_made[2][1] == calls_made[3][1]
    calls.unlink()
    with pytest.raises(RuntimeError, match=slurm_local.PORT_TAKEN):
        with slurm_local.local_slurm(tmp_path / "cluster", {"PATH": "/usr/bin:/bin", "TAKEN": "99"}):
            pytest.fail("the block ran without a cluster")
    assert calls.read_text().count("up ") == slurm_local.UP_ATTEMPTS


def test_a_local_cluster_script_that_cannot_run_is_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No scripts/slurm-local beside the package (installed without the repository): a RuntimeError naming it, as
    bench/rehearsal_faults.py reports, not a FileNotFoundError from `down`."""
    monkeypatch.setattr(slurm_local, "SCRIPT", tmp_path / "no-such-script")
    with pytest.raises(RuntimeError, match=r"no-such-script: cannot run it"):
        with slurm_local.local_slurm(tmp_path / "cluster"):
            pytest.fail("the block ran without a cluster")


def _sinfo_and_squeue(monkeypatch: pytest.MonkeyPatch, nodes: str) -> None:
    """SLURM as seen by a build whose job 7 is completing on node n1 (sinfo `nodes`); scancel does nothing."""

    def run(args: list[str], **_: object) -> subprocess.CompletedProcess:
        out = {"sinfo": nodes, "squeue": "n1\n"}.get(args[0], "")
        return subprocess.CompletedProcess(args, 0, out, "")

    monkeypatch.setattr(slurm_jobs.subprocess, "run", run)
    monkeypatch.setattr(slurm_jobs, "squeue", lambda jobs: dict.fromkeys(jobs, ("COMPLETING", "None")))


@pytest.mark.parametrize("seen", ["waited for", "connected", "closed", "responding"])
def test_a_job_held_on_a_node_whose_slurmd_is_gone_stops_the_build_naming_it(
    monkeypatch: pytest.MonkeyPatch, seen: str
) -> None:
    """slurmd killed: SLURM cannot launch the build's new job and holds it completing on a node that does not
    respond, then pending for it, and the build waited for ever. Now, past pending_timeout_s, one line naming
    the node and its slurmd; a job whose worker is connected (working whatever SLURM says) or that the build
    closed is not waited for, nor one on a node that responds."""
    n1 = "mixed" if seen == "responding" else "completing*"
    _sinfo_and_squeue(monkeypatch, f"n1|{n1}|none\nn1|{n1}|none\nn2|idle|none\n")
    watch = JobWatch(
        SlurmConfig(pending_timeout_s=0.01), None, connected=lambda: {"7"} if seen == "connected" else set()
    )
    watch.submitted("7")
    if seen == "closed":
        watch.closed("7")
    watch.check()
    time.sleep(0.05)
    watch.check()
    if seen != "waited for":
        assert watch.failure is None
        return
    assert watch.failure is not None and "\n" not in watch.failure
    assert watch.failure.startswith("runner.slurm: SLURM job 7 completing for ")
    assert watch.failure.count("node n1 (completing) does not respond") == 1 and "n2" not in watch.failure
    assert "its slurmd is not running or not reachable" in watch.failure


def test_a_dask_traceback_is_one_line_while_the_cluster_runs() -> None:
    """Adaptive scaling racing the cluster's close (or a controller restarting) logs Dask's traceback: on the
    console it is one line, the message and the exception's first line; Prefect's own records keep theirs."""
    records = []
    for name in ("distributed.deploy.adaptive", "prefect.flow_runs"):
        record = _record(True)
        record.name, record.msg = name, "Adaptive encountered an error while adapting"
        records.append(record)
    handler = logging.Handler()
    logging.getLogger().addHandler(handler)
    try:
        with JobWatch(SlurmConfig(), None).watching():
            assert all(handler.filter(r) for r in records)
        assert slurm_jobs.one_line_traceback not in handler.filters
    finally:
        logging.getLogger().removeHandler(handler)
    dask, prefect = records
    error = "ValueError: Error calling function `_ser_model`: ClusterFailed: …"
    assert dask.exc_info is None and dask.getMessage() == f"Adaptive encountered an error while adapting: {error}"
    assert prefect.exc_info is not None


def _fake_command(folder: Path, name: str, stdout: str, status: int) -> None:
    script = folder / name
    script.write_text(f"#!/bin/sh\nprintf '{stdout}'\nexit {status}\n")
    script.chmod(0o755)


def test_unusable_nodes_names_each_bad_node_once_and_nothing_when_sinfo_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = "n1|idle|none\\nn2|down*|Not responding\\nn3|drained~|disk\\nn3|drained~|disk\\nn4|mixed|none\\n"
    _fake_command(tmp_path, "sinfo", listing, 0)
    _fake_command(tmp_path, "squeue", "n2\\n", 0)
    monkeypatch.setenv("PATH", str(tmp_path))
    text = slurm_jobs.unusable_nodes()
    assert text.count("node n2") == 1 and "does not respond" in text and "slurmd" in text
    assert text.count("node n3 is drained~ (disk)") == 1
    assert "n1" not in text and "n4" not in text
    assert slurm_jobs.squeue_nodes("7") == "n2"
    _fake_command(tmp_path, "sinfo", listing, 1)
    _fake_command(tmp_path, "squeue", "n2", 1)
    assert slurm_jobs.unusable_nodes() == "" and slurm_jobs.squeue_nodes("7") == ""
    monkeypatch.setenv("PATH", str(tmp_path / "missing"))
    assert slurm_jobs.unusable_nodes() == "" and slurm_jobs.squeue_nodes("7") == ""
