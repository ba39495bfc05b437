"""Toy-Bench's config section: the block `toybench:` of a build config (loads no Prefect, no bpy)."""

from pydantic import Field

from benchfoundry.configs.base import MAX_SECONDS, MAX_SIDE_PX, Count, Section


class ToyConfig(Section):
    enabled: bool = True
    items: Count = Field(4, description="items, one rendered cube each")
    size_px: int = Field(32, ge=8, le=MAX_SIDE_PX, description="side of each square image")
    samples: int = Field(2, ge=1, le=64, description="Cycles samples per pixel")
    render_timeout_s: float = Field(300.0, gt=0, le=MAX_SECONDS)
