"""One Prefect API for a build: the configured `PREFECT_API_URL`, or a real `prefect server start` (SQLite
in `PREFECT_HOME`, default `~/.prefect`) that the build starts and stops.

Without it every Dask worker process would start its own temporary server (docs/design/environment.md §8) and the UI
would show none of their task runs; a local build would get Prefect's own temporary server, which
outlives a build killed with SIGKILL. The server started here is tied to the build's life
(benchfoundry/core/tied_process.py): it dies with the build, SIGKILL included, and a build stopped by a
signal keeps it only until it has reported (flows/stop_signals.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from benchfoundry.configs.build import RunnerConfig
from benchfoundry.core.tied_process import tied_command
from benchfoundry.flows.cluster import environ
from benchfoundry.flows.free_ports import free_ports
from benchfoundry.flows.stop_signals import spared

STARTUP_TIMEOUT_S = 180.0
#: Seconds the server has to stop after SIGTERM before it is killed.
STOP_TIMEOUT_S = 10.0


def configured_api_url() -> str | None:
    """The Prefect API this process reports to, if one is configured (setting or environment)."""
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=5) as reply:
            return reply.status == 200
    except OSError:
        return False


def _drain_prefect_clients(timeout_s: float = 5.0) -> None:
    """Send what this process's Prefect log and event workers still hold while the server is up (bounded):
    otherwise they retry against a stopped server when the process exits, and the exit hangs."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for service in (APILogWorker, EventsWorker):
        service.drain_all(timeout=timeout_s, at_exit=False)


@contextmanager
def prefect_server(
    host: str = "127.0.0.1",
    port: int | None = None,
    timeout_s: float = STARTUP_TIMEOUT_S,
    scheduler: bool = False,
    home: str | None = None,
) -> Iterator[str]:
    """A `prefect server start` subprocess on host:port (a free port when None), killed by the OS if this
    process dies; yields its API URL and stops it at exit. Its log goes to a temporary file, quoted when it
    does not come up. `scheduler` runs the server's scheduler service (deployments' schedules make runs);
    a build's own server has no deployments and runs without it. `home`: the server's PREFECT_HOME (its
    SQLite database), this process's when None."""
    port = port or free_ports(host)
    url = f"http://{host}:{port}/api"
    # SQLite under many Dask workers' writes: wait for the lock instead of failing after the default 10 s
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_API_DATABASE_TIMEOUT": "60"}
    env.pop("PREFECT_API_URL", None)
    if home is not None:
        env["PREFECT_HOME"] = home
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            tied_command(
                [
                    sys.executable,
                    "-m",
                    "prefect",
                    "server",
                    "start",
                    "--host",
                    host,
                    "--port",
                    str(port),
                    *([] if scheduler else ["--no-scheduler"]),
                    "--analytics-off",
                ]
            ),
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            with spared(proc.pid):
                deadline = time.monotonic() + timeout_s
                while not _healthy(url):
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        tail = log.read().decode("utf-8", "replace")[-3000:]
                        raise RuntimeError(
                            f"prefect server on {host}:{port} did not start (exit {proc.poll()}):\n{tail}"
                        )
                    time.sleep(0.5)
                # this process's log and event workers keep the client of the server they were started for (the
                # key Prefect finds them by names no URL): stopped here, the next ones are made for this server
                _drain_prefect_clients()
                yield url
        finally:
            _drain_prefect_clients()
            proc.terminate()
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextmanager
def build_api(runner: RunnerConfig) -> Iterator[str]:
    """The API the build and its workers report to: the configured one; or, with none configured, a server
    started on `runner.prefect_host:prefect_port` for the build (set in this process's settings and
    environment, which worker processes inherit)."""
    url = configured_api_url()
    if url:
        yield url
        return
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with ExitStack() as stack:
        url = stack.enter_context(prefect_server(runner.prefect_host, runner.prefect_port or None))
        print(f"Prefect API for this build: {url} (UI: {url.removesuffix('/api')})", file=sys.stderr, flush=True)
        stack.enter_context(temporary_settings({PREFECT_API_URL: url}))
        stack.enter_context(environ({"PREFECT_API_URL": url}))
        yield url
