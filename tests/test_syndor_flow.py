"""The syndor render stage end to end: index coverage, calibration, reruns, a killed worker."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from benchfoundry.flows.config import load_config
from benchfoundry.tasks import render_client

pytestmark = pytest.mark.blender

# 160×90 with an 8.4 mm lens: 40 and 25 px/m are 6.3 and 10.1 m away, the whole person in frame.
TINY = [
    "runner.max_workers=1", "runner.retry_delay_s=0", "runner.task_retries=2",
    "syndor.camera.resolution_w=160", "syndor.camera.resolution_h=90", "syndor.camera.focal_mm=8.4",
    "syndor.zones_ppm={near: 40, far: 25}", "syndor.scenes=[field]", "syndor.lightings=[noon_north, night]",
    "syndor.poses.actions=[walking, kicking]", "syndor.textures.ids=[3]", "syndor.textures.size=64",
    "syndor.rig.azimuths_deg=[0, 180]", "syndor.rig.elevations_deg=[0, 45]",
    "syndor.render.samples=2", "syndor.render.denoise=false", "syndor.render.max_bounces=2",
    "odi.enabled=false", "viewspatial.enabled=false",
]


def _build(out: Path, extra: list[str] = ()) -> dict:
    from benchfoundry.flows.build import build

    return build(load_config(None, [*TINY, *extra]), str(out), ["syndor"])


def _kill_first_worker_mid_shard(out: Path, killed: list[int]) -> None:
    """Kill the worker as soon as the first frame of a render shard is on disk."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if any((out / "syndor" / "render" / "_tmp").glob("*/0000.*")):
            pids = render_client.live_worker_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
        time.sleep(0.02)


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory, prefect_server: None) -> tuple[Path, dict, list[int]]:
    out = tmp_path_factory.mktemp("syndor")
    killed: list[int] = []
    watcher = threading.Thread(target=_kill_first_worker_mid_shard, args=(out, killed), daemon=True)
    watcher.start()
    record = _build(out)
    watcher.join(5)
    return out, record, killed


def test_index_has_every_combination_once(first_build: tuple[Path, dict, list[int]]) -> None:
    out, record, killed = first_build
    assert killed, "the watcher did not catch a worker mid-shard"
    outcome = record["benchmarks"]["syndor"]
    assert outcome["status"] == "built", outcome
    index = pd.read_parquet(outcome["stages"]["render"]["manifest"])
    keys = ["scene", "smplx_texture", "action", "lighting", "zone", "azimuth", "elevation"]
    expected = set(itertools.product(["field"], ["SMPLitex_texture_00003"], ["walking", "kicking"],
                                     ["noon_north", "night"], ["near", "far"], [0.0, 180.0], [0.0, 45.0]))
    assert len(index) == len(expected)
    assert set(map(tuple, index[keys].itertuples(index=False))) == expected
    assert not index["img_path"].duplicated().any()
    assert outcome["stages"]["render"]["frames_rendered"] == len(expected)
    for row in index.itertuples():
        assert row.img_path == f"{row.source_dir}/pose{row.pose:03d}/raw_images/{row.img_name}" and row.pose == 0
        assert f"_cam{int(row.azimuth // 45) * 4 + int(row.elevation // 22.5):03d}_" in row.img_name
        assert (out / "syndor" / row.img_path).is_file()
        assert (np.array(Image.open(out / "syndor" / row.mask_path)) > 0).any(), row.mask_path
    assert index["nv_path"].isna().all() and index["human_discernable"].isna().all()
    assert set(index["measured_ppm"].round(6)) == {
        round(d["measured_ppm"], 6) for d in outcome["calibration"]["distances"]}


def test_calibration_in_build_json(first_build: tuple[Path, dict, list[int]]) -> None:
    out, _, _ = first_build
    recorded = json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]["calibration"]
    assert recorded["passed"]
    for row in recorded["distances"]:
        assert row["whole_in_frame"]
        # independent: ±2% of the target, or 1 px of the person's height
        err_px = abs(row["mask_height_px"] - row["target_ppm"] * row["body_height_m"])
        assert abs(row["measured_ppm"] / row["target_ppm"] - 1) <= 0.02 or err_px <= 1.0
    assert (out / recorded["plot"]).stat().st_size > 1000


def test_rerun_renders_nothing_and_new_lighting_renders_only_its_shards(
        first_build: tuple[Path, dict, list[int]]) -> None:
    out, _, _ = first_build
    manifest = out / "syndor" / "render" / "manifest.parquet"
    before = pd.read_parquet(manifest)
    again = _build(out)["benchmarks"]["syndor"]["stages"]["render"]
    assert again["frames_rendered"] == 0 and again["shards_rendered"] == 0
    pd.testing.assert_frame_equal(pd.read_parquet(manifest), before)
    more = _build(out, ["syndor.lightings=[noon_north, night, evening_west]"])["benchmarks"]["syndor"]
    render = more["stages"]["render"]
    assert render["shards_rendered"] == 2 and render["frames_rendered"] == 2 * 2 * 2 * 2
    index = pd.read_parquet(manifest)
    assert len(index) == len(before) * 3 // 2
    assert not index["img_path"].duplicated().any()
    assert set(index["lighting"]) == {"noon_north", "night", "evening_west"}
