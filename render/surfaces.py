"""Procedural surfaces for the embedded scenes' primitives: wood grain, floorboards, paving, glazed floor tiles,
plaster, stone, fabric, carpet, window glass and a daylit window pane, built from Blender's own shader nodes (no
image file).

Patterns are laid out in world coordinates (the scenes are static), so a 6 m wall and a 0.5 m box share one
scale. `core/render_spec.SURFACES` names them (tests/test_surfaces.py keeps the two lists equal); a render
spec's `Primitive.surface` picks one, "" is plain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bpy

Vec3 = tuple[float, float, float]
#: What a daylit window pane emits (linear RGB, strength): a bright, slightly blue sky.
DAYLIGHT = ((0.85, 0.92, 1.0), 4.0)


class _Tree:
    """A material's node tree, the Principled BSDF it feeds, and short-hands to add and link nodes."""

    def __init__(self, material: Any) -> None:
        self.nodes, self.links = material.node_tree.nodes, material.node_tree.links
        self.bsdf = self.nodes["Principled BSDF"]
        self._position: Any = None

    def feed(self, socket: Any, value: Any) -> None:
        """Link an output socket into `socket`, or set its value."""
        if hasattr(value, "is_linked"):
            self.links.new(value, socket)
        else:
            socket.default_value = value

    def node(self, kind: str, **inputs: Any) -> Any:
        """A new node; each input a value or an output socket to link from."""
        made = self.nodes.new(kind)
        for name, value in inputs.items():
            self.feed(made.inputs[name], value)
        return made

    def math(self, operation: str, a: Any, b: Any) -> Any:
        made = self.nodes.new("ShaderNodeMath")
        made.operation = operation
        self.feed(made.inputs[0], a)
        self.feed(made.inputs[1], b)
        return made.outputs["Value"]

    def position(self, scale: Vec3 = (1.0, 1.0, 1.0)) -> Any:
        """World position of the shaded point, scaled per axis (a pattern stretched along one axis)."""
        if self._position is None:
            self._position = self.nodes.new("ShaderNodeNewGeometry").outputs["Position"]
        if scale == (1.0, 1.0, 1.0):
            return self._position
        return self.node("ShaderNodeMapping", Vector=self._position, Scale=scale).outputs["Vector"]

    def noise(self, scale: float, detail: float = 4.0) -> Any:
        return self.node("ShaderNodeTexNoise", Vector=self.position(), Scale=scale, Detail=detail).outputs["Fac"]

    def shade(self, fac: Any, rgb: Vec3, dark: float, light: float) -> None:
        """Base colour from `dark`× to `light`× the colour as `fac` goes from 0 to 1."""
        ramp = self.node("ShaderNodeValToRGB", Fac=fac)
        low, high = ramp.color_ramp.elements
        low.color = (*(c * dark for c in rgb), 1.0)
        high.color = (*(min(c * light, 1.0) for c in rgb), 1.0)
        self.links.new(ramp.outputs["Color"], self.bsdf.inputs["Base Color"])

    def bump(self, height: Any, strength: float, distance: float = 0.01) -> None:
        made = self.node("ShaderNodeBump", Height=height, Strength=strength, Distance=distance)
        self.links.new(made.outputs["Normal"], self.bsdf.inputs["Normal"])


def _grain(tree: _Tree, scale: Vec3, across: str, distortion: float = 2.5) -> Any:
    """Wood grain: fine bands changing along world `across` ("X", "Y" or "Z"), wavered by noise (`distortion`), on
    a position stretched by `scale`."""
    wave = tree.node("ShaderNodeTexWave", Vector=tree.position(scale), Scale=2.0, Distortion=distortion, Detail=2.0)
    wave.wave_type, wave.bands_direction = "BANDS", across
    return wave.outputs["Fac"]


def _boards(tree: _Tree, length: float, width: float, joint: float, offset: float = 0.37) -> tuple[Any, Any]:
    """Boards `length` × `width` m in world x/y, each row shifted by `offset` of a board (0: a square grid): each
    board's own shade (0.55–1) and the joints (0), `joint` m wide."""
    brick = tree.node(
        "ShaderNodeTexBrick",
        Vector=tree.position(),
        Scale=1.0,
        Color1=(1.0, 1.0, 1.0, 1.0),
        Color2=(0.55, 0.55, 0.55, 1.0),
        **{"Mortar Size": joint, "Brick Width": length, "Row Height": width},
    )
    brick.offset = offset
    board = tree.node("ShaderNodeSeparateColor", Color=brick.outputs["Color"]).outputs["Red"]
    return board, tree.math("SUBTRACT", 1.0, brick.outputs["Fac"])


def _wood(tree: _Tree, rgb: Vec3) -> None:
    tree.shade(_grain(tree, (3.0, 0.8, 0.8), "X", 9.0), rgb, 0.75, 1.2)
    tree.bump(tree.noise(60.0), 0.05)


