"""The render worker on a box of exactly known height: calibration, masks, determinism, crashes.

The box (0.4 × 0.04 × 1.75 m, feet on z = 0) stands in for the person; the expected pixel
heights come from plain trigonometry, not from the rig code.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchfoundry.benchmarks.syndor.scenes import camera_rig, dori
from benchfoundry.benchmarks.syndor.scenes.spec import RigFrame, RigShard
from benchfoundry.benchmarks.syndor.stages import calibration_stage
from benchfoundry.core.camera import blender_camera_to_world
from benchfoundry.core.render_spec import (
    DayLight,
    EngineSettings,
    NightLight,
    PersonSpec,
    PinholeCamera,
    read_spec,
    write_spec,
)
from benchfoundry.pipeline import render_client

pytestmark = pytest.mark.blender

HEIGHT, HALF_DEPTH = 1.75, 0.02
CALIB = dori.DoriOptics(resolution_h=360, focal_mm=2.8, sensor_height_mm=3.0)
TINY = dori.DoriOptics(resolution_h=90, focal_mm=2.8, sensor_height_mm=3.0)
DAY = DayLight(sun_elevation_deg=40.0, sun_bearing_deg=180.0, sun_strength=3.0, sky_strength=0.03, exposure=0.0)
NIGHT = NightLight(
    moon_elevation_deg=35.0, moon_bearing_deg=200.0, moon_strength=0.01, sky_color=(0.004, 0.005, 0.01), exposure=0.0
)
SETTINGS = EngineSettings(
    device="CPU", samples=2, denoise=False, max_bounces=2, image_format="PNG", persistent_data=True
)


def _box(path: Path) -> np.ndarray:
    xs, ys, zs = (-0.2, 0.2), (-HALF_DEPTH, HALF_DEPTH), (0.0, HEIGHT)
    v = np.array([[x, y, z] for x in xs for y in ys for z in zs], np.float32)
    f = np.array(
        [
            [0, 1, 3],
            [0, 3, 2],
            [4, 6, 7],
            [4, 7, 5],
            [0, 4, 5],
            [0, 5, 1],
            [2, 3, 7],
            [2, 7, 6],
            [0, 2, 6],
            [0, 6, 4],
            [1, 5, 7],
            [1, 7, 3],
        ],
        np.int32,
    )
    uv = np.tile(np.array([[0, 0], [1, 0], [1, 1]], np.float32), (len(f), 1, 1))
    np.savez(path, vertices=v, faces=f, uv=uv)
    return v


def _spec(tmp: Path, spec: dori.DoriOptics, width: int, frames: list[RigFrame]) -> RigShard:
    return RigShard(
        scene="field",
        scene_seed=0,
        person=PersonSpec(mesh=str(tmp / "box.npz"), texture=str(tmp / "tex.png"), pass_index=1, mesh_sha="box"),
        mask_index=1,
        camera=PinholeCamera(
            focal_mm=spec.focal_mm,
            sensor_height_mm=spec.sensor_height_mm,
            resolution_w=width,
            resolution_h=spec.resolution_h,
        ),
        engine=SETTINGS,
        frames=tuple(frames),
    )


def _frame(tmp: Path, name: str, matrix: np.ndarray, light: DayLight | NightLight = DAY, seed: int = 1) -> RigFrame:
    return RigFrame(
        matrix_world=tuple(map(tuple, np.asarray(matrix).tolist())),
        seed=seed,
        light=light,
        rgb=str(tmp / f"{name}.png"),
        mask=str(tmp / f"{name}_mask.png"),
    )


def _mask(tmp: Path, name: str) -> np.ndarray:
    return np.array(Image.open(tmp / f"{name}_mask.png")) > 0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One worker renders calibration frames (640×360) and tiny frames (160×90) for every test."""
    tmp = tmp_path_factory.mktemp("render")
    vertices = _box(tmp / "box.npz")
    Image.fromarray(np.full((16, 16, 3), 180, np.uint8)).save(tmp / "tex.png")
    target = camera_rig.aim_point(vertices)
    calib = [
        _frame(tmp, f"calib_{zone}", np.asarray(c.matrix_world))
        for zone, c in zip(
            dori.ZONE_MIDPOINTS_PPM, camera_rig.rig_cameras(CALIB, dori.ZONE_MIDPOINTS_PPM, [0.0], [0.0], target)
        )
    ]
    tiny_cams = camera_rig.rig_cameras(TINY, dori.ZONE_MIDPOINTS_PPM, [0.0, 135.0], [0.0, 67.5], target)
    tiny = [_frame(tmp, f"tiny_{c.zone}_{c.cam_index}", np.asarray(c.matrix_world)) for c in tiny_cams]
    pos = camera_rig.camera_position(target, 5.0, 0.0, 0.0)
    away = blender_camera_to_world(pos, 2 * pos - target)
    extra = [
        _frame(tmp, "away", away),
        _frame(tmp, "again_a", np.asarray(tiny_cams[0].matrix_world), seed=7),
        _frame(tmp, "again_b", np.asarray(tiny_cams[0].matrix_world), seed=7),
        _frame(tmp, "night", np.asarray(tiny_cams[0].matrix_world), NIGHT),
    ]
    write_spec(tmp / "calib.json", _spec(tmp, CALIB, 640, calib))
    write_spec(tmp / "tiny.json", _spec(tmp, TINY, 160, tiny + extra))
    for spec in ("calib.json", "tiny.json"):
        reply = render_client.render_spec(tmp / spec, timeout_s=600, shards_per_worker=4)
        assert reply["ok"]
    return tmp


