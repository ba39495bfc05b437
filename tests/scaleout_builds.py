"""A two-shard SynDORBench build (160×90, 2 samples, 4 frames a shard) shared by the scale-out tests, and
helpers to compare builds file by file and to find the processes a build runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
import yaml
from filelock import FileLock
from run_folder import run_folder

from benchfoundry.core.build_files import differences

TINY_BUILD = {
    "name": "scaleout-tiny",
    "runner": {"max_workers": 1, "retry_delay_s": 0, "task_retries": 2},
    "person": {"textures": {"ids": [3], "size": 64}},
    "syndor": {
        # 160×90 with an 8.4 mm lens: 40 and 25 px/m are 6.3 and 10.1 m away, the whole person in frame
        "camera": {"preset": "paper", "resolution_w": 160, "resolution_h": 90, "focal_mm": 8.4},
        "zones_ppm": {"near": 40, "far": 25},
        "scenes": ["field"],
        "lightings": ["noon_north", "night"],
        # a shard is one person with all its lightings and cameras: two actions make the two shards
        "poses": {"actions": ["walking", "kicking"]},
        "rig": {"azimuths_deg": [0], "elevations_deg": [0]},
        "render": {"samples": 2, "denoise": False, "max_bounces": 2},
        "discern": {"labels": {"observer": "threshold", "observer_min_height_px": 50}},
    },
    "odi": {"enabled": False},
    "viewspatial": {"enabled": False},
}
SHARDS = 2


def write_config(folder: Path) -> Path:
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY_BUILD))
    return path


def shared_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uninterrupted local build of `TINY_BUILD` every scale-out and SLURM build is compared with, built
    once for the test run (every xdist worker shares it) against the calling process's Prefect API."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.flows.build import build

    shared = run_folder(tmp_path_factory)
    out = shared / "tiny-reference"
    with FileLock(str(shared / "tiny-reference.lock")):
        if not (out / "build.json").exists() or json.loads((out / "build.json").read_text())["status"] != "finished":
            shutil.rmtree(out, ignore_errors=True)
            record = build(load_config(str(write_config(shared))), str(out), ["syndor"])
            outcome = record["benchmarks"]["syndor"]
            assert outcome["status"] == "built", outcome
            assert outcome["stages"]["render"]["shards_rendered"] == SHARDS
    return out


def assert_same_outputs(built: Path, reference: Path) -> None:
    found = differences(built, reference)
    assert not found["only_here"] and not found["only_reference"], found
    assert not found["differ"], found["differ"]


@contextmanager
def cli_build(config: Path, out: Path, env: dict[str, str], extra: Sequence[str] = ()) -> Iterator[subprocess.Popen]:
    """`benchfoundry build CONFIG --out OUT` in a subprocess (stdout and stderr to OUT.log), killed at exit if it
    is still running, and waited for."""
    args = [sys.executable, "-m", "benchfoundry.cli.main", "build", str(config), "--out", str(out), "--only", "syndor"]
    for item in extra:
        args += ["--set", item]
    with open(f"{out}.log", "w") as log, subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT) as proc:
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()


def render_workers(ancestor: int) -> list[psutil.Process]:
    """Blender render worker processes below process `ancestor`."""
    try:
        below = psutil.Process(ancestor).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for proc in below:
        try:
            if "benchfoundry.render.worker" in " ".join(proc.cmdline()):
                found.append(proc)
        except psutil.NoSuchProcess:
            pass
    return found


def wait_for(condition: Callable[[], object], timeout_s: float = 900, what: str = "") -> object:
    """Poll until `condition()` is truthy and return it (not a speed limit: a guard against hanging forever)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"gave up waiting for {what}")


def frame_in_progress(out: Path) -> bool:
    """A render shard has written its first frame to its temporary folder, and is not finished."""
    return any((out / "syndor" / "render" / "_tmp").glob("*/0000.*"))


def done_markers(out: Path, stage: str = "render") -> dict[str, bytes]:
    folder = out / "syndor" / stage / "_done"
    return {p.name: p.read_bytes() for p in folder.glob("*.json")} if folder.is_dir() else {}


def environ_without_api(prefect_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(prefect_home)
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    return env
