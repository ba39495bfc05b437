"""The config tree of a build: one pydantic model, loaded from YAML, that fully determines a build."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from benchfoundry.configs.base import Section
from benchfoundry.configs.odi import OdiConfig
from benchfoundry.configs.syndor import SyndorConfig
from benchfoundry.configs.viewspatial import ViewSpatialConfig


class RunnerConfig(Section):
    """How tasks run: threads on this machine, or a Dask cluster (prefect-dask)."""

    kind: Literal["local", "dask"] = "local"
    max_workers: int = Field(2, ge=1, description="threads of the local runner")
    dask_address: str | None = Field(None, description="scheduler address; None starts a local cluster")
    dask_workers: int = Field(2, ge=1, description="processes of a local Dask cluster")
    task_retries: int = Field(2, ge=0)
    retry_delay_s: float = Field(5.0, ge=0)


class BuildConfig(Section):
    """A whole build."""

    name: str = "benchfoundry"
    seed: int = Field(0, ge=0)
    output_root: Path = Path("out/default")
    runner: RunnerConfig = RunnerConfig()
    syndor: SyndorConfig = SyndorConfig()
    odi: OdiConfig = OdiConfig()
    viewspatial: ViewSpatialConfig = ViewSpatialConfig()
