"""The synthetic ScanNet room's Blender worker: the same spec gives the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchfoundry.tasks.scannet_synth import RenderSettings, camera_walk, render_spec, room_mesh, run_render_worker, synthetic_room
from benchfoundry.tasks.store import write_json_atomic


@pytest.mark.blender
def test_two_renders_of_one_spec_are_byte_identical(tmp_path: Path) -> None:
    room = synthetic_room("scene0999_00")
    settings = RenderSettings(width=64, height=48, samples=2, frames=2)
    spec = write_json_atomic(tmp_path / "spec.json", render_spec(room, room_mesh(room), camera_walk(room, 2, ()), settings))
    outputs = []
    for name in ("a", "b"):
        run_render_worker(spec, tmp_path / name)
        outputs.append({p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())})
    assert sorted(outputs[0]) == ["frame-000000.color.png", "frame-000000.depth.npy",
                                  "frame-000001.color.png", "frame-000001.depth.npy"]
    assert outputs[0] == outputs[1]
