"""SynDORBench render plan: one shard per (scene, texture, action, pose) with its sampled frames, released naming.

A shard is one posed, textured person in one scene, with every frame the sample (benchmarks/syndor/stages/sampling.py)
gives it: all its lightings and cameras in one Blender worker visit (each frame carries its own light).
Its spec hash (render settings, camera, rig, the person's factors with the pose's joint angles, its frames
and their lights, body and texture config, seed) is stored in its marker, with each frame's own hash (the same
less the other frames); a changed setting re-renders the frames it affects, and a changed sample only the new
frames of the shards it changes: a frame whose hash the marker recorded, with its files in place, is kept.

Released naming (docs/design/syndor.md §2), under `<out>/syndor/`:
`images/SMPLitex_texture_{id:05d}_{action}_{scene}_{lighting}_{radius}/{pose}/raw_images/
frame0001_cam{NNN}_r{int radius}_phi{az}_theta{el}.jpg`, where `{radius}` is the camera distance
in metres with one decimal (5.4, 10.8, 23.0 for the paper camera) and `{pose}` is `pose{k:03d}`,
the k-th pose of the action (benchmarks/syndor/pose_selection.select_poses: 0 for a built-in action, the k-th
selected AMASS frame otherwise). Masks are the same path with
`raw_images` → `masks` and a `.png` suffix.

Empty scenes (`syndor.empty_scenes`): one more shard per (scene, lighting), `{scene}_empty_{lighting}`,
renders every camera of the rig with no person (empty masks). Its frames are
`images/SMPLitex_texture_none_empty_{scene}_{lighting}_{radius}/pose000/raw_images/...`, and its rows
have `empty_scene` true, `action` and `smplx_texture` "none", `texture_id` and `pose_frame` null.
`syndor.empty_scene_share` sizes them: repeat k ≥ 1 of the empty shard, `{scene}_empty_{lighting}_r{k:03d}`,
places the scene's props with its own seed and writes under `pose{k:03d}`, and as many repeats are
planned as the least count whose frames reach that share of the (scene, lighting)'s frames.
Person shards keep their ids and spec hashes whether the option is on or off, and so does repeat 0.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.config import SyndorConfig
from benchfoundry.benchmarks.syndor.scenes import camera_rig, dori
from benchfoundry.benchmarks.syndor.scenes.rig_spec import lighting_spec, pinhole_camera
from benchfoundry.benchmarks.syndor.scenes.spec import RigShard
from benchfoundry.benchmarks.syndor.stages import sampling
from benchfoundry.benchmarks.syndor.stages.pose_selection import PoseSelection, select_poses
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import to_json
from benchfoundry.core.seeding import item_seed
from benchfoundry.core.store import spec_hash
from benchfoundry.person.textures import texture_settings

STAGE = "render"
#: Render-manifest column: true for a frame rendered without a person.
EMPTY_SCENE_COLUMN = "empty_scene"
#: `action`, `smplx_texture` and `pose_source` of an empty-scene row (no person, nothing to recognise).
EMPTY_ACTION = "none"


class ShardFrame(NamedTuple):
    """One frame of a shard: its lighting and its rig camera (distance zone, azimuth, elevation)."""

    lighting: str
    zone: str
    azimuth_deg: float
    elevation_deg: float


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
    frames: tuple[ShardFrame, ...]  # ordered by lighting, then camera
    spec_hash: str
    frame_hashes: tuple[str, ...]  # one per frame: the shard's spec less the other frames (`frame_hashes`)
    empty_scene: bool = False
    scene_seed: int | None = None  # the seed placing the scene's props; None: the build seed

    @property
    def lightings(self) -> tuple[str, ...]:
        """The shard's lightings, in frame order."""
        return tuple(dict.fromkeys(f.lighting for f in self.frames))


def render_settings_hash(syndor: SyndorConfig) -> str:
    """Hash of what changes pixels apart from the factors: engine settings, camera, the rig's render version,
    the renderer."""
    return spec_hash(
        [
            syndor.render.engine_settings(),
            dataclasses.asdict(pinhole_camera(syndor)),
            RigShard.version,
            importlib.metadata.version("bpy"),
        ]
    )


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
    return {
        "render": render_settings_hash(s),
        "zones": zones(s),
        "rig": s.rig.model_dump(mode="json"),
        "body": config.person.body.model_dump(mode="json"),
        "seed": config.seed,
    }


def pose_counts(poses: PoseSelection, actions: list[str]) -> dict[str, int]:
    """Each configured action's number of selected poses."""
    return {a: len(poses.of(a)) for a in actions}


