"""What every process of one test run shares: a folder, and the test Prefect server the xdist controller starts
in it (tests/conftest.py) so that its workers do not each start one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from filelock import FileLock

#: The folder of this test run, set by the xdist controller for its workers.
RUN_FOLDER_ENV = "BENCHFOUNDRY_TEST_RUN_FOLDER"
#: In the run folder: the shared server's API URL, or why it did not start.
SERVER_URL, SERVER_ERROR = "prefect-api-url", "prefect-api-error"
#: Seconds a worker waits for the controller's server (a hung start-up, not a speed limit).
SERVER_PATIENCE_S = 600.0


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The controller's folder under xdist, else this process's base temporary folder."""
    shared = os.environ.get(RUN_FOLDER_ENV)
    return Path(shared) if shared else tmp_path_factory.getbasetemp()


def prefect_db_template(folder: Path) -> Path:
    """A PREFECT_HOME in `folder` whose SQLite database holds Prefect's schema, made by the first process to ask
    (the others wait): a server started on a copy skips the migrations, two thirds of its start-up CPU."""
    home = folder / "prefect-db-template"
    with FileLock(str(folder / "prefect-db-template.lock")):
        if not (home / "prefect.db").exists():
            made = folder / "prefect-db-template.partial"
            shutil.rmtree(made, ignore_errors=True)
            made.mkdir()
            env = {**os.environ, "PREFECT_HOME": str(made)}
            env.pop("PREFECT_API_URL", None)
            upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
            done = subprocess.run(upgrade, env=env, capture_output=True, text=True)
            if done.returncode:
                raise RuntimeError(f"prefect server database upgrade exited {done.returncode}:\n{done.stderr}")
            made.rename(home)
    return home


def copy_home(template: Path, home: Path) -> Path:
    shutil.copytree(template, home)
    return home


class SharedServer(threading.Thread):
    """The run's Prefect server, started and stopped by this thread (a server is tied to the thread that
    started it, benchfoundry/core/tied_process.py); its URL, or its error, written in the run folder."""

    def __init__(self, folder: Path) -> None:
        super().__init__(name="test-prefect-server", daemon=True)
        self.folder = folder
        self.done = threading.Event()

    def run(self) -> None:
        from benchfoundry.flows.prefect_api import prefect_server

        try:
            home = copy_home(prefect_db_template(self.folder), self.folder / "prefect-server-home")
            with prefect_server(home=str(home)) as url:
                _write(self.folder / SERVER_URL, url)
                self.done.wait()
        except Exception as exc:
            _write(self.folder / SERVER_ERROR, f"{type(exc).__name__}: {exc}")

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=60)


def shared_server_url(folder: Path) -> str:
    """The URL of the controller's server once it is up; a failure quoting its error if it did not start."""
    deadline = time.monotonic() + SERVER_PATIENCE_S
    while not (folder / SERVER_URL).exists():
        if (folder / SERVER_ERROR).exists():
            pytest.fail(f"the test run's Prefect server did not start: {(folder / SERVER_ERROR).read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"the test run's Prefect server was not up after {SERVER_PATIENCE_S:.0f} s")
        time.sleep(0.2)
    return (folder / SERVER_URL).read_text()


def _write(path: Path, text: str) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(text)
    partial.replace(path)
