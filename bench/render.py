"""Render throughput: the pipeline against a bare bpy script, and the price of render settings.

Run: `nice -n 10 .venv/bin/python bench/render.py [--frames N] [--width W]`. Prints
(a) ms per frame of the pipeline (two shards of N frames through `render_shard`: posing the
    body, a new worker process, spec files, file moves, index rows) ÷ ms per frame of a bare
    bpy script rendering the same frames in one new process (goal ≤ 1.05); medians of
    alternating repetitions, since the machine is shared;
(b) one fresh Blender process per frame (the one-off script pattern) ÷ the pipeline;
(c) seconds per frame and the noise left (PSNR against a 128-sample denoised reference) for
    several sample counts, with and without OpenImageDenoise.
Both sides of (a) and (b) include their process start-up; all renders are Cycles on the CPU.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

BARE = "--bare"


def bare_render(spec_paths: list[str], only: int | None) -> None:
    """The bare script: plain bpy, the same scene, person, lighting and outputs, one loop."""
    import bpy

    from benchfoundry.core.render_spec import read_spec
    from benchfoundry.render.camera import place_camera, setup_camera
    from benchfoundry.render.lighting import apply_lighting
    from benchfoundry.render.passes import move_output, setup_outputs
    from benchfoundry.render.person import add_person
    from benchfoundry.render.scene import build_scene

    specs = [read_spec(p) for p in spec_paths]
    first, settings = specs[0], specs[0].engine
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.render.use_persistent_data = True
    scene.cycles.samples = settings.samples
    scene.cycles.use_denoising = settings.denoise
    scene.cycles.max_bounces = settings.max_bounces
    scene.cycles.use_adaptive_sampling = False
    camera = setup_camera(scene, first.camera)
    scratch = tempfile.mkdtemp()
    image, mask = setup_outputs(scene, scratch, first.mask_index, settings.image_format, settings.jpeg_quality)
    build_scene(scene, first.scene, first.scene_seed)
    add_person(scene, first.person)
    frames = [f for spec in specs for f in spec.frames]
    lighting = None
    for frame in frames if only is None else frames[only : only + 1]:
        if frame.light != lighting:
            apply_lighting(frame.light, scene)
            lighting = frame.light
        place_camera(camera, frame.matrix_world)
        scene.cycles.seed = frame.seed
        bpy.ops.render.render()
        move_output(image, _beside(frame.rgb))
        move_output(mask, _beside(frame.mask))


def _beside(path: str) -> str:
    """The bare script's copy of a pipeline output: `…/<shard>/tmp/NAME` → `…/<shard>/bare/NAME`."""
    p = Path(path)
    return str(p.parent.parent / "bare" / p.name)


def _config(width: int, frames: int, extra: list[str]) -> Any:
    from benchfoundry.configs.loader import load_config

    height = width * 9 // 16
    azimuths = [45.0 * (i % 8) for i in range(frames)]
    return load_config(
        None,
        [
            f"syndor.camera.resolution_w={width}",
            f"syndor.camera.resolution_h={height}",
            "syndor.camera.focal_mm=8.4",
            "syndor.zones_ppm={near: 93.75}",
            f"syndor.rig.azimuths_deg={sorted(set(azimuths))}",
            "syndor.rig.elevations_deg=[0]",
            "syndor.scenes=[field]",
            "syndor.lightings=[noon_south, night]",
            "syndor.poses.actions=[walking]",
            "syndor.render.image_format=PNG",
            *extra,
        ],
    )


