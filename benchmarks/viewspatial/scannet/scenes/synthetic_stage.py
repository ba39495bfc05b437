"""The synthetic scan stage: one render task per embedded scan
(benchmarks/viewspatial/scannet/scenes/synthetic_scan.py), run
when no `viewspatial.scannet_root` is given, its rooms drawn from `viewspatial.synthetic.asset_library` where one is
named; a store marker records each scan made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.assets.asset_library import read_library
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.scannet.scenes.library_room import ASSET_LIBRARY_FIELD, FURNISH_VERSION
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_room import (
    ROOM_VERSION,
    SYNTHETIC_SCENES,
    SyntheticScene,
)
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    RenderSettings,
    floor_finish,
    make_synthetic_scan,
)
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import SURFACE_VERSION
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "synthetic"


def synthetic_root(out: str | Path) -> Path:
    """The synthetic ScanNet root: `<out>/viewspatial/synthetic/` (split lists, label map, scans)."""
    return Path(out) / BENCHMARK / STAGE


@shard_task(resource="render", name="viewspatial-synthetic")
def synthetic_task(out: str, shard: SyntheticScene | str, config: BuildConfig) -> dict[str, Any]:
    """Render and write the synthetic scan `shard` (a split's name: its first) unless its marker says it is made
    with these settings."""
    synthetic = config.viewspatial.synthetic
    settings: dict[str, Any] = synthetic.model_dump(exclude={"layout", "frame_step", "scans", "asset_library"})
    settings["seed"] = config.seed
    library = None
    if synthetic.asset_library is not None:
        library = read_library(synthetic.asset_library, field=ASSET_LIBRARY_FIELD)
    store = StageStore(out, BENCHMARK, STAGE)
    scene = SyntheticScene(SYNTHETIC_SCENES[shard][0], shard, 0) if isinstance(shard, str) else shard
    scene_id = scene.scene_id
    # a split's first scan has the hash it would have as the split's only one
    where = [scene.split] if scene.index == 0 else [scene.split, scene.index, floor_finish(scene_id)]
    if library is not None:
        where += [FURNISH_VERSION, sorted(asset.sha256 for asset in library.assets)]
    h = spec_hash([ROOM_VERSION, SURFACE_VERSION, *where, settings])
    if not store.is_done(scene_id, h):
        summary = make_synthetic_scan(synthetic_root(out), scene, RenderSettings(**settings), library)
        render_s = summary.pop("render_s")
        store.write_shard(scene_id, pd.DataFrame([summary]), spec_hash=h, info={"render_s": render_s})
    return {"scene_id": scene_id, "render_s": float(store.marker(scene_id)["render_s"])}
