"""Test-session fixtures shared by every test module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock
from slurm_local import local_slurm

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
def prefect_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PREFECT_HOME whose SQLite database holds Prefect's schema, made once for the test run (every xdist
    worker shares it): a server started on a copy skips the migrations, two thirds of its start-up CPU."""
    shared = tmp_path_factory.getbasetemp().parent
    home = shared / "prefect-db-template"
    with FileLock(str(shared / "prefect-db-template.lock")):
        if not (home / "prefect.db").exists():
            made = shared / "prefect-db-template.partial"
            shutil.rmtree(made, ignore_errors=True)
            made.mkdir()
            env = {**os.environ, "PREFECT_HOME": str(made)}
            env.pop("PREFECT_API_URL", None)
            upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
            done = subprocess.run(upgrade, env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stdout + done.stderr
            made.rename(home)
    return home


@pytest.fixture
def prefect_home(tmp_path: Path, prefect_db_template: Path) -> Path:
    """A fresh PREFECT_HOME for a server a test starts: a copy of the migrated, empty database."""
    home = tmp_path / "prefect-home"
    shutil.copytree(prefect_db_template, home)
    return home


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory, prefect_db_template: Path) -> Iterator[None]:
    """One real Prefect server (SQLite, on a copy of the migrated database) for each test process.

    Flows run against it instead of each starting its own temporary server."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from benchfoundry.flows.prefect_api import prefect_server as start_server

    home = tmp_path_factory.mktemp("prefect-server") / "home"
    shutil.copytree(prefect_db_template, home)
    with start_server(home=str(home)) as url, temporary_settings({PREFECT_API_URL: url}):
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


@pytest.fixture(scope="session")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A one-node SLURM for this test process (stopped after it): the environment pointing SLURM commands at it."""
    with local_slurm(tmp_path_factory.mktemp("slurm")) as env:
        yield env


@pytest.fixture
def slurm_env(slurm: dict[str, str], cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The console script's environment (the test Prefect server) with the session's SLURM; also this process's."""
    for name, value in slurm.items():
        monkeypatch.setenv(name, value)
    return {**cli_env, **slurm}
