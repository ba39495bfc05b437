"""One Infinigen asset as a `.blend` of one mesh object: run by Infinigen's own Python (`make assets-infinigen`'s
venv, bpy 4.2), never by the project's, and importing nothing of the project (the asset library's generator
calls it once per asset).

    python infinigen_asset.py --factory ChairFactory --seed 7 --blend out.blend --info out.json [--max-vertices N]

The factory's `spawn_asset(seed)` under `FixedSeed(seed)` (as infinigen_examples/generate_individual_assets.py
does); its meshes, modifiers applied, joined into one object named `asset` whose origin is the bottom centre of
its bounding box; above `--max-vertices` the mesh is decimated to that budget (a potted plant can have 2.6 M
vertices, 366 MB); the file saved with its procedural materials; then `--info`: the object's name, bounding box,
vertex count (and the count generated, before decimation), its front (`front_deg`), the height things rest on
(`rest_m`) and Infinigen's version. Two factories are this script's own (`OWN_FACTORIES`): `MattressBedFactory`,
Infinigen's bed frame and mattress without its cloth-simulated sheets, pillows and towels (`BedFactory` took minutes
and 190,000 vertices a bed), and `FrondPalmTreeFactory`, Infinigen's palm with the crown its own drops.
Infinigen's config folders are named relative to its repository root, so the script works from there.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
from pathlib import Path
from typing import Any

OBJECT_NAME = "asset"
#: How far (a share of the half-extent) an object's area, weighted by height, must lean to one side for that side
#: to be its back.
BACK_LEAN = 0.2


def front_deg(centres: Any, areas: Any, lean: float = BACK_LEAN) -> float | None:
    """The yaw (0, 90, 180 or -90 deg, counter-clockwise about +Z) that turns −Y onto the front of an object whose
    faces have these `centres` (n × 3) and `areas`: the front is opposite the side the faces' area, weighted by their
    height above the object's foot, leans to (a chair's or a sofa's back, a bed's headboard, a bookcase's back panel);
    None when it leans by less than `lean` of the half-extent (a table, a floor lamp, a plant: no side is the
    front). A face's weight is its area times its centre's height, ∫ z dA for a triangle: a mesh cut finer on one
    side weighs the same."""
    import numpy as np

    centres, areas = np.asarray(centres, float), np.asarray(areas, float)
    lo, hi = centres.min(axis=0), centres.max(axis=0)
    weights = areas * (centres[:, 2] - lo[2])
    half = np.maximum((hi[:2] - lo[:2]) / 2, 1e-9)
    if weights.sum() <= 0:
        return None
    leans = (weights @ (centres[:, :2] - (lo[:2] + hi[:2]) / 2)) / weights.sum() / half
    axis = int(np.argmax(np.abs(leans)))
    if abs(leans[axis]) < lean:
        return None
    # the back at −X: front +X (90); at +X: −90; at −Y: 180; at +Y: front −Y (0)
    return [[90.0, -90.0], [180.0, 0.0]][axis][int(leans[axis] > 0)]


#: The least share of an object's footprint that an upward surface must cover for things to rest on it.
REST_SHARE = 0.3
#: How deep (m) a resting surface may be: a mattress's top rounds off towards its edges.
REST_DEPTH_M = 0.04


def rest_height(centres: Any, normals: Any, areas: Any, share: float = REST_SHARE) -> float | None:
    """The height of the highest broad upward surface of an object whose faces have these `centres`, unit `normals`
    and `areas`: the top of the highest band `REST_DEPTH_M` deep whose upward faces cover `share` of the object's
    footprint (a bed's mattress under its headboard's top, a desk's top); None when no band does (a tent of slopes)."""
    import numpy as np

    centres, normals, areas = np.asarray(centres, float), np.asarray(normals, float), np.asarray(areas, float)
    lo, hi = centres.min(axis=0), centres.max(axis=0)
    need = share * (hi[0] - lo[0]) * (hi[1] - lo[1])
    up = normals[:, 2] > 0.9
    heights, up_areas = centres[up, 2], areas[up]
    order = np.argsort(-heights)
    heights, covered = heights[order], np.concatenate([[0.0], np.cumsum(up_areas[order])])
    # the band from each face's height down: the faces from it to the last at least as high as its bottom
    ends = np.searchsorted(-heights, -(heights - REST_DEPTH_M), side="right")
    broad = np.flatnonzero(covered[ends] - covered[:-1] >= need)
    return float(heights[broad[0]]) if len(broad) else None


def _mattress_bed_factory() -> Any:
    """Infinigen's bed (frame, headboard, mattress) without the sheets, pillows and towels its BedFactory adds."""
    from infinigen.assets.objects.seating.bed import BedFactory
    from infinigen.assets.objects.seating.bedframe import BedFrameFactory

    class MattressBedFactory(BedFactory):
        def create_asset(self, i: int, **params: Any) -> Any:
            frame = BedFrameFactory.create_asset(self, i=i, **params)
            self.make_mattress(i).parent = frame
            return frame

    return MattressBedFactory


def _realize_and_apply(obj: Any) -> None:
    """`obj`'s mesh replaced by what its modifiers make of it, instances made real (a mesh, or a modifier applied on
    its own, drops them), its modifiers removed."""
    import bpy

    group = bpy.data.node_groups.new("realize_instances", "GeometryNodeTree")
    for side in ("INPUT", "OUTPUT"):
        group.interface.new_socket("Geometry", in_out=side, socket_type="NodeSocketGeometry")
    given, realize, out = (
        group.nodes.new(t) for t in ("NodeGroupInput", "GeometryNodeRealizeInstances", "NodeGroupOutput")
    )
    group.links.new(given.outputs["Geometry"], realize.inputs["Geometry"])
    group.links.new(realize.outputs["Geometry"], out.inputs["Geometry"])
    obj.modifiers.new("realize_instances", "NODES").node_group = group
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mesh = bpy.data.meshes.new_from_object(
        obj.evaluated_get(depsgraph), preserve_all_data_layers=True, depsgraph=depsgraph
    )
    obj.modifiers.clear()
    obj.data = mesh


#: The vertices of one palm frond: Infinigen makes each of the hundred or so 1.7 M vertices.
FROND_VERTICES = 1_500


def _frond_palm_tree_factory() -> Any:
    """Infinigen's palm with its crown: PalmTreeFactory puts the crown (a bulb and the fronds, instances of a leaf
    object) on the trunk as instances, which a mesh drops, and deletes that leaf while the modifier still reads it,
    which leaves a bare trunk; here the leaf is decimated to `FROND_VERTICES` and the crown made real before the
    leaf goes (made real with Infinigen's fronds and stubs, a palm took more than 13 GB)."""
    from infinigen.assets.objects.tropic_plants import palm_tree
    from infinigen.core import surface
    from infinigen.core.util import blender as butil
    from numpy.random import randint, uniform

    class FrondPalmTreeFactory(palm_tree.PalmTreeFactory):
        def create_asset(self, **_: Any) -> Any:
            import bpy

            bpy.ops.mesh.primitive_plane_add(size=1, location=(0, 0, 0))
            obj = bpy.context.active_object
            leaf = palm_tree.LeafPalmPlantFactory(factory_seed=randint(0, 1000, size=(1,))[0]).create_asset(
                {
                    "leaf_x_curvature": uniform(0.1, 0.3),
                    "plant_z_rotate": uniform(0.0, 0.02),
                    "stem_x_curvature": 0.0,
                    "stem_y_curvature": uniform(-0.1, 0.1),
                    "plant_stem_length": uniform(0.5, 1.2),
                }
            )
            _realize_and_apply(leaf)
            decimate(leaf, FROND_VERTICES)
            # no stubs of old fronds on the trunk: instances on every trunk vertex, made real, exhaust the memory
            params = {"leaf": [leaf], "trunk_radius": uniform(0.2, 0.3), "truncatedstem_chance": 0.0}
            surface.add_geomod(obj, palm_tree.geometry_palm_tree_nodes, attributes=[], input_kwargs=params)
            _realize_and_apply(obj)
            butil.delete([leaf])
            obj.scale = (2, 2, 2)
            return obj

    return FrondPalmTreeFactory


#: This script's own factories, by name: Infinigen's with a part left out or put back.
OWN_FACTORIES = {"MattressBedFactory": _mattress_bed_factory, "FrondPalmTreeFactory": _frond_palm_tree_factory}


def _factory(name: str) -> Any:
    """The factory class `name`: one of this script's `OWN_FACTORIES`, or the first `infinigen.assets.objects.<module>`
    that defines it."""
    if name in OWN_FACTORIES:
        return OWN_FACTORIES[name]()
    import gin
    import infinigen

    objects = Path(infinigen.__file__).parent / "assets" / "objects"
    for sub in sorted(objects.iterdir()):
        if sub.name.startswith("_") or not (sub.is_dir() or sub.suffix == ".py"):
            continue
        with gin.unlock_config():
            module = importlib.import_module(f"infinigen.assets.objects.{sub.name.removesuffix('.py')}")
        if hasattr(module, name):
            return getattr(module, name)
    raise SystemExit(f"no Infinigen factory {name!r} under {objects}")


def _one_mesh(asset: Any) -> Any:
    """The asset's meshes (modifiers applied, world transforms baked) joined into one object at the origin."""
    import bpy
    import numpy as np
    from mathutils import Matrix

    depsgraph = bpy.context.evaluated_depsgraph_get()
    sources = [o for o in (asset, *asset.children_recursive) if o.type == "MESH"]
    if not sources:
        raise SystemExit("the factory made no mesh")
    parts = []
    for source in sources:
        data = bpy.data.meshes.new_from_object(
            source.evaluated_get(depsgraph), preserve_all_data_layers=True, depsgraph=depsgraph
        )
        data.transform(source.matrix_world)
        part = bpy.data.objects.new(source.name + "_baked", data)
        bpy.context.scene.collection.objects.link(part)
        parts.append(part)
    for old in (asset, *asset.children_recursive):
        bpy.data.objects.remove(old, do_unlink=True)
    bpy.ops.object.select_all(action="DESELECT")
    for part in parts:
        part.select_set(True)
    bpy.context.view_layer.objects.active = parts[0]
    if len(parts) > 1:
        bpy.ops.object.join()
    obj = bpy.context.view_layer.objects.active
    obj.name = OBJECT_NAME
    co = np.array([v.co[:] for v in obj.data.vertices])
    lo, hi = co.min(axis=0), co.max(axis=0)
    obj.data.transform(Matrix.Translation((-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2])))
    obj.matrix_world = Matrix.Identity(4)
    return obj


