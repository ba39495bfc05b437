"""The synthetic panorama stage: one render task per embedded scene (benchmarks/odi/scenes/synthetic_panoramas.py), run
when no `odi.panorama_root` is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.benchmarks.odi.scenes.synthetic_panoramas import render_scene
from benchfoundry.configs.build import BuildConfig
from benchfoundry.pipeline.shard_task import shard_task

#: The stage's name in problems and progress.
STAGE = "synthetic"


def panorama_folder(out: str | Path) -> Path:
    """Where the synthetic panoramas are written: `<out>/odi/synthetic/panoramas/<scene>.png`."""
    return Path(out) / BENCHMARK / STAGE / "panoramas"


@shard_task(resource="render", name="odi-panorama", device=lambda config: config.odi.synthetic.device)
def panorama_task(out: str, shard: str, config: BuildConfig) -> dict[str, Any]:
    """Render the embedded scene `shard` (skipped when its files match the spec)."""
    settings = config.odi.synthetic
    return render_scene(shard, panorama_folder(out), settings, config.person, config.seed, settings.render_timeout_s)