@pytest.mark.parametrize("zone", list(dori.ZONE_MIDPOINTS_PPM))
def test_calibration_at_each_distance(rendered: Path, zone: str) -> None:
    ppm = dori.ZONE_MIDPOINTS_PPM[zone]
    mask = _mask(rendered, f"calib_{zone}")
    # independent pinhole: the camera is level with the box centre, the front face is HALF_DEPTH nearer
    d = CALIB.resolution_h * CALIB.focal_mm / (ppm * CALIB.sensor_height_mm)
    f_px = (CALIB.resolution_h / 2) / math.tan(math.atan(CALIB.sensor_height_mm / (2 * CALIB.focal_mm)))
    expected_px = 2 * f_px * (HEIGHT / 2) / (d - HALF_DEPTH)
    rows = np.flatnonzero(mask.any(axis=1))
    assert abs((rows[-1] - rows[0] + 1) - expected_px) <= 1.0
    measured = calibration_stage.measure_ppm(mask, HEIGHT, ppm)
    assert measured["whole_in_frame"] and measured["within_tolerance"], measured
    # the box is centred horizontally: columns symmetric about the image centre
    cols = np.flatnonzero(mask.any(axis=0))
    assert abs((cols[0] + cols[-1] + 1) / 2 - 320) <= 1.0


def test_masks_non_empty_in_view_and_empty_looking_away(rendered: Path) -> None:
    tiny = sorted(p.name[:-9] for p in rendered.glob("tiny_*_mask.png"))
    assert len(tiny) == 3 * 2 * 2
    for name in tiny:
        assert _mask(rendered, name).any(), name
    assert not _mask(rendered, "away").any()
    assert np.array(Image.open(rendered / "away.png")).mean() > 20  # it did render the scene


def test_night_is_dark(rendered: Path) -> None:
    day = np.array(Image.open(rendered / "again_a.png")).astype(float).mean()
    night = np.array(Image.open(rendered / "night.png")).astype(float).mean()
    assert night < day / 4
    assert np.array_equal(_mask(rendered, "night"), _mask(rendered, "again_a"))


def test_same_seed_same_bytes(rendered: Path) -> None:
    assert (rendered / "again_a.png").read_bytes() == (rendered / "again_b.png").read_bytes()
    assert (rendered / "again_a_mask.png").read_bytes() == (rendered / "again_b_mask.png").read_bytes()


def _roughness(path: Path) -> float:
    """Mean absolute difference of neighbouring pixels: pixel noise raises it, a denoiser lowers it."""
    image = np.array(Image.open(path)).astype(float)
    return float(np.abs(np.diff(image, axis=0)).mean() + np.abs(np.diff(image, axis=1)).mean())


def test_the_denoiser_and_adaptive_sampling_reach_cycles(rendered: Path, tmp_path: Path) -> None:
    """The same 1-sample frame raw, denoised (fast prefilter) and with adaptive sampling on: the denoised one is
    smoother; the object-index mask is the same in all three (it is the first sample's, never denoised)."""
    base = read_spec(rendered / "tiny.json")
    again = next(f for f in base.frames if Path(f.rgb).name == "again_a.png")
    engines = {
        "raw": replace(SETTINGS, samples=1),
        "oidn": replace(SETTINGS, samples=1, denoise=True, denoise_prefilter="FAST", denoise_quality="FAST"),
        "adaptive": replace(SETTINGS, samples=1, adaptive_threshold=0.5),
    }
    for name, engine in engines.items():
        frame = replace(again, rgb=str(tmp_path / f"{name}.png"), mask=str(tmp_path / f"{name}_mask.png"))
        spec = write_spec(tmp_path / f"{name}.json", replace(base, engine=engine, frames=(frame,)))
        assert render_client.render_spec(spec, timeout_s=600, shards_per_worker=8)["ok"]
    assert _roughness(tmp_path / "oidn.png") < 0.8 * _roughness(tmp_path / "raw.png")
    assert np.array_equal(_mask(tmp_path, "oidn"), _mask(tmp_path, "raw"))
    assert np.array_equal(_mask(tmp_path, "adaptive"), _mask(tmp_path, "raw"))


