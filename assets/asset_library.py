"""An asset library: `.blend` files of single objects and the manifest that describes them (issues 37, 50), read by
every benchmark that draws rooms from one (assets/room_layout.py).

A library is a folder holding `manifest.json` and the files it names by relative path. Each row says what one file
holds: its class, the seed and generator (and version) that made it, the one object to append from it, that object's
bounding box in its own frame (origin at the bottom centre, +Z up, metres), its vertex count, where its front faces
(`front_deg`, measured from its geometry when the asset was made), optionally the height of the surface things rest
on (`rest_m`: a bed's mattress under its headboard's top) and the file's SHA-256. The reader refuses anything
else, naming the config field, the file and the row's field; the writer replaces the manifest atomically, so an
interrupted generation leaves the previous, valid one.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.safe_paths import inside

MANIFEST_NAME = "manifest.json"
FORMAT = "benchfoundry-asset-library"
#: Version 2 added `front_deg`: a version-1 library is remade (its fronts were never measured).
FORMAT_VERSION = 2


class LibraryError(ValueError):
    """A library that cannot be used: one line naming the config field, the file and the row's field."""


@dataclass(frozen=True)
class LibraryAsset:
    """One manifest row: a `.blend` file (relative `path`) holding the object `object_name` of class `category`."""

    category: str
    seed: int
    path: str
    object_name: str
    bbox_min: tuple[float, float, float]
    bbox_max: tuple[float, float, float]
    vertices: int
    generator: str
    generator_version: str
    factory: str
    sha256: str
    #: The yaw (deg, counter-clockwise about +Z) that turns −Y onto the object's front; None: no side is its front.
    front_deg: float | None = None
    #: Height (m, own frame) of the broad upward surface things rest on (a mattress, a desk's top); None: the top.
    rest_m: float | None = None

    @property
    def rest_height(self) -> float:
        """Where a thing put on the object rests (m, own frame): `rest_m`, or the top of its box."""
        return self.bbox_max[2] if self.rest_m is None else self.rest_m

    @property
    def size(self) -> tuple[float, float, float]:
        """Full extents (m) along x, y, z."""
        return (
            self.bbox_max[0] - self.bbox_min[0],
            self.bbox_max[1] - self.bbox_min[1],
            self.bbox_max[2] - self.bbox_min[2],
        )


@dataclass(frozen=True)
class AssetLibrary:
    root: Path
    assets: tuple[LibraryAsset, ...]

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(a.category for a in self.assets)

    def of_class(self, category: str) -> tuple[LibraryAsset, ...]:
        """The class's assets in a stable order (by seed, then path)."""
        return tuple(sorted((a for a in self.assets if a.category == category), key=lambda a: (a.seed, a.path)))

    def file_of(self, asset: LibraryAsset) -> Path:
        return inside(self.root, asset.path, "path")


#: Row field → (type check, what it must be).
_FIELDS: dict[str, tuple[Any, str]] = {
    "category": (lambda v: isinstance(v, str) and v.strip() == v and v != "", "a non-empty class name"),
    "seed": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "an integer ≥ 0"),
    "path": (lambda v: isinstance(v, str) and v.endswith(".blend"), "a relative path to a .blend file"),
    "object_name": (lambda v: isinstance(v, str) and v != "", "the name of the object in the file"),
    "bbox_min": (lambda v: _vec3(v), "3 finite numbers"),
    "bbox_max": (lambda v: _vec3(v), "3 finite numbers"),
    "vertices": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0, "an integer > 0"),
    "generator": (lambda v: isinstance(v, str) and v != "", "the generator's name"),
    "generator_version": (lambda v: isinstance(v, str) and v != "", "the generator's version"),
    "factory": (lambda v: isinstance(v, str) and v != "", "the generator's factory"),
    "sha256": (
        lambda v: isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v),
        "64 lowercase hex digits",
    ),
    "front_deg": (
        lambda v: v is None or (_number(v) and -180 < v <= 180),
        "null or a yaw in degrees, -180 < yaw <= 180",
    ),
}

