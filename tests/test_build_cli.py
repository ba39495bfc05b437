"""The `benchfoundry build` command: build.json, --only, and config errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchfoundry.configs.loader import config_hash, load_config


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchfoundry.flows.cli", *args], capture_output=True, text=True, env=env)


def _write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    return path


def test_build_with_nothing_selected_writes_build_json(tmp_path: Path, cli_env: dict[str, str]) -> None:
    cfg = _write_config(tmp_path, "name: t\nseed: 3\nsyndor: {enabled: false}\nodi: {enabled: false}\nviewspatial: {enabled: false}\n")
    out = tmp_path / "out"
    stale = out / "syndor" / "render" / ".manifest.parquet.k1ll3d.tmp"  # left by a killed build
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"partial")
    os.utime(stale, (0, 0))
    result = _run(["build", str(cfg), "--out", str(out), "--set", "seed=5"], cli_env)
    assert result.returncode == 0, result.stderr
    record = json.loads((out / "build.json").read_text())
    assert record["config"]["seed"] == 5
    assert record["config_hash"] == config_hash(load_config(cfg, ["seed=5"]))
    assert Path(record["out"]) == out.resolve()
    assert record["swept_temporaries"] == ["syndor/render/.manifest.parquet.k1ll3d.tmp"] and not stale.exists()
    assert record["versions"]["numpy"] and record["versions"]["prefect"]
    assert record["started"] <= record["finished"]
    assert {name: o["status"] for name, o in record["benchmarks"].items()} == {
        "syndor": "not built", "odi": "not built", "viewspatial": "not built",
    }
    assert all("enabled is false" in o["detail"] for o in record["benchmarks"].values())


def test_bad_key_exits_nonzero_naming_it(tmp_path: Path, cli_env: dict[str, str]) -> None:
    cfg = _write_config(tmp_path, "seed: 1\nrunner:\n  kindd: local\n")
    result = _run(["build", str(cfg), "--out", str(tmp_path / "out")], cli_env)
    assert result.returncode != 0
    assert "runner.kindd" in result.stderr and str(cfg) in result.stderr
    assert not (tmp_path / "out" / "build.json").exists()


def test_unknown_benchmark_in_only_is_rejected(tmp_path: Path, cli_env: dict[str, str]) -> None:
    cfg = _write_config(tmp_path, "seed: 1\n")
    result = _run(["build", str(cfg), "--out", str(tmp_path / "out"), "--only", "syndor,imagenet"], cli_env)
    assert result.returncode == 2
    assert "imagenet" in result.stderr


def test_help_lists_every_command() -> None:
    from benchfoundry.flows.cli import make_parser

    parser = make_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    result = subprocess.run([sys.executable, "-m", "benchfoundry.flows.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert {"build", "dori"} <= commands
    for command in commands:
        assert command in result.stdout
