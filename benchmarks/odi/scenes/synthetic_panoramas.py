"""The embedded ODI-Bench panoramas (docs/design/defaults.md §4): two scenes described in plain Python, rendered by
Blender's equirectangular camera in the render worker (benchmarks/odi/scenes/renderer.py).

Each scene is a room or a courtyard (unlabelled structure) with labelled objects (category, colour,
material), people (the body model of person/body_models.py) and a sign with known text; `odi.synthetic.count`
panoramas are seeded variants of the scenes in turn, `<scene>-<k>` (`vary`, `posed`). An object's
pass index is its instance id, so the object-index pass is an exact ERP instance map. A scene writes
`<scene>.png` (the panorama), `<scene>.instances.png` (uint16 ids, 0 = unlabelled) and `<scene>.json`
(each instance's category, attributes, 3D centre and its direction (θ, φ) from the camera).

World axes: +Z up, the camera at (0, 0, camera height) looking along +Y; sphere θ = atan2(x, y) (0°
ahead, +90° to the right = +X), φ = elevation (benchmarks/odi/stages/sphere_coords.py).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.assets.asset_library import AssetLibrary, read_library
from benchfoundry.assets.room_layout import EYE_HEIGHT_M, Obstacle, Placement, Request, lamp_bulb, library_object, place
from benchfoundry.benchmarks.odi.config import ASSET_LIBRARY_FIELD, SyntheticPanoramaConfig
from benchfoundry.benchmarks.odi.scenes.panorama_parts import Part, Wall, door, pane_window, skirting, window
from benchfoundry.benchmarks.odi.scenes.spec import PanoramaInstance, PanoramaShard
from benchfoundry.benchmarks.odi.stages.questions.descriptions import colour_name, with_article
from benchfoundry.benchmarks.odi.stages.sphere_images import write_image
from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.render_spec import (
    SURFACE_VERSION,
    AreaLamp,
    DayLight,
    IndoorLight,
    LibraryObject,
    Light,
    PersonSpec,
    Primitive,
    Sign,
    denoised_engine,
    to_json,
    write_spec,
)
from benchfoundry.core.seeding import item_rng, item_seed
from benchfoundry.core.store import spec_hash
from benchfoundry.person.prepare import prepare_person
from benchfoundry.person.textures import outfit
from benchfoundry.pipeline import render_client

#: Material name → (roughness, metallic).
MATERIALS: dict[str, tuple[float, float]] = {
    "fabric": (0.9, 0.0),
    "wood": (0.6, 0.0),
    "metal": (0.35, 1.0),
    "plastic": (0.4, 0.0),
    "ceramic": (0.2, 0.0),
    "rubber": (0.7, 0.0),
    "stone": (0.85, 0.0),
    "paper": (0.8, 0.0),
    "glass": (0.05, 0.0),
}
#: Material name → the procedural surface (render/surfaces.py) its objects are drawn with; others are plain.
SURFACE_OF: dict[str, str] = {"wood": "wood", "fabric": "fabric", "stone": "stone"}
#: Colour name → linear RGB.
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.6, 0.05, 0.04),
    "blue": (0.05, 0.12, 0.55),
    "green": (0.08, 0.35, 0.07),
    "yellow": (0.75, 0.6, 0.05),
    "brown": (0.25, 0.12, 0.05),
    "black": (0.02, 0.02, 0.02),
    "white": (0.8, 0.8, 0.8),
    "grey": (0.3, 0.3, 0.3),
    "orange": (0.8, 0.25, 0.03),
    "purple": (0.25, 0.06, 0.4),
}
#: Files of one rendered scene, beside each other in the panorama folder.
INSTANCES_SUFFIX = ".instances.png"
TRUTH_SUFFIX = ".json"
#: Part of a scene's hash: bump it when the truth file's records change.
TRUTH_VERSION = 2


@dataclass(frozen=True)
class Thing:
    """A labelled instance: category, colour and material names, its parts; `text` for a sign, or a person."""

    category: str
    colour: str
    material: str
    parts: tuple[Part, ...] = ()
    text: str | None = None
    person: tuple[float, float, str] | None = None  # (x, y, pose) of a person facing the camera
    text_at: tuple[float, float, float] | None = None  # where the sign's text stands
    asset: Placement | None = None  # a library object in place of the parts (`furnish`)


@dataclass(frozen=True)
class PanoramaScene:
    name: str
    camera_height_m: float
    structure: tuple[tuple[str, Part], ...]
    things: tuple[Thing, ...]
    lighting: Light
    floor_half_m: tuple[float, float] = (0.0, 0.0)  # the floor a library's objects may stand on: ±x, ±y (m)


def polar(theta_deg: float, dist: float) -> tuple[float, float]:
    """(x, y) on the floor at azimuth θ (0° = +Y, 90° = +X) and distance `dist` from the camera."""
    t = math.radians(theta_deg)
    return dist * math.sin(t), dist * math.cos(t)


def facing_yaw(x: float, y: float) -> float:
    """Yaw (deg, about +Z) that turns a −Y-facing object at (x, y) towards the camera on the z axis."""
    return math.degrees(math.atan2(-x, y))


def _standing(
    theta: float, dist: float, shape: str, size: tuple[float, float, float], z0: float = 0.0, yaw: float | None = None
) -> Part:
    x, y = polar(theta, dist)
    return Part(shape, (x, y, z0 + size[2] / 2), size, facing_yaw(x, y) if yaw is None else yaw)


def _sign(theta: float, dist: float, z: float, width: float, height: float) -> tuple[Part, tuple[float, float, float]]:
    """A board facing the camera and the point just in front of it where the text goes."""
    x, y = polar(theta, dist)
    board = Part("box", (x, y, z), (width, 0.04, height), facing_yaw(x, y))
    nx, ny = polar(theta, dist - 0.03)
    return board, (nx, ny, z)


def _living_room() -> PanoramaScene:
    w, d, h = 6.0, 7.0, 2.8
    north, south = Wall((0, d / 2), (1, 0), (0, -1)), Wall((0, -d / 2), (1, 0), (0, 1))
    east, west = Wall((w / 2, 0), (0, 1), (-1, 0)), Wall((-w / 2, 0), (0, 1), (1, 0))
    structure = (
        ("floor", Part("box", (0, 0, -0.05), (w, d, 0.1), look=("brown", "wood"), surface="planks")),
        ("ceiling", Part("box", (0, 0, h + 0.05), (w, d, 0.1), look=("white", "stone"), surface="plaster")),
        ("wall_n", Part("box", (0, d / 2 + 0.05, h / 2), (w, 0.1, h), look=("white", "stone"), surface="plaster")),
        ("wall_s", Part("box", (0, -d / 2 - 0.05, h / 2), (w, 0.1, h), look=("white", "stone"), surface="plaster")),
        ("wall_e", Part("box", (w / 2 + 0.05, 0, h / 2), (0.1, d, h), look=("grey", "stone"), surface="plaster")),
        ("wall_w", Part("box", (-w / 2 - 0.05, 0, h / 2), (0.1, d, h), look=("grey", "stone"), surface="plaster")),
        *window(north, "window_n", 0.0, 0.95, 1.8, 1.25, "window"),  # over the sofa
        *window(east, "window_e", 0.3, 0.95, 1.4, 1.25, "window"),
        *door(west, "door_w", 2.2),
        *(
            part
            for wall, name, length in ((north, "n", w), (south, "s", w), (east, "e", d), (west, "w", d))
            for part in skirting(wall, f"skirting_{name}", length)
        ),
    )
    board, text_at = _sign(-160.0, 3.5 / math.cos(math.radians(20.0)) - 0.06, 1.7, 0.9, 0.45)
    things = (
        Thing("sofa", "blue", "fabric", (_standing(0, 2.7, "box", (1.9, 0.9, 0.8)),)),
        Thing("chair", "red", "fabric", (_standing(90, 2.3, "box", (0.7, 0.7, 0.9)),)),
        Thing("lamp", "yellow", "metal", (_standing(-70, 2.5, "cylinder", (0.3, 0.3, 1.6)),)),
        Thing("television", "black", "plastic", (_standing(180, 3.35, "box", (1.2, 0.1, 0.7), z0=0.9),)),
        Thing("bookshelf", "brown", "wood", (_standing(-115, 2.6, "box", (0.9, 0.4, 1.8)),)),
        Thing(
            "potted plant",
            "green",
            "ceramic",
            (_standing(120, 2.4, "cylinder", (0.4, 0.4, 0.5)), _standing(120, 2.4, "sphere", (0.7, 0.7, 0.7), z0=0.45)),
        ),
        Thing("ball", "orange", "rubber", (_standing(-30, 2.2, "sphere", (0.5, 0.5, 0.5)),)),
        Thing("lamp", "white", "ceramic", (Part("sphere", (0.5, 0.4, 2.45), (0.4, 0.4, 0.4)),)),
        Thing("rug", "purple", "fabric", (Part("box", (0.2, -0.2, 0.01), (1.0, 0.7, 0.02)),)),
        Thing("chair", "green", "wood", (_standing(45, 2.3, "box", (0.6, 0.6, 0.9)),)),  # spans front/right
        Thing("box", "brown", "paper", (_standing(-135, 2.6, "box", (0.6, 0.6, 0.5)),)),  # spans left/back
        Thing("person", "", "", person=(*polar(150, 2.6), "upright")),
        Thing("sign", "white", "paper", (board,), text="EXIT", text_at=text_at),
    )
    lighting = IndoorLight(
        ambient=(0.05, 0.05, 0.05),
        lamps=tuple(
            AreaLamp(location=(x, y, h - 0.05), size=1.0, power=120.0) for x in (-1.5, 1.5) for y in (-1.8, 1.8)
        ),
    )
    return PanoramaScene("living_room", 1.5, structure, things, lighting, (w / 2, d / 2))


def _building(k: int, bearing: float, r: float) -> tuple[tuple[str, Part], ...]:
    """A plastered building 10 × 8 m facing the courtyard's centre from `r` m at `bearing` (deg), with a door and
    shop windows on the ground floor and a row of windows above."""
    t = math.radians(bearing)
    face = Wall(
        ((r - 0.5) * math.sin(t), (r - 0.5) * math.cos(t)), (math.cos(t), -math.sin(t)), (-math.sin(t), -math.cos(t))
    )
    body = Part(
        "box",
        (r * math.sin(t), r * math.cos(t), 4.0),
        (10.0, 1.0, 8.0),
        -bearing,
        look=("white" if k % 2 else "brown", "stone"),
        surface="plaster",
    )
    return (
        (f"building{k}", body),
        *door(face, f"building{k}_door", 0.0, 1.2, 2.3),
        *(p for at in (-2.6, 2.6) for p in pane_window(face, f"building{k}_shop{at:+.0f}", at, 0.6, 1.8, 1.7)),
        *(p for at in (-3.0, -1.0, 1.0, 3.0) for p in pane_window(face, f"building{k}_w{at:+.0f}", at, 3.4, 1.1, 1.5)),
    )


def _courtyard() -> PanoramaScene:
    r = 12.0
    structure = (
        ("ground", Part("box", (0, 0, -0.05), (80, 80, 0.1), look=("grey", "stone"), surface="paving")),
        *(part for k, a in enumerate(range(0, 360, 45)) for part in _building(k, a, r)),
    )
    board, text_at = _sign(150.0, 5.0, 1.8, 1.4, 0.7)
    things = (
        Thing("car", "blue", "metal", (_standing(0, 6.5, "box", (1.8, 4.2, 1.4), yaw=90.0),)),
        Thing("bench", "brown", "wood", (_standing(90, 4.0, "box", (1.6, 0.5, 0.5)),)),
        Thing("trash can", "green", "metal", (_standing(70, 3.5, "cylinder", (0.6, 0.6, 0.9)),)),
        Thing(
            "tree",
            "green",
            "wood",
            (
                _standing(180, 6.0, "cylinder", (0.4, 0.4, 2.5), yaw=0.0),
                _standing(180, 6.0, "sphere", (2.4, 2.4, 2.4), z0=2.2, yaw=0.0),
            ),
        ),
        Thing("fire hydrant", "red", "metal", (_standing(-60, 3.0, "cylinder", (0.3, 0.3, 0.7)),)),
        Thing(
            "street lamp",
            "grey",
            "metal",
            (
                _standing(-120, 5.0, "cylinder", (0.16, 0.16, 4.0), yaw=0.0),
                _standing(-120, 5.0, "sphere", (0.5, 0.5, 0.5), z0=3.9, yaw=0.0),
            ),
        ),
        Thing("box", "brown", "wood", (_standing(-45, 3.0, "box", (0.8, 0.8, 0.8)),)),  # spans front/left
        Thing("potted plant", "green", "ceramic", (_standing(135, 3.5, "cylinder", (0.6, 0.6, 0.8)),)),  # spans
        Thing("manhole cover", "grey", "metal", (Part("cylinder", (0.3, 0.5, 0.01), (0.8, 0.8, 0.02)),)),
        Thing("person", "", "", person=(*polar(110, 3.5), "upright")),
        Thing("person", "", "", person=(*polar(-95, 4.0), "walking")),
        Thing("sign", "white", "paper", (board,), text="CAFE", text_at=text_at),
    )
    lighting = DayLight(sun_elevation_deg=45.0, sun_bearing_deg=135.0, sun_strength=3.0, sky_strength=0.3, exposure=0.0)
    return PanoramaScene("courtyard", 1.6, structure, things, lighting, (7.0, 7.0))


SCENES = {"living_room": _living_room, "courtyard": _courtyard}
#: A variant's sign says one of these (four letters, as the drawn boards hold).
SIGN_WORDS = {"living_room": ("EXIT", "OPEN", "HOME", "INFO", "BOOK"), "courtyard": ("CAFE", "SHOP", "TAXI", "BANK")}
#: Categories a variant keeps the colour of (a plant is green, a sign white); a person's colour is their clothes.
KEEP_COLOUR = {"tree", "potted plant", "sign", "person"}
#: Categories a variant never leaves out (each gives its own questions).
ALWAYS_THERE = {"person", "sign"}
#: The floors a room's variant is laid with, one drawn a variant: (procedural surface, colour, material).
FLOOR_FINISHES = (("planks", "brown", "wood"), ("tile", "white", "ceramic"), ("carpet", "grey", "fabric"))


def split_name(name: str) -> tuple[str, bool]:
    """(its scene, whether it is a seeded variant) of a panorama's name: `<scene>` or `<scene>-<k>`."""
    scene, _, k = name.rpartition("-")
    return (scene, True) if scene in SCENES and k.isdigit() else (name, False)