#: Row fields that may be left out (None): a library written before them stays valid.
_OPTIONAL: dict[str, tuple[Any, str]] = {
    "rest_m": (lambda v: v is None or (_number(v) and v >= 0), "null or a height in metres ≥ 0"),
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _vec3(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(_number(v) for v in value)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def asset_from_row(row: Any, where: str) -> LibraryAsset:
    """A manifest row checked field by field; `where` ("<manifest>: assets[3]") starts every error."""
    if not isinstance(row, dict):
        raise LibraryError(f"{where}: expected an object")
    missing = [f for f in _FIELDS if f not in row]
    if missing:
        raise LibraryError(f"{where}: missing field(s) {missing}")
    unknown = sorted(set(row) - set(_FIELDS) - set(_OPTIONAL))
    if unknown:
        raise LibraryError(f"{where}: unknown field(s) {unknown}")
    for name, (ok, what) in (_FIELDS | _OPTIONAL).items():
        if name in row and not ok(row[name]):
            raise LibraryError(f"{where}.{name}: expected {what}, got {row[name]!r}")
    lo, hi = row["bbox_min"], row["bbox_max"]
    if any(a >= b for a, b in zip(lo, hi, strict=True)):
        raise LibraryError(f"{where}.bbox_max: must exceed bbox_min on every axis ({lo} vs {hi})")
    values = dict(row, bbox_min=tuple(float(v) for v in lo), bbox_max=tuple(float(v) for v in hi))
    values["front_deg"] = None if row["front_deg"] is None else float(row["front_deg"])
    values["rest_m"] = None if row.get("rest_m") is None else float(row["rest_m"])
    if values["rest_m"] is not None and not lo[2] <= values["rest_m"] <= hi[2]:
        raise LibraryError(
            f"{where}.rest_m: must lie within the box's height ({lo[2]} to {hi[2]}), got {row['rest_m']}"
        )
    return LibraryAsset(**values)


def asset_row(asset: LibraryAsset) -> dict[str, Any]:
    """A manifest row (the inverse of `asset_from_row`; an optional field left out when None)."""
    return {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in asdict(asset).items()
        if not (k in _OPTIONAL and v is None)
    }


def read_library(root: str | Path, *, field: str, verify_files: bool = True, allow_empty: bool = False) -> AssetLibrary:
    """The library at `root`, checked strictly: the manifest's format and every row (at least one unless
    `allow_empty`); with `verify_files`, each file inside the folder, present and of its recorded hash. Any
    fault is one LibraryError line."""
    root = Path(root)
    manifest = root / MANIFEST_NAME
    if not manifest.is_file():
        raise LibraryError(f"{field}: {manifest}: no asset library manifest (make assets-infinigen writes one)")
    try:
        data = read_json(manifest)
    except (OSError, ValueError) as exc:
        raise LibraryError(f"{field}: {manifest}: unreadable manifest: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LibraryError(f"{field}: {manifest}.format: expected {FORMAT!r}")
    if data.get("version") != FORMAT_VERSION:
        raise LibraryError(
            f"{field}: {manifest}.version: expected {FORMAT_VERSION}, got {data.get('version')!r}"
            + (" (made before assets recorded their front: make assets-infinigen remakes it)" if stale(data) else "")
        )
    rows = data.get("assets")
    if not isinstance(rows, list) or not (rows or allow_empty):
        raise LibraryError(f"{field}: {manifest}.assets: expected a non-empty list of assets")
    assets, seen = [], set()
    for k, row in enumerate(rows):
        where = f"{field}: {manifest}: assets[{k}]"
        asset = asset_from_row(row, where)
        if asset.path in seen:
            raise LibraryError(f"{where}.path: {asset.path!r} listed twice")
        seen.add(asset.path)
        try:
            path = inside(root, asset.path, f"{where}.path")
        except ValueError as exc:
            raise LibraryError(str(exc)) from None
        if verify_files:
            if not path.is_file():
                raise LibraryError(f"{where}.path: {path}: no such file")
            if file_sha256(path) != asset.sha256:
                raise LibraryError(f"{where}.sha256: {path} does not match its recorded hash")
        assets.append(asset)
    return AssetLibrary(root, tuple(assets))


def stale(manifest: Any) -> bool:
    """Whether a manifest's JSON is of this format but an earlier version, whose assets are to be made again."""
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return manifest.get("format") == FORMAT and isinstance(version, int) and 0 < version < FORMAT_VERSION


def write_manifest(root: Path, assets: list[LibraryAsset], problems: list[dict[str, Any]]) -> Path:
    """Replace `root/manifest.json` atomically with these rows (sorted by class, seed) and problem rows."""
    rows = [asset_row(a) for a in sorted(assets, key=lambda a: (a.category, a.seed, a.path))]
    return write_json_atomic(
        root / MANIFEST_NAME, {"format": FORMAT, "version": FORMAT_VERSION, "assets": rows, "problems": problems}
    )
