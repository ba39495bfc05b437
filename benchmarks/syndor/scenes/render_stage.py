"""SynDORBench render shards: pose the person, drive the Blender worker, move frames into place, index rows.

Frames are rendered into the shard's temporary folder and moved into place only when the whole
shard is done; the shard's index rows are written after that (the plan: benchmarks/syndor/scenes/render_plan.py). The
marker records every frame's hash and files: when the shard changes, the frames it recorded whose files are
in place are kept and only the others are rendered.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.scenes import camera_rig
from benchfoundry.benchmarks.syndor.scenes.render_plan import (
    EMPTY_ACTION,
    EMPTY_SCENE_COLUMN,
    STAGE,
    ShardPlan,
    frame_paths,
    radius_label,
    render_settings_hash,
    zones,
)
from benchfoundry.benchmarks.syndor.scenes.rig_spec import lighting_spec, rig_shard
from benchfoundry.benchmarks.syndor.scenes.spec import RigFrame, RigShard
from benchfoundry.benchmarks.syndor.stages.pose_selection import BUILTIN
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import write_spec
from benchfoundry.core.safe_paths import UnsafePathError, inside_file
from benchfoundry.core.seeding import item_seed
from benchfoundry.core.store import StageStore
from benchfoundry.person.prepare import PersonFiles, person_body, prepare_person
from benchfoundry.pipeline import render_client
from benchfoundry.pipeline.shard_task import shard_task


def person_cache(out: Path) -> Path:
    """Where SynDORBench's posed people and textures are written (person/prepare.py)."""
    return Path(out) / BENCHMARK / STAGE / "_person"


def empty_scene_target(config: BuildConfig, out: Path) -> np.ndarray:
    """Where the cameras of an empty scene aim: the centre of the upright body's bounding box (the
    first texture's person)."""
    from benchfoundry.assets.poses import UPRIGHT, upright_pose

    body = person_body(
        config.person, config.seed, config.person.textures.ids[0], upright_pose(), UPRIGHT, person_cache(out)
    )
    return camera_rig.aim_point(body.vertices)


def run_shard(config: BuildConfig, spec: RigShard, tmp: Path, finals: list[tuple[Path, Path]]) -> dict[str, Any]:
    """Render `spec` into `tmp`, then move every (temporary, final) file into place."""
    spec_path = write_spec(tmp / "spec.json", spec)
    r = config.syndor.render
    reply = render_client.render_spec(spec_path, timeout_s=r.shard_timeout_s, shards_per_worker=r.shards_per_worker)
    for src, dest in finals:
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dest)
    return reply