def scene_named(name: str, seed: int = 0) -> PanoramaScene:
    """A scene as drawn, or for `<scene>-<k>` its seeded variant (`vary`), before its pose (`posed`)."""
    base, variant = split_name(name)
    try:
        scene = SCENES[base]()
    except KeyError:
        raise ValueError(f"unknown synthetic panorama scene {name!r}; known: {sorted(SCENES)}") from None
    return vary(scene, name, seed) if variant else scene


def vary(scene: PanoramaScene, name: str, seed: int) -> PanoramaScene:
    """A variant named `name` of a drawn scene: its objects recoloured (one category's objects apart), its sign's
    word, its light (the sun's height and strength, the lamps' power), a room's floor (`FLOOR_FINISHES`) and up to
    two of its objects left out (never a person or the sign), all drawn from (seed, name). Where things stand is
    `posed`'s (after a furnishing)."""
    rng = item_rng(seed, "odi.synthetic.variant", name)
    things = list(scene.things)
    palette = sorted(COLOURS)
    for category in sorted({t.category for t in things} - KEEP_COLOUR):
        which = [k for k, t in enumerate(things) if t.category == category and t.colour]
        colours = rng.choice(palette, size=len(which), replace=False)
        for k, colour in zip(which, colours, strict=True):
            things[k] = replace(things[k], colour=str(colour))
    words = SIGN_WORDS[split_name(name)[0]]
    things = [replace(t, text=str(words[rng.integers(len(words))])) if t.text is not None else t for t in things]
    optional = [k for k, t in enumerate(things) if t.category not in ALWAYS_THERE]
    left_out = set(rng.choice(optional, size=int(rng.integers(3)), replace=False).tolist())
    things = [t for k, t in enumerate(things) if k not in left_out]
    light, structure = scene.lighting, scene.structure
    if isinstance(light, DayLight):
        light = replace(
            light,
            sun_elevation_deg=round(float(rng.uniform(25.0, 65.0)), 2),
            sun_strength=round(light.sun_strength * float(rng.uniform(0.7, 1.3)), 3),
        )
    elif isinstance(light, IndoorLight):
        power = float(rng.uniform(0.7, 1.3))
        light = replace(light, lamps=tuple(replace(lamp, power=round(lamp.power * power, 2)) for lamp in light.lamps))
        surface, colour, material = FLOOR_FINISHES[int(rng.integers(len(FLOOR_FINISHES)))]
        floor = replace(dict(structure)["floor"], look=(colour, material), surface=surface)
        structure = tuple((n, floor if n == "floor" else p) for n, p in structure)
    return replace(scene, name=name, structure=structure, things=tuple(things), lighting=light)


