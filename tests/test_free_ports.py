"""flows/free_ports.py: ports for a build's servers, free and out of the way of outgoing connections."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from benchfoundry.flows import free_ports as module
from benchfoundry.flows.free_ports import free_ports


def _ephemeral() -> range:
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    return range(low, high + 1)


@pytest.mark.parametrize("count", [1, 2])
def test_drawn_ports_are_free_in_a_row_and_outside_the_ephemeral_range(count: int) -> None:
    """Outgoing connections take their ports from the kernel's ephemeral range: a port drawn outside it cannot be
    taken by one of them before its server binds it."""
    drawn = {free_ports(count=count) for _ in range(20)}
    assert len(drawn) > 1  # drawn, not the same port to every caller
    for port in drawn:
        for p in range(port, port + count):
            assert p not in _ephemeral()
            with socket.socket() as s:
                s.bind(("127.0.0.1", p))


def test_a_taken_port_is_never_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """With all ports of a small range held but one pair, that pair is what is drawn, every time."""
    base = free_ports(count=6)
    monkeypatch.setattr(module, "PORTS", range(base, base + 6))
    held = []
    try:
        for port in (base, base + 1, base + 4, base + 5):
            s = socket.socket()
            s.bind(("127.0.0.1", port))
            held.append(s)
        assert {free_ports(count=2) for _ in range(10)} == {base + 2}
        with pytest.raises(RuntimeError, match="no 3 free ports in a row"):
            free_ports(count=3)
    finally:
        for s in held:
            s.close()
