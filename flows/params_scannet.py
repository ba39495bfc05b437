"""Config of ScanNet frame selection (DESIGN §4.1); ViewSpatialConfig holds it as `coverage`."""

from __future__ import annotations

from pydantic import Field

from benchfoundry.flows.params_base import Section


class CoverageConfig(Section):
    """Max-coverage frame selection: voxel size, frame budget, minimum gain, depth subsampling."""

    voxel_m: float = Field(0.1, gt=0, description="voxel edge, metres")
    budget: int = Field(32, ge=1, description="most frames selected per scan")
    min_gain: float = Field(
        0.001, ge=0, le=1,
        description="stop when the best frame adds fewer than this fraction of the scene's voxels",
    )
    depth_stride: int = Field(4, ge=1, description="back-project every n-th depth row and column")
    method: str = Field("lazy", pattern="^(lazy|plain)$", description="lazy greedy or the plain reference")
