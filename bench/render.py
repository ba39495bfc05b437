"""Render throughput: the pipeline against a bare bpy script, per kind of shard, and the price of render settings.

Run: `nice -n 10 .venv/bin/python bench/render.py [--kinds rig coco panorama scan] [--frames N] [--width W]`.
Prints
(a) ms per frame of the pipeline (two shards of N frames through `render_shard`: posing the
    body, a new worker process, spec files, file moves, index rows) ÷ ms per frame of a bare
    bpy script rendering the same frames in one new process (goal ≤ 1.05); medians of
    alternating repetitions, since the machine is shared;
(b) one fresh Blender process per frame (the one-off script pattern) ÷ the pipeline;
(c) seconds per frame and the noise left (PSNR against a 128-sample denoised reference) for
    several sample counts, with and without OpenImageDenoise;
(d) per kind of the other shards (the smoke preset's sizes): ms per image of the pipeline (the shard's spec
    rendered by a new render worker: protocol, a fresh file, the scene built once per shard, the outputs moved)
    ÷ ms per image of a bare loop in one new bpy process that builds the scene once and then only re-poses,
    re-lights and renders (goal ≤ 1.1): synthetic COCO images (and, for scale, one fresh file per image, as
    the COCO set was rendered before), ODI panoramas (one image per shard), ScanNet room frames (one shard:
    the room's camera walk, `benchmarks/viewspatial/scannet/scenes/renderer.py`).
Both sides of (a), (b) and (d) include their process start-up; all renders are Cycles on the CPU.
"""

from __future__ import annotations

import argparse
import math
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
from bench_table import add_row

BARE = "--bare"
#: `bench/render.py --bare-kind KIND SPEC OUTDIR`: the bare loop of one kind (d), in its own process.
BARE_KIND = "--bare-kind"


def bare_render(spec_paths: list[str], only: int | None) -> None:
    """The bare script: plain bpy, the same scene, person, lighting and outputs, one loop."""
    import bpy

    from benchfoundry.benchmarks.syndor.scenes.outdoor_scene import build_scene
    from benchfoundry.core.render_spec import read_spec
    from benchfoundry.render.camera import place_camera, setup_camera
    from benchfoundry.render.lighting import apply_lighting
    from benchfoundry.render.passes import move_output, setup_outputs
    from benchfoundry.render.person import add_person

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
    from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.pipeline import render_client

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

    from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.pipeline import render_client

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


# --- (d) one case per kind of shard -----------------------------------------------------------------


def _beside_dir(path: str, out_dir: Path) -> str:
    return str(out_dir / Path(path).name)


def bare_coco(spec_path: str, out_dir: Path, fresh: bool) -> None:
    """The bare COCO loop: one scene, then per image only the people's vertices, their textures' materials, the
    camera, the objects, the sun and the seed change; or, with `fresh`, every image built in a fresh file."""
    import bpy

    from benchfoundry.benchmarks.viewspatial.coco.scenes.renderer import light
    from benchfoundry.core.render_spec import PinholeCamera, read_spec
    from benchfoundry.render.camera import place_camera, setup_camera
    from benchfoundry.render.engine import apply_engine
    from benchfoundry.render.objects import add_primitive
    from benchfoundry.render.passes import index_outputs, render_indexed
    from benchfoundry.render.person import add_person, skin_material

    spec = read_spec(spec_path)
    scratch = out_dir / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)

    def pinhole(focal_mm: float) -> PinholeCamera:
        return PinholeCamera(focal_mm, spec.sensor_height_mm, spec.width, spec.height)

    camera = outputs = None
    people: list[Any] = []
    materials: dict[str, Any] = {}
    parts: list[Any] = []
    for image in spec.images:
        if fresh or camera is None:
            bpy.ops.wm.read_factory_settings(use_empty=True)
            scene = bpy.context.scene
            apply_engine(scene, spec.engine)
            camera = setup_camera(scene, pinhole(image.focal_mm))
            outputs = index_outputs(scene, scratch)
            people, parts = [], []
        scene.cycles.seed = image.seed
        camera.data.lens = image.focal_mm
        place_camera(camera, image.camera_matrix)
        for obj in parts:
            bpy.data.objects.remove(obj)
        parts = [add_primitive(scene, f"part{k:02d}", part) for k, part in enumerate(image.parts)]
        for obj in people[len(image.people) :]:
            bpy.data.objects.remove(obj)
        people = people[: len(image.people)]
        for k, who in enumerate(image.people):
            if k == len(people):
                people.append(add_person(scene, who))
                materials.setdefault(who.texture, people[k].data.materials[0])
                continue
            obj = people[k]
            with np.load(who.mesh) as data:
                obj.data.vertices.foreach_set("co", data["vertices"].astype(np.float32).reshape(-1))
            obj.data.update()
            if who.texture not in materials:
                materials[who.texture] = skin_material(who.texture)
            obj.data.materials[0] = materials[who.texture]
            obj.location = who.location
            obj.rotation_euler = (0.0, 0.0, math.radians(who.yaw_deg))
        light(image.light, scene)
        render_indexed(outputs, _beside_dir(image.image, out_dir), _beside_dir(image.index_npy, out_dir))


