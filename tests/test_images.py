"""The render image built and run: `make images IMAGES=render-cpu` builds it with podman from the Debian bookworm base
mmdebstrap makes (no image registry needed) and the wheelhouse, and its render worker renders frames of the smoke
preset's first SynDORBench shard to the same pixels as this machine's worker (the same bpy wheel and the same
spec: Cycles' samples are seeded by the spec, so the image's other Python and system libraries change nothing).

Skipped where podman, runc or mmdebstrap is missing (.ci/run installs them). A rebuild with the same inputs reuses
the wheelhouse, the base and podman's cached layers; a changed source file reinstalls only the project."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_programs import missing, skip_reason

from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
from benchfoundry.benchmarks.syndor.scenes.spec import RigShard
from benchfoundry.configs.loader import load_config
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.render_spec import write_spec
from benchfoundry.pipeline import render_client

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("podman", "runc", "mmdebstrap")
MISSING = missing(*TOOLS)
IMAGE = "localhost/benchfoundry-render-cpu:test"
PODMAN = ["podman", "--runtime", "runc"]

pytestmark = [
    pytest.mark.system_programs,
    pytest.mark.long(minutes=5),
    pytest.mark.blender,
    pytest.mark.skipif(bool(MISSING), reason=skip_reason(MISSING, "podman builds and runs the images")),
]


def _env() -> dict[str, str]:
    """podman's settings of `make images` (docker/containers.conf: no default ulimits), unless set."""
    env = dict(os.environ)
    env.setdefault("CONTAINERS_CONF", str(REPO / "docker" / "containers.conf"))
    return env


@pytest.fixture(scope="module")
def render_image() -> str:
    """The render image of this checkout, built (or found up to date) by `make images`."""
    result = subprocess.run(
        ["make", "images", "IMAGES=render-cpu", "IMAGE_TAG=test", f"WHEEL_PYTHON={sys.executable}"],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    return IMAGE


def _paths(value: object) -> list[str]:
    """Every absolute path a spec's JSON holds."""
    if isinstance(value, dict):
        return [p for v in value.values() for p in _paths(v)]
    if isinstance(value, list):
        return [p for v in value for p in _paths(v)]
    return [value] if isinstance(value, str) and value.startswith("/") else []


def _into(folder: Path, spec: RigShard) -> Path:
    """`spec` writing its frames into `folder`, as `folder`/spec.json."""
    folder.mkdir(parents=True)
    frames = tuple(
        dataclasses.replace(f, rgb=str(folder / f"{i}.png"), mask=str(folder / f"{i}_mask.png"))
        for i, f in enumerate(spec.frames)
    )
    return write_spec(folder / "spec.json", dataclasses.replace(spec, frames=frames))


def _render_in_container(image: str, spec_path: Path, mount: Path) -> dict:
    """The reply of the image's render worker to `spec_path`, with `mount` at the same path inside."""
    requests = json.dumps({"op": "render", "spec": str(spec_path)}) + "\n" + json.dumps({"op": "quit"}) + "\n"
    result = subprocess.run(
        [*PODMAN, "run", "--rm", "-i", "--network", "none", "--volume", f"{mount}:{mount}"]
        + ["--env", "BENCHFOUNDRY_RENDER_IDLE_S=0", image, "python", "-m", "benchfoundry.render.worker"],
        input=requests,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    replies = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and replies and replies[-1].get("ok"), result.stdout + result.stderr[-4000:]
    return replies[-1]


def test_the_render_image_renders_a_smoke_shard_as_this_machine_does(render_image: str, tmp_path: Path) -> None:
    """Two frames of the smoke preset's first shard (its first frame and its first of another lighting), at the
    preset's resolution, samples and denoiser: the image's worker writes the same image and mask pixels as ours."""
    config = load_config("smoke")
    plan = render_plan.plan_shards(config)[0]
    spec = render_stage.shard_frames(config, tmp_path / "build", plan, tmp_path / "scratch")[0]
    other = next(f for f in spec.frames if f.light != spec.frames[0].light)
    spec = dataclasses.replace(spec, frames=(spec.frames[0], other))
    outside = [
        p
        for p in _paths(json.loads(write_spec(tmp_path / "spec.json", spec).read_text()))
        if tmp_path not in Path(p).parents
    ]
    assert not outside, f"the spec reads files the container does not see: {outside}"

    ours = _into(tmp_path / "host", spec)
    render_client.close_all()
    assert render_client.render_spec(ours, timeout_s=600, shards_per_worker=1)["frames"] == 2
    render_client.close_all()
    theirs = _into(tmp_path / "container", spec)
    assert _render_in_container(render_image, theirs, tmp_path)["frames"] == 2

    for i in range(2):
        for name in (f"{i}.png", f"{i}_mask.png"):
            a, b = decode_file(tmp_path / "host" / name, -1), decode_file(tmp_path / "container" / name, -1)
            assert a.shape == b.shape and np.array_equal(a, b), (name, int(np.abs(a.astype(int) - b).max()))
    mask = decode_file(tmp_path / "host" / "0_mask.png", -1)
    assert mask.any() and not mask.all(), "the first frame's mask holds the person and not only the person"
