"""The `benchfoundry build` command: build.json, --only, config errors, the output root (marker, lock,
unwritable paths, a full disk)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchfoundry.configs.loader import config_hash, load_config
from benchfoundry.core.output_root import MARKER_NAME


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchfoundry.cli.main", *args], capture_output=True, text=True, env=env
    )


def _write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_build_with_nothing_selected_writes_build_json(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(
        tmp_path, "name: t\nseed: 3\nsyndor: {enabled: false}\nodi: {enabled: false}\nviewspatial: {enabled: false}\n"
    )
    out = tmp_path / "out"
    stale = out / "syndor" / "render" / ".manifest.parquet.k1ll3dxx.tmp"  # left by a killed build
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"partial")
    (out / MARKER_NAME).write_text("{}")
    result = _run(["build", str(config), "--out", str(out), "--set", "seed=5"], cli_env)
    assert result.returncode == 0, result.stderr
    record = json.loads((out / "build.json").read_text())
    assert record["config"]["seed"] == 5
    assert record["config_hash"] == config_hash(load_config(config, ["seed=5"]))
    assert Path(record["out"]) == out.resolve()
    assert record["swept_leftovers"] == ["syndor/render/.manifest.parquet.k1ll3dxx.tmp"] and not stale.exists()
    assert record["status"] == "finished" and record["lock_taken_over"] is None
    assert record["versions"]["numpy"] and record["versions"]["prefect"]
    assert record["started"] <= record["finished"]
    assert {name: o["status"] for name, o in record["benchmarks"].items()} == {
        "syndor": "not built",
        "odi": "not built",
        "viewspatial": "not built",
    }
    assert all("enabled is false" in o["detail"] for o in record["benchmarks"].values())


def test_bad_key_exits_nonzero_naming_it(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(tmp_path, "seed: 1\nrunner:\n  backendd: local\n")
    result = _run(["build", str(config), "--out", str(tmp_path / "out")], cli_env)
    assert result.returncode != 0
    assert "runner.backendd" in result.stderr and str(config) in result.stderr
    assert not (tmp_path / "out" / "build.json").exists()


def test_unknown_benchmark_in_only_is_rejected(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(tmp_path, "seed: 1\n")
    result = _run(["build", str(config), "--out", str(tmp_path / "out"), "--only", "syndor,imagenet"], cli_env)
    assert result.returncode == 2
    assert "imagenet" in result.stderr


def test_help_lists_every_command() -> None:
    from benchfoundry.cli.main import make_parser

    parser = make_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    result = subprocess.run([sys.executable, "-m", "benchfoundry.cli.main", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert {"build", "dori"} <= commands
    for command in commands:
        assert command in result.stdout


NOTHING = "name: t\nseed: 3\nsyndor: {enabled: false}\nodi: {enabled: false}\nviewspatial: {enabled: false}\n"


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused build prints (no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_a_users_folder_is_refused_and_keeps_its_files(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(tmp_path, NOTHING)
    draft = tmp_path / "u" / "docs" / ".thesis.draft1.tmp"
    draft.parent.mkdir(parents=True)
    draft.write_text("mine")
    os.utime(draft, (0, 0))
    result = _run(["build", str(config), "--out", str(tmp_path / "u")], cli_env)
    assert result.returncode == 2 and "not a benchfoundry build" in _error_line(result)
    assert sorted(p.name for p in (tmp_path / "u").iterdir()) == ["docs"]
    result = _run(["build", str(config), "--out", str(tmp_path / "u"), "--adopt-out"], cli_env)
    assert result.returncode == 0, result.stderr
    assert draft.read_text() == "mine" and (tmp_path / "u" / MARKER_NAME).is_file()
    again = _run(["build", str(config), "--out", str(tmp_path / "u")], cli_env)  # a build now: no flag needed
    assert again.returncode == 0, again.stderr
    assert draft.read_text() == "mine"


def test_a_second_build_into_a_held_root_stops_naming_the_holder(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(tmp_path, NOTHING)
    root = tmp_path / "out"
    script = (
        "import sys\nfrom benchfoundry.core.output_root import hold_output_root\n"
        "with hold_output_root(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.readline()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = _run(["build", str(config), "--out", str(root)], cli_env)
        assert result.returncode == 2 and f"pid {holder.pid}" in _error_line(result)
        assert not (root / "build.json").exists()
    finally:
        holder.kill()
        holder.wait()
    result = _run(["build", str(config), "--out", str(root)], cli_env)  # the killed holder's lock is taken over
    assert result.returncode == 0, result.stderr
    assert json.loads((root / "build.json").read_text())["lock_taken_over"]["pid"] == holder.pid


def test_unusable_output_paths_and_an_empty_only_stop_before_the_build(tmp_path: Path, cli_env: dict[str, str]) -> None:
    config = _write_config(tmp_path, NOTHING)
    a_file = tmp_path / "f"
    a_file.write_text("x")
    for out, reason in ((a_file, "is a file"), (a_file / "sub", "which is a file")):
        result = _run(["build", str(config), "--out", str(out)], cli_env)
        assert result.returncode == 2 and reason in _error_line(result)
    result = _run(["build", str(config), "--out", str(tmp_path / "o"), "--only", ",,"], cli_env)
    assert result.returncode == 2 and "names no benchmark" in _error_line(result)


def test_a_full_disk_fails_in_one_line_and_rewrites_build_json(tmp_path: Path, cli_env: dict[str, str]) -> None:
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        config = _write_config(tmp_path, NOTHING)
        assert _run(["build", str(config), "--out", str(mnt / "out")], cli_env).returncode == 0
        with open(mnt / "filler", "wb", buffering=0) as fh:  # fill the disk to the last byte
            try:
                while True:
                    fh.write(b"\0" * 4096)
            except OSError:
                pass
        result = _run(["build", str(config), "--out", str(mnt / "out"), "--set", "seed=9"], cli_env)
        line = result.stderr.strip().splitlines()[-1]  # after Prefect's own log lines
        assert "Traceback" not in result.stderr and line.startswith("error: "), result.stderr
        assert result.returncode == 1 and "ENOSPC" in line and str(mnt / "out" / "build.json") in line
        record = json.loads((mnt / "out" / "build.json").read_text())
        assert record["status"] == "failed" and "ENOSPC" in record["error"]
        assert record["config_hash"] == config_hash(load_config(config, ["seed=9"]))  # this run, not the last
        assert not list((mnt / "out").glob(".*.tmp"))
        (mnt / "filler").unlink()
        result = _run(["build", str(config), "--out", str(mnt / "out"), "--set", "seed=9"], cli_env)
        assert result.returncode == 0, result.stderr
        assert json.loads((mnt / "out" / "build.json").read_text())["status"] == "finished"
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)
