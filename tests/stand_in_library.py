"""A stand-in asset library for tests: one coloured box per asset, saved as a `.blend` by the project's bpy in a
subprocess (bpy lives only in render/), with its manifest. Its boxes' corners are known, so where a placed asset
lands can be computed independently."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from benchfoundry.assets.asset_library import AssetLibrary, LibraryAsset, file_sha256, read_library, write_manifest

#: Builds stand-in assets with the project's bpy: a box on the floor (origin at its bottom centre).
_MAKE_BLENDS = r"""
import json, sys
import bpy
out = []
for path, size, rgb in json.loads(sys.argv[1]):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sx, sy, sz = size
    verts = [(x, y, z) for z in (0.0, sz) for y in (-sy / 2, sy / 2) for x in (-sx / 2, sx / 2)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new("asset")
    mesh.from_pydata(verts, [], faces)
    mat = bpy.data.materials.new("stand-in")
    mat.diffuse_color = (*rgb, 1.0)
    mesh.materials.append(mat)
    obj = bpy.data.objects.new("asset", mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.ops.wm.save_as_mainfile(filepath=path)
    out.append({"vertices": len(mesh.vertices)})
print(json.dumps(out))
"""


def box_asset(
    category: str, seed: int, size: tuple[float, float, float], offset: float = 0.0, front_deg: float | None = None
) -> LibraryAsset:
    """A manifest row of a box `size` on the floor, its centre `offset` along x from the origin."""
    sx, sy, sz = size
    return LibraryAsset(
        category=category,
        seed=seed,
        path=f"{category}/{seed}.blend",
        object_name="asset",
        bbox_min=(-sx / 2 + offset, -sy / 2, 0.0),
        bbox_max=(sx / 2 + offset, sy / 2, sz),
        vertices=8,
        generator="stand-in",
        generator_version="0",
        factory="Box",
        sha256="0" * 64,
        front_deg=front_deg,
    )


def make_library(
    root: Path, wanted: list[tuple[str, tuple[float, float, float], tuple[float, float, float]]], field: str
) -> AssetLibrary:
    """A library at `root` of one box per (category, size, rgb), each `<category>/<category>_1.blend`."""
    for category, _, _ in wanted:
        (root / category).mkdir(parents=True, exist_ok=True)
    jobs = [[str(root / c / f"{c}_1.blend"), size, rgb] for c, size, rgb in wanted]
    done = subprocess.run(
        [sys.executable, "-c", _MAKE_BLENDS, json.dumps(jobs)], capture_output=True, text=True, check=True
    )
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assets = []
    for (category, size, _), count in zip(wanted, counts, strict=True):
        path = f"{category}/{category}_1.blend"
        made = replace(
            box_asset(category, 1, size), path=path, vertices=count["vertices"], sha256=file_sha256(root / path)
        )
        assets.append(made)
    write_manifest(root, assets, [])
    return read_library(root, field=field)
