"""ODI-Bench subflow (DESIGN §3)."""

from __future__ import annotations

from typing import Any

from prefect import flow

from benchfoundry.configs.build import BuildConfig
from benchfoundry.tasks.common.buildinfo import benchmark_outcome


@flow(name="odi")
def odi_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """Panoramas → cubemap faces → instances → QA. The annotation stages are not built yet."""
    return benchmark_outcome(
        "not built",
        "ODI-Bench annotation stages (GroundedSAM instances, descriptions, QA) are not implemented yet; "
        "the sphere geometry is available as `benchfoundry sphere`",
    )
