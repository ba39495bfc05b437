"""Where things rest on a library asset (render/infinigen_asset.rest_height, the manifest's `rest_m`): a bed's
mattress under its headboard's top, a desk's top; and a scan's pillow on a library bed's mattress."""

from __future__ import annotations

import numpy as np
import pytest

from benchfoundry.render.infinigen_asset import rest_height

Box = tuple[tuple[float, float, float], tuple[float, float, float]]


def box_faces(boxes: list[Box]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The six faces of each box: centres, outward unit normals and areas."""
    centres, normals, areas = [], [], []
    for lo, hi in boxes:
        lo, hi = np.array(lo), np.array(hi)
        mid, size = (lo + hi) / 2, hi - lo
        for axis in range(3):
            for sign, end in ((-1.0, lo[axis]), (1.0, hi[axis])):
                centre, normal = mid.copy(), np.zeros(3)
                centre[axis], normal[axis] = end, sign
                centres.append(centre)
                normals.append(normal)
                areas.append(np.prod(np.delete(size, axis)))
    return np.array(centres), np.array(normals), np.array(areas)


FRAME: Box = ((-1.05, -0.85, 0.0), (1.05, 0.85, 0.25))
MATTRESS: Box = ((-1.0, -0.8, 0.25), (1.0, 0.8, 0.55))
HEADBOARD: Box = ((-1.05, -0.85, 0.25), (-0.98, 0.85, 1.2))
DESK = [((-0.7, -0.35, 0.72), (0.7, 0.35, 0.76))] + [
    ((x - 0.02, y - 0.02, 0.0), (x + 0.02, y + 0.02, 0.72)) for x in (-0.65, 0.65) for y in (-0.3, 0.3)
]


def test_a_bed_rests_things_on_its_mattress_not_on_its_headboard() -> None:
    assert rest_height(*box_faces([FRAME, MATTRESS, HEADBOARD])) == pytest.approx(0.55)
    # without the mattress, on the frame
    assert rest_height(*box_faces([FRAME, HEADBOARD])) == pytest.approx(0.25)


def test_a_desk_rests_things_on_its_top() -> None:
    assert rest_height(*box_faces(DESK)) == pytest.approx(0.76)


def test_a_mattress_rounded_at_its_edges_and_finely_cut_rests_on_its_top() -> None:
    """The mattress's top cut into 400 faces, those near its edges up to 3 cm lower, weighs as one face."""
    centres, normals, areas = box_faces([FRAME, HEADBOARD])
    xs, ys = np.meshgrid(np.linspace(-0.975, 0.975, 40), np.linspace(-0.78, 0.78, 10))
    edge = np.maximum(np.abs(xs) / 1.0, np.abs(ys) / 0.8)
    top = np.column_stack([xs.ravel(), ys.ravel(), (0.55 - 0.03 * edge**4).ravel()])
    centres = np.vstack([centres, top])
    normals = np.vstack([normals, np.tile([0.0, 0.0, 1.0], (len(top), 1))])
    areas = np.concatenate([areas, np.full(len(top), 2.0 * 1.6 / len(top))])
    assert rest_height(centres, normals, areas) == pytest.approx(top[:, 2].max())


def test_slopes_alone_rest_nothing() -> None:
    """A tent: two roof slopes at 45° over its floor-less frame."""
    centres = np.array([[0.0, -0.5, 0.5], [0.0, 0.5, 0.5]])
    normals = np.array([[0.0, -0.707, 0.707], [0.0, 0.707, 0.707]])
    assert rest_height(centres, normals, np.array([1.4, 1.4])) is None
