"""SynDORBench flow (docs/design/syndor.md): renders → night vision → discernibility labels → QA.

Each stage is a subflow (or, for QA, a call) that takes the previous stage's manifest and returns
its own summary (with `manifest`, the path the next stage reads); the stage logic and the shard
tasks live in benchmarks/syndor/.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow
from prefect.futures import PrefectFuture

from benchfoundry.benchmarks.syndor import build_plan
from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.release.report_page import report_problems
from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
from benchfoundry.benchmarks.syndor.stages import (
    calibration_stage,
    frame_files,
    label_stage,
    night_vision_stage,
    sampling,
)
from benchfoundry.benchmarks.syndor.stages.pose_selection import select_poses
from benchfoundry.benchmarks.syndor.stages.qa_stage import QaShard, qa_task
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import benchmark_outcome
from benchfoundry.core.store import StageStore, read_parquet, write_parquet_atomic
from benchfoundry.flows.collect import collect_shards, run_shards
from benchfoundry.flows.task_runner import on_runner, submit_shards, with_runner_policy
from benchfoundry.pipeline import render_client


@flow(name="syndor-render")
def render_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """The sample, calibration and every render shard not yet finished; the manifest last."""
    poses = select_poses(config.syndor.poses, Path(out) / BENCHMARK / "poses" / "rating_cache")
    levels = sampling.build_levels(config, render_plan.pose_counts(poses, config.syndor.poses.actions))
    sample = sampling.sample_frames(config, levels)
    plans = render_plan.plan_shards(config, poses, sample)
    store = StageStore(out, BENCHMARK, render_plan.STAGE)
    built, stale = build_plan.built_frames(store.manifest_path, render_plan.render_settings_hash(config.syndor))
    changes = build_plan.frame_changes(built, stale, sample.frames)
    todo = [p for p in plans if not store.is_done(p.shard_id, p.spec_hash)]
    calibration = calibration_stage.CALIBRATION_SHARD
    ((_, calibrating),) = submit_shards(calibration_stage.calibration_task, out, [(calibration, calibration)], config)
    submitted = submit_shards(render_stage.render_task, out, [(p.shard_id, p) for p in todo], config)
    try:
        _, failed = collect_shards("render", submitted)
        calibration_rows, calibration_error = _calibration_rows(calibrating)
    finally:
        render_client.close_all()
    done = [p.shard_id for p in plans if store.is_done(p.shard_id, p.spec_hash)]
    markers = {s: store.marker(s) for s in done}
    frames = {s: markers[s]["rows"] for s in done}
    rendered = sum(markers[p.shard_id].get("frames_rendered", frames[p.shard_id]) for p in todo if p.shard_id in frames)
    manifest = _write_manifest(store, done, calibration_rows)
    released = read_parquet(manifest) if frames else pd.DataFrame()
    unused = frame_files.unused_frame_files(
        Path(out) / BENCHMARK, released.get("img_path", []), released.get("mask_path", [])
    )
    if calibration_rows is None:
        calibration_summary = calibration_stage.calibration_error_summary(calibration_error)
    else:
        plot = calibration_stage.plot_calibration(
            calibration_rows, Path(out) / BENCHMARK / "report" / "calibration.png"
        )
        calibration_summary = calibration_stage.calibration_summary(calibration_rows, str(plot.relative_to(out)))
    return {
        "manifest": str(manifest),
        "shards": len(plans),
        "empty_scene_shards": sum(p.empty_scene for p in plans),
        "empty_scene_frames": int(sum(frames[p.shard_id] for p in plans if p.empty_scene and p.shard_id in frames)),
        "empty_scene_share": render_plan.empty_scene_share(plans, frames),
        "empty_scene_share_target": config.syndor.empty_scene_share,
        "shards_rendered": len(todo) - len(failed),
        "shards_failed": len(failed),
        "frames": int(sum(frames.values())),
        "frames_rendered": int(rendered),
        "frames_kept": int(sum(frames.values()) - rendered),
        "unused_files": unused,
        "calibration": calibration_summary,
        "poses": {**poses.summary(), **_embedding_named(config)},
        "sample": build_plan.summary(config, sample, levels),
        "changes": changes,
        "problems": [
            *poses.problems,
            *failed,
            *calibration_stage.calibration_problems(calibration_summary),
            *store.problems(done),
        ],
    }


def _embedding_named(config: BuildConfig) -> dict[str, Any]:
    """The embedding model pose selection ranks with, when it ranks with one."""
    poses = config.syndor.poses
    if not poses.uses_amass or poses.selection != "embedding":
        return {}
    return {"embedding_model": {"name": poses.embedding.name, "path": _path(poses.embedding.path)}}


def _path(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _calibration_rows(calibrating: PrefectFuture) -> tuple[pd.DataFrame | None, str]:
    """The calibration task's rows, or None and why the task failed or left no readable rows."""
    try:
        rows = read_parquet(calibrating.result())
    except Exception as exc:
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
        rows[render_plan.EMPTY_SCENE_COLUMN] = render_plan.empty_scene_rows(rows)
        measured = (
            {} if calibration_rows is None else dict(zip(calibration_rows["zone"], calibration_rows["measured_ppm"]))
        )
        rows["measured_ppm"] = rows["zone"].map(measured).astype(float)
    return write_parquet_atomic(store.manifest_path, rows)


