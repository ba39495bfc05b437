"""ViewSpatial-Bench subflow (DESIGN §4)."""

from __future__ import annotations

from typing import Any

from prefect import flow

from benchfoundry.flows.params import BuildConfig
from benchfoundry.tasks.buildinfo import benchmark_outcome


@flow(name="viewspatial")
def viewspatial_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """ScanNet frames and direction QA; COCO orientation QA. Not built yet."""
    return benchmark_outcome("not built", "ViewSpatial-Bench stages are not implemented yet")
