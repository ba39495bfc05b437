"""SynDORBench render shards: pose the person, drive the Blender worker, move frames into place, index rows.

Frames are rendered into the shard's temporary folder and moved into place only when the whole
shard is done; the shard's index rows are written after that (the plan: tasks/syndor/render_plan.py).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.configs.body import BodyConfig, TextureConfig
from benchfoundry.configs.build import BuildConfig
from benchfoundry.tasks.common import render_client
from benchfoundry.tasks.common.policy import shard_task
from benchfoundry.tasks.common.seeding import item_seed
from benchfoundry.tasks.common.store import StageStore, atomic_path, spec_hash, write_json_atomic
from benchfoundry.tasks.syndor import camera_rig
from benchfoundry.tasks.syndor.pose_selection import BUILTIN
from benchfoundry.tasks.syndor.render_plan import (
    BENCHMARK,
    EMPTY_ACTION,
    EMPTY_SCENE_COLUMN,
    STAGE,
    ShardPlan,
    camera_settings,
    frame_paths,
    lighting_spec,
    radius_label,
    render_settings_hash,
    zones,
)

PERSON_PASS_INDEX = 1


@dataclass(frozen=True)
class PersonFiles:
    mesh_npz: Path
    texture_png: Path
    mesh_sha: str
    vertices_min: tuple[float, float, float]
    vertices_max: tuple[float, float, float]

    @property
    def aim(self) -> np.ndarray:
        """Where the cameras aim: the centre of the posed mesh's bounding box (camera_rig.aim_point)."""
        return (np.array(self.vertices_min) + np.array(self.vertices_max)) / 2


def person_body(config: BuildConfig, out: Path, body_pose: np.ndarray, person_id: int, action: str | None) -> Any:
    """The posed body of person `person_id` (tasks/syndor/body.posed_body): with Anny, that person's
    phenotype (drawn with the build seed), and a built-in `action` rebuilt on their skeleton."""
    from benchfoundry.tasks.syndor.body import posed_body
    from benchfoundry.tasks.syndor.phenotypes import draw_phenotype

    body = config.syndor.body
    if body.model_type != "anny":
        return posed_body(body, body_pose, cache_dir=out / BENCHMARK / STAGE / "_person" / "model")
    return posed_body(body, body_pose, cache_dir=out / BENCHMARK / STAGE / "_person" / "model",
                      phenotype=draw_phenotype(body.phenotypes, config.seed, person_id), action=action)


def person_texture(body: BodyConfig, textures: TextureConfig, texture_id: int) -> np.ndarray:
    """Texture `texture_id` on the body's UV layout: SMPLitex or the procedural fixture's atlas
    (assets/textures.py), or procedural clothing on Anny's (tasks/syndor/anny_texture.py)."""
    from benchfoundry.assets.textures import load_texture
    from benchfoundry.tasks.syndor.anny_texture import anny_texture

    if body.model_type == "anny" and textures.smplitex_dir is None:
        return anny_texture(texture_id, textures.size)
    return load_texture(textures, texture_id)


def prepare_person(config: BuildConfig, out: Path, pose_name: str, body_pose: np.ndarray,
                   texture_id: int, action: str | None = None) -> PersonFiles:
    """Pose the body (tasks/syndor/body.py) and write it (with its COCO keypoints, for Anny, in
    `<mesh>_coco.json` beside it) and its texture where the worker reads them; `action`: the built-in
    action (or UPRIGHT) that `body_pose` is, rebuilt on Anny's skeleton."""
    from benchfoundry.tasks.syndor.body import COCO_KEYPOINTS, write_body_mesh

    s = config.syndor
    cache = out / BENCHMARK / STAGE / "_person"
    body = person_body(config, out, body_pose, texture_id, action)
    mesh_sha = hashlib.sha256(body.vertices.tobytes() + body.faces.tobytes()).hexdigest()[:16]
    mesh_npz = cache / f"{pose_name}_{mesh_sha}.npz"
    if not mesh_npz.exists():
        write_body_mesh(body, mesh_npz)
    coco = mesh_npz.with_name(f"{mesh_npz.stem}_coco.json")
    if body.keypoints is not None and not coco.exists():
        write_json_atomic(coco, {"frame": "world: metres, +Z up, feet on z = 0, facing -Y",
                                 "keypoints": {n: [float(x) for x in k] for n, k in zip(COCO_KEYPOINTS, body.keypoints)}})
    tex_png = cache / f"texture_{texture_id:05d}_{spec_hash(s.textures.model_dump(mode='json', exclude={'ids'}))}" \
                      f"_{s.body.model_type}.png"
    if not tex_png.exists():
        from PIL import Image

        with atomic_path(tex_png) as tmp:
            texture = person_texture(config.syndor.body, config.syndor.textures, texture_id)
            Image.fromarray(texture).save(tmp, format="PNG")
    v = body.vertices.astype(float)
    return PersonFiles(mesh_npz, tex_png, mesh_sha, tuple(v.min(0)), tuple(v.max(0)))


def empty_scene_target(config: BuildConfig, out: Path) -> np.ndarray:
    """Where the cameras of an empty scene aim: the centre of the upright body's bounding box (the
    first texture's person)."""
    from benchfoundry.assets.poses import UPRIGHT, upright_pose

    body = person_body(config, out, upright_pose(), config.syndor.textures.ids[0], UPRIGHT)
    return camera_rig.aim_point(body.vertices)