@flow(name="syndor-discern")
def discern_flow(config: BuildConfig, out: str, render_manifest: str) -> dict[str, Any]:
    """Night vision + features per shard (night_vision_stage.py), then labels, classifier and its held-out
    test (label_stage.py).

    Returns the stage summary (`manifest`, counts, CV figures, `problems`), with `stopped` set to
    a message when human labels must be imported first.
    """
    render = read_parquet(render_manifest)
    plans = night_vision_stage.plan_feature_shards(render, config.syndor.discern) if len(render) else {}
    store = StageStore(out, BENCHMARK, night_vision_stage.FEATURE_STAGE)
    shard_column = render["shard"] if "shard" in render.columns else pd.Series([], dtype=str)
    hashes = night_vision_stage.render_frame_hashes(out, sorted(set(shard_column.astype(str))))
    keys = night_vision_stage.frame_keys(config, render, hashes) if len(render) else {}
    specs = {sid: night_vision_stage.feature_spec_hash([keys[p] for p in paths]) for sid, paths in plans.items()}
    todo = [sid for sid in plans if not store.is_done(sid, specs[sid])]
    shards = _feature_shards(store, render_manifest, {sid: plans[sid] for sid in todo}, keys, specs)
    try:
        _, failed = run_shards(night_vision_stage.FEATURE_STAGE, night_vision_stage.discern_task, out, shards, config)
    finally:
        shutil.rmtree(store.dir / "_tmp" / "reuse", ignore_errors=True)
    done = [sid for sid in plans if store.is_done(sid, specs[sid])]
    features_manifest = store.write_manifest(done)
    problems = failed + store.problems(done)
    computed = sum(store.marker(sid).get("frames_computed", 0) for sid in todo if sid in done)
    summary: dict[str, Any] = {
        "features_manifest": str(features_manifest),
        "shards": len(plans),
        "shards_processed": len(todo) - len(failed),
        "shards_failed": len(failed),
    }
    features = read_parquet(features_manifest)
    if not len(features):
        return {**summary, "frames": 0, "problems": problems, "manifest": None}
    summary["frames"] = int(len(features))
    summary["frames_computed"] = int(computed)
    summary["frames_reused"] = int(len(features) - computed)
    summary["nv_images"] = int(features["nv_path"].notna().sum())
    if config.syndor.discern.labels.source == "human":
        problems += label_stage.import_problems(out)
    ((_, labelling),) = submit_shards(label_stage.label_task, out, [("labels", str(features_manifest))], config)
    result = labelling.result()
    if "stopped" in result:
        return {**summary, "stopped": result["stopped"], "sample": result["sample"], "problems": problems}
    cv, holdout = result["cv"], result["holdout"]
    return {
        **summary,
        "manifest": result["manifest"],
        "label_source": result["label_source"],
        "observer": config.syndor.discern.labels.observer if result["label_source"] == "simulated" else None,
        "population": result["population"],
        "sample": result["sample"],
        "held_out": result["held_out"],
        "holdout": _figures(holdout),
        "holdout_note": holdout.get("skipped"),
        "paper": result["paper"],
        "cv_folds": cv.get("folds_used", 0),
        "cv": _figures(cv),
        "cv_note": cv.get("note") or cv.get("skipped"),
        "night_vision": result["night_vision"],
        "label_sources": result["label_sources"],
        "report": str(Path(out) / "report" / "discern_cv.json"),
        "labels_reused": bool(result.get("skipped")),
        "problems": problems,
    }


