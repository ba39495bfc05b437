"""The synthetic COCO stage: one render task per split of the embedded person's synthetic set
(benchmarks/viewspatial/coco/synthetic_set.py), run when no COCO split is configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.viewspatial.coco import synthetic_set
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import CocoShard
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "synthetic_coco"


def synthetic_root(out: str | Path) -> Path:
    """Where the synthetic set is written: `<out>/viewspatial/coco_synthetic/<split>/`."""
    return Path(out) / BENCHMARK / "coco_synthetic"


@shard_task(kind="render", name="viewspatial-synthetic-coco", device=lambda c: c.viewspatial.coco.synthetic.device)
def synthetic_coco_task(out: str, shard: str, config: BuildConfig) -> dict[str, Any]:
    """Render and write the split `shard` unless its store marker says it is made with these settings."""
    cfg, person, seed = config.viewspatial.coco.synthetic, config.person, config.seed
    root = synthetic_root(out)
    store = StageStore(out, BENCHMARK, STAGE)
    h = spec_hash(
        [
            shard,
            cfg.model_dump(mode="json"),
            person.body.model_dump(mode="json"),
            person.textures.model_dump(mode="json"),
            seed,
            CocoShard.version,
            synthetic_set.SET_VERSION,
        ]
    )
    if not (store.is_done(shard, h) and (root / shard / "truth.json").exists()):
        summary = synthetic_set.make_split(root, shard, cfg, person, seed)
        store.write_shard(
            shard,
            pd.DataFrame([{"split": shard, "images": summary["images"]}]),
            spec_hash=h,
            problems=summary["problems"],
            info={"render_s": summary["render_s"]},
        )
    marker = store.marker(shard)
    return {
        "split": shard,
        "images": int(store.shard_rows(shard)["images"][0]),
        "render_s": float(marker["render_s"]),
        "paths": synthetic_set.split_paths(root, shard),
    }
