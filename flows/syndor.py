"""SynDORBench subflow (DESIGN §2): renders → night vision → discernibility labels → QA.

Each stage is a call that takes the previous stage's manifest and returns its own summary
(with `manifest`, the path the next stage reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow
from prefect.futures import PrefectFuture

from benchfoundry.flows.params import BuildConfig
from benchfoundry.flows.policy import on_runner, with_runner_policy
from benchfoundry.tasks import render_client, syndor_render
from benchfoundry.tasks.amass import select_poses
from benchfoundry.tasks.buildinfo import benchmark_outcome, problem
from benchfoundry.tasks.discern_stage import discern_stage
from benchfoundry.tasks.store import StageStore, write_parquet_atomic
from benchfoundry.tasks.syndor_qa import qa_stage
from benchfoundry.tasks.syndor_report import report_problems


@flow(name="syndor-render")
def render_stage(config: BuildConfig, out: str) -> dict[str, Any]:
    """Calibration and every render shard not yet finished; the manifest last."""
    poses = select_poses(config.syndor.poses)
    plans = syndor_render.plan_shards(config, poses)
    store = StageStore(out, syndor_render.BENCHMARK, syndor_render.STAGE)
    todo = [p for p in plans if not store.is_done(p.shard_id, p.spec_hash)]
    calibration = with_runner_policy(syndor_render.calibrate_task, config.runner).submit(config, out)
    shard = with_runner_policy(syndor_render.render_shard_task, config.runner)
    futures = [(p, shard.submit(config, out, p)) for p in todo]
    failed = []
    try:
        for plan, future in futures:
            try:
                future.result()
            except Exception as exc:  # noqa: BLE001 - a shard that failed all retries is reported, the rest goes on
                failed.append(problem("render", plan.shard_id, f"{type(exc).__name__}: {exc}"[:2000], kind="failed"))
        calibration_rows, calibration_error = _calibration_rows(calibration)
    finally:
        render_client.close_all()
    done = [p.shard_id for p in plans if store.is_done(p.shard_id, p.spec_hash)]
    frames = {s: store.marker(s)["rows"] for s in done}
    manifest = _write_manifest(store, done, calibration_rows)
    if calibration_rows is None:
        calibration_summary = syndor_render.calibration_error_summary(calibration_error)
    else:
        plot = syndor_render.plot_calibration(calibration_rows, Path(out) / syndor_render.BENCHMARK / "report" / "calibration.png")
        calibration_summary = syndor_render.calibration_summary(calibration_rows, str(plot.relative_to(out)))
    return {
        "manifest": str(manifest), "shards": len(plans), "empty_scene_shards": sum(p.empty_scene for p in plans),
        "empty_scene_frames": int(sum(frames[p.shard_id] for p in plans if p.empty_scene and p.shard_id in frames)),
        "empty_scene_share": syndor_render.empty_scene_share(plans, frames),
        "empty_scene_share_target": config.syndor.empty_scene_share,
        "shards_rendered": len(todo) - len(failed),
        "shards_failed": len(failed), "frames": int(sum(frames.values())),
        "frames_rendered": int(sum(frames[p.shard_id] for p in todo if p.shard_id in frames)),
        "calibration": calibration_summary,
        "problems": [*poses.problems, *failed, *syndor_render.calibration_problems(calibration_summary),
                     *store.problems(done)],
    }


def _calibration_rows(calibration: PrefectFuture) -> tuple[pd.DataFrame | None, str]:
    """The calibration task's rows, or None and why the task failed or left no readable rows."""
    try:
        rows = pd.read_parquet(calibration.result())
    except Exception as exc:  # noqa: BLE001 - a failed calibration fails the benchmark after the manifest is written
        return None, f"{type(exc).__name__}: {exc}"[:2000]
    missing = sorted({"zone", "measured_ppm", "within_tolerance"} - set(rows.columns))
    if not len(rows) or missing:
        return None, "the calibration task left no rows" + (f" with {missing}" if missing else "")
    return rows, ""


def _write_manifest(store: StageStore, shard_ids: list[str], calibration_rows: pd.DataFrame | None) -> Path:
    """The current shards' rows with the measured px/m of their distance (null without calibration
    rows); `empty_scene` false for person rows written before that column existed."""
    rows = store.collect_rows(shard_ids)
    if len(rows):
        rows[syndor_render.EMPTY_SCENE_COLUMN] = syndor_render.empty_scene_rows(rows)
        measured = {} if calibration_rows is None else dict(zip(calibration_rows["zone"],
                                                                calibration_rows["measured_ppm"]))
        rows["measured_ppm"] = rows["zone"].map(measured).astype(float)
    return write_parquet_atomic(store.manifest_path, rows)


#: Night vision, features, labels and classifier (tasks/discern_stage.py) as a subflow with the build's runner.
discern_flow = flow(name="syndor-discern")(discern_stage)


@flow(name="syndor")
def syndor_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """Renders → night vision → discernibility labels → QA export and report.

    It submits no task itself (the QA stage calls its two tasks in the flow's thread): the render and
    discern subflows each carry the build's task runner, so this flow needs none; given one, a lazy
    runner (threads, prefect-dask's DaskTaskRunner) starts no workers for it. Images the report could
    not read for thumbnails are listed in the outcome's problems.

    A failed render shard, a failed calibration task or a distance outside the calibration tolerance
    (issue 3 item 8) fails the benchmark after the render stage; the manifest of the finished shards,
    their frames and whatever calibration rows and plot were written stay on disk.
    """
    stages: dict[str, Any] = {}
    render = on_runner(render_stage, config.runner)(config, out)
    problems = render.pop("problems")
    calibration = render.pop("calibration")
    stages["render"] = render
    failures = [f"{render['shards_failed']} render shard(s) failed"] if render["shards_failed"] else []
    calibration_failed = syndor_render.calibration_failure(calibration)
    if calibration_failed:
        failures.append(calibration_failed)
    if failures:
        return benchmark_outcome("failed", "; ".join(failures) + " (the rendered frames and their manifest, and "
                                 "any calibration rows and plot, are kept on disk)", stages=stages, problems=problems,
                                 calibration=calibration)
    discern = on_runner(discern_flow, config.runner)(config, out, render["manifest"])
    problems += discern.pop("problems")
    stages["discern"] = discern
    if "stopped" in discern:
        return benchmark_outcome("stopped", discern["stopped"], stages=stages, problems=problems,
                                 calibration=calibration)
    if discern["shards_failed"]:
        return benchmark_outcome("failed", f"{discern['shards_failed']} night-vision/feature shard(s) failed",
                                 stages=stages, problems=problems, calibration=calibration)
    qa = qa_stage(config, out, discern["manifest"], calibration)
    problems += qa.pop("problems")
    if "report" in qa:
        problems += report_problems(out)
    stages["qa"] = qa
    empty = f", {render['empty_scene_share']:.1%} empty scenes" if render["empty_scene_frames"] else ""
    return benchmark_outcome(
        "built", f"{render['frames']} frames{empty} ({render['frames_rendered']} rendered now), {qa['rows']} indexed",
        stages=stages, problems=problems, calibration=calibration,
    )
