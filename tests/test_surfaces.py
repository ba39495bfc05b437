"""The procedural surfaces (render/surfaces.py) rendered by Cycles: floorboards show boards where a plain floor
of the same colour is flat, every named surface builds and renders, and a daylit window pane shines in the dark."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoImage, CocoShard
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_geometry import look_at
from benchfoundry.core.render_spec import SURFACES, DayLight, EngineSettings, Primitive, write_spec
from benchfoundry.pipeline import render_client

pytestmark = pytest.mark.blender

SIZE = 64
BROWN = (0.25, 0.12, 0.05)
SUN = DayLight(60.0, 30.0, 3.0, 0.3, 0.0)
DARK = DayLight(60.0, 30.0, 0.0, 0.0, 0.0)


def floor(surface: str, pass_index: int = 1, at: tuple[float, float] = (0.0, 0.0), size: float = 6.0) -> Primitive:
    return Primitive("box", (*at, -0.05), (size, size, 0.1), 0.0, BROWN, 0.6, 0.0, pass_index, surface=surface)


def tiles(surfaces: tuple[str, ...]) -> tuple[Primitive, ...]:
    """One 0.45 m square a surface, four to a row, pass index k + 1 for the k-th."""
    return tuple(floor(name, k + 1, (0.5 * (k % 4 - 1.5), 0.5 * (1 - k // 4)), 0.45) for k, name in enumerate(surfaces))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A floor seen from 2.5 m above, (grey image, index pass): plain, floorboards and floor tiles under the sun; a
    square of each surface under the sun; a plain and a daylit square in the dark."""
    folder = tmp_path_factory.mktemp("surfaces")
    camera = look_at(np.array([0.0, -0.4, 2.5]), np.zeros(3), f=96.0, width=SIZE, height=SIZE)
    shots = {
        "plain": ((floor(""),), SUN),
        "planks": ((floor("planks"),), SUN),
        "tile": ((floor("tile"),), SUN),
        "tiles": (tiles(SURFACES), SUN),
        "dark": (tiles(("", "window")), DARK),
    }
    images = [
        CocoImage(
            seed=k,
            camera_matrix=tuple(map(tuple, camera.blender_matrix())),
            focal_mm=camera.f * 24.0 / SIZE,
            parts=parts,
            people=(),
            light=light,
            image=str(folder / f"{k}.png"),
            index_npy=str(folder / f"{k}.npy"),
        )
        for k, (parts, light) in enumerate(shots.values())
    ]
    engine = EngineSettings(device="CPU", samples=8, denoise=True, max_bounces=2)
    spec = write_spec(folder / "spec.json", CocoShard(SIZE, SIZE, 24.0, engine, tuple(images)))
    render_client.render_spec(spec, timeout_s=600, shards_per_worker=1)
    render_client.close_all()
    return {
        name: (cv2.imread(im.image, cv2.IMREAD_GRAYSCALE).astype(float), np.rint(np.load(im.index_npy)))
        for name, im in zip(shots, images)
    }


def test_floorboards_vary_where_a_plain_floor_of_the_same_colour_is_flat(
    rendered: dict[str, tuple[np.ndarray, np.ndarray]],
) -> None:
    plain, boards = rendered["plain"][0], rendered["planks"][0]
    assert boards.std() > 2 * plain.std()
    # the boards run along x, the image's rows: down a column (across boards) the brightness changes more than
    # along a row, and more than the plain floor's does either way
    across, along = np.abs(np.diff(boards, axis=0)).mean(), np.abs(np.diff(boards, axis=1)).mean()
    assert across > 1.3 * along and across > 2 * np.abs(np.diff(plain, axis=0)).mean()
    assert 0.5 < boards.mean() / plain.mean() < 1.5


def test_floor_tiles_are_a_square_grid_where_floorboards_run_one_way(
    rendered: dict[str, tuple[np.ndarray, np.ndarray]],
) -> None:
    plain, tiles_, boards = rendered["plain"][0], rendered["tile"][0], rendered["planks"][0]
    assert tiles_.std() > 2 * plain.std()

    def steps(image: np.ndarray) -> tuple[float, float]:
        return np.abs(np.diff(image, axis=0)).mean(), np.abs(np.diff(image, axis=1)).mean()

    # grout lines both ways: across rows and along them the brightness changes about equally, where the boards'
    # joints change it mostly across
    across, along = steps(tiles_)
    assert 0.6 < across / along < 1.6
    assert across / along < 0.8 * np.divide(*steps(boards))


def test_every_surface_renders_a_lit_tile(rendered: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    grey, ids = rendered["tiles"]
    for k, name in enumerate(SURFACES, start=1):
        assert (ids == k).sum() > 20, name
        assert grey[ids == k].mean() > 10, name


def test_a_daylit_pane_shines_where_a_plain_tile_is_black(rendered: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    grey, ids = rendered["dark"]
    assert grey[ids == 2].mean() > 100
    # the plain tile only catches the pane's light at its near edge
    assert grey[ids == 1].mean() < 0.1 * grey[ids == 2].mean()


def test_the_renderer_draws_exactly_the_named_surfaces() -> None:
    from benchfoundry.render import surfaces

    assert set(surfaces._BUILDERS) == set(SURFACES)
    with pytest.raises(ValueError, match=r"shelf: unknown surface 'velvet'"):
        surfaces.surface_material("shelf", BROWN, 0.5, 0.0, "velvet")
    once = surfaces.surface_material("a", BROWN, 0.5, 0.0, "wood")
    assert surfaces.surface_material("b", BROWN, 0.5, 0.0, "wood") is once
    assert surfaces.surface_material("c", BROWN, 0.5, 0.0, "planks") is not once
