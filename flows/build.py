"""The `build` flow: one subflow per benchmark, then the report's front page and links, then `build.json` in the
output root."""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import config_dict, config_hash, load_config
from benchfoundry.core import plugins
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.buildinfo import (
    KEY_PACKAGES,
    benchmark_outcome,
    constraints_record,
    error_line,
    package_versions,
    utc_now,
)
from benchfoundry.core.output_root import MARKER_NAME, RECORD_NAME, describe_holder, hold_output_root, read_marker
from benchfoundry.core.redact import redact_data
from benchfoundry.core.stopping import BuildInterrupted, stop_requested
from benchfoundry.core.store import build_leftovers, sweep_build_leftovers
from benchfoundry.core.timings import benchmark_timings, build_cpu_seconds, marker_timings
from benchfoundry.flows.cluster import dask_cluster
from benchfoundry.flows.collect import recording_stages
from benchfoundry.flows.prefect_api import build_api, configured_api_url
from benchfoundry.flows.slurm_jobs import ClusterFailed
from benchfoundry.flows.stop_signals import on_stop
from benchfoundry.flows.superseded import superseding_parameters
from benchfoundry.flows.task_runner import on_runner
from benchfoundry.pipeline.benchmarks import get, hook, names
from benchfoundry.pipeline.front_page import write_front_page
from benchfoundry.pipeline.report_nav import link_pages
from benchfoundry.pipeline.timings_page import write_timings_page

#: The root's own files, whose temporaries a killed build may leave beside them.
ROOT_FILES = (RECORD_NAME, MARKER_NAME)


def adopted_leftovers(root: Path) -> list[str]:
    """What looks like a killed build's leftovers in a folder adopted with --adopt-out before its first
    build (the user's own `<benchmark>/_tmp/`, `.build.json.abcdefgh.tmp`, …): recorded in the marker and never
    swept."""
    return [str(p.relative_to(root)) for p in build_leftovers(root, names(), ROOT_FILES)]


def _versions(config: BuildConfig) -> dict[str, str | None]:
    """The versions of the distributions that shape the bytes, a plug-in benchmark's or renderer's own included,
    also from the folders a benchmark loads packages from besides site-packages (its `site_folders` hook)."""
    paths = []
    for name in names():
        folders = hook(name, "site_folders")
        paths += folders(config) if folders is not None else []
    plugged = plugins.distributions(plugins.BENCHMARKS_GROUP) + plugins.distributions(plugins.RENDERERS_GROUP)
    return package_versions(tuple(dict.fromkeys((*KEY_PACKAGES, *plugged))), paths=paths)


def _subflow(name: str, config: BuildConfig) -> Callable[..., Any]:
    """The benchmark's flow (pipeline/benchmarks.py), with the build's task runner only when it submits
    tasks itself; the others (whose stages are subflows with their own runner) keep
    Prefect's default thread runner: no second, nested Dask cluster."""
    if get(name).submits_tasks:
        return on_runner(hook(name, "flow"), config.runner)
    return hook(name, "flow")


def _run_benchmark(name: str, config: BuildConfig, out: str) -> dict[str, Any]:
    state = _subflow(name, config)(config, out, return_state=True)
    if state.is_completed():
        return state.result()
    try:
        state.result()
    except BaseException as exc:
        return benchmark_outcome("failed", error_line(exc))
    return benchmark_outcome("failed", f"subflow ended {state.type.value}")


def _timed_benchmark(name: str, config: BuildConfig, root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The benchmark's outcome and where its time went (benchfoundry/core/timings.py)."""
    start = time.time()
    with recording_stages() as windows:
        outcome = _run_benchmark(name, config, str(root))
    end = time.time()
    return outcome, benchmark_timings(start, end, windows, marker_timings(root, name, start))


def write_build_record(path: Path, record: dict[str, Any]) -> None:
    """`build.json`, atomically and redacted (a credential in a configured URL is not written). When that
    fails (a full disk has no room for the temporary copy) a short failed record is written in place over
    the old one (or, failing that, the old one is removed), so that it never shows an earlier run as this
    one; then the OSError is raised."""
    record = redact_data(record)
    try:
        write_json_atomic(path, record)
    except OSError as exc:
        short = {key: record.get(key) for key in ("name", "config_hash", "out", "started")}
        short.update(
            status="failed",
            error=error_line(exc),
            finished=utc_now(),
            benchmarks={
                name: {"status": o.get("status"), "detail": o.get("detail")}
                for name, o in record.get("benchmarks", {}).items()
            },
        )
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(short, indent=2, sort_keys=True) + "\n")
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise


def _interrupted(record: dict[str, Any], path: Path) -> Callable[[], None]:
    """The stop callback of a running build: build.json `interrupted`, unless the build has ended."""

    def mark() -> None:
        if record.get("status") != "running":
            return
        for _ in range(3):  # the main thread may be adding to the record meanwhile
            try:
                snapshot = json.loads(json.dumps(record, default=str))
                break
            except RuntimeError:
                continue
        else:
            snapshot = {key: record.get(key) for key in ("name", "config_hash", "out", "started")}
        signum = stop_requested() or signal.SIGINT
        snapshot.update(status="interrupted", interrupted_by=signal.Signals(signum).name, finished=utc_now())
        write_build_record(path, snapshot)

    return mark


