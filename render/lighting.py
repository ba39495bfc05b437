"""Lights of a render spec (benchfoundry/core/render_spec.py), by type: a physical sky with a matching sun
lamp (`DayLight`), moon/starlight (`NightLight`), area lamps under a plain ambient world (`IndoorLight`; a
scene's own area lamps: `add_area_lamps`).

Compass bearings: 0 = north = +Y, 90 = east = +X (the person faces −Y, i.e. south).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import bpy
from mathutils import Vector

from benchfoundry.core.render_spec import AreaLamp, DayLight, IndoorLight, NightLight

SUN_ANGLE_DEG = 0.53
#: The world importance map is rebuilt at every lighting change; the sky is smooth, so it is small.
WORLD_MAP_RESOLUTION = 256


def _direction(elevation_deg: float, bearing_deg: float) -> Vector:
    """Unit vector from the ground towards a light at this elevation and compass bearing."""
    el, az = math.radians(elevation_deg), math.radians(bearing_deg)
    return Vector((math.cos(el) * math.sin(az), math.cos(el) * math.cos(az), math.sin(el)))


def _lamp(scene: Any) -> Any:
    obj = bpy.data.objects.get("light_lamp")
    if obj is None:
        data = bpy.data.lights.new("light_lamp", type="SUN")
        data.angle = math.radians(SUN_ANGLE_DEG)
        obj = bpy.data.objects.new("light_lamp", data)
        scene.collection.objects.link(obj)
    return obj


def _world(scene: Any) -> tuple[Any, Any, Any]:
    """The world with a sky texture and a plain colour, either feeding the background."""
    world = bpy.data.worlds.get("light_world") or bpy.data.worlds.new("light_world")
    world.cycles.sample_map_resolution = WORLD_MAP_RESOLUTION
    scene.world = world
    nodes = world.node_tree.nodes
    sky = nodes.get("sky") or nodes.new("ShaderNodeTexSky")
    sky.name = "sky"
    sky.sky_type = "MULTIPLE_SCATTERING"
    sky.sun_disc = False
    return world, sky, nodes["Background"]


def _sky_and_lamp(scene: Any) -> tuple[Any, Any, Any]:
    """The sky world with its background unlinked, and the one lamp."""
    world, sky, background = _world(scene)
    links = world.node_tree.links
    for link in list(background.inputs["Color"].links):
        links.remove(link)
    return sky, background, _lamp(scene)


def _shine(
    lamp: Any, energy: float, color: tuple[float, float, float], elevation_deg: float, bearing_deg: float
) -> None:
    """The one lamp at `energy` and `color`, shining from this elevation and compass bearing."""
    lamp.data.energy = energy
    lamp.data.color = color
    lamp.rotation_mode = "QUATERNION"
    lamp.rotation_quaternion = _direction(elevation_deg, bearing_deg).to_track_quat("Z", "Y")


def add_area_lamps(scene: Any, lamps: Sequence[AreaLamp], prefix: str) -> None:
    """An area lamp object `<prefix><i>` for each of `lamps`, in `scene`."""
    for i, lamp in enumerate(lamps):
        data = bpy.data.lights.new(f"{prefix}{i}", "AREA")
        data.size = lamp.size
        data.energy = lamp.power
        obj = bpy.data.objects.new(f"{prefix}{i}", data)
        obj.location = lamp.location
        scene.collection.objects.link(obj)


@singledispatch
def apply_lighting(light: Any, scene: Any) -> None:
    """Light `scene` as `light` says."""
    raise TypeError(f"no lighting for a {type(light).__name__}")


@apply_lighting.register
def _day(light: DayLight, scene: Any) -> None:
    sky, background, lamp = _sky_and_lamp(scene)
    sky.sun_elevation = math.radians(light.sun_elevation_deg)
    sky.sun_rotation = math.radians(light.sun_bearing_deg)
    scene.world.node_tree.links.new(sky.outputs["Color"], background.inputs["Color"])
    background.inputs["Strength"].default_value = light.sky_strength
    _shine(lamp, light.sun_strength, (1.0, 1.0, 1.0), light.sun_elevation_deg, light.sun_bearing_deg)
    scene.view_settings.exposure = light.exposure


@apply_lighting.register
def _night(light: NightLight, scene: Any) -> None:
    _, background, lamp = _sky_and_lamp(scene)
    background.inputs["Color"].default_value = (*light.sky_color, 1.0)
    background.inputs["Strength"].default_value = 1.0
    _shine(lamp, light.moon_strength, (0.8, 0.87, 1.0), light.moon_elevation_deg, light.moon_bearing_deg)
    scene.view_settings.exposure = light.exposure


@apply_lighting.register
def _indoor(light: IndoorLight, scene: Any) -> None:
    world = bpy.data.worlds.new("panorama_world")
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*light.ambient, 1.0)
    scene.world = world
    add_area_lamps(scene, light.lamps, "panorama_light")