def posed(scene: PanoramaScene, seed: int) -> PanoramaScene:
    """A variant turned about the camera by a seeded azimuth and, one in two, mirrored left for right: the whole
    scene (structure, objects, people, lamps, the sun, a library object's footprint) moves rigidly, so nothing
    that stood apart comes to overlap; a scene as drawn stays as it is."""
    if not split_name(scene.name)[1]:
        return scene
    rng = item_rng(seed, "odi.synthetic.pose", scene.name)
    turn = float(rng.uniform(0.0, 360.0))
    mirror = bool(rng.integers(2))
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))

    def point(x: float, y: float) -> tuple[float, float]:
        x = -x if mirror else x
        return x * c + y * s, -x * s + y * c

    def yaw(value: float) -> float:  # an azimuth turn by +turn is a turn about +Z by −turn
        return round((-value if mirror else value) - turn, 6)

    def part(p: Part) -> Part:
        x, y = point(p.center[0], p.center[1])
        return replace(p, center=(x, y, p.center[2]), yaw_deg=yaw(p.yaw_deg))

    def placed(a: Placement) -> Placement:
        # the footprint (a rectangle) moves rigidly: its centre to the moved centre; the object is turned so that
        # its front's direction moves as a direction does (the mesh is not mirrored: a front off −Y turns twice)
        front = a.asset.front_deg or 0.0
        fx, fy = point(*a.footprint_center)
        turned = replace(a, location=(0.0, 0.0, a.location[2]), yaw_deg=yaw(a.yaw_deg + front) - front)
        ox, oy = turned.footprint_center
        return replace(turned, location=(fx - ox, fy - oy, a.location[2]))

    def thing(t: Thing) -> Thing:
        return replace(
            t,
            parts=tuple(part(p) for p in t.parts),
            person=None if t.person is None else (*point(t.person[0], t.person[1]), t.person[2]),
            text_at=None if t.text_at is None else (*point(t.text_at[0], t.text_at[1]), t.text_at[2]),
            asset=None if t.asset is None else placed(t.asset),
        )

    light = scene.lighting
    if isinstance(light, DayLight):
        bearing = -light.sun_bearing_deg if mirror else light.sun_bearing_deg
        light = replace(light, sun_bearing_deg=round((bearing + turn) % 360.0, 6))
    elif isinstance(light, IndoorLight):
        light = replace(
            light,
            lamps=tuple(replace(lamp, location=(*point(*lamp.location[:2]), lamp.location[2])) for lamp in light.lamps),
        )
    return replace(
        scene,
        structure=tuple((n, part(p)) for n, p in scene.structure),
        things=tuple(thing(t) for t in scene.things),
        lighting=light,
    )


