"""Small rotation helpers shared by the pose builder and the body models (numpy, scipy)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation


def unit(v: np.ndarray) -> np.ndarray:
    """`v` scaled to length 1 (float64)."""
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def min_rotation(a: np.ndarray, b: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    """The smallest rotation matrix taking unit vector `a` to unit vector `b`: the identity when they agree
    within `eps` (sine of the angle), a half turn about a perpendicular axis when they are opposite."""
    axis = np.cross(a, b)
    s, c = np.linalg.norm(axis), float(np.dot(a, b))
    if s < eps:
        if c > 0:
            return np.eye(3)
        perp = np.cross(a, [1.0, 0, 0] if abs(a[0]) < 0.9 else [0, 1.0, 0])
        return Rotation.from_rotvec(np.pi * unit(perp)).as_matrix()
    return Rotation.from_rotvec(axis / s * np.arctan2(s, c)).as_matrix()