@flow(name="build")
def build(config: BuildConfig, out: str, only: Sequence[str] | None = None, adopt: bool = False) -> dict[str, Any]:
    """Run the selected benchmarks' subflows on the build's runner (a Dask cluster it starts is closed at
    the end), holding the output root's lock, and write `OUT/build.json`: first as `running` (so an
    earlier run's record never stands for this one), then with the outcome. The build's own leftovers
    (temporaries, staging folders) are swept before and after the benchmarks run, but what an adopted folder
    held before its first build. A build.json that cannot be written (a full disk) makes the build `failed`,
    with `record_error`. A build stopped by a signal (flows/stop_signals.py) or Ctrl-C is `interrupted`.

    Subflows and their tasks get the absolute output root: a Dask worker on another machine
    would resolve a relative one against its own working directory. `adopt` builds into a non-empty
    folder that is not yet a build (benchfoundry/core/output_root.py).
    """
    with hold_output_root(out, adopt, adopted_leftovers) as taken_over:
        root = Path(out).resolve()
        if taken_over is not None:
            get_run_logger().warning(
                "took over the lock of a build that did not finish: %s", describe_holder(taken_over)
            )
        keep = read_marker(root).get("adopted_leftovers", [])
        swept = sweep_build_leftovers(root, names(), ROOT_FILES, keep)
        record: dict[str, Any] = {
            "name": config.name,
            "config": config_dict(config),
            "config_hash": config_hash(config),
            "out": str(root),
            "versions": _versions(config),
            "constraints": constraints_record(),
            "started": utc_now(),
            "status": "running",
            "benchmarks": {},
            "problems": [],
            "swept_leftovers": [str(p.relative_to(root)) for p in swept],
            "lock_taken_over": taken_over,
            "timings": {"benchmarks": {}},
        }
        started = time.time()
        try:
            write_build_record(root / RECORD_NAME, record)
        except OSError as exc:
            return {**record, "status": "failed", "record_error": error_line(exc)}
        mark_interrupted = _interrupted(record, root / RECORD_NAME)
        try:
            with on_stop(mark_interrupted), dask_cluster(config.runner, configured_api_url(), root / "slurm") as runner:
                bound = config.model_copy(update={"runner": runner})
                for name in names():
                    if only is not None and name not in only:
                        outcome = benchmark_outcome("not built", "not selected with --only")
                    elif not config.section(name).enabled:
                        outcome = benchmark_outcome("not built", f"{name}.enabled is false")
                    else:
                        outcome, record["timings"]["benchmarks"][name] = _timed_benchmark(name, bound, root)
                    record["benchmarks"][name] = outcome
                    record["problems"].extend({"benchmark": name, **p} for p in outcome.get("problems", []))
        except (BuildInterrupted, KeyboardInterrupt):
            with contextlib.suppress(OSError):
                mark_interrupted()
            raise
        except ClusterFailed as exc:
            record.update(status="failed", error=str(exc), finished=utc_now())
            with contextlib.suppress(OSError):
                write_build_record(root / RECORD_NAME, record)
            raise
        record["timings"]["wall_s"] = round(time.time() - started, 2)
        record["timings"]["cpu_s"] = build_cpu_seconds(record["timings"].get("benchmarks", {}))
        failed = [name for name, o in record["benchmarks"].items() if o["status"] == "failed"]
        # the record stays `running` until it is written: a stop meanwhile still marks it `interrupted`
        ending: dict[str, Any] = {"status": "failed" if failed else "finished", "finished": utc_now()}
        if failed:
            ending["error"] = "; ".join(f"{name}: {record['benchmarks'][name]['detail']}" for name in failed)
        try:
            write_timings_page(root / "report", record["timings"])
            write_front_page(root, {**record, **ending})
            link_pages(root / "report")
        except OSError as exc:
            record["problems"].append(
                {
                    "benchmark": "report",
                    "stage": "links",
                    "item": "report",
                    "kind": "skipped",
                    "reason": error_line(exc),
                }
            )
        # Again at the end: a worker killed mid-write (a retried task) leaves its temporary behind.
        record["swept_leftovers"] += [
            str(p.relative_to(root)) for p in sweep_build_leftovers(root, names(), ROOT_FILES, keep)
        ]
        record.update(ending)
        try:
            write_build_record(root / RECORD_NAME, record)
        except OSError as exc:
            record.update(status="failed", record_error=error_line(exc))
        return record


def run_build(config: BuildConfig, out: str, only: Sequence[str] | None = None, adopt: bool = False) -> dict[str, Any]:
    """The `build` flow against one Prefect API: for a Dask runner with none configured, a Prefect
    server started for the build (flows/prefect_api.py)."""
    with build_api(config.runner):
        return build(config, out, only, adopt)


@flow(name="build-from-config")
def build_from_config(
    config_path: str,
    out: str | None = None,
    only: list[str] | None = None,
    overrides: list[str] | None = None,
    adopt: bool = False,
) -> dict[str, Any]:
    """Deployment entry point: JSON-friendly parameters (a config path and `--set` strings), the config loaded with
    its overrides and built into `out` or its root. A scheduled run that a redeploy superseded runs with the
    deployment's current parameters (flows/superseded.py)."""
    now = superseding_parameters()
    if now is not None:
        current = inspect.signature(build_from_config.fn).bind(**build_from_config.validate_parameters(now))
        current.apply_defaults()
        config_path, out, only, overrides, adopt = current.arguments.values()
    config = load_config(config_path, overrides or [])
    return build(config, out or str(config.output_root), only, adopt)
