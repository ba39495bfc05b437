"""Input panoramas: listing a folder, stable ids, reading with clear errors, display conversion."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.scenes.synthetic_panoramas import INSTANCES_SUFFIX, TRUTH_SUFFIX
from benchfoundry.benchmarks.odi.stages.sphere_images import read_erp
from benchfoundry.core.atomic_files import atomic_path
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.safe_paths import UnsafePathError, regular_file, within

#: File types read as panoramas (OpenCV decodes them; EXR through `sphere`).
PANORAMA_SUFFIXES = (".jpg", ".jpeg", ".png", ".exr", ".tif", ".tiff", ".webp", ".bmp", ".hdr")
#: The stage a refused input panorama is reported under.
INPUT_STAGE = "panoramas"


def panorama_listing(root: Path) -> tuple[list[Path], list[dict[str, Any]]]:
    """(the panorama files directly in `root`, sorted by name; problem rows of the refused ones). Instance maps
    (`*.instances.png`) are not panoramas; a link leading out of `root` and a special file (a FIFO, a device)
    are refused by type before anything opens them; files whose names give one id (`court yard.png`,
    `court_yard.png`), or share one stem and so one truth (`courtyard.png`, `courtyard.jpg`), are both refused;
    a folder holding no panorama is a ValueError naming `odi.panorama_root`."""
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: panorama folder of odi.panorama_root not found")
    paths, refused = [], []
    for p in sorted(root.iterdir()):
        if p.suffix.lower() not in PANORAMA_SUFFIXES or p.name.endswith(INSTANCES_SUFFIX) or p.is_dir():
            continue
        try:
            paths.append(regular_file(within(root, p, "odi.panorama_root"), "odi.panorama_root"))
        except (UnsafePathError, OSError) as exc:
            refused.append(problem(INPUT_STAGE, panorama_id(p), str(exc), path=str(p)))
    clashes: dict[Path, str] = {}
    for key, why in ((panorama_id, "get one id"), (lambda p: p.stem, "share one stem")):
        by_key: dict[str, list[Path]] = {}
        for p in paths:
            by_key.setdefault(key(p), []).append(p)
        for shared, same in by_key.items():
            if len(same) > 1:
                what = "one would replace the other" if key is panorama_id else f"both would read {shared}'s truth"
                names = ", ".join(repr(p.name) for p in same)
                for p in same:
                    clashes.setdefault(p, f"{names} {why}, {shared!r}: neither is built ({what}); rename one")
    refused += [problem(INPUT_STAGE, panorama_id(p), reason, path=str(p)) for p, reason in clashes.items()]
    paths = [p for p in paths if p not in clashes]
    if not paths:
        raise ValueError(
            f"odi.panorama_root: {root} holds no readable panorama ({', '.join(PANORAMA_SUFFIXES)})"
            + (f"; {len(refused)} refused: {refused[0]['reason']}" if refused else "")
        )
    return paths, refused


def list_panoramas(root: Path) -> list[Path]:
    """The usable panorama files of `root` (see `panorama_listing`)."""
    return panorama_listing(root)[0]


def panorama_id(path: Path) -> str:
    """The file name with characters outside `A-Za-z0-9_.=+-` replaced by `_` (a store shard id)."""
    name = re.sub(r"[^A-Za-z0-9_.=+-]", "_", path.name)
    return name if name[0].isalnum() else f"p{name}"


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, read in blocks (a 12K panorama is not held twice)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def load_panorama(path: Path) -> np.ndarray:
    """The ERP as OpenCV decodes it; an empty, corrupt, truncated or non-2:1 file is a ValueError naming it."""
    if path.stat().st_size == 0:
        raise ValueError(f"{path}: empty file (0 bytes)")
    return read_erp(path)


def display_bgr(image: np.ndarray) -> np.ndarray:
    """An 8-bit BGR copy for JPEG faces and crops: 16-bit scaled, float (EXR, linear) given the sRGB curve."""
    if image.ndim == 2:
        image = image[..., None]
    image = image[..., :3]
    if image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    if image.dtype == np.uint8:
        return np.ascontiguousarray(image)
    if image.dtype == np.uint16:
        return (image >> 8).astype(np.uint8)
    linear = np.clip(np.nan_to_num(image.astype(np.float32)), 0.0, 1.0)
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1 / 2.4) - 0.055)
    return np.rint(srgb * 255.0).astype(np.uint8)


def truth_files(path: Path) -> tuple[Path, Path]:
    """Where a panorama's ground truth lies: `<stem>.instances.png` and `<stem>.json` beside it."""
    return path.with_name(path.stem + INSTANCES_SUFFIX), path.with_name(path.stem + TRUTH_SUFFIX)


def batches(items: Sequence[Path], size: int) -> Iterator[list[Path]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _link_or_copy(source: Path, target: Path) -> None:
    """`target` becomes the same bytes as `source`: a hard link where the file system allows, else a copy."""
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        if os.path.samefile(source, target) or file_digest(source) == file_digest(target):
            return
    with atomic_path(target) as tmp:
        tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)


def release_name(path: Path, benchmark_dir: Path, pano: str) -> str:
    """The panorama as the released files name it, relative to the release root `benchmark_dir`: its own path when
    it lies there (the synthetic ones), else `panoramas/<id>`, where it is linked (or copied) with its truth
    files, so that the release holds every image it names."""
    try:
        return path.resolve().relative_to(benchmark_dir.resolve()).as_posix()
    except ValueError:
        pass
    target = benchmark_dir / "panoramas" / pano
    _link_or_copy(path, target)
    for source, copy in zip(truth_files(path), truth_files(target)):
        if source.is_file():
            _link_or_copy(source, copy)
    return target.relative_to(benchmark_dir).as_posix()
