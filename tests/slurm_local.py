"""What the tests on a one-node SLURM share (the cluster itself: flows/slurm_local.py): the marks that skip its tests
where it cannot run, the small-job overrides its builds use, and its queue."""

from __future__ import annotations

import os
import subprocess

import pytest
from system_programs import missing, skip_reason

#: Skipped only where SLURM is not installed (`.ci/run` installs slurm-wlm and munge) or not run as root.
NEEDS_SLURM = [
    pytest.mark.system_programs,
    pytest.mark.skipif(
        bool(missing("slurmctld", "slurmd", "munged")),
        reason=skip_reason(missing("slurmctld", "slurmd", "munged"), "a one-node SLURM cluster"),
    ),
    pytest.mark.skipif(os.geteuid() != 0, reason="the local SLURM runs as root (SlurmUser=root)"),
]
#: Small jobs for a 2-core machine; the scheduler on any free port.
JOBS = ["runner.backend=slurm", "runner.slurm.cores=1", "runner.slurm.memory=2GB", "runner.slurm.scheduler_port=0"]


def queued(env: dict[str, str], states: str = "PENDING,RUNNING") -> list[str]:
    """The ids of the cluster's jobs in `states`."""
    done = subprocess.run(["squeue", "-h", "-t", states, "-o", "%i"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()
