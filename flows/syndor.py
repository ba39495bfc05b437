"""SynDORBench subflow (DESIGN §2)."""

from __future__ import annotations

from typing import Any

from prefect import flow

from benchfoundry.flows.params import BuildConfig
from benchfoundry.tasks.buildinfo import benchmark_outcome


@flow(name="syndor")
def syndor_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """Renders → night vision → discernibility labels → QA. Not built yet."""
    return benchmark_outcome("not built", "SynDORBench stages are not implemented yet")
