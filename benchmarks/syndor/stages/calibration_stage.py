"""SynDORBench DORI calibration (docs/design/syndor.md §1): one upright, camera-facing frame per distance, its
measured px/m (mask height ÷ body height) against the target, the plot and what build.json records."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.scenes import camera_rig
from benchfoundry.benchmarks.syndor.scenes.render_plan import radius_label, render_settings_hash, zones
from benchfoundry.benchmarks.syndor.scenes.render_stage import fresh_dir, person_cache, run_shard
from benchfoundry.benchmarks.syndor.scenes.rig_spec import lighting_spec, rig_shard
from benchfoundry.benchmarks.syndor.scenes.spec import RigFrame
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import atomic_path
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.render_spec import to_json
from benchfoundry.core.seeding import item_seed
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.person.prepare import prepare_person
from benchfoundry.person.textures import texture_settings
from benchfoundry.pipeline.shard_task import shard_task

CALIBRATION_STAGE = "calibration"
#: Calibration frames: the person lit from the front (the person faces south).
CALIBRATION_LIGHTING = "noon_south"
CALIBRATION_REL_TOL = 0.02
CALIBRATION_PX_TOL = 1.0


def mask_rows(mask: np.ndarray) -> tuple[int, int] | None:
    """First and last image row holding a mask pixel, or None for an empty mask."""
    rows = np.flatnonzero(np.asarray(mask).reshape(mask.shape[0], -1).any(axis=1))
    return (int(rows[0]), int(rows[-1])) if rows.size else None


def measure_ppm(mask: np.ndarray, height_m: float, target_ppm: float) -> dict[str, Any]:
    """Measured px/m of an upright person's mask, and whether it meets the DORI target.

    Within tolerance: ±2% of the target, or ±1 px of height where that is larger. A mask that
    touches the top or bottom edge is clipped: the person is not whole in the frame and the
    distance cannot be calibrated from it.
    """
    extent = mask_rows(mask)
    if extent is None:
        return {
            "mask_height_px": 0,
            "measured_ppm": None,
            "whole_in_frame": False,
            "within_tolerance": False,
            "rel_error": None,
            "px_error": None,
        }
    top, bottom = extent
    height_px = bottom - top + 1
    measured = height_px / height_m
    px_error = height_px - target_ppm * height_m
    rel_error = measured / target_ppm - 1.0
    whole = top > 0 and bottom < mask.shape[0] - 1
    within = whole and (abs(rel_error) <= CALIBRATION_REL_TOL or abs(px_error) <= CALIBRATION_PX_TOL)
    return {
        "mask_height_px": int(height_px),
        "measured_ppm": float(measured),
        "whole_in_frame": bool(whole),
        "within_tolerance": bool(within),
        "rel_error": float(rel_error),
        "px_error": float(px_error),
    }


def calibration_hash(config: BuildConfig) -> str:
    s = config.syndor
    return spec_hash(
        {
            "render": render_settings_hash(s),
            "zones": zones(s),
            "body": config.person.body.model_dump(mode="json"),
            "textures": [*texture_settings(config.person.textures), config.person.textures.ids],
            "scene": s.scenes[0],
            "seed": config.seed,
            "light": to_json(lighting_spec(s, CALIBRATION_LIGHTING)),
        }
    )


def calibrate(config: BuildConfig, out: str) -> str:
    """Render an upright, camera-facing, elevation-0 frame per distance and measure its px/m;
    returns the calibration rows' file."""
    from benchfoundry.assets.poses import UPRIGHT, upright_pose

    s = config.syndor
    root = Path(out)
    store = StageStore(root, BENCHMARK, CALIBRATION_STAGE)
    shard, spec = "calibration", calibration_hash(config)
    if store.is_done(shard, spec):
        return str(store.shard_path(shard))
    person = prepare_person(
        config.person,
        config.seed,
        config.person.textures.ids[0],
        "upright",
        upright_pose(),
        UPRIGHT,
        person_cache(root),
    )
    lo, hi = np.array(person.vertices_min), np.array(person.vertices_max)
    height_m = float(hi[2] - lo[2])
    cameras = camera_rig.rig_cameras(s.camera.spec(), zones(s), [0.0], [0.0], person.aim)
    tmp = fresh_dir(store.dir / "_tmp")
    frames, finals, rows = [], [], []
    for cam in cameras:
        rgb, mask = store.dir / "frames" / f"{cam.zone}.png", store.dir / "frames" / f"{cam.zone}_mask.png"
        frames.append(
            RigFrame(
                matrix_world=cam.matrix_world,
                seed=item_seed(config.seed, CALIBRATION_STAGE, cam.zone),
                light=lighting_spec(s, CALIBRATION_LIGHTING),
                rgb=str(tmp / rgb.name),
                mask=str(tmp / mask.name),
            )
        )
        finals += [(tmp / rgb.name, rgb), (tmp / mask.name, mask)]
        rows.append(
            {
                "zone": cam.zone,
                "target_ppm": cam.target_ppm,
                "distance_m": cam.distance_m,
                "radius": radius_label(cam.distance_m),
                "body_height_m": height_m,
                "target_height_px": cam.target_ppm * height_m,
                "img_path": str(rgb.relative_to(root / BENCHMARK)),
                "mask_path": str(mask.relative_to(root / BENCHMARK)),
            }
        )
    rig = rig_shard(config, person, s.scenes[0], frames)
    # The mask does not depend on samples or denoising: calibration frames render with one sample.
    rig = replace(rig, engine=replace(rig.engine, samples=1, denoise=False, image_format="PNG"))
    run_shard(config, rig, tmp, finals)
    for row in rows:
        mask = decode_file(root / BENCHMARK / row["mask_path"])
        row.update(measure_ppm(mask, height_m, row["target_ppm"]))
    store.write_shard(shard, pd.DataFrame(rows), spec_hash=spec)
    shutil.rmtree(tmp, ignore_errors=True)
    return str(store.shard_path(shard))