def plan_shards(
    config: BuildConfig, poses: PoseSelection | None = None, sample: sampling.Sample | None = None
) -> list[ShardPlan]:
    """One shard per (scene, texture, action, pose) holding frames of the sample, then the empty-scene shards
    when `syndor.empty_scenes` is on. `poses` defaults to benchmarks/syndor/pose_selection.select_poses (built-in
    poses, or AMASS frames), `sample` to benchmarks/syndor/sampling.sample_frames over those poses."""
    s = config.syndor
    poses = select_poses(s.poses) if poses is None else poses
    check_distinct_radii(s)
    if sample is None:
        sample = sampling.sample_frames(config, sampling.build_levels(config, pose_counts(poses, s.poses.actions)))
    common = {**_rig_spec(config), "textures": texture_settings(config.person.textures)}
    grouped: dict[tuple[str, int, str, int], list[ShardFrame]] = {}
    for f in sample.frames:
        grouped.setdefault(f.shard_key(), []).append(ShardFrame(f.lighting, f.zone, f.azimuth, f.elevation))
    plans = []
    for (scene, tex, action, k), frames in grouped.items():
        pose = poses.of(action)[k]
        body_pose = tuple(float(x) for x in np.asarray(pose.body_pose, dtype=np.float64).reshape(-1))
        lightings = dict.fromkeys(f.lighting for f in frames)
        person = {"scene": scene, "texture": tex, "action": action, "pose": [k, pose.source, pose.frame, body_pose]}
        factors = {
            **person,
            "frames": [list(f) for f in frames],
            "lights": {name: to_json(lighting_spec(s, name)) for name in lightings},
        }
        plans.append(
            ShardPlan(
                shard_id=f"{scene}_t{tex:05d}_{action}_p{k:03d}",
                scene=scene,
                texture_id=tex,
                action=action,
                pose_index=k,
                pose_source=pose.source,
                pose_frame=pose.frame,
                body_pose=body_pose,
                frames=tuple(frames),
                spec_hash=spec_hash({**common, **factors}),
                frame_hashes=frame_hashes(s, {**common, **person}, frames),
            )
        )
    if not s.empty_scenes:
        return plans
    return plans + plan_empty_shards(config, empty_scene_repeats(s.empty_scene_share, person_rigs(s, sample)))


def frame_hashes(syndor: SyndorConfig, shard: dict[str, Any], frames: Sequence[ShardFrame]) -> tuple[str, ...]:
    """Each frame's spec hash: what its shard's hash holds but the other frames (`shard`), its camera and its light.
    A frame whose hash a shard's marker recorded, with its files in place, is not rendered again."""
    base = spec_hash(shard)
    lights = {name: to_json(lighting_spec(syndor, name)) for name in dict.fromkeys(f.lighting for f in frames)}
    return tuple(spec_hash([base, list(f), lights[f.lighting]]) for f in frames)


def person_rigs(syndor: SyndorConfig, sample: sampling.Sample) -> int:
    """The most person frames of one (scene, lighting) in the sample, in rig-fulls (every camera once), rounded
    up: what an empty shard's frames are weighed against."""
    per_cell = Counter((f.scene, f.lighting) for f in sample.frames)
    cameras = len(zones(syndor)) * len(syndor.rig.azimuths_deg) * len(syndor.rig.elevations_deg)
    return math.ceil(max(per_cell.values(), default=0) / cameras)


def rig_frames(syndor: SyndorConfig, lighting: str) -> tuple[ShardFrame, ...]:
    """Every camera of the rig under one lighting."""
    return tuple(
        ShardFrame(lighting, zone, float(az), float(el))
        for zone in zones(syndor)
        for az in syndor.rig.azimuths_deg
        for el in syndor.rig.elevations_deg
    )


def empty_scene_repeats(share: float | None, person_shards: int) -> int:
    """The least number r ≥ 1 of empty shards per (scene, lighting) whose frames make at least `share`
    of that (scene, lighting)'s frames next to `person_shards` rig-fulls of person frames (one person,
    one lighting, every camera: the full factorial's count; a sample holds fewer); 1 when `share` is None.

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
        frames = rig_frames(s, lighting)
        scene_seed = item_seed(config.seed, "empty-scene", shard_id) if k else None
        extra = {"repeat": k, "scene_seed": scene_seed} if k else {}
        shard = {**common, "scene": scene, "lighting": lighting, **extra}
        plans.append(
            ShardPlan(
                shard_id=shard_id,
                scene=scene,
                texture_id=None,
                action=EMPTY_ACTION,
                pose_index=k,
                pose_source=EMPTY_ACTION,
                pose_frame=None,
                body_pose=(),
                frames=frames,
                spec_hash=spec_hash({**shard, "light": to_json(lighting_spec(s, lighting))}),
                empty_scene=True,
                scene_seed=scene_seed,
                frame_hashes=frame_hashes(s, shard, frames),
            )
        )
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


def frame_paths(
    texture_id: int | None,
    action: str,
    scene: str,
    lighting: str,
    pose_index: int,
    cam: camera_rig.RigCamera,
    ext: str = ".jpg",
) -> dict[str, str]:
    """Released names of one frame, relative to `<out>/syndor/`.

    `texture_id` None is an empty-scene frame: `SMPLitex_texture_none_empty_{scene}_{lighting}_{radius}`
    (`action` is not used). A person's texture slot is always five digits, so the two never collide.
    """
    radius = radius_label(cam.distance_m)
    person = "none_empty" if texture_id is None else f"{texture_id:05d}_{action}"
    source_dir = f"images/SMPLitex_texture_{person}_{scene}_{lighting}_{radius}"
    img_name = (
        f"frame0001_cam{cam.cam_index:03d}_r{int(cam.distance_m)}_phi{cam.azimuth_deg:g}_theta{cam.elevation_deg:g}"
    )
    pose = f"pose{pose_index:03d}"
    return {
        "source_dir": source_dir,
        "img_name": f"{img_name}{ext}",
        "img_path": f"{source_dir}/{pose}/raw_images/{img_name}{ext}",
        "mask_path": f"{source_dir}/{pose}/masks/{img_name}.png",
    }