def _feature_shards(
    store: StageStore,
    render_manifest: str,
    plans: dict[str, list[str]],
    keys: dict[str, str],
    specs: dict[str, str],
) -> list[tuple[str, night_vision_stage.FeatureShard]]:
    """The feature shards to compute, each handed the earlier rows of its unchanged frames in a file of its own,
    written before any of them runs (a shard's file is rewritten when it runs)."""
    earlier = night_vision_stage.reusable_rows(store, {keys[p] for paths in plans.values() for p in paths})
    shards = []
    for sid, paths in plans.items():
        own = earlier[earlier[night_vision_stage.KEY_COLUMN].isin([keys[p] for p in paths])]
        reuse = write_parquet_atomic(store.dir / "_tmp" / "reuse" / f"{sid}.parquet", own) if len(own) else None
        shard = night_vision_stage.FeatureShard(
            sid,
            render_manifest,
            tuple(paths),
            tuple(keys[p] for p in paths),
            specs[sid],
            None if reuse is None else str(reuse),
        )
        shards.append((sid, shard))
    return shards


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    """Macro-F1 and accuracy of both models in a CV or held-out report."""
    return {
        name: {k: report[name][k] for k in ("macro_f1", "accuracy")} for name in label_stage.MODELS if name in report
    }


def qa_flow(config: BuildConfig, out: str, labelled_manifest: str | None, calibration: Any = None) -> dict[str, Any]:
    """The last SynDORBench stage: QA files, then `report/syndor.html`; returns the stage's summary.

    `calibration` (optional) is the render stage's calibration summary, shown in the report;
    with no labelled manifest (a build without frames) nothing is written.
    """
    if labelled_manifest is None:
        return {"rows": 0, "skipped": "no labelled manifest: the discern stage had no frames", "problems": []}
    return with_runner_policy(qa_task, config.runner)(str(out), QaShard(str(labelled_manifest), calibration), config)


@flow(name="syndor")
def syndor_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """Renders → night vision → discernibility labels → QA export and report.

    It submits no task itself (the QA stage calls its task in the flow's thread): the render and
    discern subflows each carry the build's task runner, so this flow needs none; given one, a lazy
    runner (threads, prefect-dask's DaskTaskRunner) starts no workers for it. Images the report could
    not read for thumbnails are listed in the outcome's problems.

    A failed render shard, a failed calibration task or a distance outside the calibration tolerance
    (issue 3 item 8) fails the benchmark after the render stage; the manifest of the finished shards,
    their frames and whatever calibration rows and plot were written stay on disk.
    """
    stages: dict[str, Any] = {}
    render = on_runner(render_flow, config.runner)(config, out)
    problems = render.pop("problems")
    calibrated = render.pop("calibration")
    stages["render"] = render
    failures = [f"{render['shards_failed']} render shard(s) failed"] if render["shards_failed"] else []
    calibration_failed = calibration_stage.calibration_failure(calibrated)
    if calibration_failed:
        failures.append(calibration_failed)
    if failures:
        return benchmark_outcome(
            "failed",
            "; ".join(failures) + " (the rendered frames and their manifest, and "
            "any calibration rows and plot, are kept on disk)",
            stages=stages,
            problems=problems,
            calibration=calibrated,
        )
    discern = on_runner(discern_flow, config.runner)(config, out, render["manifest"])
    problems += discern.pop("problems")
    stages["discern"] = discern
    if "stopped" in discern:
        return benchmark_outcome(
            "stopped", discern["stopped"], stages=stages, problems=problems, calibration=calibrated
        )
    if discern["shards_failed"]:
        return benchmark_outcome(
            "failed",
            f"{discern['shards_failed']} night-vision/feature shard(s) failed",
            stages=stages,
            problems=problems,
            calibration=calibrated,
        )
    qa = qa_flow(config, out, discern["manifest"], calibrated)
    problems += qa.pop("problems")
    if "report" in qa:
        problems += report_problems(out)
    stages["qa"] = qa
    empty = f", {render['empty_scene_share']:.1%} empty scenes" if render["empty_scene_frames"] else ""
    return benchmark_outcome(
        "built",
        f"{render['frames']} frames{empty} ({render['frames_rendered']} rendered now), {qa['rows']} indexed, "
        f"{qa.get('items', 0)} QA items",
        stages=stages,
        problems=problems,
        calibration=calibrated,
        items=qa.get("items", 0),
    )
