"""The synthetic ScanNet room's Blender worker: the same spec gives the same bytes; bad frame files name the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    RenderSettings,
    camera_walk,
    frame_paths,
    render_spec,
    rendered_frames,
    room_mesh,
    run_render_worker,
    synthetic_room,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import ScanFormatError
from benchfoundry.core.render_spec import write_spec


@pytest.mark.blender
def test_two_renders_of_one_spec_are_byte_identical(tmp_path: Path) -> None:
    room = synthetic_room("scene0999_00")
    settings = RenderSettings(width=64, height=48, samples=2, frames=2)
    walk = camera_walk(room, 2, ())
    outputs = []
    for name in ("a", "b"):
        spec = write_spec(
            tmp_path / f"{name}.json", render_spec(room, room_mesh(room), walk, settings, tmp_path / name)
        )
        run_render_worker(spec)
        outputs.append({p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())})
    assert sorted(outputs[0]) == [
        "frame-000000.color.png",
        "frame-000000.depth.npy",
        "frame-000001.color.png",
        "frame-000001.depth.npy",
    ]
    assert outputs[0] == outputs[1]


def _write_frames(render_dir: Path, n: int) -> None:
    """`n` worker frames (a grey colour PNG and a uint16 depth `.npy`) without Blender."""
    render_dir.mkdir(parents=True, exist_ok=True)
    for fid in range(n):
        color, depth = frame_paths(render_dir, fid)
        cv2.imwrite(str(color), np.full((6, 8, 3), 40 * fid, np.uint8))
        np.save(depth, np.full((3, 4), 1000 + fid, np.uint16))


@pytest.mark.parametrize("bad, cut", [("color", True), ("depth", True), ("depth", False)])
def test_a_bad_rendered_frame_names_its_file(tmp_path: Path, bad: str, cut: bool) -> None:
    _write_frames(tmp_path, 3)
    poses = [np.eye(4)] * 3
    assert [f.depth_mm[0, 0] for f in rendered_frames(tmp_path, poses)] == [1000, 1001, 1002]
    path = frame_paths(tmp_path, 1)[0 if bad == "color" else 1]
    if cut:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        path.unlink()
    frames = rendered_frames(tmp_path, poses)
    assert next(frames).frame_id == 0
    with pytest.raises(ScanFormatError, match=path.name):
        next(frames)