def decimate(obj: Any, max_vertices: int) -> int:
    """Collapse `obj`'s mesh towards at most `max_vertices` vertices (0: no budget; three tries, a collapse lands
    near its ratio, not on it); returns the count it had."""
    import bpy

    had = len(obj.data.vertices)
    for _ in range(3):
        count = len(obj.data.vertices)
        if not max_vertices or count <= max_vertices:
            break
        modifier = obj.modifiers.new("budget", "DECIMATE")
        modifier.decimate_type, modifier.ratio = "COLLAPSE", 0.95 * max_vertices / count
        with bpy.context.temp_override(object=obj, active_object=obj):
            bpy.ops.object.modifier_apply(modifier=modifier.name)
    return had


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--factory", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--blend", type=Path, required=True)
    parser.add_argument("--info", type=Path, required=True)
    parser.add_argument("--max-vertices", type=int, default=0, help="decimate a larger mesh to this many (0: never)")
    args = parser.parse_args()

    import bpy
    import infinigen
    import numpy as np
    from infinigen.core import init
    from infinigen.core.util import blender as butil
    from infinigen.core.util.math import FixedSeed

    os.chdir(infinigen.repo_root())
    init.apply_gin_configs(
        ["infinigen_examples/configs_indoor", "infinigen_examples/configs_nature"], configs=[], skip_unknown=True
    )
    init.configure_blender()
    butil.clear_scene()
    factory = _factory(args.factory)
    with FixedSeed(args.seed):
        fac = factory(args.seed)
        asset = fac.spawn_asset(args.seed)
        fac.finalize_assets(asset)
    obj = _one_mesh(asset)
    generated = decimate(obj, args.max_vertices)
    for other in list(bpy.context.scene.objects):
        if other is not obj:
            bpy.data.objects.remove(other, do_unlink=True)
    args.blend.parent.mkdir(parents=True, exist_ok=True)
    butil.save_blend(str(args.blend), autopack=True)
    co = np.array([v.co[:] for v in obj.data.vertices])
    faces = obj.data.polygons
    info = {
        "object_name": obj.name,
        "bbox_min": [float(v) for v in co.min(axis=0)],
        "bbox_max": [float(v) for v in co.max(axis=0)],
        "vertices": len(obj.data.vertices),
        "vertices_generated": generated,
        "front_deg": front_deg([f.center[:] for f in faces], [f.area for f in faces]),
        "rest_m": rest_height([f.center[:] for f in faces], [f.normal[:] for f in faces], [f.area for f in faces]),
        "generator_version": importlib.metadata.version("infinigen"),
    }
    partial = args.info.with_suffix(".partial")
    partial.write_text(json.dumps(info))
    partial.replace(args.info)


if __name__ == "__main__":
    main()
