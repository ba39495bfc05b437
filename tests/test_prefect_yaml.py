"""prefect.yaml parses with Prefect's own model; entrypoints load and parameters fit their flows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from prefect.cli.deploy._models import DeploymentConfig, PrefectYamlModel
from prefect.flows import load_flow_from_entrypoint

from benchfoundry.configs.loader import load_config

REPO = Path(__file__).resolve().parent.parent
RAW: dict[str, Any] = yaml.safe_load((REPO / "prefect.yaml").read_text())
MODEL = PrefectYamlModel.model_validate(RAW)
SHARED_ROOT = ("syndorbench-full", "syndorbench-rerender-weekly")


def _deployment(name: str) -> DeploymentConfig:
    return next(d for d in MODEL.deployments if d.name == name)


def test_every_key_is_a_field_prefect_reads() -> None:
    """The model ignores unknown keys, so a misspelt one would be dropped silently."""
    assert set(RAW) <= {f.alias or n for n, f in PrefectYamlModel.model_fields.items()}
    assert len(MODEL.deployments) == len(RAW["deployments"])
    for raw in RAW["deployments"]:
        assert set(raw) <= set(DeploymentConfig.model_fields), raw["name"]
        assert set(raw["work_pool"]) <= {"name", "work_queue_name", "job_variables"}, raw["name"]


@pytest.mark.parametrize("deployment", MODEL.deployments, ids=lambda d: d.name)
def test_entrypoint_loads_and_parameters_validate(
    deployment: DeploymentConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    flow = load_flow_from_entrypoint(deployment.entrypoint)
    params = flow.validate_parameters(deployment.parameters)
    config = load_config(params["config_path"], params.get("overrides") or [])
    assert set(params.get("only") or []) <= {"syndor", "odi", "viewspatial"}
    assert config.name == yaml.safe_load((REPO / params["config_path"]).read_text())["name"]


def test_deployments_sharing_an_output_root_never_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    roots = {load_config(_deployment(n).parameters["config_path"]).output_root for n in SHARED_ROOT}
    assert len(roots) == 1 and all("out" not in _deployment(n).parameters for n in SHARED_ROOT)
    for name in SHARED_ROOT:
        assert _deployment(name).concurrency_limit == 1
    queues = {(_deployment(n).work_pool.name, _deployment(n).work_pool.work_queue_name) for n in SHARED_ROOT}
    assert len(queues) == 1 and None not in next(iter(queues))
    assert "work-queue create syndorbench-out --pool render-gpu --limit 1" in (REPO / "prefect.yaml").read_text()


def test_header_creates_every_work_pool() -> None:
    header = (REPO / "prefect.yaml").read_text()
    for pool in {d.work_pool.name for d in MODEL.deployments}:
        assert f"prefect work-pool create {pool} --type process" in header