def shard_spec(config: BuildConfig, person: PersonFiles | None, scene: str, frames: list[dict[str, Any]],
               scene_seed: int | None = None) -> dict[str, Any]:
    """The worker's input (render/worker.py); `person` None renders the scene without one; the
    scene's props are placed by `scene_seed` (None: the build seed)."""
    s = config.syndor
    return {
        "scene": {"name": scene, "seed": config.seed if scene_seed is None else scene_seed},
        "person": {"mesh": None if person is None else str(person.mesh_npz),
                   "texture": None if person is None else str(person.texture_png),
                   "mesh_sha": None if person is None else person.mesh_sha, "pass_index": PERSON_PASS_INDEX},
        "camera": camera_settings(s),
        "render": {**s.render.engine_settings(), "threads": s.render.threads},
        "frames": frames,
    }


def run_shard(config: BuildConfig, spec: dict[str, Any], tmp: Path, finals: list[tuple[Path, Path]]) -> dict[str, Any]:
    """Render `spec` into `tmp`, then move every (temporary, final) file into place."""
    spec_path = tmp / "spec.json"
    write_json_atomic(spec_path, spec)
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


def shard_frames(config: BuildConfig, root: Path, plan: ShardPlan, tmp: Path
                 ) -> tuple[dict[str, Any], list[tuple[Path, Path]], list[dict[str, Any]]]:
    """The worker spec of a shard rendering into `tmp`, the (temporary, final) file pairs, and
    the shard's index rows."""
    s = config.syndor
    bench_dir = root / BENCHMARK
    person: PersonFiles | None = None
    if plan.empty_scene:
        target = empty_scene_target(config, root)
    else:
        body_pose = np.array(plan.body_pose).reshape(23, 3)
        person = prepare_person(config, root, f"{plan.action}_p{plan.pose_index:03d}", body_pose, plan.texture_id,
                                plan.action if plan.pose_source == BUILTIN else None)
        target = person.aim
    cameras = camera_rig.rig_cameras(s.camera.spec(), zones(s), s.rig.azimuths_deg, s.rig.elevations_deg, target)
    ext = ".jpg" if s.render.image_format == "JPEG" else ".png"
    light = lighting_spec(s, plan.lighting)
    frames, finals, rows = [], [], []
    settings_hash = render_settings_hash(s)
    for i, cam in enumerate(cameras):
        names = frame_paths(plan.texture_id, plan.action, plan.scene, plan.lighting, plan.pose_index, cam, ext)
        frame_id = f"{plan.shard_id}/{cam.zone}/cam{cam.cam_index:03d}"
        seed = item_seed(config.seed, STAGE, frame_id)
        rgb_tmp, mask_tmp = tmp / f"{i:04d}{ext}", tmp / f"{i:04d}_mask.png"
        frames.append({"matrix_world": cam.matrix_world, "seed": seed, "lighting": light,
                       "rgb": str(rgb_tmp), "mask": str(mask_tmp)})
        finals += [(rgb_tmp, bench_dir / names["img_path"]), (mask_tmp, bench_dir / names["mask_path"])]
        rows.append({
            "source_dir": names["source_dir"], "action": plan.action, "scene": plan.scene,
            "lighting": plan.lighting, "radius": radius_label(cam.distance_m),
            "smplx_texture": EMPTY_ACTION if plan.texture_id is None else f"SMPLitex_texture_{plan.texture_id:05d}",
            "img_path": names["img_path"],
            "mask_path": names["mask_path"], "img_name": names["img_name"], "nv_path": None,
            "human_discernable": None, "zone": cam.zone, "target_ppm": cam.target_ppm, "distance_m": cam.distance_m,
            "azimuth": cam.azimuth_deg, "elevation": cam.elevation_deg, "cam": cam.cam_index, "pose": plan.pose_index,
            "pose_source": plan.pose_source, "pose_frame": plan.pose_frame,
            "texture_id": plan.texture_id, "seed": seed, "render_settings_hash": settings_hash,
            "shard": plan.shard_id, "body_path": None if person is None else str(person.mesh_npz.relative_to(bench_dir)),
            "camera_matrix": [x for row in cam.matrix_world for x in row], EMPTY_SCENE_COLUMN: plan.empty_scene,
        })
    return shard_spec(config, person, plan.scene, frames, plan.scene_seed), finals, rows


def render_shard(config: BuildConfig, out: str, plan: ShardPlan) -> str:
    """Render one shard (all cameras) and write its index rows; returns the shard file."""
    root = Path(out)
    store = StageStore(root, BENCHMARK, STAGE)
    if store.is_done(plan.shard_id, plan.spec_hash):
        return str(store.shard_path(plan.shard_id))
    tmp = fresh_dir(store.dir / "_tmp" / plan.shard_id)
    spec, finals, rows = shard_frames(config, root, plan, tmp)
    reply = run_shard(config, spec, tmp, finals)
    frame = pd.DataFrame(rows).astype({"nv_path": "string", "human_discernable": "boolean", "texture_id": "Int64",
                                       "pose_frame": "Int64", "body_path": "string"})
    store.write_shard(plan.shard_id, frame, spec_hash=plan.spec_hash,
                      info={"render_seconds": round(reply["seconds"], 3)})
    shutil.rmtree(tmp, ignore_errors=True)
    return str(store.shard_path(plan.shard_id))


render_shard_task = shard_task(render_shard, name="syndor-render-shard")


