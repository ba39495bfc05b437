"""SynDORBench render stage: shard planning, released naming, index rows, calibration.

A shard is one (scene, texture, action, pose, lighting) with every camera of the rig, so adding
a lighting or an action renders only the new shards. Its spec hash (render settings, camera,
rig, factors with the pose's joint angles, body and texture config, seed) is stored in its
marker; a changed setting re-renders the shards it affects. Frames are rendered into the shard's temporary folder and moved into place only
when the whole shard is done; the shard's index rows are written after that.

Released naming (DESIGN §2.2), under `<out>/syndor/`:
`images/SMPLitex_texture_{id:05d}_{action}_{scene}_{lighting}_{radius}/{pose}/raw_images/
frame0001_cam{NNN}_r{int radius}_phi{az}_theta{el}.jpg`, where `{radius}` is the camera distance
in metres with one decimal (5.4, 10.8, 23.0 for the paper camera) and `{pose}` is `pose{k:03d}`,
the k-th pose of the action (tasks/amass.select_poses: 0 for a built-in action, the k-th
selected AMASS frame otherwise). Masks are the same path with
`raw_images` → `masks` and a `.png` suffix.

Empty scenes (`syndor.empty_scenes`): one more shard per (scene, lighting), `{scene}_empty_{lighting}`,
renders the same cameras with no person (empty masks). Its frames are
`images/SMPLitex_texture_none_empty_{scene}_{lighting}_{radius}/pose000/raw_images/...`, and its rows
have `empty_scene` true, `action` and `smplx_texture` "none", `texture_id` and `pose_frame` null.
`syndor.empty_scene_share` sizes them: repeat k ≥ 1 of the empty shard, `{scene}_empty_{lighting}_r{k:03d}`,
places the scene's props with its own seed and writes under `pose{k:03d}`, and as many repeats are
planned as the least count whose frames reach that share of the (scene, lighting)'s frames.
Person shards keep their ids and spec hashes whether the option is on or off, and so does repeat 0.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
import json
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.flows.params import BuildConfig
from benchfoundry.flows.params_syndor import SyndorConfig
from benchfoundry.flows.policy import shard_task
from benchfoundry.tasks import camera_rig, dori, render_client
from benchfoundry.tasks.amass import PoseSelection, select_poses
from benchfoundry.tasks.buildinfo import problem
from benchfoundry.tasks.seeding import item_seed
from benchfoundry.tasks.store import StageStore, atomic_path, spec_hash, write_json_atomic

BENCHMARK = "syndor"
STAGE = "render"
CALIBRATION_STAGE = "calibration"
PERSON_PASS_INDEX = 1
SUN_BEARING_DEG = {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}
#: Calibration frames: the person lit from the front (the person faces south).
CALIBRATION_LIGHTING = "noon_south"
CALIBRATION_REL_TOL = 0.02
CALIBRATION_PX_TOL = 1.0
#: Part of every spec hash: bump it when render/ changes what a frame looks like.
RENDER_VERSION = 1
#: Render-manifest column: true for a frame rendered without a person.
EMPTY_SCENE_COLUMN = "empty_scene"
#: `action`, `smplx_texture` and `pose_source` of an empty-scene row (no person, nothing to recognise).
EMPTY_ACTION = "none"


@dataclass(frozen=True)
class ShardPlan:
    shard_id: str
    scene: str
    texture_id: int | None  # None for an empty scene
    action: str
    pose_index: int  # k-th pose of the action
    pose_source: str  # "builtin" or the AMASS sequence (BABEL feat_p)
    pose_frame: int | None  # frame of that sequence
    body_pose: tuple[float, ...]  # (23·3) SMPL axis-angle; () for an empty scene
    lighting: str
    spec_hash: str
    empty_scene: bool = False
    scene_seed: int | None = None  # the seed placing the scene's props; None: the build seed


def lighting_spec(syndor: SyndorConfig, name: str) -> dict[str, Any]:
    """What the worker needs to light one of the named lightings."""
    if name == "night":
        night = syndor.lighting.night
        return {"kind": "night", "moon_strength": night.moon_strength, "moon_elevation_deg": night.moon_elevation_deg,
                "moon_bearing_deg": night.moon_azimuth_deg, "sky_color": list(night.sky_color),
                "exposure": night.exposure}
    time_of_day, sun_from = name.split("_")
    day = syndor.lighting.day
    return {"kind": "day", "sun_elevation_deg": day.sun_elevation_deg[time_of_day],
            "sun_bearing_deg": SUN_BEARING_DEG[sun_from], "sun_strength": day.sun_strength,
            "sky_strength": day.sky_strength, "exposure": day.exposure[time_of_day]}


def camera_settings(syndor: SyndorConfig) -> dict[str, Any]:
    spec = syndor.camera.spec()
    return {"focal_mm": spec.focal_mm, "sensor_height_mm": spec.sensor_height_mm,
            "resolution_w": syndor.camera.resolution_w, "resolution_h": spec.resolution_h}


def render_settings_hash(syndor: SyndorConfig) -> str:
    """Hash of what changes pixels apart from the factors: engine settings, camera, renderer."""
    return spec_hash([syndor.render.engine_settings(), camera_settings(syndor), RENDER_VERSION,
                      importlib.metadata.version("bpy")])


def zones(syndor: SyndorConfig) -> dict[str, float]:
    """The configured zones (rig.zones, default all) with their px/m."""
    names = syndor.rig.zones or list(syndor.zones_ppm)
    return {z: syndor.zones_ppm[z] for z in names}


def radius_label(distance_m: float) -> str:
    return f"{distance_m:.1f}"


def check_distinct_radii(syndor: SyndorConfig) -> None:
    labels = [radius_label(dori.distance_for_ppm(ppm, syndor.camera.spec())) for ppm in zones(syndor).values()]
    if len(set(labels)) != len(labels):
        raise ValueError(f"syndor.zones_ppm: two zones give the same distance label {labels}")


def _rig_spec(config: BuildConfig) -> dict[str, Any]:
    """The part of every render shard's spec hash that is not a factor: render settings, zones,
    rig, body and seed."""
    s = config.syndor
    return {"render": render_settings_hash(s), "zones": zones(s), "rig": s.rig.model_dump(mode="json"),
            "body": s.body.model_dump(mode="json"), "seed": config.seed}


def plan_shards(config: BuildConfig, poses: PoseSelection | None = None) -> list[ShardPlan]:
    """Every (scene, texture, action, pose, lighting) shard of the configured factors, then the
    empty-scene shards when `syndor.empty_scenes` is on; `poses` defaults to
    tasks/amass.select_poses (built-in poses, or AMASS frames)."""
    s = config.syndor
    poses = select_poses(s.poses) if poses is None else poses
    check_distinct_radii(s)
    common = {**_rig_spec(config), "textures": s.textures.model_dump(mode="json", exclude={"ids"})}
    action_poses = [(a, k, frame, tuple(float(x) for x in np.asarray(frame.body_pose, dtype=np.float64).reshape(-1)))
                    for a in s.poses.actions for k, frame in enumerate(poses.of(a))]
    plans = []
    for scene, tex, (action, k, pose, body_pose), lighting in itertools.product(s.scenes, s.textures.ids, action_poses,
                                                                                s.lightings):
        factors = {"scene": scene, "texture": tex, "action": action, "pose": [k, pose.source, pose.frame, body_pose],
                   "lighting": lighting, "light": lighting_spec(s, lighting)}
        plans.append(ShardPlan(
            shard_id=f"{scene}_t{tex:05d}_{action}_p{k:03d}_{lighting}", scene=scene, texture_id=tex, action=action,
            pose_index=k, pose_source=pose.source, pose_frame=pose.frame, body_pose=body_pose, lighting=lighting,
            spec_hash=spec_hash({**common, **factors}),
        ))
    if not s.empty_scenes:
        return plans
    repeats = empty_scene_repeats(s.empty_scene_share, len(s.textures.ids) * len(action_poses))
    return plans + plan_empty_shards(config, repeats)


def empty_scene_repeats(share: float | None, person_shards: int) -> int:
    """The least number r ≥ 1 of empty shards per (scene, lighting) whose frames make at least `share`
    of that (scene, lighting)'s frames next to `person_shards` person shards (every shard has the same
    cameras); 1 when `share` is None.

    r / (r + p) ≥ share ⇔ r ≥ share·p / (1 − share) for 0 < share < 1; the rounded-up bound is then
    moved by one where floating point puts it on the wrong side of the share.
    """
    if share is None:
        return 1
    repeats = max(1, math.ceil(share * person_shards / (1 - share)))
    if repeats / (repeats + person_shards) < share:
        return repeats + 1
    if repeats > 1 and (repeats - 1) / (repeats - 1 + person_shards) >= share:
        return repeats - 1
    return repeats


def empty_shard_id(scene: str, lighting: str, repeat: int) -> str:
    return f"{scene}_empty_{lighting}" + (f"_r{repeat:03d}" if repeat else "")


def plan_empty_shards(config: BuildConfig, repeats: int) -> list[ShardPlan]:
    """`repeats` shards per (scene, lighting) rendering the rig with no person. The cameras aim where
    they aim at the upright body, so the body config is part of the hash; textures are not. Repeat
    k ≥ 1 places the props by its own seed (repeat 0 by the build seed, as the person shards)."""
    s = config.syndor
    common = {**_rig_spec(config), "empty_scene": True}
    plans = []
    for scene, lighting, k in itertools.product(s.scenes, s.lightings, range(repeats)):
        shard_id = empty_shard_id(scene, lighting, k)
        scene_seed = item_seed(config.seed, "empty-scene", shard_id) if k else None
        extra = {"repeat": k, "scene_seed": scene_seed} if k else {}
        plans.append(ShardPlan(
            shard_id=shard_id, scene=scene, texture_id=None, action=EMPTY_ACTION, pose_index=k,
            pose_source=EMPTY_ACTION, pose_frame=None, body_pose=(), lighting=lighting,
            spec_hash=spec_hash({**common, "scene": scene, "lighting": lighting, "light": lighting_spec(s, lighting),
                                 **extra}),
            empty_scene=True, scene_seed=scene_seed))
    return plans


def empty_scene_share(plans: list[ShardPlan], frames: dict[str, int]) -> float | None:
    """Share of empty-scene frames among the frames of the finished shards (`frames`: shard id →
    frame count); None without frames."""
    total = sum(frames.get(p.shard_id, 0) for p in plans)
    empty = sum(frames.get(p.shard_id, 0) for p in plans if p.empty_scene)
    return round(empty / total, 4) if total else None


def empty_scene_rows(frame: pd.DataFrame) -> pd.Series:
    """True for the rows rendered without a person; rows without the column (older shards) are not."""
    if EMPTY_SCENE_COLUMN not in frame.columns:
        return pd.Series(False, index=frame.index, dtype=bool)
    return frame[EMPTY_SCENE_COLUMN].astype("boolean").fillna(False).astype(bool)


def frame_paths(texture_id: int | None, action: str, scene: str, lighting: str, pose_index: int,
                cam: camera_rig.RigCamera, ext: str = ".jpg") -> dict[str, str]:
    """Released names of one frame, relative to `<out>/syndor/`.

    `texture_id` None is an empty-scene frame: `SMPLitex_texture_none_empty_{scene}_{lighting}_{radius}`
    (`action` is not used). A person's texture slot is always five digits, so the two never collide.
    """
    radius = radius_label(cam.distance_m)
    person = "none_empty" if texture_id is None else f"{texture_id:05d}_{action}"
    source_dir = f"images/SMPLitex_texture_{person}_{scene}_{lighting}_{radius}"
    img_name = (f"frame0001_cam{cam.cam_index:03d}_r{int(cam.distance_m)}"
                f"_phi{cam.azimuth_deg:g}_theta{cam.elevation_deg:g}")
    pose = f"pose{pose_index:03d}"
    return {
        "source_dir": source_dir, "img_name": f"{img_name}{ext}",
        "img_path": f"{source_dir}/{pose}/raw_images/{img_name}{ext}",
        "mask_path": f"{source_dir}/{pose}/masks/{img_name}.png",
    }


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


def prepare_person(config: BuildConfig, out: Path, pose_name: str, body_pose: np.ndarray,
                   texture_id: int) -> PersonFiles:
    """Pose the body (tasks/body.py) and write it and its texture where the worker reads them."""
    from benchfoundry.assets.textures import load_texture
    from benchfoundry.tasks.body import posed_body, write_body_mesh

    s = config.syndor
    cache = out / BENCHMARK / STAGE / "_person"
    body = posed_body(s.body, body_pose, cache_dir=cache / "model")
    mesh_sha = hashlib.sha256(body.vertices.tobytes() + body.faces.tobytes()).hexdigest()[:16]
    mesh_npz = cache / f"{pose_name}_{mesh_sha}.npz"
    if not mesh_npz.exists():
        write_body_mesh(body, mesh_npz)
    tex_png = cache / f"texture_{texture_id:05d}_{spec_hash(s.textures.model_dump(mode='json', exclude={'ids'}))}.png"
    if not tex_png.exists():
        from PIL import Image

        with atomic_path(tex_png) as tmp:
            Image.fromarray(load_texture(s.textures, texture_id)).save(tmp, format="PNG")
    v = body.vertices.astype(float)
    return PersonFiles(mesh_npz, tex_png, mesh_sha, tuple(v.min(0)), tuple(v.max(0)))


def empty_scene_target(config: BuildConfig, out: Path) -> np.ndarray:
    """Where the cameras of an empty scene aim: the centre of the upright body's bounding box."""
    from benchfoundry.tasks.body import posed_body, upright_pose

    body = posed_body(config.syndor.body, upright_pose(), cache_dir=out / BENCHMARK / STAGE / "_person" / "model")
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


