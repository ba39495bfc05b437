"""Synthetic panoramas for ODI tests without Blender: boxes on a floor, ray-cast into an ERP here with numpy.

A scene is written as the embedded synthetic panoramas are (benchmarks/odi/scenes/synthetic_panoramas.py): `<name>.png`,
`<name>.instances.png` (uint16 ids, 0 = floor and sky) and `<name>.json` (per id: category, attributes, the
box's centre and its direction from the camera). World axes: +z up, the camera at (0, 0, height) looking along +y,
θ = atan2(x, y), φ the elevation.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

RGB = {
    "red": (200, 30, 30),
    "blue": (30, 70, 200),
    "green": (40, 150, 50),
    "yellow": (230, 210, 40),
    "brown": (120, 70, 30),
    "black": (15, 15, 15),
    "white": (240, 240, 240),
    "grey": (128, 128, 128),
    "orange": (240, 140, 20),
    "purple": (120, 50, 160),
}


@dataclass(frozen=True)
class Box:
    """An object: category, where it stands (bearing θ, floor distance), its size (w, d, h) and how high its base is."""

    category: str
    theta: float
    dist: float
    size: tuple[float, float, float]
    z0: float = 0.0
    colour: str = "grey"
    material: str | None = "wood"
    extra: dict = field(default_factory=dict)

    @property
    def centre(self) -> tuple[float, float, float]:
        t = math.radians(self.theta)
        return self.dist * math.sin(t), self.dist * math.cos(t), self.z0 + self.size[2] / 2


#: A room: two chairs (one across the front/right face edge at θ = 45°), a person wearing a red shirt, a sign on
#: a wall, a lamp high up near the pole, a rug below me.
ROOM = (
    Box("sofa", 0.0, 2.8, (1.6, 0.8, 0.8), colour="blue", material="fabric"),
    Box("chair", 95.0, 2.4, (0.6, 0.6, 0.9), colour="red"),
    Box("chair", 45.0, 2.6, (0.6, 0.6, 0.9), colour="green"),
    Box("table", -60.0, 2.2, (0.9, 0.9, 0.7), colour="brown"),
    Box("bookshelf", -120.0, 2.7, (0.9, 0.4, 1.8), colour="brown"),
    Box("potted plant", 130.0, 2.3, (0.5, 0.5, 0.9), colour="green", material="ceramic"),
    Box("ball", -20.0, 1.8, (0.35, 0.35, 0.35), colour="orange", material="rubber"),
    Box(
        "person",
        160.0,
        2.5,
        (0.45, 0.3, 1.7),
        colour="red",
        material=None,
        extra={"pose": "walking", "clothing": "a red shirt"},
    ),
    Box("sign", -160.0, 3.4, (0.8, 0.05, 0.4), z0=1.7, colour="white", material="paper", extra={"text": "EXIT"}),
    Box("lamp", 20.0, 0.6, (0.4, 0.4, 0.3), z0=2.4, colour="yellow", material="metal"),
    Box("rug", 100.0, 0.5, (1.2, 1.2, 0.02), colour="purple", material="fabric"),
)
#: A yard: two people, a car, a bench, a tree, a trash can, a street lamp, a fire hydrant, a sign.
YARD = (
    Box("car", 10.0, 6.0, (1.8, 4.0, 1.4), colour="blue", material="metal"),
    Box("bench", 80.0, 4.0, (1.6, 0.5, 0.5), colour="brown"),
    Box("trash can", 120.0, 3.2, (0.6, 0.6, 0.9), colour="green", material="metal"),
    Box("tree", 175.0, 5.5, (0.6, 0.6, 3.0), colour="green"),
    Box("fire hydrant", -70.0, 3.0, (0.3, 0.3, 0.7), colour="red", material="metal"),
    Box("street lamp", -130.0, 5.0, (0.2, 0.2, 4.0), colour="grey", material="metal"),
    Box(
        "person",
        -100.0,
        3.6,
        (0.45, 0.3, 1.75),
        colour="blue",
        material=None,
        extra={"pose": "upright", "clothing": "a blue shirt"},
    ),
    Box(
        "person",
        140.0,
        4.2,
        (0.45, 0.3, 1.75),
        colour="yellow",
        material=None,
        extra={"pose": "walking", "clothing": "a yellow shirt"},
    ),
    Box("sign", -165.0, 5.0, (1.2, 0.05, 0.6), z0=1.8, colour="white", material="paper", extra={"text": "CAFE"}),
)
SCENES = {"room": (ROOM, 1.5), "yard": (YARD, 1.6)}


def erp_rays(width: int) -> np.ndarray:
    """Unit ray directions (H, W, 3) of the ERP pixel centres in world axes (x right, y ahead, z up)."""
    h = width // 2
    theta = np.radians(-180.0 + (np.arange(width) + 0.5) / width * 360.0)[None, :]
    phi = np.radians(90.0 - (np.arange(h) + 0.5) / h * 180.0)[:, None]
    return np.stack(np.broadcast_arrays(np.cos(phi) * np.sin(theta), np.cos(phi) * np.cos(theta), np.sin(phi)), -1)


def hit_distance(rays: np.ndarray, origin: np.ndarray, box: Box) -> np.ndarray:
    """Ray parameter of the first hit with an axis-aligned box (inf where missed); slab method."""
    centre = np.array(box.centre)
    half = np.array(box.size) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (centre - half - origin) / rays
        t2 = (centre + half - origin) / rays
    near = np.nanmax(np.minimum(t1, t2), axis=-1)
    far = np.nanmin(np.maximum(t1, t2), axis=-1)
    return np.where((far >= near) & (far > 0), np.maximum(near, 0), np.inf)


def write_scene(folder: Path, name: str, width: int = 1024) -> Path:
    """Render scene `name` of SCENES into `folder`; returns the panorama's path."""
    boxes, height = SCENES[name]
    rays = erp_rays(width)
    origin = np.array([0.0, 0.0, height])
    best = np.full(rays.shape[:2], np.inf)
    ids = np.zeros(rays.shape[:2], np.uint16)
    for k, box in enumerate(boxes, start=1):
        t = hit_distance(rays, origin, box)
        closer = t < best
        best[closer], ids[closer] = t[closer], k
    rgb = np.where(rays[..., 2:] < 0, np.array([150, 130, 110]), np.array([200, 210, 230])).astype(np.uint8)
    for k, box in enumerate(boxes, start=1):
        rgb[ids == k] = RGB[box.colour]
    records = []
    for k, box in enumerate(boxes, start=1):
        x, y, z = box.centre
        records.append(
            {
                "id": k,
                "category": box.category,
                "colour": None if box.category == "person" else box.colour,
                "material": box.material,
                "text": box.extra.get("text"),
                "position_m": [x, y, z],
                "theta_deg": math.degrees(math.atan2(x, y)),
                "phi_deg": math.degrees(math.atan2(z - height, math.hypot(x, y))),
                **{k2: v for k2, v in box.extra.items() if k2 != "text"},
            }
        )
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.png"), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    cv2.imwrite(str(folder / f"{name}.instances.png"), ids)
    (folder / f"{name}.json").write_text(json.dumps({"camera_height_m": height, "instances": records}))
    return folder / f"{name}.png"