def plot_calibration(rows: pd.DataFrame, path: Path) -> Path:
    """Target vs measured px/m per distance, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows.sort_values("distance_m")
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    d = rows["distance_m"].to_numpy()
    target = rows["target_ppm"].to_numpy()
    ax.fill_between(
        d,
        target * (1 - CALIBRATION_REL_TOL),
        target * (1 + CALIBRATION_REL_TOL),
        color="tab:blue",
        alpha=0.15,
        label="±2%",
    )
    ax.plot(d, target, "o-", color="tab:blue", label="target (pinhole)")
    measured = rows["measured_ppm"].astype(float).to_numpy()
    ax.plot(d, measured, "x", color="tab:red", markersize=9, label="measured (mask height / body height)")
    for x, y, z in zip(d, target, rows["zone"]):
        ax.annotate(z, (x, y), textcoords="offset points", xytext=(6, 6), fontsize=7)
    ax.set_xlabel("camera distance (m)")
    ax.set_ylabel("px/m")
    ax.set_title("DORI calibration")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})
    plt.close(fig)
    return path


#: How build.json states the calibration tolerance (issue 3 item 8).
CALIBRATION_TOLERANCE = "±2% or ±1 px of height"


def calibration_summary(rows: pd.DataFrame, plot_path: str) -> dict[str, Any]:
    """What build.json records: per-distance target and measured px/m, and whether all pass."""
    cols = [
        "zone",
        "distance_m",
        "target_ppm",
        "measured_ppm",
        "rel_error",
        "px_error",
        "mask_height_px",
        "target_height_px",
        "body_height_m",
        "whole_in_frame",
        "within_tolerance",
    ]
    records = json.loads(rows[cols].to_json(orient="records"))
    return {
        "passed": bool(rows["within_tolerance"].all()),
        "tolerance": CALIBRATION_TOLERANCE,
        "plot": plot_path,
        "distances": records,
    }


def calibration_error_summary(error: str) -> dict[str, Any]:
    """What build.json records when the calibration task failed or left no rows: no distance, no plot."""
    return {"passed": False, "tolerance": CALIBRATION_TOLERANCE, "plot": None, "distances": [], "error": error}


def calibration_problems(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """A problem row for a failed calibration task, and for every distance outside the tolerance."""
    failed = [problem(CALIBRATION_STAGE, "calibration", summary["error"], kind="failed")] if "error" in summary else []
    return failed + [
        problem(
            CALIBRATION_STAGE,
            row["zone"],
            f"measured {row['measured_ppm']} px/m, target {row['target_ppm']} px/m"
            + ("" if row["whole_in_frame"] else ": the person is not whole in the frame"),
            kind="failed",
        )
        for row in summary["distances"]
        if not row["within_tolerance"]
    ]


def calibration_failure(summary: dict[str, Any]) -> str | None:
    """Why the calibration fails (each zone outside tolerance with its measured and target px/m),
    or None when every distance passes; a failed calibration task is a failure with its error."""
    if "error" in summary:
        return f"calibration task failed: {summary['error']}"
    bad = []
    for row in summary["distances"]:
        if row["within_tolerance"]:
            continue
        measured = "no person in the mask" if row["measured_ppm"] is None else f"{row['measured_ppm']:.2f}"
        clipped = "" if row["whole_in_frame"] or row["measured_ppm"] is None else ", person not whole in the frame"
        bad.append(f"{row['zone']} measured {measured} vs target {row['target_ppm']:.2f} px/m{clipped}")
    if not bad:
        return None
    return f"calibration outside {summary['tolerance']}: " + "; ".join(bad)


#: The calibration task's one shard.
CALIBRATION_SHARD = "calibration"


@shard_task(resource="render", name="syndor-calibration", device=lambda config: config.syndor.render.device)
def calibration_task(out: str, shard: str, config: BuildConfig) -> str:
    """The calibration frames and their px/m (`calibrate`); `shard` is `CALIBRATION_SHARD`."""
    return calibrate(config, out)
