"""The calibrated camera rig of SynDORBench (docs/design/syndor.md §1–2): pure geometry, no Blender.

World frame: Z up, the person stands on z = 0 facing −Y. Azimuth 0 puts the camera in front
of the person (on −Y); azimuth grows counter-clockwise seen from above, so 90° is the person's
left side (+X). Elevation is the angle above the horizontal plane through the aim point.
Each camera's 4×4 camera-to-world matrix is a level look-at in Blender's axes (benchfoundry/core/camera.py)
and goes to Blender unchanged. With `sensor_fit = VERTICAL`, `sensor_height = h_sensor`, `lens = f` and
square pixels, Blender's camera is the pinhole of focal length `focal_px` with its principal point at the
image centre, so a plane at distance D facing the camera is imaged at h_res·f / (D·h_sensor) px/m
(benchmarks/syndor/scenes/dori.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchfoundry.benchmarks.syndor.scenes import dori
from benchfoundry.core.camera import blender_camera_to_world


@dataclass(frozen=True)
class RigCamera:
    """One camera of SynDORBench's rig: its DORI zone and distance, where it stands, what it looks at, and its
    released number; its optics are the config's `dori.DoriOptics`, its render intrinsics a `PinholeCamera`."""

    zone: str
    target_ppm: float
    distance_m: float
    azimuth_deg: float
    elevation_deg: float
    cam_index: int
    matrix_world: tuple[tuple[float, ...], ...]  # 4×4 camera-to-world, rows

    @property
    def position(self) -> np.ndarray:
        return np.array([row[3] for row in self.matrix_world[:3]])


def cam_index(
    azimuth_deg: float,
    elevation_deg: float,
    azimuth_step: float = 45.0,
    elevation_step: float = 22.5,
    n_elevations: int = 4,
) -> int:
    """The released camera number `az_idx·4 + el_idx`; angles off the 45° / 22.5° grid have none (ValueError)."""
    az_idx, el_idx = azimuth_deg / azimuth_step, elevation_deg / elevation_step
    if not (az_idx.is_integer() and el_idx.is_integer() and 0 <= el_idx < n_elevations):
        raise ValueError(
            f"camera at azimuth {azimuth_deg}°, elevation {elevation_deg}° is off the released "
            f"{azimuth_step}° × {elevation_step}° grid: no camera number"
        )
    return int(az_idx) * n_elevations + int(el_idx)


def camera_position(target: np.ndarray, distance_m: float, azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """A point at `distance_m` from `target` in the rig's azimuth/elevation convention."""
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    offset = np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])
    return np.asarray(target, dtype=float) + distance_m * offset


def focal_px(spec: dori.DoriOptics) -> float:
    """Focal length in pixels: vertical sensor fit maps sensor_height onto resolution_h rows."""
    return spec.resolution_h * spec.focal_mm / spec.sensor_height_mm


def rig_cameras(
    spec: dori.DoriOptics,
    zones_ppm: dict[str, float],
    azimuths_deg: list[float],
    elevations_deg: list[float],
    target: np.ndarray,
) -> list[RigCamera]:
    """Every camera of the rig: zones (DORI distances) × azimuths × elevations, aimed at `target`."""
    cameras = []
    for zone, ppm in zones_ppm.items():
        distance = dori.distance_for_ppm(ppm, spec)
        for az in azimuths_deg:
            for el in elevations_deg:
                matrix = blender_camera_to_world(camera_position(target, distance, az, el), target)
                cameras.append(
                    RigCamera(
                        zone=zone,
                        target_ppm=float(ppm),
                        distance_m=float(distance),
                        azimuth_deg=float(az),
                        elevation_deg=float(el),
                        cam_index=cam_index(az, el),
                        matrix_world=tuple(tuple(float(x) for x in row) for row in matrix),
                    )
                )
    return cameras


def aim_point(vertices: np.ndarray) -> np.ndarray:
    """The person's centre the cameras aim at: the centre of the posed mesh's bounding box."""
    v = np.asarray(vertices, dtype=float)
    return (v.min(axis=0) + v.max(axis=0)) / 2
