"""The frame files of a build that its sample no longer uses: images, masks and night-vision images under
`<out>/syndor/images/` that the render manifest does not name (a re-render with fewer or other frames leaves them
in place; build.json lists them, `build --prune` removes them)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.night_vision_stage import NV_DIR, nv_relpath
from benchfoundry.benchmarks.syndor.render_plan import STAGE

#: The folders of a frame's files under `images/`.
FRAME_DIRS = ("raw_images", "masks", NV_DIR)


def unused_frame_files(bench_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> list[str]:
    """The frame files under `bench_dir/images` (relative to `bench_dir`, sorted) that are neither a released
    frame's image or mask nor the night-vision image beside a released image."""
    images = Path(bench_dir) / "images"
    if not images.is_dir():
        return []
    img_paths = list(img_paths)
    used = {*img_paths, *mask_paths, *(nv_relpath(p) for p in img_paths)}
    return sorted(
        rel
        for path in images.rglob("*")
        if path.parent.name in FRAME_DIRS and path.is_file()
        for rel in [path.relative_to(bench_dir).as_posix()]
        if rel not in used
    )


def prune(bench_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> int:
    """Remove the unused frame files (`unused_frame_files`) and the folders they leave empty; returns how many
    files went."""
    bench_dir = Path(bench_dir)
    images = bench_dir / "images"
    unused = unused_frame_files(bench_dir, img_paths, mask_paths)
    for rel in unused:
        path = bench_dir / rel
        path.unlink()
        for folder in path.parents:
            if folder == images or any(folder.iterdir()):
                break
            folder.rmdir()
    return len(unused)


def prune_build(bench_dir: Path) -> int:
    """`build --prune`: remove the unused frame files of the build in `bench_dir`, as its render manifest names the
    used ones; nothing without a manifest."""
    manifest = Path(bench_dir) / STAGE / "manifest.parquet"
    if not manifest.is_file():
        return 0
    rows = pd.read_parquet(manifest)
    if not len(rows):
        return 0
    return prune(bench_dir, rows["img_path"].astype(str), rows["mask_path"].astype(str))


def prune_outcome(out: Path, outcome: dict) -> int:
    """The `prune` hook of `build --prune`: the build's unused frame files removed (`prune_build`), and its render
    stage's outcome then lists none unused and how many went."""
    removed = prune_build(Path(out) / BENCHMARK)
    render = outcome.get("stages", {}).get("render")
    if render is not None:
        render.update(unused_files=[], pruned_files=removed)
    return removed
