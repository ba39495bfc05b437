"""The synthetic COCO stage, run when no COCO split is configured: one render task per part of a split of the
embedded person's synthetic set (`synthetic.part_images` images each,
benchmarks/viewspatial/coco/scenes/synthetic_set.py),
then the split's COCO file and truth written from its parts' records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_set
from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoShard
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.person.textures import texture_settings
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "synthetic_coco"
PARTS = "_parts"


def synthetic_root(out: str | Path) -> Path:
    """Where the synthetic set is written: `<out>/viewspatial/coco_synthetic/<split>/`."""
    return Path(out) / BENCHMARK / "coco_synthetic"


def part_name(split: str, index: int) -> str:
    """The shard name of a split's render part: `val_0003`."""
    return f"{split}_{index:04d}"


def parts(config: BuildConfig) -> list[tuple[str, int]]:
    """Every (split, part index) of the synthetic set, split by split."""
    section = config.viewspatial.coco.synthetic
    return [(split, k) for split in sorted(section.images) for k in range(len(section.part_ranges(split)))]


def _part_file(out: str | Path, split: str, index: int) -> Path:
    return synthetic_root(out) / split / PARTS / f"{index:04d}.json"


def _part_hash(split: str, numbers: range, config: BuildConfig) -> str:
    """What a part's images depend on: its split and image numbers, every setting but the split sizes, the
    person, the seed and the versions."""
    section, person = config.viewspatial.coco.synthetic, config.person
    return spec_hash(
        [
            split,
            numbers.start,
            numbers.stop,
            section.model_dump(mode="json", exclude={"images", "part_images"}),
            person.body.model_dump(mode="json"),
            person.textures.ids,
            texture_settings(person.textures),
            config.seed,
            CocoShard.version,
            synthetic_set.SET_VERSION,
        ]
    )


@shard_task(resource="render", name="viewspatial-synthetic-coco", device=lambda c: c.viewspatial.coco.synthetic.device)
def synthetic_coco_task(out: str, shard: str, config: BuildConfig) -> dict[str, Any]:
    """Render one part of a split (`shard`, part_name) unless its store marker says it is made with these settings;
    its images go to the split's images folder, its records to `<split>/_parts/<part>.json`."""
    split, _, index = shard.rpartition("_")
    section, person, seed = config.viewspatial.coco.synthetic, config.person, config.seed
    synthetic_set.check_split(section, person, split)
    numbers = section.part_ranges(split)[int(index)]
    store = StageStore(out, BENCHMARK, STAGE)
    h = _part_hash(split, numbers, config)
    path = _part_file(out, split, int(index))
    if not (store.is_done(shard, h) and path.is_file()):
        plans = synthetic_set.split_plans(section, person, seed, split, numbers)
        part = synthetic_set.render_part(
            synthetic_root(out) / split, split, section, person, seed, list(zip(numbers, plans))
        )
        write_json_atomic(path, {k: v for k, v in part.items() if k != "render_s"})  # a time stays in the marker
        store.write_shard(
            shard,
            pd.DataFrame([{"split": split, "part": int(index), "images": len(part["images"])}]),
            spec_hash=h,
            problems=part["problems"],
            info={"render_s": part["render_s"]},
        )
    return {"split": split, "part": int(index), "images": int(store.shard_rows(shard)["images"][0])}


def write_synthetic_split(out: str, split: str, config: BuildConfig) -> dict[str, Any]:
    """The split's COCO file, truth and images folder from its parts' records (synthetic_set.write_split), the
    records of parts the split no longer has removed; its paths, images and render seconds."""
    count = len(config.viewspatial.coco.synthetic.part_ranges(split))
    for stale in (synthetic_root(out) / split / PARTS).glob("[0-9][0-9][0-9][0-9].json"):
        if int(stale.stem) >= count:
            stale.unlink()
    store = StageStore(out, BENCHMARK, STAGE)
    records = [
        {**read_json(_part_file(out, split, k)), "render_s": float(store.marker(part_name(split, k))["render_s"])}
        for k in range(count)
    ]
    return synthetic_set.write_split(synthetic_root(out), split, records)
