"""A one-node SLURM in a folder of its own (`scripts/slurm-local`, on two free ports), for the tests and the benches
that build on SLURM without a cluster: started for a block, stopped at its end."""

from __future__ import annotations

import os
import random
import socket
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

#: The script that starts and stops the cluster (docs/cluster.md: a local SLURM).
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "slurm-local"
#: Where the ports are drawn from: below the kernel's ephemeral range (32768 on Linux by default), which outgoing
#: connections take ports from, so none takes slurmd's between the draw and its start.
PORTS = range(20000, 32000)
#: How often a cluster is started on fresh ports when a daemon found its port taken all the same.
UP_ATTEMPTS = 3


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_pair() -> int:
    """A port p in PORTS such that p and p + 1 are free (slurmctld and slurmd), drawn at random so that clusters
    started side by side do not try the same pair."""
    draw = random.SystemRandom()
    for _ in range(200):
        port = draw.randrange(PORTS.start, PORTS.stop - 1)
        if _free(port) and _free(port + 1):
            return port
    raise RuntimeError(f"no two free ports in a row in {PORTS.start}-{PORTS.stop - 1}")


@contextmanager
def local_slurm(folder: Path, env: Mapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """A one-node SLURM living in `folder` (its daemons run with `env`, else this process's environment), stopped
    at exit: yields what points SLURM's commands at it (`SLURM_CONF`). Started again on fresh ports when a daemon
    found its port taken; RuntimeError with the script's last output when it does not start, or naming the script
    when it cannot be run."""
    cluster = {**(os.environ if env is None else env), "SLURM_LOCAL_DIR": str(folder)}
    for attempt in range(UP_ATTEMPTS):
        cluster["SLURM_LOCAL_PORT"] = str(free_port_pair())
        try:
            up = subprocess.run([str(SCRIPT), "up"], env=cluster, capture_output=True, text=True)
        except OSError as exc:  # no script (an installed package without the repository's scripts/), not executable
            raise RuntimeError(f"{SCRIPT}: cannot run it ({exc.strerror or exc})") from None
        if "Address already in use" not in up.stderr or attempt == UP_ATTEMPTS - 1:
            break
        subprocess.run([str(SCRIPT), "down"], env=cluster, capture_output=True)
    try:
        if up.returncode != 0:
            raise RuntimeError(f"{SCRIPT} up failed ({up.returncode}): {up.stderr.strip()[-500:]}")
        yield {"SLURM_CONF": str(Path(folder) / "slurm.conf")}
    finally:
        subprocess.run([str(SCRIPT), "down"], env=cluster, capture_output=True)
