"""Test-session fixtures shared by every test module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files marked `long(minutes=N)` first, longest first, then the rest in collection order: `make test`
    hands files to its workers in this order (`--no-loadscope-reorder`), so the minutes a file spends waiting on
    SLURM, a deployment or a scale-out build overlap the other files instead of trailing them."""

    def minutes(item: pytest.Item) -> float:
        mark = item.get_closest_marker("long")
        return -mark.kwargs["minutes"] if mark else 0.0

    items.sort(key=minutes)


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    """One temporary Prefect server (SQLite) for the whole test session.

    Flows run against it instead of each starting its own temporary server.
    """
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def cli_env(prefect_server: None) -> dict[str, str]:
    """Environment for running the `benchfoundry` console script against the test server."""
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ)
    env["PREFECT_API_URL"] = str(PREFECT_API_URL.value())
    return env