#: The radius (m) of the floor kept free over a door leaf: the doorway and its swing.
DOORWAY_M = 0.9


def _on_floor(thing: Thing) -> bool:
    return bool(thing.parts) and min(p.center[2] - p.size[2] / 2 for p in thing.parts) < 0.05


def furnish(scene: PanoramaScene, library: AssetLibrary, seed: int) -> PanoramaScene:
    """The scene with each floor-standing object of a class the library holds replaced by a library object,
    arranged by our layout (assets/room_layout.py) from where the primitive stood (against the walls
    in a room with walls), the camera at eye height; the other objects, people and signs stay, as obstacles of the
    layout, and so do the doorways."""
    wanted = [k for k, t in enumerate(scene.things) if t.category in library.categories and _on_floor(t)]
    requests = []
    for k in wanted:
        x, y = np.mean([p.center[:2] for p in scene.things[k].parts], axis=0)
        requests.append(Request(scene.things[k].category, math.degrees(math.atan2(x, y)), float(math.hypot(x, y))))
    obstacles = [Obstacle(t.person[0], t.person[1], 0.35) for t in scene.things if t.person is not None]
    obstacles += [
        Obstacle(p.center[0], p.center[1], math.hypot(p.size[0], p.size[1]) / 2)
        for k, t in enumerate(scene.things)
        if k not in wanted and _on_floor(t)
        for p in t.parts
    ]
    # a doorway stays free: a circle over each door leaf and the floor in front of it
    obstacles += [
        Obstacle(p.center[0], p.center[1], DOORWAY_M) for name, p in scene.structure if name.endswith("_leaf")
    ]
    walls = any(name.startswith("wall_") for name, _ in scene.structure)
    rng = item_rng(seed, "odi.layout", scene.name)
    placements = place(requests, library, scene.floor_half_m, obstacles, rng, walls=walls)
    things = list(scene.things)
    for k, placement in zip(wanted, placements, strict=True):
        things[k] = replace(things[k], colour="", material="", parts=(), asset=placement)
    return replace(scene, camera_height_m=EYE_HEIGHT_M, things=tuple(things), lighting=_lit(scene.lighting, placements))


