"""Test-session fixtures shared by every test module."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import run_folder
from scaleout_builds import shared_reference, write_config

REPO = Path(__file__).resolve().parent.parent
_SERVER = pytest.StashKey[run_folder.SharedServer]()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """As the xdist controller (`-n N`, N > 0): a run folder for the workers and, in a thread, one Prefect server
    they share (tests/run_folder.py); each worker would otherwise start its own, and keep it busy all run."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) or config.option.collectonly:
        return
    folder = tempfile.mkdtemp(prefix="benchfoundry-tests-")
    os.environ[run_folder.RUN_FOLDER_ENV] = folder  # the workers, started after this, inherit it
    config.stash[_SERVER] = server = run_folder.SharedServer(Path(folder))
    server.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER, None)
    if server is not None:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
        os.environ.pop(run_folder.RUN_FOLDER_ENV, None)


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
    """A PREFECT_HOME holding a migrated, empty database, made once for the test run."""
    return run_folder.prefect_db_template(run_folder.run_folder(tmp_path_factory))


@pytest.fixture
def prefect_home(tmp_path: Path, prefect_db_template: Path) -> Path:
    """A fresh PREFECT_HOME for a server a test starts: a copy of the migrated, empty database."""
    return run_folder.copy_home(prefect_db_template, tmp_path / "prefect-home")


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One real Prefect server (SQLite) that flows run against, instead of each starting its own temporary
    server: under xdist the controller's, shared by its workers (`pytest_configure`); else one for this process."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from benchfoundry.flows.prefect_api import prefect_server as start_server

    if os.environ.get(run_folder.RUN_FOLDER_ENV):
        url = run_folder.shared_server_url(run_folder.run_folder(tmp_path_factory))
        with temporary_settings({PREFECT_API_URL: url}):
            yield
        return
    home = tmp_path_factory.mktemp("prefect-server")  # one server: migrating its database costs no more
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
    from benchfoundry.flows.slurm_local import local_slurm

    with local_slurm(tmp_path_factory.mktemp("slurm")) as env:
        yield env


@pytest.fixture
def slurm_env(slurm: dict[str, str], cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The console script's environment (the test Prefect server) with the session's SLURM; also this process's."""
    for name, value in slurm.items():
        monkeypatch.setenv(name, value)
    return {**cli_env, **slurm}


@pytest.fixture(scope="session")
def tiny_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-shard SynDORBench build of the scale-out and SLURM tests (tests/scaleout_builds.py), as a file."""
    return write_config(tmp_path_factory.mktemp("tiny-config"))


@pytest.fixture(scope="session")
def tiny_reference(tmp_path_factory: pytest.TempPathFactory, prefect_server: None) -> Path:
    """Its uninterrupted local build, which every scale-out and SLURM build is compared with."""
    return shared_reference(tmp_path_factory)
