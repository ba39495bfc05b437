"""Orchestration cost of the shard-task path at full scale: ms of overhead per task, and how it grows.

Run: `nice -n 10 .venv/bin/python bench/orchestration.py [--shards 100 1000 3000] [--runners local dask-local]`.
A stage flow like the benchmarks' (benchmarks/syndor/flow.py's render stage) over N shards whose task body does no work
beyond the store: plan (ids, `StageStore.is_done` per shard), submit every shard task (`shard_task` policy via
`with_runner_policy`, the build's runner), wait on them (`flows.collect.collect_shards`; each task writes its
rows and completion marker), write the manifest (`StageStore.write_manifest`: every shard file read back).
Each runner is set up as a build sets it up (flows/build.run_build): `local` threads (max_workers 2) against
Prefect's own API, as `benchfoundry build` runs; `dask-local` 2 worker processes against a `prefect server
start` the bench starts. Prefect's database lives in a temporary PREFECT_HOME.

Printed per runner and N: seconds of the flow (and of each phase), ms per task, its growth against the
smallest N, and the ratio of the per-task overhead to one smoke render shard's seconds (the anchor: the
smoke preset's first SynDORBench render shard, rendered in the same run; `--anchor-s` gives a
figure instead). The cost model of docs/performance.md uses these figures.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from bench_table import add_row

if TYPE_CHECKING:
    from benchfoundry.benchmarks.syndor.scenes.render_plan import ShardPlan
    from benchfoundry.configs.build import BuildConfig

BENCHMARK, STAGE = "bench", "empty"


def smoke_shard() -> tuple[BuildConfig, ShardPlan, str]:
    """The anchor's shard: the smoke preset's first SynDORBench render shard, its config, and what it renders."""
    from benchfoundry.benchmarks.syndor.scenes import render_plan
    from benchfoundry.configs.loader import load_config

    config = load_config("smoke", [])
    plan = render_plan.plan_shards(config)[0]
    camera, render = config.syndor.camera, config.syndor.render
    denoised = " denoised" if render.denoise else ""
    size = f"{camera.resolution_w}×{camera.resolution_h}"
    return config, plan, f"{len(plan.frames)} frames, {size}, {render.samples} spp{denoised}"


def _anchor_seconds(work: Path, config: BuildConfig, plan: ShardPlan) -> float:
    """Seconds of the shard `plan` of `config`, rendered through the pipeline (a fresh worker)."""
    from benchfoundry.benchmarks.syndor.scenes import render_stage
    from benchfoundry.pipeline import render_client

    start = time.perf_counter()
    render_stage.render_shard(config, str(work / "anchor"), plan)
    seconds = time.perf_counter() - start
    render_client.close_all()
    return seconds


def _flow(n: int, out: str, runner: Any) -> dict[str, float]:
    """The stage flow over `n` shards on `runner`; returns seconds per phase."""
    from prefect import flow

    from benchfoundry.core.store import StageStore
    from benchfoundry.flows.collect import collect_shards
    from benchfoundry.flows.task_runner import on_runner, with_runner_policy
    from benchfoundry.pipeline.shard_task import shard_task

    @shard_task(resource="compute", name="bench-empty-shard")
    def empty_shard(out: str, shard_id: str, spec_hash: str) -> str:
        StageStore(out, BENCHMARK, STAGE).write_shard(
            shard_id, pd.DataFrame([{"shard": shard_id}]), spec_hash=spec_hash
        )
        return shard_id

    @flow(name="bench-orchestration")
    def stage(out: str) -> dict[str, float]:
        marks = [time.perf_counter()]
        store = StageStore(out, BENCHMARK, STAGE)
        ids = [f"s{k:05d}" for k in range(n)]
        todo = [s for s in ids if not store.is_done(s, "h")]
        marks.append(time.perf_counter())
        task = with_runner_policy(empty_shard, runner)
        submitted = [(s, task.submit(out, s, "h")) for s in todo]
        marks.append(time.perf_counter())
        _, failed = collect_shards(STAGE, submitted)
        if failed:
            raise RuntimeError(f"{len(failed)} empty shards failed: {failed[0]['reason']}")
        marks.append(time.perf_counter())
        store.write_manifest(ids)
        marks.append(time.perf_counter())
        return {k: b - a for k, a, b in zip(("plan", "submit", "collect", "manifest"), marks, marks[1:])}

    start = time.perf_counter()
    phases = on_runner(stage, runner)(out)
    return {"total": time.perf_counter() - start, **phases}


def measure(backend: str, counts: list[int], work: Path) -> list[dict[str, Any]]:
    """Run the flow at each count on a fresh output root, on one runner set up for all counts."""
    from benchfoundry.configs.build import RunnerConfig
    from benchfoundry.flows.cluster import dask_cluster
    from benchfoundry.flows.prefect_api import build_api, configured_api_url

    runner = RunnerConfig(backend=backend, max_workers=2, workers=2)
    rows = []
    with build_api(runner), dask_cluster(runner, configured_api_url()) as bound:
        _flow(10, str(work / f"{backend}-warm"), bound)  # first flow run: API start, cluster connection
        for n in counts:
            rows.append({"runner": backend, "shards": n, **_flow(n, str(work / f"{backend}-{n}"), bound)})
            print(f"  {backend} {n}: {rows[-1]['total']:.1f} s", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, nargs="+", default=[100, 1000, 3000])
    parser.add_argument("--runners", nargs="+", default=["local", "dask-local"], choices=["local", "dask-local"])
    parser.add_argument("--anchor-s", type=float, help="seconds of one smoke render shard, instead of rendering one")
    args = parser.parse_args()
    # Removed at exit after Prefect's own exit handlers (registered later, run earlier) stop its server.
    work = Path(tempfile.mkdtemp(prefix="bench-orchestration-"))
    atexit.register(shutil.rmtree, work, True)
    os.environ["PREFECT_HOME"] = str(work / "prefect")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    config, plan, shard = smoke_shard()
    anchor = args.anchor_s if args.anchor_s is not None else _anchor_seconds(work, config, plan)
    rows = [row for backend in args.runners for row in measure(backend, sorted(args.shards), work)]
    given = " (given)" if args.anchor_s is not None else ""
    print(f"anchor: one smoke render shard ({shard}) {anchor:.1f} s{given}")
    print(
        f"{'runner':<11}{'shards':>7}{'total s':>9}{'ms/task':>9}{'marginal':>10}"
        f"{'plan':>7}{'submit':>8}{'collect':>9}{'manifest':>10}{'marginal/anchor':>17}"
    )
    for backend in args.runners:
        previous = None
        for r in (r for r in rows if r["runner"] == backend):
            marginal = (
                (r["total"] - previous["total"]) / (r["shards"] - previous["shards"])
                if previous
                else r["total"] / r["shards"]
            )
            print(
                f"{backend:<11}{r['shards']:>7}{r['total']:>9.1f}{r['total'] / r['shards'] * 1000:>9.1f}"
                f"{marginal * 1000:>10.1f}"
                f"{r['plan']:>7.1f}{r['submit']:>8.1f}{r['collect']:>9.1f}{r['manifest']:>10.1f}"
                f"{marginal / anchor:>17.5f}"
            )
            previous = r
        runs = [r for r in rows if r["runner"] == backend]
        last = runs[-1]
        add_row(
            "`bench/orchestration.py`",
            f"the shard-task path with an empty task body (plan with `is_done`, submit with the runner policy, "
            f"`collect_shards`, a marker per shard, the manifest) on `{backend}`: "
            + " / ".join(f"{r['shards']:,}" for r in runs)
            + " shards in "
            + " / ".join(f"{r['total']:.1f}" for r in runs)
            + " s: "
            + " / ".join(f"{r['total'] / r['shards'] * 1000:.1f}" for r in runs)
            + f" ms per task (of the {last['shards']:,}: submit {last['submit']:.1f} s, collect "
            f"{last['collect']:.1f} s, manifest {last['manifest']:.1f} s)",
            f"one smoke render shard ({shard}): {anchor:.1f} s{given}",
            f"{marginal / anchor:.4f} of a render shard per added task at {last['shards']:,} shards",
        )
    print(
        "total s: the stage flow, start to end (plan, submit, collect, manifest; no work in the task); "
        "ms/task: total / shards; marginal: ms per task added since the previous count (the first: ms/task), "
        "its growth with the count is the cost's growth; marginal/anchor: that per-task cost / one smoke render "
        "shard's seconds."
    )


if __name__ == "__main__":
    main()
