"""The local SLURM's daemons failing under a build (flows/slurm_local.py, a cluster of the test's own, since the
faults break it): `munged` down at submission stops the build in one line naming munged; `slurmd` killed
mid-job with its job's worker stops it in one line naming slurmd (no other node to run the shards again: the
new job never starts) and `slurmctld` restarted mid-build lets it finish or stops it in one line; a rerun
(the daemon back) resumes and finishes. No traceback in any of it. A daemon whose port another process holds
is named with the error it logged.

Skipped only where SLURM is not installed or not run as root (tests/slurm_local.py)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from scaleout_builds import assert_same_outputs, cli_build, frame_in_progress, wait_for
from slurm_local import JOBS, NEEDS_SLURM, queued

from benchfoundry.flows.free_ports import free_ports
from benchfoundry.flows.slurm_local import PORT_TAKEN, SCRIPT, local_slurm

pytestmark = [pytest.mark.long(minutes=6), *NEEDS_SLURM]


@pytest.fixture
def own_slurm(tmp_path: Path, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A one-node SLURM for this test alone: the console script's environment pointing at it (also this
    process's), with SLURM_LOCAL_DIR and SLURM_LOCAL_PORT for scripts/slurm-local."""
    folder = tmp_path / "slurm"
    with local_slurm(folder) as slurm:
        for name, value in slurm.items():
            monkeypatch.setenv(name, value)
        yield {**cli_env, **slurm, "SLURM_LOCAL_DIR": str(folder), "SLURM_LOCAL_PORT": _port(folder)}


def _port(folder: Path) -> str:
    conf = (folder / "slurm.conf").read_text()
    return next(line.split("=", 1)[1] for line in conf.splitlines() if line.startswith("SlurmctldPort="))


def _kill(env: dict[str, str], daemon: str, signum: int = signal.SIGKILL) -> None:
    """Signal the cluster's `daemon` by the pid it recorded (checked to be that daemon)."""
    pid = int((Path(env["SLURM_LOCAL_DIR"]) / f"{daemon}.pid").read_text().split()[0])
    assert Path(f"/proc/{pid}/comm").read_text().strip().startswith(daemon[:15])
    os.kill(pid, signum)
    wait_for(lambda: not Path(f"/proc/{pid}").exists() or _zombie(pid), 60, f"{daemon} ({pid}) to end")


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def _kill_job(env: dict[str, str], job: str) -> None:
    """SIGKILL the processes of this cluster's `job` (its batch script, the Dask worker, its render workers), as a
    node's failure would: found by the job id and SLURM_CONF that SLURM sets in their environment."""
    mine = {"SLURM_JOB_ID": job, "SLURM_CONF": env["SLURM_CONF"]}
    found = []
    for proc in psutil.process_iter():
        try:
            if all(proc.environ().get(k) == v for k, v in mine.items()):
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    assert found, f"no process of job {job}"
    for proc in found:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(found, timeout=60)


