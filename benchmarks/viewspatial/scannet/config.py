"""Config of ScanNet frame selection (DESIGN §4.1), held by ViewSpatialConfig as `coverage`, and the
object classes ViewSpatial never asks about."""

from __future__ import annotations

from pydantic import Field

from benchfoundry.configs.base import Section

#: NYU40 ids never asked about: unlabelled, wall, floor, ceiling, other structure/furniture/prop.
EXCLUDED_NYU40: frozenset[int] = frozenset({0, 1, 2, 22, 38, 39, 40})
#: NYU40 class names by id (the authors' Sce_Sim_make.py); the 34 not excluded are the names the release asks about.
NYU40_NAMES: dict[int, str] = {
    0: "unlabeled", 1: "wall", 2: "floor", 3: "cabinet", 4: "bed", 5: "chair", 6: "sofa", 7: "table", 8: "door",
    9: "window", 10: "bookshelf", 11: "picture", 12: "counter", 13: "blinds", 14: "desk", 15: "shelves",
    16: "curtain", 17: "dresser", 18: "pillow", 19: "mirror", 20: "floor mat", 21: "clothes", 22: "ceiling",
    23: "books", 24: "refrigerator", 25: "television", 26: "paper", 27: "towel", 28: "shower curtain", 29: "box",
    30: "whiteboard", 31: "person", 32: "nightstand", 33: "toilet", 34: "sink", 35: "lamp", 36: "bathtub",
    37: "bag", 38: "other structure", 39: "other furniture", 40: "other prop",
}  # fmt: skip
#: Raw category names excluded when no label map is given: the names of the NYU40 classes above.
EXCLUDED_LABELS: frozenset[str] = frozenset(
    {
        "unlabeled",
        "unlabelled",
        "wall",
        "floor",
        "ceiling",
        "otherstructure",
        "otherfurniture",
        "otherprop",
    }
)


class CoverageConfig(Section):
    """Max-coverage frame selection: voxel size, frame budget, minimum gain, depth subsampling."""

    voxel_m: float = Field(0.1, ge=0.01, le=10, description="voxel edge, metres (1 cm to 10 m)")
    budget: int = Field(32, ge=1, description="most frames selected per scan")
    min_gain: float = Field(
        0.001,
        ge=0,
        le=1,
        description="stop when the best frame adds fewer than this fraction of the scene's voxels",
    )
    depth_stride: int = Field(4, ge=1, description="back-project every n-th depth row and column")
    frame_step: int = Field(
        10, ge=1, description="frames are drawn from every n-th frame of a real scan (the authors' every 10th)"
    )
    method: str = Field("lazy", pattern="^(lazy|plain)$", description="lazy greedy or the plain reference")
