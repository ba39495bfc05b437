"""The build flow records every benchmark's outcome, including a failing one, and goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prefect import flow

from benchfoundry.configs.loader import load_config
from benchfoundry.flows import build as build_module


@flow(name="quiet")
def _quiet(config, out):  # type: ignore[no-untyped-def]
    return {
        "status": "built",
        "detail": "",
        "stages": {},
        "problems": [{"stage": "s", "item": "x", "kind": "skipped", "reason": "corrupt"}],
    }


@flow(name="exploding")
def _exploding(config, out):  # type: ignore[no-untyped-def]
    raise RuntimeError("scan 7 is unreadable")


def test_failed_benchmark_is_recorded_and_others_run(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("benchfoundry.benchmarks.odi.flow.odi_flow", _exploding)
    config = load_config(None, ["syndor.enabled=false", "viewspatial.enabled=false"])
    record = build_module.build(config, str(tmp_path), None)
    on_disk = json.loads((tmp_path / "build.json").read_text())
    assert on_disk["benchmarks"]["odi"]["status"] == "failed"
    assert "scan 7 is unreadable" in on_disk["benchmarks"]["odi"]["detail"]
    assert on_disk["benchmarks"]["syndor"]["status"] == "not built"
    assert record["benchmarks"] == on_disk["benchmarks"]


def test_only_selects_benchmarks(tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("benchfoundry.benchmarks.odi.flow.odi_flow", _exploding)
    monkeypatch.setattr("benchfoundry.benchmarks.viewspatial.flow.viewspatial_flow", _quiet)
    config = load_config(None)
    record = build_module.build(config, str(tmp_path), ["viewspatial"])
    assert record["benchmarks"]["viewspatial"]["status"] == "built"
    assert record["problems"] == [
        {"benchmark": "viewspatial", "stage": "s", "item": "x", "kind": "skipped", "reason": "corrupt"}
    ]
    assert record["benchmarks"]["odi"] == {
        "status": "not built",
        "detail": "not selected with --only",
        "stages": {},
        "problems": [],
    }
    assert record["benchmarks"]["syndor"]["detail"] == "not selected with --only"


def test_subflows_get_the_absolute_output_root(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    @flow(name="recording")
    def _recording(config, out):  # type: ignore[no-untyped-def]
        seen.append(out)
        return {"status": "built", "detail": "", "stages": {}, "problems": []}

    monkeypatch.setattr("benchfoundry.benchmarks.viewspatial.flow.viewspatial_flow", _recording)
    monkeypatch.chdir(tmp_path)
    record = build_module.build(load_config(None), "rel/out", ["viewspatial"])
    assert seen == [str(tmp_path.resolve() / "rel" / "out")]
    assert record["out"] == seen[0]
    assert (tmp_path / "rel" / "out" / "build.json").is_file()


def test_only_subflows_that_submit_tasks_get_the_dask_runner() -> None:
    from prefect_dask import DaskTaskRunner

    config = load_config(None, ["runner.backend=dask", "runner.dask_address=tcp://127.0.0.1:8786"])
    for name in ("viewspatial", "odi"):
        assert isinstance(build_module._subflow(name, config).task_runner, DaskTaskRunner)
    # syndor only calls subflows, which bring their own runner
    assert not isinstance(build_module._subflow("syndor", config).task_runner, DaskTaskRunner)
