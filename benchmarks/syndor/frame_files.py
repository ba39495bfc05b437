"""The frame files of a build that its sample no longer uses: images, masks and night-vision images under
`<out>/syndor/images/` that the render manifest does not name (a re-render with fewer or other frames leaves them
in place; build.json lists them, `build --prune` removes them)."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.night_vision_stage import NV_DIR, nv_relpath
from benchfoundry.benchmarks.syndor.render_plan import STAGE

#: The folders of a frame's files under `images/`.
FRAME_DIRS = ("raw_images", "masks", NV_DIR)


#: The path of a frame file a build writes (render_plan.frame_paths), relative to the benchmark's folder.
FRAME_FILE = re.compile(
    rf"images/SMPLitex_texture_[A-Za-z0-9_.-]+/pose\d{{3}}/({'|'.join(FRAME_DIRS)})/"
    r"frame\d{4}_cam\d{3}_r\d+_phi-?[0-9.]+_theta-?[0-9.]+\.(jpg|png)"
)


def unused_frame_files(bench_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> list[str]:
    """The frame files under `bench_dir/images` (relative to `bench_dir`, sorted) that are neither a released
    frame's image or mask nor the night-vision image beside a released image. Only regular files named as a
    build names its frames count (a user's photo or README beside them does not); no link is followed, and an
    `images` folder that is itself a link (another build's frames on a shared disk) gives none."""
    images = Path(bench_dir) / "images"
    if images.is_symlink() or not images.is_dir():
        return []
    img_paths = list(img_paths)
    used = {*img_paths, *mask_paths, *(nv_relpath(p) for p in img_paths)}
    found = []
    for folder, subfolders, files in os.walk(images, followlinks=False):
        subfolders[:] = [d for d in subfolders if not (Path(folder) / d).is_symlink()]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(bench_dir).as_posix()
            if rel not in used and FRAME_FILE.fullmatch(rel) and path.is_file() and not path.is_symlink():
                found.append(rel)
    return sorted(found)


def prune(bench_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> int:
    """Remove the unused frame files (`unused_frame_files`) and the folders they leave empty, through no link (a
    folder swapped for a link after the listing is not entered; a benchmark folder that is a link gives none);
    returns how many files went."""
    bench_dir = Path(bench_dir)
    if bench_dir.is_symlink():
        return 0
    removed = 0
    for rel in unused_frame_files(bench_dir, img_paths, mask_paths):
        removed += _unlink_through_no_link(bench_dir, Path(rel).parts)
    return removed


def _unlink_through_no_link(root: Path, parts: tuple[str, ...]) -> int:
    """Unlink `root/parts…` opening each folder below `root` without following a link (O_NOFOLLOW), then remove
    the folders below `images/` it leaves empty; 1 if it went, 0 if a link or a change stood in the way."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fds = [os.open(root, flags)]
    try:
        for name in parts[:-1]:
            fds.append(os.open(name, flags, dir_fd=fds[-1]))
        if not stat.S_ISREG(os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False).st_mode):
            return 0
        os.unlink(parts[-1], dir_fd=fds[-1])
        for depth in range(len(parts) - 2, 0, -1):  # never `images` itself (depth 0)
            if os.listdir(fds[depth + 1]):
                break
            os.rmdir(parts[depth], dir_fd=fds[depth])
        return 1
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return 0
        raise
    finally:
        for fd in fds:
            os.close(fd)


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