def _fresh_dir(path: Path) -> Path:
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
        person = prepare_person(config, root, f"{plan.action}_p{plan.pose_index:03d}", body_pose, plan.texture_id)
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
    tmp = _fresh_dir(store.dir / "_tmp" / plan.shard_id)
    spec, finals, rows = shard_frames(config, root, plan, tmp)
    reply = run_shard(config, spec, tmp, finals)
    frame = pd.DataFrame(rows).astype({"nv_path": "string", "human_discernable": "boolean", "texture_id": "Int64",
                                       "pose_frame": "Int64", "body_path": "string"})
    store.write_shard(plan.shard_id, frame, spec_hash=plan.spec_hash,
                      info={"render_seconds": round(reply["seconds"], 3)})
    shutil.rmtree(tmp, ignore_errors=True)
    return str(store.shard_path(plan.shard_id))


render_shard_task = shard_task(render_shard, name="syndor-render-shard")


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
        return {"mask_height_px": 0, "measured_ppm": None, "whole_in_frame": False, "within_tolerance": False,
                "rel_error": None, "px_error": None}
    top, bottom = extent
    height_px = bottom - top + 1
    measured = height_px / height_m
    px_error = height_px - target_ppm * height_m
    rel_error = measured / target_ppm - 1.0
    whole = top > 0 and bottom < mask.shape[0] - 1
    within = whole and (abs(rel_error) <= CALIBRATION_REL_TOL or abs(px_error) <= CALIBRATION_PX_TOL)
    return {"mask_height_px": int(height_px), "measured_ppm": float(measured), "whole_in_frame": bool(whole),
            "within_tolerance": bool(within), "rel_error": float(rel_error), "px_error": float(px_error)}