def fresh_dir(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def shard_frames(
    config: BuildConfig, root: Path, plan: ShardPlan, tmp: Path, recorded: Mapping[str, Sequence[str]] | None = None
) -> tuple[RigShard, list[tuple[Path, Path]], list[dict[str, Any]]]:
    """The worker spec of a shard rendering into `tmp` every frame not in place (`in_place`, from what the shard's
    last marker `recorded`), the (temporary,
    final) file pairs of those, and the index rows of every frame of the shard."""
    s = config.syndor
    benchmark_dir = root / BENCHMARK
    person: PersonFiles | None = None
    if plan.empty_scene:
        target = empty_scene_target(config, root)
    else:
        body_pose = np.array(plan.body_pose).reshape(23, 3)
        person = prepare_person(
            config.person,
            config.seed,
            plan.texture_id,
            f"{plan.action}_p{plan.pose_index:03d}",
            body_pose,
            # the built-in pose itself is rebuilt on the person's own skeleton; a variant's rotations are applied
            plan.action if plan.pose_source == BUILTIN and plan.pose_frame == 0 else None,
            person_cache(root),
        )
        target = person.aim
    cameras = {
        (cam.zone, cam.azimuth_deg, cam.elevation_deg): cam
        for cam in camera_rig.rig_cameras(s.camera.spec(), zones(s), s.rig.azimuths_deg, s.rig.elevations_deg, target)
    }
    ext = ".jpg" if s.render.image_format == "JPEG" else ".png"
    lights = {name: lighting_spec(s, name) for name in plan.lightings}
    frames, finals, rows = [], [], []
    settings_hash = render_settings_hash(s)
    for i, planned in enumerate(plan.frames):
        cam = cameras[(planned.zone, planned.azimuth_deg, planned.elevation_deg)]
        names = frame_paths(plan.texture_id, plan.action, plan.scene, planned.lighting, plan.pose_index, cam, ext)
        frame_id = f"{plan.shard_id}/{planned.lighting}/{cam.zone}/cam{cam.cam_index:03d}"
        seed = item_seed(config.seed, STAGE, frame_id)
        rgb_tmp, mask_tmp = tmp / f"{i:04d}{ext}", tmp / f"{i:04d}_mask.png"
        light = lights[planned.lighting]
        if not in_place(benchmark_dir, (recorded or {}).get(plan.frame_hashes[i]), names):
            frames.append(
                RigFrame(matrix_world=cam.matrix_world, seed=seed, light=light, rgb=str(rgb_tmp), mask=str(mask_tmp))
            )
            finals += [(rgb_tmp, benchmark_dir / names["img_path"]), (mask_tmp, benchmark_dir / names["mask_path"])]
        rows.append(
            {
                "source_dir": names["source_dir"],
                "action": plan.action,
                "scene": plan.scene,
                "lighting": planned.lighting,
                "radius": radius_label(cam.distance_m),
                "smplx_texture": EMPTY_ACTION if plan.texture_id is None else f"SMPLitex_texture_{plan.texture_id:05d}",
                "img_path": names["img_path"],
                "mask_path": names["mask_path"],
                "img_name": names["img_name"],
                "nv_path": None,
                "human_discernable": None,
                "zone": cam.zone,
                "target_ppm": cam.target_ppm,
                "distance_m": cam.distance_m,
                "azimuth": cam.azimuth_deg,
                "elevation": cam.elevation_deg,
                "cam": cam.cam_index,
                "pose": plan.pose_index,
                "pose_source": plan.pose_source,
                "pose_frame": plan.pose_frame,
                "texture_id": plan.texture_id,
                "seed": seed,
                "render_settings_hash": settings_hash,
                "shard": plan.shard_id,
                "body_path": None if person is None else str(person.mesh_npz.relative_to(benchmark_dir)),
                "camera_matrix": [x for row in cam.matrix_world for x in row],
                EMPTY_SCENE_COLUMN: plan.empty_scene,
            }
        )
    return rig_shard(config, person, plan.scene, frames, plan.scene_seed), finals, rows


def recorded_frames(store: StageStore, plan: ShardPlan) -> dict[str, Any]:
    """Frame hash → the files the shard's last marker recorded for it: a frame whose files are in place
    (`in_place`) is not rendered again, whatever else changed in the shard."""
    recorded = (store.marker(plan.shard_id) or {}).get("frame_files")
    return recorded if isinstance(recorded, dict) else {}


def in_place(benchmark_dir: Path, recorded: Any, names: Mapping[str, str]) -> bool:
    """Whether a frame's image and mask are in place: the marker recorded exactly the names the plan gives the
    frame, and both are regular files inside the benchmark's folder (a marker is input: `../` or a link out,
    or another frame's names, make the frame render again)."""
    if recorded != [names["img_path"], names["mask_path"]]:
        return False
    try:
        return all(inside_file(benchmark_dir, name, "render marker frame_files") for name in recorded)
    except (UnsafePathError, OSError):
        return False


def render_shard(config: BuildConfig, out: str, plan: ShardPlan) -> str:
    """Render one shard (all cameras) and write its index rows; returns the shard file."""
    root = Path(out)
    store = StageStore(root, BENCHMARK, STAGE)
    if store.is_done(plan.shard_id, plan.spec_hash):
        return str(store.shard_path(plan.shard_id))
    tmp = fresh_dir(store.dir / "_tmp" / plan.shard_id)
    spec, finals, rows = shard_frames(config, root, plan, tmp, recorded_frames(store, plan))
    reply = run_shard(config, spec, tmp, finals) if spec.frames else {"seconds": 0.0}
    frame = pd.DataFrame(rows).astype(
        {
            "nv_path": "string",
            "human_discernable": "boolean",
            "texture_id": "Int64",
            "pose_frame": "Int64",
            "body_path": "string",
        }
    )
    store.write_shard(
        plan.shard_id,
        frame,
        spec_hash=plan.spec_hash,
        info={
            "render_seconds": round(reply["seconds"], 3),
            "frames_rendered": len(spec.frames),
            "frames_kept": len(plan.frames) - len(spec.frames),
            "frame_files": {
                h: [img, mask]
                for h, img, mask in zip(plan.frame_hashes, frame["img_path"], frame["mask_path"], strict=True)
            },
        },
    )
    shutil.rmtree(tmp, ignore_errors=True)
    return str(store.shard_path(plan.shard_id))


@shard_task(resource="render", name="syndor-render", device=lambda config: config.syndor.render.device)
def render_task(out: str, shard: ShardPlan, config: BuildConfig) -> str:
    """One render shard (`render_shard`)."""
    return render_shard(config, out, shard)
