"""The `build` flow: one subflow per benchmark, then `build.json` in the output root."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

from prefect import flow

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import config_dict, config_hash, load_config
from benchfoundry.flows.odi import odi_flow
from benchfoundry.flows.policy import on_runner
from benchfoundry.flows.syndor import syndor_flow
from benchfoundry.flows.viewspatial import viewspatial_flow
from benchfoundry.tasks.common.buildinfo import benchmark_outcome, package_versions, utc_now
from benchfoundry.tasks.common.store import sweep_stale_temporaries, write_json_atomic

#: The benchmarks a build can run, in order, with the config section that switches each on.
BENCHMARKS: dict[str, Callable[..., Any]] = {
    "syndor": syndor_flow,
    "odi": odi_flow,
    "viewspatial": viewspatial_flow,
}

#: Benchmarks whose own flow submits shard tasks, so it runs them on the build's runner. The others
#: submit nothing themselves (syndor's render and discern stages are subflows with their own runner)
#: and keep Prefect's default thread runner: no second, nested Dask cluster.
SUBMITS_TASKS = frozenset({"odi", "viewspatial"})


def _subflow(name: str, config: BuildConfig) -> Callable[..., Any]:
    """The benchmark's flow, with the build's task runner only when it submits tasks itself."""
    if name in SUBMITS_TASKS:
        return on_runner(BENCHMARKS[name], config.runner)
    return BENCHMARKS[name]


def _run_benchmark(name: str, config: BuildConfig, out: str) -> dict[str, Any]:
    state = _subflow(name, config)(config, out, return_state=True)
    if state.is_completed():
        return state.result()
    try:
        state.result()
    except BaseException as exc:  # noqa: BLE001 - the failure is recorded, the other benchmarks go on
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return benchmark_outcome("failed", detail)
    return benchmark_outcome("failed", f"subflow ended {state.type.value}")


@flow(name="build")
def build(config: BuildConfig, out: str, only: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the selected benchmarks' subflows and write `OUT/build.json`.

    Subflows and their tasks get the absolute output root: a Dask worker on another machine
    would resolve a relative one against its own working directory.
    """
    root = Path(out).resolve()
    root.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {
        "name": config.name,
        "config": config_dict(config),
        "config_hash": config_hash(config),
        "out": str(root),
        "versions": package_versions(),
        "started": utc_now(),
        "benchmarks": {},
        "problems": [],
        "swept_temporaries": [str(p.relative_to(root)) for p in sweep_stale_temporaries(root)],
    }
    for name in BENCHMARKS:
        section = getattr(config, name)
        if only is not None and name not in only:
            outcome = benchmark_outcome("not built", "not selected with --only")
        elif not section.enabled:
            outcome = benchmark_outcome("not built", f"{name}.enabled is false")
        else:
            outcome = _run_benchmark(name, config, str(root))
        record["benchmarks"][name] = outcome
        record["problems"].extend({"benchmark": name, **p} for p in outcome.get("problems", []))
    record["finished"] = utc_now()
    write_json_atomic(root / "build.json", record)
    return record


@flow(name="build-from-config")
def build_from_config(
    config_path: str,
    out: str | None = None,
    only: list[str] | None = None,
    overrides: list[str] | None = None,
) -> dict[str, Any]:
    """Deployment entry point: JSON-friendly parameters (a config path and `--set` strings)."""
    config = load_config(config_path, overrides or [])
    return build(config, out or str(config.output_root), only)