def test_killed_worker_fails_the_shard_and_a_retry_completes(rendered: Path, tmp_path: Path) -> None:
    target = np.array([0.0, 0.0, HEIGHT / 2])
    zone = next(iter(dori.ZONE_MIDPOINTS_PPM))
    cams = camera_rig.rig_cameras(
        TINY, {zone: dori.ZONE_MIDPOINTS_PPM[zone]}, [45.0 * i for i in range(8)], [0.0], target
    )
    frames = [_frame(tmp_path, f"f{i}", np.asarray(c.matrix_world)) for i, c in enumerate(cams)]
    spec = _spec(rendered, TINY, 160, frames)
    write_spec(tmp_path / "spec.json", spec)
    before = set(render_client.live_worker_pids())
    errors: list[BaseException] = []

    def run() -> None:
        try:
            render_client.render_spec(tmp_path / "spec.json", timeout_s=600, shards_per_worker=4)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 300
    while not (tmp_path / "f0.png").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    victims = set(render_client.live_worker_pids()) - before
    assert len(victims) == 1
    os.kill(victims.pop(), signal.SIGKILL)
    thread.join(300)
    assert errors and isinstance(errors[0], render_client.RenderError)
    reply = render_client.render_spec(tmp_path / "spec.json", timeout_s=600, shards_per_worker=4)
    assert reply["frames"] == 8
    assert all((tmp_path / f"f{i}_mask.png").exists() for i in range(8))
    # a fresh process renders the same bytes as the module's worker did for this camera and seed
    assert (tmp_path / "f0.png").read_bytes() == (rendered / f"tiny_{zone}_0.png").read_bytes()


def _one_frame_spec(rendered: Path, folder: Path, name: str = "one") -> Path:
    """A shard of one day frame of the box at the near distance: what the worker-lifetime tests send."""
    target = camera_rig.aim_point(np.load(rendered / "box.npz")["vertices"])
    matrix = np.asarray(camera_rig.rig_cameras(TINY, {"near": 187.5}, [0.0], [0.0], target)[0].matrix_world)
    return write_spec(folder / f"{name}.json", _spec(rendered, TINY, 160, [_frame(folder, name, matrix)]))


def test_shard_over_its_timeout_fails_and_the_worker_is_replaced(rendered: Path, tmp_path: Path) -> None:
    render_client.render_spec(_one_frame_spec(rendered, tmp_path), timeout_s=600, shards_per_worker=4)  # a worker
    before = set(render_client.live_worker_pids())
    with pytest.raises(render_client.RenderError, match="timed out"):
        render_client.render_spec(rendered / "calib.json", timeout_s=0.01, shards_per_worker=4)
    assert before and not set(render_client.live_worker_pids()) & before  # killed, not left running


def test_worker_is_replaced_after_shards_per_worker_shards(rendered: Path, tmp_path: Path) -> None:
    """Shards 1–2 run on one process, shard 3 on a fresh one (shards_per_worker=2)."""
    render_client.close_all()
    pids = []
    for i in range(3):
        spec = _one_frame_spec(rendered, tmp_path, f"shard{i}")
        assert render_client.render_spec(spec, timeout_s=600, shards_per_worker=2)["ok"]
        (pid,) = render_client.live_worker_pids()
        pids.append(pid)
    assert pids[0] == pids[1] != pids[2]
    assert (tmp_path / "shard0.png").read_bytes() == (tmp_path / "shard2.png").read_bytes()


def test_gpu_choice_pins_one_device_of_the_type_or_uses_all() -> None:
    from benchfoundry.render.worker_env import devices_to_use, gpu_index

    types = ["CPU", "OPTIX", "CUDA", "OPTIX"]
    assert devices_to_use(types, "OPTIX", None) == [False, True, False, True]
    assert devices_to_use(types, "OPTIX", 0) == [False, True, False, False]
    assert devices_to_use(types, "OPTIX", 1) == [False, False, False, True]
    assert devices_to_use(types, "OPTIX", 2) == devices_to_use(types, "OPTIX", 0)  # more slots than GPUs: round robin
    with pytest.raises(RuntimeError, match="no such device"):
        devices_to_use(["CPU"], "OPTIX", 0)
    assert gpu_index({}) is None and gpu_index({"BENCHFOUNDRY_GPU_INDEX": "3"}) == 3


