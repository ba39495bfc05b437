"""Free TCP ports for the servers a build starts (its Prefect server, a local SLURM's daemons), drawn where no
outgoing connection takes them between the draw and the server's bind."""

from __future__ import annotations

import random
import socket

#: Where ports are drawn from: below the kernel's ephemeral range (32768 on Linux by default), from which outgoing
#: connections take theirs, so none takes a drawn port before its server binds it.
PORTS = range(20000, 32000)


def _free(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_ports(host: str = "127.0.0.1", count: int = 1) -> int:
    """A port p in PORTS such that p … p + count − 1 are free on `host`, drawn at random so that servers started
    side by side do not try the same ones."""
    draw = random.SystemRandom()
    for _ in range(200):
        port = draw.randrange(PORTS.start, PORTS.stop - count + 1)
        if all(_free(host, port + i) for i in range(count)):
            return port
    raise RuntimeError(f"no {count} free ports in a row in {PORTS.start}-{PORTS.stop - 1} on {host}")
