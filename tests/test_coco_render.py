"""Synthetic COCO images rendered with the scene built once per shard (benchmarks/viewspatial/coco/scenes/renderer.py):
an image has the
same bytes whatever was rendered before it in its shard, and its index pass marks the person and each object."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets.poses import UPRIGHT, action_pose, upright_pose
from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoImage, CocoShard
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_geometry import look_at
from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.render_spec import DayLight, EngineSettings, PersonSpec, Primitive, write_spec
from benchfoundry.core.task_clock import task_clock
from benchfoundry.person.prepare import prepare_person
from benchfoundry.pipeline import render_client

pytestmark = pytest.mark.blender

W, H = 96, 128
FLOOR = Primitive("box", (0.0, 0.0, -0.05), (60.0, 60.0, 0.1), 0.0, (0.35, 0.33, 0.3), 0.9, 0.0, 0)


def _object(shape: str, at: np.ndarray, index: int, rgb: tuple[float, float, float]) -> Primitive:
    return Primitive(shape, (float(at[0]), float(at[1]), 0.3), (0.4, 0.4, 0.6), 30.0, rgb, 0.6, 0.0, index)


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> list[CocoImage]:
    """Three images: two people (texture ids 0 and 1), three poses, none to two objects, three suns and views;
    the second image holds a second person beside the first (the third has one again)."""
    cache = tmp_path_factory.mktemp("people")
    person = PersonConfig()
    poses = [
        (0, upright_pose(), UPRIGHT),
        (1, action_pose("walking"), "walking"),
        (0, action_pose("kicking"), "kicking"),
    ]
    colours = [(0.6, 0.05, 0.04), (0.05, 0.12, 0.55), (0.8, 0.8, 0.8)]
    shapes = [(), ("cylinder", "box"), ("box",)]
    other = prepare_person(person, 0, 0, "beside", action_pose("guard_up"), "guard_up", cache)
    beside = PersonSpec(
        mesh=str(other.mesh_npz), texture=str(other.texture_png), pass_index=4, location=(0.9, 0.6, 0.0), yaw_deg=30.0
    )
    made = []
    for k, ((texture, pose, action), kinds) in enumerate(zip(poses, shapes)):
        files = prepare_person(person, 0, texture, f"p{k}", pose, action, cache)
        azimuth = np.radians(40.0 + 110.0 * k)
        toward, across = np.array([np.sin(azimuth), -np.cos(azimuth)]), np.array([np.cos(azimuth), np.sin(azimuth)])
        eye = np.array([*(3.2 * toward), 1.2])
        # objects between the camera and the person, to either side of the line of sight: in view
        parts = tuple(
            _object(shape, 1.3 * toward + (0.45 if j else -0.45) * across, 2 + j, colours[j + k - 1])
            for j, shape in enumerate(kinds)
        )
        camera = look_at(eye, np.array([0.0, 0.0, 0.9]), f=150.0, width=W, height=H)
        made.append(
            CocoImage(
                seed=11 + k,
                camera_matrix=tuple(map(tuple, camera.blender_matrix())),
                focal_mm=camera.f * 24.0 / H,
                parts=(FLOOR, *parts),
                people=(PersonSpec(mesh=str(files.mesh_npz), texture=str(files.texture_png), pass_index=1),)
                + ((beside,) if k == 1 else ()),
                light=DayLight(30.0 + 15 * k, 90.0 + 100 * k, 3.0, 0.3, 0.0),
                image="",
                index_npy="",
            )
        )
    return made


def _render(images: list[CocoImage], folder: Path) -> dict[int, tuple[str, np.ndarray]]:
    """Render the images as one shard; per image seed, the PNG's sha256 and the index pass."""
    folder.mkdir(parents=True)
    placed = [
        replace(im, image=str(folder / f"{im.seed}.png"), index_npy=str(folder / f"{im.seed}.npy")) for im in images
    ]
    engine = EngineSettings(device="CPU", samples=2, denoise=False, max_bounces=2)
    spec = write_spec(folder / "spec.json", CocoShard(W, H, 24.0, engine, tuple(placed)))
    with task_clock() as clock:
        reply = render_client.render_spec(spec, timeout_s=600, shards_per_worker=1)
    render_client.close_all()
    assert reply["frames"] == len(images) and len(reply["frame_seconds"]) == len(images)
    # the worker's frames and CPU seconds count towards the running task
    assert clock.render_frames == len(images) and clock.worker_cpu_s == reply["cpu_seconds"] > 0
    return {im.seed: (hashlib.sha256(Path(im.image).read_bytes()).hexdigest(), np.load(im.index_npy)) for im in placed}


def test_an_image_has_the_same_bytes_whatever_came_before_it_in_the_shard(
    images: list[CocoImage], tmp_path: Path
) -> None:
    forward = _render(images, tmp_path / "forward")
    backward = _render(images[::-1], tmp_path / "backward")
    alone = _render(images[1:2], tmp_path / "alone")
    assert forward.keys() == backward.keys() and len({sha for sha, _ in forward.values()}) == 3
    for seed, (sha, ids) in forward.items():
        assert backward[seed][0] == sha
        np.testing.assert_array_equal(backward[seed][1], ids)
    assert alone[images[1].seed][0] == forward[images[1].seed][0]
    # each image's index pass holds its people and exactly its own objects: none is left from the one before
    for image in images:
        seen = set(np.unique(forward[image.seed][1]).astype(int))
        own = {p.pass_index for p in image.parts[1:]} | {p.pass_index for p in image.people}
        assert seen - {0} == own
