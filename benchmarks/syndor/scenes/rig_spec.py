"""SynDORBench's render spec: the one place its config, its plan's frames and its person become the render
contract's values (benchfoundry/core/render_spec.py) the worker renders: the lights of the named lightings, the
pinhole camera, the engine settings and the `RigShard` itself."""

from __future__ import annotations

from benchfoundry.benchmarks.syndor.config import SyndorConfig
from benchfoundry.benchmarks.syndor.scenes import lighting as lighting_table
from benchfoundry.benchmarks.syndor.scenes.spec import RigFrame, RigShard
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import DayLight, EngineSettings, Light, NightLight, PersonSpec, PinholeCamera
from benchfoundry.person.prepare import PersonFiles

#: The pass index of the person, whose object-index pass is the mask.
PERSON_PASS_INDEX = 1


def lighting_spec(syndor: SyndorConfig, name: str) -> Light:
    """The light of one of the named lightings (benchmarks/syndor/scenes/lighting.py) with the configured strengths."""
    entry = lighting_table.lighting(name)
    if entry.is_night:
        night = syndor.lighting.night
        return NightLight(
            moon_strength=night.moon_strength,
            moon_elevation_deg=night.moon_elevation_deg,
            moon_bearing_deg=night.moon_azimuth_deg,
            sky_color=tuple(night.sky_color),
            exposure=night.exposure,
        )
    day = syndor.lighting.day
    return DayLight(
        sun_elevation_deg=day.sun_elevation_deg[entry.family],
        sun_bearing_deg=entry.sun_bearing_deg,
        sun_strength=day.sun_strength,
        sky_strength=day.sky_strength,
        exposure=day.exposure[entry.family],
    )


def pinhole_camera(syndor: SyndorConfig) -> PinholeCamera:
    spec = syndor.camera.spec()
    return PinholeCamera(
        focal_mm=spec.focal_mm,
        sensor_height_mm=spec.sensor_height_mm,
        resolution_w=syndor.camera.resolution_w,
        resolution_h=spec.resolution_h,
    )


def engine_settings(syndor: SyndorConfig) -> EngineSettings:
    r = syndor.render
    return EngineSettings(
        device=r.device,
        samples=r.samples,
        denoise=r.denoise,
        max_bounces=r.max_bounces,
        denoise_prefilter=r.denoise_prefilter,
        denoise_quality=r.denoise_quality,
        threads=r.threads,
        image_format=r.image_format,
        jpeg_quality=r.jpeg_quality,
        persistent_data=True,
    )


def rig_shard(
    config: BuildConfig, person: PersonFiles | None, scene: str, frames: list[RigFrame], scene_seed: int | None = None
) -> RigShard:
    """The worker's input (render/worker.py); `person` None renders the scene without one; the
    scene's props are placed by `scene_seed` (None: the build seed)."""
    s = config.syndor
    return RigShard(
        scene=scene,
        scene_seed=config.seed if scene_seed is None else scene_seed,
        person=None
        if person is None
        else PersonSpec(
            mesh=str(person.mesh_npz),
            texture=str(person.texture_png),
            pass_index=PERSON_PASS_INDEX,
            mesh_sha=person.mesh_sha,
        ),
        mask_index=PERSON_PASS_INDEX,
        camera=pinhole_camera(s),
        engine=engine_settings(s),
        frames=tuple(frames),
    )
