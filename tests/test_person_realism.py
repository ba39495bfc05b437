"""People that read as people: Anny's textures give a face a stock face detector finds (bench/face_detection.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.person.anny_texture import _rest_marks, _texel_map, anny_texture
from benchfoundry.person.textures import outfit

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("face_detection", ROOT / "bench" / "face_detection.py")
face_detection = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(face_detection)

SIZE = 512


def _texels_near(dx: float, dz: float, radius: float) -> np.ndarray:
    """Texel mask of the head's front within `radius` (metres, across and up) of the left eye's centre + (dx, dz)."""
    covered, pos, bone, names = _texel_map(SIZE)
    eye = _rest_marks()["eyes"][0]
    near = np.hypot(pos[:, 0] - eye[0] - dx, pos[:, 2] - eye[2] - dz) < radius
    mask = np.zeros(covered.shape, dtype=bool)
    mask[covered] = near & (pos[:, 1] < eye[1]) & (names[bone] == "head")
    return mask


@pytest.mark.parametrize("texture_id", [0, 1, 2])
def test_a_face_has_brows_darker_than_its_forehead_and_one_skin_tone_on_the_cheek(texture_id: int) -> None:
    """Brows over each eye (what a face detector keys on) are darker than the skin; the cheek is the skin."""
    image = anny_texture(texture_id, SIZE).astype(np.float64) / 255
    skin = np.asarray(outfit(texture_id)["skin"]).mean()
    brow = image[_texels_near(0.004, 0.02, 0.005)].mean(axis=1)
    cheek = image[_texels_near(0.0, -0.035, 0.006)].mean(axis=1)
    assert len(brow) > 3 and len(cheek) > 3
    assert np.median(brow) < 0.7 * skin
    assert abs(np.median(cheek) - skin) < 0.08