def _lit(light: Light, placements: tuple[Placement, ...]) -> Light:
    """Indoors, the light with a bulb in each placed lamp; outdoors, as it was."""
    if not isinstance(light, IndoorLight):
        return light
    bulbs = tuple(lamp_bulb(p) for p in placements if p.category == "lamp")
    return replace(light, lamps=light.lamps + bulbs)


def direction_of(point: tuple[float, float, float] | np.ndarray, camera_height_m: float) -> tuple[float, float]:
    """(θ, φ) in degrees of a world point seen from the camera (module docstring)."""
    x, y, z = (float(v) for v in point)
    z -= camera_height_m
    return math.degrees(math.atan2(x, y)), math.degrees(math.atan2(z, math.hypot(x, y)))


def _primitive(part: Part, colour: str, material: str, pass_index: int = 0, name: str = "") -> Primitive:
    roughness, metallic = MATERIALS[material]
    surface = SURFACE_OF.get(material, "") if part.surface is None else part.surface
    return Primitive(
        shape=part.shape,
        center=part.center,
        size=part.size,
        yaw_deg=part.yaw_deg,
        rgb=COLOURS[colour],
        roughness=roughness,
        metallic=metallic,
        pass_index=pass_index,
        name=name,
        surface=surface,
    )


def render_spec(
    scene: PanoramaScene,
    people: dict[str, tuple[str, str, float]],
    settings: SyntheticPanoramaConfig,
    seed: int,
    image: Path,
    index_npy: Path,
    library: AssetLibrary | None = None,
) -> tuple[PanoramaShard, list[dict[str, Any]]]:
    """The worker's spec and the ground-truth instance records.

    `people` maps a pose name to (mesh .npz, texture .png, body height m, clothing words or None) written by
    `prepare_people`; `library` holds the files of a `furnish`ed scene's objects.
    """
    instances, truth = [], []
    for k, thing in enumerate(scene.things, start=1):
        parts: tuple[Primitive | LibraryObject, ...] = tuple(
            _primitive(p, *(p.look or (thing.colour, thing.material)), pass_index=k) for p in thing.parts
        )
        person, signs = None, ()
        record: dict[str, Any] = {
            "id": k,
            "category": thing.category,
            "colour": thing.colour or None,
            "material": thing.material or None,
            "text": thing.text,
        }
        if thing.person is not None:
            x, y, pose = thing.person
            mesh, texture, height, clothing = people[pose]
            person = PersonSpec(
                mesh=mesh, texture=texture, pass_index=k, location=(x, y, 0.0), yaw_deg=facing_yaw(x, y)
            )
            centre = np.array([x, y, height / 2])
            record["pose"] = pose
            record["clothing"] = clothing
        elif thing.asset is not None:
            if library is None:
                raise ValueError(f"{scene.name}: a library object without its library")
            parts = (library_object(thing.asset, library, k),)
            centre = np.array(thing.asset.center)
            record["asset"] = thing.asset.asset.path
        else:
            centre = np.mean([p.center for p in thing.parts], axis=0)
        if thing.text is not None:
            board = thing.parts[0]
            signs = (
                Sign(
                    text=thing.text,
                    center=thing.text_at or board.center,
                    char_height=0.55 * board.size[2],
                    yaw_deg=board.yaw_deg,
                    rgb=COLOURS["red"],
                ),
            )
        theta, phi = direction_of(centre, scene.camera_height_m)
        record.update(
            {
                "position_m": [round(float(v), 4) for v in centre],
                "theta_deg": round(theta, 4),
                "phi_deg": round(phi, 4),
                "distance_m": round(float(np.linalg.norm(centre - [0, 0, scene.camera_height_m])), 4),
            }
        )
        instances.append(PanoramaInstance(id=k, parts=parts, signs=signs, person=person))
        truth.append(record)
    spec = PanoramaShard(
        scene=scene.name,
        width=settings.width,
        engine=denoised_engine(settings, max_bounces=3),
        seed=seed,
        camera_height_m=scene.camera_height_m,
        structure=tuple(_primitive(p, *p.look, name=n) for n, p in scene.structure if p.look),
        instances=tuple(instances),
        light=scene.lighting,
        image=str(image),
        index_npy=str(index_npy),
    )
    return spec, truth