def _planks(tree: _Tree, rgb: Vec3) -> None:
    board, joints = _boards(tree, 1.2, 0.15, 0.004)
    grain = tree.math("ADD", 0.7, tree.math("MULTIPLY", _grain(tree, (0.5, 25.0, 1.0), "Y"), 0.3))
    shade = tree.math("MULTIPLY", tree.math("MULTIPLY", board, grain), joints)
    tree.shade(shade, rgb, 0.4, 1.25)
    tree.bump(joints, 0.4, 0.004)


def _paving(tree: _Tree, rgb: Vec3) -> None:
    board, joints = _boards(tree, 0.6, 0.3, 0.012)
    shade = tree.math("MULTIPLY", tree.math("ADD", board, tree.math("MULTIPLY", tree.noise(8.0), 0.3)), joints)
    tree.shade(shade, rgb, 0.45, 1.1)
    tree.bump(joints, 0.6, 0.01)


def _tile(tree: _Tree, rgb: Vec3) -> None:
    """Glazed 30 cm floor tiles in a square grid, each a shade of its own, in grey grout: shiny whatever the
    primitive's roughness."""
    tile, grout = _boards(tree, 0.3, 0.3, 0.005, offset=0.0)
    shade = tree.math("MULTIPLY", tree.math("ADD", 0.75, tree.math("MULTIPLY", tile, 0.25)), grout)
    tree.shade(tree.math("ADD", 0.35, tree.math("MULTIPLY", shade, 0.65)), rgb, 0.55, 1.05)
    tree.bsdf.inputs["Roughness"].default_value = 0.12
    tree.bump(grout, 0.5, 0.003)


def _plaster(tree: _Tree, rgb: Vec3) -> None:
    tree.shade(tree.noise(1.5, 6.0), rgb, 0.9, 1.05)
    tree.bump(tree.noise(90.0, 2.0), 0.04)


def _stone(tree: _Tree, rgb: Vec3) -> None:
    cells = tree.node("ShaderNodeTexVoronoi", Vector=tree.position(), Scale=6.0).outputs["Distance"]
    tree.shade(
        tree.math("ADD", tree.math("MULTIPLY", cells, 0.6), tree.math("MULTIPLY", tree.noise(20.0), 0.4)),
        rgb,
        0.7,
        1.15,
    )
    tree.bump(tree.noise(40.0, 8.0), 0.15)


def _fabric(tree: _Tree, rgb: Vec3) -> None:
    tree.shade(tree.noise(3.0), rgb, 0.85, 1.1)
    tree.bump(tree.noise(400.0, 2.0), 0.12, 0.002)


def _carpet(tree: _Tree, rgb: Vec3) -> None:
    tree.shade(tree.noise(5.0), rgb, 0.8, 1.1)
    tree.bump(tree.noise(300.0, 2.0), 0.3, 0.003)


def _glass(tree: _Tree, rgb: Vec3) -> None:
    tree.bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
    tree.bsdf.inputs["Roughness"].default_value = 0.05
    tree.bsdf.inputs["Specular IOR Level"].default_value = 1.0


def _daylight(tree: _Tree, rgb: Vec3) -> None:
    colour, strength = DAYLIGHT
    tree.bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
    tree.bsdf.inputs["Emission Color"].default_value = (*colour, 1.0)
    tree.bsdf.inputs["Emission Strength"].default_value = strength


_BUILDERS: dict[str, Callable[[_Tree, Vec3], None]] = {
    "wood": _wood,
    "planks": _planks,
    "paving": _paving,
    "tile": _tile,
    "plaster": _plaster,
    "stone": _stone,
    "fabric": _fabric,
    "carpet": _carpet,
    "glass": _glass,
    "window": _daylight,
}


def surface_material(name: str, rgb: Vec3, roughness: float, metallic: float, surface: str = "") -> Any:
    """The material of colour `rgb` (linear) with the named procedural surface ("" plain), shared by every object
    of the same look in the file (one shader to compile, not one an object); `name` names the object in errors."""
    if surface and surface not in _BUILDERS:
        raise ValueError(f"{name}: unknown surface {surface!r}; known: {sorted(_BUILDERS)}")
    key = f"{surface or 'plain'}|{rgb[0]:.4f},{rgb[1]:.4f},{rgb[2]:.4f}|{roughness:.3f}|{metallic:.3f}"
    material = bpy.data.materials.get(key)
    if material is not None:
        return material
    material = bpy.data.materials.new(key)
    tree = _Tree(material)
    tree.bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
    tree.bsdf.inputs["Roughness"].default_value = roughness
    tree.bsdf.inputs["Metallic"].default_value = metallic
    if surface:
        _BUILDERS[surface](tree, rgb)
    return material
