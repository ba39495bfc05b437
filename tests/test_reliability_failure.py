"""Reliability, fourth round, failure is never success: an ODI build that made nothing it was asked for (an empty
panorama folder, every render failed, a full disk) is `failed` in build.json and exits non-zero (issue 36,
point 3)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from benchfoundry.benchmarks.odi.scenes import panorama_stage
from benchfoundry.configs.loader import load_config
from benchfoundry.flows.build import build


def odi_record(out: Path, settings: list[str]) -> dict:
    record = build(load_config("smoke", ["runner.task_retries=0", *settings]), str(out), ["odi"])
    assert json.loads((out / "build.json").read_text())["status"] == record["status"]
    return record


def test_an_empty_panorama_folder_fails_the_build_naming_the_field(tmp_path: Path, prefect_server: None) -> None:
    empty = tmp_path / "panoramas"
    empty.mkdir()
    record = odi_record(tmp_path / "out", [f"odi.panorama_root={empty}"])
    assert record["status"] == "failed" and record["benchmarks"]["odi"]["status"] == "failed"
    assert "odi.panorama_root" in record["benchmarks"]["odi"]["detail"]
    assert not (tmp_path / "out" / "odi" / "ODI-Bench.json").exists()


def test_every_render_failing_on_a_full_disk_fails_the_build(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: object) -> dict:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(panorama_stage, "render_scene", full_disk)
    record = odi_record(tmp_path / "out", [])
    odi = record["benchmarks"]["odi"]
    assert record["status"] == "failed" and odi["status"] == "failed" and "0/" in odi["detail"]
    assert odi["problems"] and not (tmp_path / "out" / "odi" / "ODI-Bench.json").exists()