def clothing_words(person: PersonConfig, texture_id: int) -> str | None:
    """What a procedural texture's person wears, as the truth says it ("a green shirt"); None for SMPLitex files."""
    if person.textures.smplitex_dir is not None:
        return None
    shirt = np.asarray(outfit(texture_id)["shirt"]) * 255.0
    return with_article(f"{colour_name(shirt[None])} shirt")


def prepare_people(person: PersonConfig, cache: Path, seed: int) -> dict[str, tuple[str, str, float, str | None]]:
    """Pose the first person of `person.textures.ids` (upright, walking) and write meshes and texture for the
    worker (person/prepare.py): pose name → (mesh .npz, texture .png, body height m, clothing words)."""
    from benchfoundry.assets.poses import UPRIGHT, action_pose, upright_pose

    texture_id = person.textures.ids[0]
    clothing = clothing_words(person, texture_id)
    people = {}
    for pose, angles, action in (("upright", upright_pose(), UPRIGHT), ("walking", action_pose("walking"), "walking")):
        files = prepare_person(person, seed, texture_id, pose, angles, action, cache)
        height = float(np.ptp(files.body.vertices[:, 2]))
        people[pose] = (str(files.mesh_npz), str(files.texture_png), height, clothing)
    return people


def index_map_from_pass(path: Path) -> np.ndarray:
    """The object-index pass (float32 `.npy` from the worker) as uint16 ids; a value that is not an integer is an
    error."""
    values = np.load(path, allow_pickle=False)
    ids = np.rint(values)
    if values.ndim != 2 or not np.allclose(values, ids, atol=1e-3) or ids.min() < 0 or ids.max() > 65535:
        raise ValueError(f"{path}: the object-index pass does not hold integer ids")
    return ids.astype(np.uint16)


