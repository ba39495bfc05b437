"""Toy-Bench's render stage: one `render` shard task per item, its cube rendered by the render worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.render_spec import EngineSettings, PinholeCamera, write_spec
from benchfoundry.pipeline import render_client
from benchfoundry.pipeline.shard_task import shard_task
from toybench.identity import BENCHMARK
from toybench.scenes.cubes import COLOURS, colour_of, image_path, item_id, yaw_of
from toybench.scenes.spec import CubeShard

STAGE = "render"
BACKGROUND = (0.02, 0.02, 0.02)


def cube_shard(out: str | Path, k: int, config: BuildConfig) -> CubeShard:
    toy = config.section(BENCHMARK)
    return CubeShard(
        image=str(image_path(out, k)),
        rgb=COLOURS[colour_of(k, config.seed)],
        yaw_deg=yaw_of(k),
        background=BACKGROUND,
        camera=PinholeCamera(focal_mm=35.0, sensor_height_mm=24.0, resolution_w=toy.size_px, resolution_h=toy.size_px),
        engine=EngineSettings(device="CPU", samples=toy.samples, denoise=False, max_bounces=1, threads=1),
    )


@shard_task(resource="render", name="toybench-render")
def render_task(out: str, shard: int, config: BuildConfig) -> dict[str, Any]:
    """Render item `shard`'s cube; its id, colour and image."""
    toy = config.section(BENCHMARK)
    spec = cube_shard(out, shard, config)
    spec_path = write_spec(Path(out) / BENCHMARK / "specs" / f"{item_id(shard)}.json", spec)
    reply = render_client.render_spec(spec_path, timeout_s=toy.render_timeout_s, shards_per_worker=toy.items)
    return {"item": shard, "colour": colour_of(shard, config.seed), "image": spec.image, "seconds": reply["seconds"]}
