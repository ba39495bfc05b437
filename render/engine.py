"""Cycles settings of a render spec (`EngineSettings`) and the GPU devices a worker may use
(render/worker_env.py: `BENCHFOUNDRY_GPU_INDEX`)."""

from __future__ import annotations

import os
from typing import Any

import bpy

from benchfoundry.core.render_spec import EngineSettings
from benchfoundry.render.worker_env import devices_to_use, gpu_index


def apply_engine(scene: Any, engine: EngineSettings, seed: int | None = None) -> None:
    """Cycles on the configured device, samples, adaptive sampling, denoiser (OpenImageDenoise with the albedo and
    normal passes, prefilter and quality as set), bounces, threads; display-referred output; no stamps (no
    date or timing metadata: same input, same bytes); `seed` when given."""
    scene.render.engine = "CYCLES"
    if engine.persistent_data:
        scene.render.use_persistent_data = True  # keep BVH, shaders and world map between frames
    for name in dir(scene.render):
        if name.startswith("use_stamp"):
            setattr(scene.render, name, False)
    # Pinned, not left to Blender's factory default: the frames are the camera's display-referred
    # output (AgX tone curve, sRGB display), which the night-vision chain linearises with inverse sRGB.
    scene.display_settings.display_device = "sRGB"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "None"
    scene.view_settings.gamma = 1.0
    cycles = scene.cycles
    if engine.device == "CPU":
        cycles.device = "CPU"
    else:  # preferences are reset with the file: enable the devices every time
        enable_gpu(engine.device)
        cycles.device = "GPU"
    cycles.samples = engine.samples
    if seed is not None:
        cycles.seed = seed
    cycles.use_adaptive_sampling = engine.adaptive_threshold > 0
    if engine.adaptive_threshold > 0:
        cycles.adaptive_threshold = engine.adaptive_threshold
        cycles.adaptive_min_samples = 0  # Blender's automatic minimum for the threshold
    set_denoiser(cycles, engine.denoise, engine.denoise_prefilter, engine.denoise_quality)
    cycles.max_bounces = engine.max_bounces
    cycles.use_animated_seed = False
    if engine.threads:
        scene.render.threads_mode = "FIXED"
        scene.render.threads = engine.threads


def set_denoiser(cycles: Any, on: bool, prefilter: str, quality: str) -> None:
    """OpenImageDenoise on (or off) with the albedo and normal passes, its prefilter and network quality."""
    cycles.use_denoising = on
    cycles.denoiser = "OPENIMAGEDENOISE"
    cycles.denoising_input_passes = "RGB_ALBEDO_NORMAL"
    cycles.denoising_prefilter = prefilter
    cycles.denoising_quality = quality


def enable_gpu(device_type: str) -> None:
    """Enable the devices of `device_type` this worker may use (all, or its slot's)."""
    prefs = bpy.context.preferences.addons["cycles"].preferences
    prefs.compute_device_type = device_type
    prefs.get_devices()
    devices = list(prefs.devices)
    use = devices_to_use([d.type for d in devices], device_type, gpu_index(os.environ))
    for device, on in zip(devices, use):
        device.use = on