def test_gpu_slot_goes_to_the_worker_only_when_asked() -> None:
    assert "BENCHFOUNDRY_GPU_INDEX" not in render_client.worker_env({"PATH": "/bin"}, 2)
    assert render_client.worker_env({"BENCHFOUNDRY_GPU_PER_WORKER": "1"}, 2)["BENCHFOUNDRY_GPU_INDEX"] == "2"
    given = {"BENCHFOUNDRY_GPU_PER_WORKER": "1", "BENCHFOUNDRY_GPU_INDEX": "0"}
    assert render_client.worker_env(given, 2)["BENCHFOUNDRY_GPU_INDEX"] == "0"  # a process pinned by hand stays


def test_a_slot_is_freed_when_its_thread_ends() -> None:
    ended = threading.Thread(target=lambda: None)
    ended.start()
    ended.join()
    assert render_client.free_slot({}) == 0
    assert render_client.free_slot({0: threading.current_thread(), 1: ended}) == 1
    assert render_client.free_slot({0: threading.current_thread()}) == 1


def test_requests_end_at_end_of_file_or_when_idle() -> None:
    from benchfoundry.render.worker import requests
    from benchfoundry.render.worker_env import idle_seconds

    read, write = os.pipe()
    try:
        os.write(write, b'{"op": "render"}\n{"op": "quit"}\n')
        assert list(requests(read, 0.05)) == ['{"op": "render"}', '{"op": "quit"}']  # the pipe stays open: idle end
        os.write(write, b"last\n")
        os.close(write)
        write = -1
        assert list(requests(read, None)) == ["last"]
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    assert idle_seconds({}) == 600 and idle_seconds({"BENCHFOUNDRY_RENDER_IDLE_S": "0"}) is None


def test_an_idle_worker_quits_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHFOUNDRY_RENDER_IDLE_S", "1")
    idle = render_client.RenderWorker()
    assert idle.proc.wait(timeout=120) == 0  # no request came: it quit, cleanly
    idle.close()
    assert idle.pid not in render_client.live_worker_pids()


def test_gpu_slot_offset_shifts_the_device_of_every_slot() -> None:
    assert [render_client.slot_device(slot, {}) for slot in range(3)] == [0, 1, 2]
    offset = {"BENCHFOUNDRY_GPU_SLOT_OFFSET": " 4 "}
    assert [render_client.slot_device(slot, offset) for slot in range(3)] == [4, 5, 6]
    env = render_client.worker_env({"BENCHFOUNDRY_GPU_PER_WORKER": "1", **offset}, 1)
    assert env["BENCHFOUNDRY_GPU_INDEX"] == "5"
    for bad in ("two", "-1"):
        with pytest.raises(ValueError, match="BENCHFOUNDRY_GPU_SLOT_OFFSET"):
            render_client.slot_device(0, {"BENCHFOUNDRY_GPU_SLOT_OFFSET": bad})


@pytest.mark.parametrize("idle_s", [0.5, 2.0, 60.0, 600.0])
def test_reuse_stops_before_the_idle_exit(idle_s: float) -> None:
    limit = render_client.reuse_limit_s(idle_s)
    assert idle_s / 2 <= limit < idle_s and idle_s - limit <= render_client.IDLE_MARGIN_S


def test_a_worker_near_its_idle_exit_is_replaced_not_reused(
    rendered: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idle 4 s: reused at once; after 2.5 s (past the client's limit, before the worker's exit) replaced."""
    monkeypatch.setenv("BENCHFOUNDRY_RENDER_IDLE_S", "4")
    render_client.close_all()
    spec = _one_frame_spec(rendered, tmp_path)
    assert render_client.render_spec(spec, timeout_s=600, shards_per_worker=10)["ok"]
    (first,) = render_client.live_worker_pids()
    assert render_client.render_spec(spec, timeout_s=600, shards_per_worker=10)["ok"]
    assert render_client.live_worker_pids() == [first]
    time.sleep(2.5)
    assert render_client.render_spec(spec, timeout_s=600, shards_per_worker=10)["ok"]
    (second,) = render_client.live_worker_pids()
    assert second != first
    render_client.close_all()