def bare_panorama(spec_path: str, out_dir: Path) -> None:
    """The bare panorama: one file, the scene built and rendered once (benchmarks/odi/scenes/renderer.py), no worker."""
    import bpy

    from benchfoundry.benchmarks.odi.scenes.renderer import render_panorama
    from benchfoundry.core.render_spec import read_spec

    spec = read_spec(spec_path)
    spec = replace(spec, image=_beside_dir(spec.image, out_dir), index_npy=_beside_dir(spec.index_npy, out_dir))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    (out_dir / "scratch").mkdir(parents=True, exist_ok=True)
    render_panorama(bpy.context.scene, spec, out_dir / "scratch")


def bare_scan(spec_path: str, out_dir: Path) -> None:
    """The bare ScanNet room: the room built once, then per frame only the camera moves and Cycles renders
    (colour and depth written by the compositor, not converted)."""
    import bpy
    from mathutils import Matrix

    from benchfoundry.benchmarks.viewspatial.scannet.scenes.renderer import build_scene, frame_outputs
    from benchfoundry.core.camera import opencv_to_blender
    from benchfoundry.core.render_spec import read_spec

    spec = read_spec(spec_path)
    camera = build_scene(spec)
    frame_outputs(out_dir)
    for frame in spec.frames:
        camera.matrix_world = Matrix(opencv_to_blender(np.asarray(frame.pose_c2w)).tolist())
        bpy.ops.render.render(write_still=False)


def _bare_kind(kind: str, spec: Path, out_dir: Path) -> float:
    """Seconds of one bare-loop process (start-up included)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, BARE_KIND, kind, str(spec), str(out_dir)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def _worker_seconds(spec: Path) -> float:
    """Seconds of the pipeline's render worker on one shard: a new worker process, start-up included."""
    from benchfoundry.pipeline import render_client

    start = time.perf_counter()
    render_client.render_spec(spec, timeout_s=3600, shards_per_worker=1)
    render_client.close_all()
    return time.perf_counter() - start


def coco_case(work: Path, images: int, reps: int) -> dict[str, Any]:
    """The smoke val split's first `images` images: the worker (one scene per shard) against the bare loop and
    against one fresh file per image; and `make_split` whole (posing, labels, records) per image."""
    from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_set as sco
    from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoShard
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import EngineSettings, write_spec

    config = load_config("smoke", [])
    section = config.viewspatial.coco.synthetic.model_copy(update={"images": {"val": images}})
    made = work / "coco" / "made"
    made.mkdir(parents=True)
    plans = sco.split_plans(section, config.person, config.seed, "val")
    entries = [
        sco.pose_image(config.person, section, config.seed, "val", i, plan, rng, made)["entry"]
        for i, (plan, rng) in enumerate(plans, start=1)
    ]
    spec = write_spec(
        work / "coco" / "spec.json",
        CocoShard(
            width=section.width,
            height=section.height,
            sensor_height_mm=24.0,
            engine=EngineSettings(device=section.device, samples=section.samples, denoise=False, max_bounces=3),
            images=tuple(entries),
        ),
    )
    pipeline, bare, fresh = [], [], []
    for _ in range(reps):
        pipeline.append(_worker_seconds(spec) / images)
        bare.append(_bare_kind("coco", spec, work / "coco" / "bare") / images)
        fresh.append(_bare_kind("coco-fresh", spec, work / "coco" / "fresh") / images)
    start = time.perf_counter()
    sco.make_split(work / "coco" / "split", "val", section, config.person, config.seed)
    whole = (time.perf_counter() - start) / images
    from benchfoundry.pipeline import render_client

    render_client.close_all()
    return {
        "pipeline_s": statistics.median(pipeline),
        "bare_s": statistics.median(bare),
        "fresh_s": statistics.median(fresh),
        "split_s": whole,
        "size": f"{config.width}×{config.height}, {config.samples} spp",
    }


