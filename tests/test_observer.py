"""The detector observer (OpenCV's HOG people detector): box geometry, no person in an empty or blank frame, and a
rendered person seen by day and lost when the frame is dark."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchfoundry.benchmarks.syndor.discern_config import LabelConfig
from benchfoundry.benchmarks.syndor.stages import observer
from benchfoundry.configs.loader import load_config
from benchfoundry.core.store import StageStore


def test_mask_box_and_iou_are_pixel_geometry() -> None:
    mask = np.zeros((40, 60), bool)
    mask[10:30, 20:25] = True
    assert observer.mask_box(mask) == (20.0, 10.0, 25.0, 30.0)
    assert observer.mask_box(np.zeros((4, 4), bool)) is None
    boxes = np.array([[20, 10, 25, 30], [20, 10, 25, 20], [0, 0, 5, 5], [15, 10, 25, 30]], dtype=float)
    # the same box, its top half, a disjoint box, a box twice as wide
    assert observer.box_iou(boxes, (20.0, 10.0, 25.0, 30.0)).tolist() == pytest.approx([1.0, 0.5, 0.0, 0.5])
    assert observer.box_iou(np.zeros((0, 4)), (0.0, 0.0, 1.0, 1.0)).shape == (0,)


def test_no_person_in_an_empty_mask_or_a_blank_frame() -> None:
    config = LabelConfig()
    grey = np.full((180, 320, 3), 120, np.uint8)
    mask = np.zeros((180, 320), bool)
    assert observer.look(grey, mask, config) == {"detector_seen": 0.0, "detector_iou": 0.0}
    mask[40:140, 150:170] = True
    assert observer.look(grey, mask, config) == {"detector_seen": 0.0, "detector_iou": 0.0}


@pytest.mark.blender
def test_rendered_person_is_seen_by_day_and_lost_in_the_dark(tmp_path: Path) -> None:
    """One 640×360 noon frame of the Anny person at the Observation distance: the detector finds a box on the
    person; the same frame scaled down to a few grey levels (an unprocessed dark frame) shows it nothing."""
    from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
    from benchfoundry.pipeline import render_client

    config = load_config(
        None,
        [
            "syndor.camera.resolution_w=640",
            "syndor.camera.resolution_h=360",
            "syndor.camera.focal_mm=8.4",
            "syndor.zones_ppm={observation: 93.75}",
            "syndor.rig.azimuths_deg=[0]",
            "syndor.rig.elevations_deg=[0]",
            "syndor.scenes=[desert]",
            "syndor.lightings=[noon_south]",
            "syndor.poses.actions=[walking]",
            "syndor.render.samples=8",
            "syndor.render.denoise=false",
            "person.textures.size=128",
        ],
    )
    (plan,) = render_plan.plan_shards(config)
    try:
        render_stage.render_shard(config, str(tmp_path), plan)
    finally:
        render_client.close_all()
    (row,) = StageStore(tmp_path, "syndor", "render").shard_rows(plan.shard_id).to_dict("records")
    rgb = np.array(Image.open(tmp_path / "syndor" / row["img_path"]).convert("RGB"))
    mask = np.array(Image.open(tmp_path / "syndor" / row["mask_path"])) > 0
    section = LabelConfig()
    seen = observer.look(rgb, mask, section)
    assert seen["detector_seen"] == 1.0 and seen["detector_iou"] >= section.detector_min_iou, seen
    dark = (rgb.astype(float) * 0.02).round().astype(np.uint8)  # at most 5 grey levels left
    assert observer.look(dark, mask, section)["detector_seen"] == 0.0
