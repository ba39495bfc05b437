"""A one-node SLURM in a folder of its own (`scripts/slurm-local`, on two free ports), for the tests and the benches
that build on SLURM without a cluster: started for a block, stopped at its end."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from benchfoundry.flows.free_ports import free_ports

#: The script that starts and stops the cluster (docs/cluster.md: a local SLURM).
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "slurm-local"
#: How often a cluster is started on fresh ports when a daemon found its port taken all the same, which
#: scripts/slurm-local tells by the error the daemon logged.
UP_ATTEMPTS = 3
PORT_TAKEN = "Address already in use"


@contextmanager
def local_slurm(folder: Path, env: Mapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """A one-node SLURM living in `folder` (its daemons run with `env`, else this process's environment), stopped
    at exit: yields what points SLURM's commands at it (`SLURM_CONF`). Started again on fresh ports when a daemon
    found its port taken; RuntimeError with the script's last output when it does not start, or naming the script
    when it cannot be run."""
    cluster = {**(os.environ if env is None else env), "SLURM_LOCAL_DIR": str(folder)}
    for attempt in range(UP_ATTEMPTS):
        cluster["SLURM_LOCAL_PORT"] = str(free_ports(count=2))  # slurmctld's, slurmd's
        try:
            up = subprocess.run([str(SCRIPT), "up"], env=cluster, capture_output=True, text=True)
        except OSError as exc:  # no script (an installed package without the repository's scripts/), not executable
            raise RuntimeError(f"{SCRIPT}: cannot run it ({exc.strerror or exc})") from None
        if PORT_TAKEN not in up.stderr or attempt == UP_ATTEMPTS - 1:
            break
        subprocess.run([str(SCRIPT), "down"], env=cluster, capture_output=True)
    try:
        if up.returncode != 0:
            raise RuntimeError(f"{SCRIPT} up failed ({up.returncode}): {up.stderr.strip()[-500:]}")
        yield {"SLURM_CONF": str(Path(folder) / "slurm.conf")}
    finally:
        subprocess.run([str(SCRIPT), "down"], env=cluster, capture_output=True)