def panorama_case(work: Path, reps: int) -> dict[str, float]:
    """The smoke preset's two synthetic panoramas, each one shard."""
    from benchfoundry.benchmarks.odi.scenes import synthetic_panoramas as sp
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.core.seeding import item_seed

    config = load_config("smoke", [])
    settings = config.odi.synthetic
    people = sp.prepare_people(config.person, work / "pano" / "_people", config.seed)
    specs = []
    for name in settings.scenes:
        folder = work / "pano" / name
        spec, _ = sp.render_spec(
            sp.scene_named(name),
            people,
            settings,
            item_seed(config.seed, "odi.synthetic", name),
            folder / "panorama.png",
            folder / "instances.npy",
        )
        specs.append(write_spec(folder / "spec.json", spec))
    pipeline, bare = [], []
    for _ in range(reps):
        pipeline.append(statistics.mean(_worker_seconds(p) for p in specs))
        bare.append(statistics.mean(_bare_kind("panorama", p, p.parent / "bare") for p in specs))
    return {"pipeline_s": statistics.median(pipeline), "bare_s": statistics.median(bare), "width": settings.width}


def scan_case(work: Path, reps: int) -> dict[str, float]:
    """The smoke preset's first synthetic ScanNet room (one shard: its camera walk)."""
    from benchfoundry.benchmarks.viewspatial.scannet.scenes import synthetic_scan as ss
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import write_spec

    config = load_config("smoke", [])
    settings = ss.RenderSettings(
        **{
            **config.viewspatial.synthetic.model_dump(exclude={"layout", "frame_step", "scans", "asset_library"}),
            "seed": config.seed,
        }
    )
    scene_id, mirrored = next(iter(ss.SYNTHETIC_SCENES.values()))
    room = ss.synthetic_room(scene_id, mirrored)
    poses = ss.camera_walk(room, settings.frames)
    folder = work / "scan"
    spec = write_spec(
        folder / "spec.json", ss.render_spec(room, ss.room_mesh(room), poses, settings, folder / "pipeline")
    )
    pipeline, bare = [], []
    for _ in range(reps):
        start = time.perf_counter()
        ss.run_render_worker(spec)
        pipeline.append((time.perf_counter() - start) / len(poses))
        bare.append(_bare_kind("scan", spec, folder / "bare") / len(poses))
    return {"pipeline_s": statistics.median(pipeline), "bare_s": statistics.median(bare), "frames": len(poses)}


