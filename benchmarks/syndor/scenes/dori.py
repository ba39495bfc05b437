"""DORI pixel densities (BS EN 62676-4) and the pinhole camera that maps them to distances.

vfov = 2·atan(h_sensor / 2f);  D = h_res · f / (PPM · h_sensor)   (docs/design/syndor.md §1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Minimum pixel densities of the four DORI levels, px/m.
THRESHOLDS_PPM: dict[str, float] = {
    "detection": 25.0,
    "observation": 62.5,
    "recognition": 125.0,
    "identification": 250.0,
}

#: Midpoints of the three zones between consecutive levels, px/m (the paper's sample points).
ZONE_MIDPOINTS_PPM: dict[str, float] = {
    "recognition-identification": (THRESHOLDS_PPM["recognition"] + THRESHOLDS_PPM["identification"]) / 2,
    "observation-recognition": (THRESHOLDS_PPM["observation"] + THRESHOLDS_PPM["recognition"]) / 2,
    "detection-observation": (THRESHOLDS_PPM["detection"] + THRESHOLDS_PPM["observation"]) / 2,
}


@dataclass(frozen=True)
class DoriOptics:
    """The optics the DORI formula needs: vertical resolution (px), focal length and sensor height (mm). No pose
    and no width: the rig places cameras (benchmarks/syndor/camera_rig.RigCamera), the render spec carries their
    intrinsics (core/render_spec.PinholeCamera)."""

    resolution_h: int
    focal_mm: float
    sensor_height_mm: float

    def __post_init__(self) -> None:
        for name in ("resolution_h", "focal_mm", "sensor_height_mm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")


#: Named camera specs. `paper` reproduces the paper's 5.4 / 10.8 / 23.0 m; `ipc-1-2.8in`
#: is a real 1/2.8" 1080p sensor (5.57 × 3.13 mm active area).
PRESETS: dict[str, DoriOptics] = {
    "paper": DoriOptics(resolution_h=1080, focal_mm=2.8, sensor_height_mm=3.0),
    "ipc-1-2.8in": DoriOptics(resolution_h=1080, focal_mm=2.8, sensor_height_mm=3.13),
}


def vertical_fov_deg(focal_mm: float, sensor_height_mm: float) -> float:
    """Vertical field of view of a pinhole camera, degrees."""
    return math.degrees(2.0 * math.atan(sensor_height_mm / (2.0 * focal_mm)))


def distance_for_ppm(ppm: float, cam: DoriOptics) -> float:
    """Distance (m) at which an object at the optical axis is imaged at `ppm` px/m."""
    return cam.resolution_h * cam.focal_mm / (ppm * cam.sensor_height_mm)


def ppm_at_distance(distance_m: float, cam: DoriOptics) -> float:
    """Pixel density (px/m) of an object at `distance_m` on the optical axis."""
    return cam.resolution_h * cam.focal_mm / (distance_m * cam.sensor_height_mm)


def zone_table(cam: DoriOptics, zones: dict[str, float] | None = None) -> list[dict[str, float | str]]:
    """One row per zone: name, px/m, distance (m) and the camera's vertical FOV (deg)."""
    zones = ZONE_MIDPOINTS_PPM if zones is None else zones
    vfov = vertical_fov_deg(cam.focal_mm, cam.sensor_height_mm)
    return [
        {"zone": name, "ppm": ppm, "distance_m": distance_for_ppm(ppm, cam), "vfov_deg": vfov}
        for name, ppm in zones.items()
    ]
