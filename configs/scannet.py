"""Config of ScanNet frame selection (DESIGN §4.1), held by ViewSpatialConfig as `coverage`, and the
object classes ViewSpatial never asks about."""

from __future__ import annotations

from pydantic import Field

from benchfoundry.configs.base import Section

#: NYU40 ids never asked about: unlabelled, wall, floor, ceiling, other structure/furniture/prop.
EXCLUDED_NYU40: frozenset[int] = frozenset({0, 1, 2, 22, 38, 39, 40})
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
    method: str = Field("lazy", pattern="^(lazy|plain)$", description="lazy greedy or the plain reference")