def kind_cases(work: Path, kinds: list[str], coco_images: int, reps: int) -> None:
    """Print (d) for each kind asked."""
    if "coco" in kinds:
        t = coco_case(work, coco_images, reps)
        print(
            f"(d) coco, {coco_images} images {t['size']}: pipeline {t['pipeline_s'] * 1000:.0f} ms/image, "
            f"bare loop {t['bare_s'] * 1000:.0f} ms/image: ratio {t['pipeline_s'] / t['bare_s']:.3f} (goal <= 1.1); "
            f"one fresh file per image {t['fresh_s'] / t['bare_s']:.2f}x the bare loop; the whole split task "
            f"(posing, labels, records) {t['split_s'] * 1000:.0f} ms/image"
        )
        add_row(
            "`bench/render.py` (d) coco",
            f"synthetic COCO, {coco_images} images ({t['size']}, no denoiser): the render worker, the scene built "
            f"once per shard, {t['pipeline_s'] * 1000:.0f} ms/image (the whole split task with posing, keypoint "
            f"labels and records {t['split_s'] * 1000:.0f} ms/image); one fresh file per image "
            f"{t['fresh_s'] / t['bare_s']:.2f}× the bare loop",
            f"a bare loop in one bpy process that builds once, then re-poses, re-lights and renders "
            f"({t['bare_s'] * 1000:.0f} ms/image)",
            f"{t['pipeline_s'] / t['bare_s']:.3f} (goal ≤ 1.1)",
        )
    if "panorama" in kinds:
        t = panorama_case(work, reps)
        print(
            f"(d) panorama, {t['width']}x{t['width'] // 2}: pipeline {t['pipeline_s'] * 1000:.0f} ms/image, "
            f"bare {t['bare_s'] * 1000:.0f} ms/image: ratio {t['pipeline_s'] / t['bare_s']:.3f} (goal <= 1.1)"
        )
        add_row(
            "`bench/render.py` (d) panorama",
            f"an ODI synthetic panorama ({t['width']}×{t['width'] // 2}, the smoke preset's settings), one per shard: "
            f"the worker, {t['pipeline_s'] * 1000:.0f} ms",
            f"the scene built and rendered in one bpy process ({t['bare_s'] * 1000:.0f} ms)",
            f"{t['pipeline_s'] / t['bare_s']:.3f} (goal ≤ 1.1)",
        )
    if "scan" in kinds:
        t = scan_case(work, reps)
        print(
            f"(d) scan room, {t['frames']} frames: pipeline {t['pipeline_s'] * 1000:.0f} ms/frame, "
            f"bare loop {t['bare_s'] * 1000:.0f} ms/frame: ratio {t['pipeline_s'] / t['bare_s']:.3f} (goal <= 1.1)"
        )
        add_row(
            "`bench/render.py` (d) scan",
            f"a synthetic ScanNet room, {t['frames']} frames: its worker process, colour and depth files "
            f"({t['pipeline_s'] * 1000:.0f} ms/frame)",
            f"one bpy process, built once, camera moved, rendered ({t['bare_s'] * 1000:.0f} ms/frame)",
            f"{t['pipeline_s'] / t['bare_s']:.3f} (goal ≤ 1.1)",
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == BARE:
        args = sys.argv[2:]
        only = int(args[args.index("--only") + 1]) if "--only" in args else None
        bare_render([a for a in args if a.endswith(".json")], only)
        return
    if len(sys.argv) > 1 and sys.argv[1] == BARE_KIND:
        kind, spec, out_dir = sys.argv[2], sys.argv[3], Path(sys.argv[4])
        out_dir.mkdir(parents=True, exist_ok=True)
        if kind.startswith("coco"):
            bare_coco(spec, out_dir, fresh=kind == "coco-fresh")
        else:
            {"panorama": bare_panorama, "scan": bare_scan}[kind](spec, out_dir)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8, help="frames per shard (two shards)")
    parser.add_argument("--width", type=int, default=320, help="image width; height is 9/16 of it")
    parser.add_argument("--samples", type=int, default=8, help="samples of the (a)/(b) renders")
    parser.add_argument("--reps", type=int, default=3, help="alternating repetitions of (a)")
    parser.add_argument(
        "--kinds", nargs="+", default=["rig", "coco", "panorama", "scan"], choices=["rig", "coco", "panorama", "scan"]
    )
    parser.add_argument("--coco-images", type=int, default=24, help="images of the (d) COCO shard (smoke val: 24)")
    parser.add_argument("--kind-reps", type=int, default=2, help="alternating repetitions of (d)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        work = Path(tmp)
        kind_cases(work, args.kinds, args.coco_images, args.kind_reps)
        if "rig" not in args.kinds:
            return
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
        size = f"{args.width}×{args.width * 9 // 16}, {args.samples} spp"
        add_row(
            "`bench/render.py` (a)",
            f"pipeline ms/frame ({2 * args.frames} frames, {size}, worker start, posing and index included; two "
            f"shards of {args.frames} frames, each of both lightings): {t['pipeline_s'] * 1000:.0f} ms",
            f"a bare bpy script rendering the same frames in one process ({t['bare_s'] * 1000:.0f} ms)",
            f"{t['pipeline_s'] / t['bare_s']:.2f} (median of {args.reps} runs; goal ≤ 1.05)",
        )
        add_row(
            "`bench/render.py` (b)",
            f"one fresh Blender process per frame ({size}): {t['one_off_s'] * 1000:.0f} ms",
            "the pipeline",
            f"{t['one_off_s'] / t['pipeline_s']:.1f}× slower",
        )
        print("(c) samples  denoise  s/frame  PSNR vs 128 spp + denoise (dB)")
        for row in settings_table(work, args.width):
            print(f"    {row['samples']:>7}  {str(row['denoise']):>7}  {row['s_per_frame']:7.2f}  {row['psnr_db']:.1f}")


if __name__ == "__main__":
    main()