def _up(env: dict[str, str]) -> None:
    """scripts/slurm-local up: starts the daemons not running and waits for the node."""
    done = subprocess.run([SCRIPT, "up"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def _outcome(config: Path, out: Path, env: dict[str, str], extra: list[str], during=None) -> tuple[int, str, dict]:
    """A SLURM build, `during(proc)` called once a frame is in progress: its exit code, log and build.json."""
    with cli_build(config, out, env, [*JOBS, "runner.slurm.pending_timeout_s=20", *extra]) as proc:
        if during is not None:
            wait_for(lambda: frame_in_progress(out) or proc.poll() is not None, what="a frame of a shard in progress")
            assert proc.poll() is None, "the build ended before a shard was caught"
            during(proc)
        code = proc.wait(timeout=1800)
    log = Path(f"{out}.log").read_text()
    print(f"--- exit {code}\n{log[-3000:]}")
    return code, log, json.loads((out / "build.json").read_text())


def _stopped_in_one_line(code: int, log: str, record: dict) -> str:
    """A build stopped (exit 2, build.json failed) in one `error:` line, no traceback: that line."""
    assert "Traceback" not in log, log[-3000:]
    last = log.strip().splitlines()[-1]
    assert code == 2 and last.startswith("error: ") and record["status"] == "failed", (code, last)
    return last


def test_munged_down_at_submission_stops_the_build_naming_it(
    tiny_config: Path, tmp_path: Path, own_slurm: dict[str, str]
) -> None:
    _kill(own_slurm, "munged", signal.SIGTERM)
    code, log, record = _outcome(tiny_config, tmp_path / "out", own_slurm, [])
    last = _stopped_in_one_line(code, log, record)
    assert last.startswith("error: runner.slurm: ") and "munged is not running" in last, last
    assert "--num-threads" not in last  # sbatch's advice for a munged that is up
    _up(own_slurm)
    assert not queued(own_slurm)


def test_a_daemon_whose_port_is_taken_is_named_with_the_reason_from_its_log(tmp_path: Path) -> None:
    """slurmd's port held by another process: `up` fails naming slurmd and the error slurmd logged, which is what
    flows/slurm_local.py starts the cluster again on fresh ports for."""
    port = free_ports(count=2)  # slurmctld's free, slurmd's held below
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port + 1))
        holder.listen()
        env = {**os.environ, "SLURM_LOCAL_DIR": str(tmp_path / "cluster"), "SLURM_LOCAL_PORT": str(port)}
        try:
            up = subprocess.run([str(SCRIPT), "up"], env=env, capture_output=True, text=True, timeout=120)
        finally:
            subprocess.run([str(SCRIPT), "down"], env=env, capture_output=True, timeout=120)
    assert up.returncode != 0
    assert "slurmd did not start: " in up.stderr and PORT_TAKEN in up.stderr, up.stderr
    assert f"({port + 1})" in up.stderr, up.stderr


@pytest.mark.blender
@pytest.mark.parametrize("daemon", ["slurmd", "slurmctld"])
def test_a_daemon_lost_mid_build_finishes_or_stops_in_one_line_and_a_rerun_resumes(
    tiny_config: Path, tiny_reference: Path, tmp_path: Path, own_slurm: dict[str, str], daemon: str
) -> None:
    """slurmd killed mid-job, then its job's processes (which alone would live on under slurmstepd): the shards
    need a new job, which SLURM cannot launch with no slurmd (it held such a build for ever); or slurmctld
    stopped and started again (recovering its jobs' state) mid-build."""

    def fault(_proc: subprocess.Popen) -> None:
        running = queued(own_slurm, "RUNNING")
        _kill(own_slurm, daemon)
        if daemon == "slurmd":
            assert len(running) == 1, running  # runner.slurm.max_jobs=1
            _kill_job(own_slurm, running[0])
        else:
            subprocess.run(["slurmctld"], env=own_slurm, check=True, timeout=60)  # recovers its state, unlike -c
            wait_for(lambda: subprocess.run(["sinfo"], env=own_slurm, capture_output=True).returncode == 0, 120)

    out = tmp_path / "out"
    code, log, record = _outcome(tiny_config, out, own_slurm, ["runner.slurm.max_jobs=1"], fault)
    if daemon == "slurmd":
        last = _stopped_in_one_line(code, log, record)
        assert "does not respond" in last and "its slurmd is not running" in last, last
    if code != 0:
        _stopped_in_one_line(code, log, record)
        _up(own_slurm)
        code, log, record = _outcome(tiny_config, out, own_slurm, ["runner.slurm.max_jobs=1"])
    assert code == 0 and record["status"] == "finished" and "Traceback" not in log, log[-3000:]
    assert not queued(own_slurm)
    shutil.move(out / "slurm", tmp_path / "job-logs")  # the jobs' logs, which a local build has not
    assert_same_outputs(out, tiny_reference)
