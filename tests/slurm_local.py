"""A one-node SLURM for the tests (`scripts/slurm-local` in a folder and on ports of its own), the marks that
skip its tests where it cannot run, and the small-job overrides its builds use."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Skipped only where SLURM is not installed (`.ci/run` installs slurm-wlm and munge) or not run as root.
NEEDS_SLURM = [
    pytest.mark.skipif(
        not (shutil.which("slurmctld") or Path("/usr/sbin/slurmctld").exists()) or not shutil.which("munged"),
        reason="SLURM not installed (apt-get install slurm-wlm munge; .ci/run does)",
    ),
    pytest.mark.skipif(os.geteuid() != 0, reason="the local SLURM runs as root (SlurmUser=root)"),
]
#: Small jobs for a 2-core machine; the scheduler on any free port.
JOBS = ["runner.kind=slurm", "runner.slurm.cores=1", "runner.slurm.memory=2GB", "runner.slurm.scheduler_port=0"]


def free_port_pair() -> int:
    """A port p such that p and p + 1 are free (slurmctld and slurmd)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise RuntimeError("no two free ports in a row")


@contextmanager
def local_slurm(folder: Path) -> Iterator[dict[str, str]]:
    """A one-node SLURM living in `folder`, stopped at exit: the environment that points SLURM commands at it."""
    env = {**os.environ, "SLURM_LOCAL_DIR": str(folder), "SLURM_LOCAL_PORT": str(free_port_pair())}
    script = str(REPO / "scripts" / "slurm-local")
    up = subprocess.run([script, "up"], env=env, capture_output=True, text=True)
    try:
        assert up.returncode == 0, up.stderr
        yield {"SLURM_CONF": str(folder / "slurm.conf")}
    finally:
        subprocess.run([script, "down"], env=env, capture_output=True)


def queued(env: dict[str, str], states: str = "PENDING,RUNNING") -> list[str]:
    """The ids of the cluster's jobs in `states`."""
    done = subprocess.run(["squeue", "-h", "-t", states, "-o", "%i"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()