def calibration_hash(config: BuildConfig) -> str:
    s = config.syndor
    return spec_hash({"render": render_settings_hash(s), "zones": zones(s), "body": s.body.model_dump(mode="json"),
                      "textures": s.textures.model_dump(mode="json"), "scene": s.scenes[0], "seed": config.seed,
                      "light": lighting_spec(s, CALIBRATION_LIGHTING)})


def calibrate(config: BuildConfig, out: str) -> str:
    """Render an upright, camera-facing, elevation-0 frame per distance and measure its px/m;
    returns the calibration rows' file."""
    from PIL import Image

    from benchfoundry.tasks.body import upright_pose

    s = config.syndor
    root = Path(out)
    store = StageStore(root, BENCHMARK, CALIBRATION_STAGE)
    shard, spec = "calibration", calibration_hash(config)
    if store.is_done(shard, spec):
        return str(store.shard_path(shard))
    person = prepare_person(config, root, "upright", upright_pose(), s.textures.ids[0])
    lo, hi = np.array(person.vertices_min), np.array(person.vertices_max)
    height_m = float(hi[2] - lo[2])
    cameras = camera_rig.rig_cameras(s.camera.spec(), zones(s), [0.0], [0.0], person.aim)
    tmp = _fresh_dir(store.dir / "_tmp")
    frames, finals, rows = [], [], []
    for cam in cameras:
        rgb, mask = store.dir / "frames" / f"{cam.zone}.png", store.dir / "frames" / f"{cam.zone}_mask.png"
        frames.append({"matrix_world": cam.matrix_world, "seed": item_seed(config.seed, CALIBRATION_STAGE, cam.zone),
                       "lighting": lighting_spec(s, CALIBRATION_LIGHTING),
                       "rgb": str(tmp / rgb.name), "mask": str(tmp / mask.name)})
        finals += [(tmp / rgb.name, rgb), (tmp / mask.name, mask)]
        rows.append({"zone": cam.zone, "target_ppm": cam.target_ppm, "distance_m": cam.distance_m,
                     "radius": radius_label(cam.distance_m), "body_height_m": height_m,
                     "target_height_px": cam.target_ppm * height_m,
                     "img_path": str(rgb.relative_to(root / BENCHMARK)), "mask_path": str(mask.relative_to(root / BENCHMARK))})
    spec = shard_spec(config, person, s.scenes[0], frames)
    # The mask does not depend on samples or denoising: calibration frames render with one sample.
    spec["render"].update(samples=1, denoise=False, image_format="PNG")
    run_shard(config, spec, tmp, finals)
    for row in rows:
        mask = np.array(Image.open(root / BENCHMARK / row["mask_path"]))
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
    ax.fill_between(d, target * (1 - CALIBRATION_REL_TOL), target * (1 + CALIBRATION_REL_TOL), color="tab:blue",
                    alpha=0.15, label="±2%")
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
    cols = ["zone", "distance_m", "target_ppm", "measured_ppm", "rel_error", "px_error", "mask_height_px",
            "target_height_px", "body_height_m", "whole_in_frame", "within_tolerance"]
    records = json.loads(rows[cols].to_json(orient="records"))
    return {"passed": bool(rows["within_tolerance"].all()), "tolerance": CALIBRATION_TOLERANCE,
            "plot": plot_path, "distances": records}


def calibration_error_summary(error: str) -> dict[str, Any]:
    """What build.json records when the calibration task failed or left no rows: no distance, no plot."""
    return {"passed": False, "tolerance": CALIBRATION_TOLERANCE, "plot": None, "distances": [], "error": error}


def calibration_problems(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """A problem row for a failed calibration task, and for every distance outside the tolerance."""
    failed = [problem(CALIBRATION_STAGE, "calibration", summary["error"], kind="failed")] if "error" in summary else []
    return failed + [problem(CALIBRATION_STAGE, row["zone"],
                    f"measured {row['measured_ppm']} px/m, target {row['target_ppm']} px/m"
                    + ("" if row["whole_in_frame"] else ": the person is not whole in the frame"), kind="failed")
            for row in summary["distances"] if not row["within_tolerance"]]


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


calibrate_task = shard_task(calibrate, name="syndor-calibrate")
