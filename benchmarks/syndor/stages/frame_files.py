"""The files of a build that its sample no longer uses: images, masks and night-vision images under
`<out>/syndor/images/` that the render manifest does not name (a re-render with fewer or other frames leaves them
in place; build.json lists them, `build --prune` removes them), and the per-shard files of shards the current plan
no longer holds: render and feature shards' rows and markers, posed people's meshes, and the textures of people or
texture settings the manifest no longer renders (`build --prune` too)."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from benchfoundry.benchmarks.syndor.discern_config import DiscernConfig
from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.scenes.render_plan import STAGE
from benchfoundry.benchmarks.syndor.scenes.render_stage import person_cache
from benchfoundry.benchmarks.syndor.stages.night_vision_stage import (
    FEATURE_STAGE,
    NV_DIR,
    nv_relpath,
    plan_feature_shards,
)
from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.output_root import read_build_record
from benchfoundry.core.store import read_parquet
from benchfoundry.person.prepare import texture_file_name

#: The folders of a frame's files under `images/`.
FRAME_DIRS = ("raw_images", "masks", NV_DIR)


#: The path of a frame file a build writes (render_plan.frame_paths), relative to the benchmark's folder.
FRAME_FILE = re.compile(
    rf"images/SMPLitex_texture_[A-Za-z0-9_.-]+/pose\d{{3}}/({'|'.join(FRAME_DIRS)})/"
    r"frame\d{4}_cam\d{3}_r\d+_phi-?[0-9.]+_theta-?[0-9.]+\.(jpg|png)"
)

#: A render shard's id (render_plan.plan_shards: a person's, `plan_empty_shards`: an empty scene's).
_RENDER_SHARD = r"[A-Za-z0-9][A-Za-z0-9_.=+-]*_(t\d{5}_[A-Za-z0-9_.=+-]+_p\d{3}|empty_[A-Za-z0-9_.=+-]+)"
#: A feature shard's id (night_vision_stage.plan_feature_shards: the render shard's, its tag, its chunk).
_FEATURE_SHARD = r"[A-Za-z0-9][A-Za-z0-9_.=+-]*-[0-9a-f]{8}-\d{3}"
#: A posed person's mesh and keypoints (person/prepare.prepare_person named `<action>_p<pose>` by the render stage).
_POSED_PERSON = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*_p\d{3}_[0-9a-f]{16}(\.npz|_coco\.json)")
#: A person's texture (person/prepare.texture_file_name: the id, the texture settings' hash, the body model's name).
_TEXTURE = re.compile(r"texture_\d{5}_[0-9a-f]{16}_[A-Za-z0-9_.-]+\.png")


def unused_frame_files(benchmark_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> list[str]:
    """The frame files under `benchmark_dir/images` (relative to `benchmark_dir`, sorted) that are neither a released
    frame's image or mask nor the night-vision image beside a released image. Only regular files named as a
    build names its frames count (a user's photo or README beside them does not); no link is followed, and an
    `images` folder that is itself a link (another build's frames on a shared disk) gives none."""
    images = Path(benchmark_dir) / "images"
    if images.is_symlink() or not images.is_dir():
        return []
    img_paths = list(img_paths)
    used = {*img_paths, *mask_paths, *(nv_relpath(p) for p in img_paths)}
    found = []
    for folder, subfolders, files in os.walk(images, followlinks=False):
        subfolders[:] = [d for d in subfolders if not (Path(folder) / d).is_symlink()]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(benchmark_dir).as_posix()
            if rel not in used and FRAME_FILE.fullmatch(rel) and path.is_file() and not path.is_symlink():
                found.append(rel)
    return sorted(found)


def prune(benchmark_dir: Path, img_paths: Iterable[str], mask_paths: Iterable[str]) -> int:
    """Remove the unused frame files (`unused_frame_files`) and the folders they leave empty, through no link (a
    folder swapped for a link after the listing is not entered; a benchmark folder that is a link gives none);
    returns how many files went."""
    benchmark_dir = Path(benchmark_dir)
    if benchmark_dir.is_symlink():
        return 0
    removed = 0
    for rel in unused_frame_files(benchmark_dir, img_paths, mask_paths):
        removed += _unlink_through_no_link(benchmark_dir, Path(rel).parts)
    return removed


def _unlink_through_no_link(root: Path, parts: tuple[str, ...], remove_empty: bool = True) -> int:
    """Unlink `root/parts…` opening each folder below `root` without following a link (O_NOFOLLOW), then (if
    `remove_empty`) remove the folders below `images/` it leaves empty; 1 if it went, 0 if a link or a change stood
    in the way."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fds = [os.open(root, flags)]
    try:
        for name in parts[:-1]:
            fds.append(os.open(name, flags, dir_fd=fds[-1]))
        if not stat.S_ISREG(os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False).st_mode):
            return 0
        os.unlink(parts[-1], dir_fd=fds[-1])
        for depth in range(len(parts) - 2, 0, -1) if remove_empty else ():  # never `images` itself (depth 0)
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


def _regular_files(benchmark_dir: Path, folder: str) -> list[str]:
    """The names of the regular files in `benchmark_dir/folder`, none if a folder on the way is a link."""
    path = Path(benchmark_dir)
    for part in Path(folder).parts:
        path = path / part
        if path.is_symlink() or not path.is_dir():
            return []
    with os.scandir(path) as entries:
        return sorted(e.name for e in entries if e.is_file(follow_symlinks=False))


def _stage_files(benchmark_dir: Path, stage: str, pattern: str, used: set[str]) -> list[str]:
    """The rows and markers (`<stage>/shards/<id>.parquet`, `<stage>/_done/<id>.json`) of the shards named as
    `pattern` names them that are not in `used`."""
    found = []
    for folder, ext in (("shards", ".parquet"), ("_done", ".json")):
        shard = re.compile(rf"({pattern}){re.escape(ext)}")
        names = _regular_files(benchmark_dir, f"{stage}/{folder}")
        found += [f"{stage}/{folder}/{n}" for n in names if shard.fullmatch(n) and n[: -len(ext)] not in used]
    return found


def _recorded_config(benchmark_dir: Path) -> dict:
    """The config of the build that wrote `benchmark_dir`, as its build.json records it ({} when unreadable)."""
    try:
        config = read_build_record(Path(benchmark_dir).parent).get("config")
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def _frames_per_shard(config: dict) -> int | None:
    """`syndor.discern.frames_per_shard` of a recorded config."""
    try:
        value = config[BENCHMARK]["discern"]["frames_per_shard"]
    except (KeyError, TypeError):
        return None
    return value if isinstance(value, int) and value >= 1 else None


def _person(config: dict) -> PersonConfig | None:
    """`person` of a recorded config; None when it is missing or no longer valid."""
    try:
        return PersonConfig.model_validate(config["person"])
    except (KeyError, TypeError, ValueError):
        return None


def stale_shard_files(benchmark_dir: Path, rows: pd.DataFrame, frames_per_shard: int | None) -> list[str]:
    """The per-shard files (relative to `benchmark_dir`) of shards the render manifest `rows` no longer holds: render
    shards, feature shards (when `frames_per_shard` is known, the plan they are cut by) and posed people's meshes
    that no row's `body_path` names (sorted). Only regular files named as the stages name them count; no link is
    followed."""
    render_shards = set(rows["shard"].astype(str))
    found = _stage_files(benchmark_dir, STAGE, _RENDER_SHARD, render_shards)
    if frames_per_shard is not None:
        features = set(plan_feature_shards(rows, DiscernConfig(frames_per_shard=frames_per_shard)))
        found += _stage_files(benchmark_dir, FEATURE_STAGE, _FEATURE_SHARD, features)
    people = person_cache(Path()).relative_to(BENCHMARK).as_posix()
    bodies = {Path(p).name for p in rows["body_path"].dropna().astype(str) if Path(p).parent.as_posix() == people}
    used = bodies | {f"{Path(b).stem}_coco.json" for b in bodies}
    names = _regular_files(benchmark_dir, people)
    return sorted(found + [f"{people}/{n}" for n in names if _POSED_PERSON.fullmatch(n) and n not in used])


def stale_textures(benchmark_dir: Path, rows: pd.DataFrame, person: PersonConfig | None) -> list[str]:
    """The textures in the people's folder (relative to `benchmark_dir`, sorted) that no row of the render manifest
    `rows` renders with the build's `person` config: another person's, or older texture settings' or body model's.
    None when the config is not known. Only regular files named as person/prepare.py names them count."""
    if person is None or "texture_id" not in rows.columns:
        return []
    used = {texture_file_name(person, int(t)) for t in rows["texture_id"].dropna()}
    people = person_cache(Path()).relative_to(BENCHMARK).as_posix()
    return [f"{people}/{n}" for n in _regular_files(benchmark_dir, people) if _TEXTURE.fullmatch(n) and n not in used]


def prune_build(benchmark_dir: Path) -> int:
    """`build --prune`: remove the unused frame files, the stale shard files (`stale_shard_files`) and the stale
    textures (`stale_textures`) of the build in `benchmark_dir`, as its render manifest names the used ones; nothing
    without a manifest."""
    benchmark_dir = Path(benchmark_dir)
    manifest = benchmark_dir / STAGE / "manifest.parquet"
    if benchmark_dir.is_symlink() or not manifest.is_file():
        return 0
    rows = read_parquet(manifest)
    if not len(rows):
        return 0
    removed = prune(benchmark_dir, rows["img_path"].astype(str), rows["mask_path"].astype(str))
    config = _recorded_config(benchmark_dir)
    stale = stale_textures(benchmark_dir, rows, _person(config))
    if "shard" in rows.columns:
        stale += stale_shard_files(benchmark_dir, rows, _frames_per_shard(config))
    for rel in stale:
        removed += _unlink_through_no_link(benchmark_dir, Path(rel).parts, remove_empty=False)
    return removed


def prune_outcome(out: Path, outcome: dict) -> int:
    """The `prune` hook of `build --prune`: the build's unused frame files removed (`prune_build`), and its render
    stage's outcome then lists none unused and how many went."""
    removed = prune_build(Path(out) / BENCHMARK)
    render = outcome.get("stages", {}).get("render")
    if render is not None:
        render.update(unused_files=[], pruned_files=removed)
    return removed