def scene_spec_hash(spec: PanoramaShard, truth: list[dict[str, Any]]) -> str:
    """The hash of what a scene's panorama is made of, wherever the build lives: the worker's spec without its
    output files, a person's mesh by its file's name (which holds its content hash, person/prepare.py) and its
    texture by the hash of its bytes, never by the build's absolute paths."""

    def portable(value: Any) -> Any:
        if isinstance(value, dict):
            if value.get("kind") == PersonSpec.kind:
                texture = hashlib.sha256(Path(value["texture"]).read_bytes()).hexdigest()
                return {**value, "mesh": Path(value["mesh"]).name, "texture": texture}
            return {k: portable(v) for k, v in value.items() if k not in ("image", "index_npy")}
        if isinstance(value, list):
            return [portable(v) for v in value]
        return value

    return spec_hash([TRUTH_VERSION, SURFACE_VERSION, truth, portable(to_json(spec))])


def render_scene(
    name: str, folder: Path, settings: SyntheticPanoramaConfig, person: PersonConfig, seed: int, timeout_s: float
) -> dict[str, Any]:
    """Render one scene into `folder` unless its files are there with the same spec; returns a summary."""
    scene = scene_named(name, seed)
    library = (
        None if settings.asset_library is None else read_library(settings.asset_library, field=ASSET_LIBRARY_FIELD)
    )
    if library is not None:
        scene = furnish(scene, library, seed)
    scene = posed(scene, seed)
    people = prepare_people(person, folder.parent / "_people", seed)
    work = folder.parent / "_render" / name
    spec, truth = render_spec(
        scene,
        people,
        settings,
        item_seed(seed, "odi.synthetic", name),
        work / "panorama.png",
        work / "instances.npy",
        library,
    )
    h = scene_spec_hash(spec, truth)
    truth_path = folder / f"{name}{TRUTH_SUFFIX}"
    image, ids = folder / f"{name}.png", folder / f"{name}{INSTANCES_SUFFIX}"
    if truth_path.exists() and image.exists() and ids.exists():
        if json.loads(truth_path.read_text()).get("spec_hash") == h:
            return {"scene": name, "rendered": False, "seconds": 0.0}
    spec_path = write_spec(work / "spec.json", spec)
    reply = render_client.render_spec(spec_path, timeout_s=timeout_s, shards_per_worker=1)
    write_image(ids, index_map_from_pass(work / "instances.npy"))
    (work / "panorama.png").replace(image)
    write_json_atomic(
        truth_path,
        {
            "scene": name,
            "spec_hash": h,
            "width": settings.width,
            "camera_height_m": scene.camera_height_m,
            "instances": truth,
        },
    )
    shutil.rmtree(work)  # the worker's spec names this build's absolute paths; the release keeps none
    return {"scene": name, "rendered": True, "seconds": reply["seconds"]}