def _bare_process(spec_paths: list[Path], only: int | None = None) -> float:
    cmd = [sys.executable, __file__, BARE, *map(str, spec_paths)] + ([] if only is None else ["--only", str(only)])
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def pipeline_vs_bare(work: Path, width: int, frames: int, samples: int, reps: int) -> dict[str, float]:
    """Median over `reps` alternating runs of both sides, after one warm-up of the pipeline
    process (torch, smplx and the body model load once per build, not per shard)."""
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.tasks.common import render_client
    from benchfoundry.tasks.syndor import render_plan, render_stage

    config = _config(width, frames, [f"syndor.render.samples={samples}", "syndor.render.denoise=false"])
    plans = render_plan.plan_shards(config)
    out = work / "pipeline"
    specs = []
    for plan in plans:
        (work / "specs" / plan.shard_id / "bare").mkdir(parents=True, exist_ok=True)
        spec, _, _ = render_stage.shard_frames(config, out, plan, work / "specs" / plan.shard_id / "tmp")
        path = write_spec(work / "specs" / f"{plan.shard_id}.json", spec)
        specs.append(path)
    n = sum(len(plan.frames) for plan in plans)
    pipeline, bare = [], []
    for _ in range(reps):
        for stage_dir in ("shards", "_done"):
            shutil.rmtree(out / "syndor" / "render" / stage_dir, ignore_errors=True)
        start = time.perf_counter()
        for plan in plans:
            render_stage.render_shard(config, str(out), plan)
        render_client.close_all()
        pipeline.append((time.perf_counter() - start) / n)
        bare.append(_bare_process(specs) / n)
    one_off = statistics.median(_bare_process(specs, only=i) for i in range(min(3, frames)))
    return {"pipeline_s": statistics.median(pipeline), "bare_s": statistics.median(bare), "one_off_s": one_off}


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(float) - b.astype(float)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def settings_table(work: Path, width: int) -> list[dict[str, Any]]:
    """Seconds per frame (median of 3 warm frames) and PSNR against a 128-sample reference."""
    from PIL import Image

    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.tasks.common import render_client
    from benchfoundry.tasks.syndor import render_plan, render_stage

    config = _config(width, 1, [])
    plan = render_plan.plan_shards(config)[0]
    tmp = work / "settings"
    tmp.mkdir(parents=True, exist_ok=True)
    base, _, _ = render_stage.shard_frames(config, work / "pipeline", plan, tmp)
    frame = base.frames[0]

    def run(samples: int, denoise: bool) -> tuple[float, np.ndarray]:
        name = f"s{samples}_{int(denoise)}"
        spec = replace(
            base,
            engine=replace(base.engine, samples=samples, denoise=denoise),
            frames=tuple(
                replace(frame, rgb=str(tmp / f"{name}_{i}.png"), mask=str(tmp / f"{name}_{i}_m.png")) for i in range(4)
            ),
        )
        path = write_spec(tmp / f"{name}.json", spec)
        reply = render_client.render_spec(path, timeout_s=3600, shards_per_worker=100)
        return statistics.median(reply["frame_seconds"][1:]), np.array(Image.open(tmp / f"{name}_3.png"))

    _, reference = run(128, True)
    rows = []
    for samples in (4, 16, 64):
        for denoise in (False, True):
            seconds, image = run(samples, denoise)
            rows.append(
                {"samples": samples, "denoise": denoise, "s_per_frame": seconds, "psnr_db": _psnr(image, reference)}
            )
    render_client.close_all()
    return rows


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == BARE:
        args = sys.argv[2:]
        only = int(args[args.index("--only") + 1]) if "--only" in args else None
        bare_render([a for a in args if a.endswith(".json")], only)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8, help="frames per shard (two shards)")
    parser.add_argument("--width", type=int, default=320, help="image width; height is 9/16 of it")
    parser.add_argument("--samples", type=int, default=8, help="samples of the (a)/(b) renders")
    parser.add_argument("--reps", type=int, default=3, help="alternating repetitions of (a)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        work = Path(tmp)
        t = pipeline_vs_bare(work, args.width, args.frames, args.samples, args.reps)
        print(f"{args.width}x{args.width * 9 // 16}, {args.samples} samples, 2 shards x {args.frames} frames")
        print(
            f"(a) pipeline {t['pipeline_s'] * 1000:.0f} ms/frame, bare bpy script {t['bare_s'] * 1000:.0f} ms/frame: "
            f"ratio {t['pipeline_s'] / t['bare_s']:.3f} (goal <= 1.05)"
        )
        print(
            f"(b) one fresh Blender process per frame {t['one_off_s'] * 1000:.0f} ms/frame: "
            f"{t['one_off_s'] / t['pipeline_s']:.1f}x the pipeline"
        )
        print("(c) samples  denoise  s/frame  PSNR vs 128 spp + denoise (dB)")
        for row in settings_table(work, args.width):
            print(f"    {row['samples']:>7}  {str(row['denoise']):>7}  {row['s_per_frame']:7.2f}  {row['psnr_db']:.1f}")


if __name__ == "__main__":
    main()
