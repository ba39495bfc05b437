"""What a cube-face mask says about its object without any 3D truth (docs/design/odi.md §2.1): where it meets the floor,
how much of the sphere around the viewer it covers, and how much of the ERP image it fills.

- Floor contact: the lowest elevation φ of the mask in a band of azimuths around its centroid (a quarter of its
  angular width each side): the foot of the object as seen from the camera. On a flat floor with the camera
  `h` above it, a contact point φ < 0 below the horizon lies `h / tan(−φ)` away on the floor.
- Solid angle: a face pixel at plane coordinates (a, b) of a face of n pixels subtends (2/n)² / (1 + a² + b²)^{3/2}
  steradians (the unit cube's face seen from its centre).
- ERP fraction: an ERP pixel at latitude φ subtends cos φ · dθ · dφ, so a region of solid angle Ω_k per pixel fills
  Σ Ω_k / cos φ_k of the (2π · π) ERP: near the poles a small object fills a wide band of the image.
"""

from __future__ import annotations

import math

import numpy as np

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm

#: cos φ below this is clipped in the ERP fraction (the pole row itself).
MIN_COS = 1e-3


def mask_angles(face: str, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(θ, φ) in degrees of every mask pixel's centre."""
    vs, us = np.nonzero(mask)
    return sm.cube_pixel_to_angles(face, us + 0.5, vs + 0.5, mask.shape[1])


def contact_elevation(face: str, mask: np.ndarray, centre_theta: float) -> float:
    """φ (deg) of the mask's lowest pixels around its centroid's azimuth: its floor contact when it stands there."""
    theta, phi = mask_angles(face, mask)
    rel = (theta - centre_theta + 180.0) % 360.0 - 180.0
    half_band = max(0.25 * float(rel.max() - rel.min()), 0.5)
    return float(phi[np.abs(rel) <= half_band].min())


def pixel_solid_angles(mask: np.ndarray) -> np.ndarray:
    """Solid angle (sr) of each mask pixel of a cube face, in `np.nonzero` order."""
    n = mask.shape[1]
    vs, us = np.nonzero(mask)
    a = 2.0 * (us + 0.5) / n - 1.0
    b = 2.0 * (vs + 0.5) / n - 1.0
    return (2.0 / n) ** 2 / (1.0 + a * a + b * b) ** 1.5


def solid_angle(mask: np.ndarray) -> float:
    """Solid angle (sr) a cube-face mask covers on the sphere around the viewer."""
    return float(pixel_solid_angles(mask).sum())


def erp_fraction(face: str, mask: np.ndarray) -> float:
    """The fraction of an ERP image the mask's object fills."""
    _, phi = mask_angles(face, mask)
    cos_phi = np.maximum(np.cos(np.radians(phi)), MIN_COS)
    return float((pixel_solid_angles(mask) / cos_phi).sum() / (2.0 * math.pi * math.pi))


def floor_point(theta_deg: float, contact_phi_deg: float, camera_height_m: float) -> tuple[float, float]:
    """(x, y) on the floor (m; +y ahead, +x on the right) of a contact point below the horizon."""
    if contact_phi_deg >= 0:
        raise ValueError(f"a floor contact point lies below the horizon, got φ = {contact_phi_deg}°")
    distance = camera_height_m / math.tan(math.radians(-contact_phi_deg))
    t = math.radians(theta_deg)
    return distance * math.sin(t), distance * math.cos(t)
