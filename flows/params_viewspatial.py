"""Config of the ViewSpatial-Bench build (DESIGN §4)."""

from __future__ import annotations

from benchfoundry.flows.params_base import Section


class ViewSpatialConfig(Section):
    """ViewSpatial-Bench: ScanNet frames and direction QA, COCO orientation QA."""

    enabled: bool = True
