"""`runner.backend=slurm` against a real one-node SLURM (tests/slurm_local.py): the two-shard SynDORBench build of
tests/scaleout_builds.py built as SLURM jobs equals the local build, also with a worker job cancelled mid-build.

Skipped only where SLURM is not installed (`.ci/run` installs slurm-wlm and munge) or not run as root
(the cluster's SlurmUser)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from scaleout_builds import (
    SHARDS,
    assert_same_outputs,
    cli_build,
    frame_in_progress,
    wait_for,
)
from slurm_local import JOBS, NEEDS_SLURM, queued

pytestmark = [pytest.mark.long(minutes=4), *NEEDS_SLURM]


def _job_logs(out: Path) -> set[str]:
    """The job ids of OUT/slurm/<jobid>.out|err, each with both files."""
    names = {p.name for p in (out / "slurm").iterdir()}
    ids = {re.fullmatch(r"(\d+)\.(out|err)", n).group(1) for n in names}
    assert names == {f"{i}.{ext}" for i in ids for ext in ("out", "err")}, names
    return ids


def _set_job_logs_aside(out: Path, folder: Path) -> None:
    """OUT/slurm/ (the jobs' logs, which a local build has not) moved out of the build, to compare the rest."""
    shutil.move(out / "slurm", folder / "job-logs")


@pytest.mark.blender
def test_a_slurm_build_equals_the_local_build_and_keeps_each_jobs_output(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path, slurm_env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    with cli_build(tiny_config, out, slurm_env, [*JOBS, "runner.slurm.max_jobs=2"]) as proc:
        assert proc.wait(timeout=1800) == 0, Path(f"{out}.log").read_text()[-3000:]
    ids = _job_logs(out)
    # the workers' logs (a job cancelled as the build closed may have had no time to write any)
    assert any("distributed.worker" in (out / "slurm" / f"{i}.err").read_text() for i in ids), ids
    assert not queued(slurm_env)
    _set_job_logs_aside(out, tmp_path)
    assert_same_outputs(out, tiny_reference)


@pytest.mark.blender
def test_a_worker_job_cancelled_mid_build_changes_nothing(
    tiny_reference: Path, tiny_config: Path, tmp_path: Path, slurm_env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    with cli_build(tiny_config, out, slurm_env, [*JOBS, "runner.slurm.max_jobs=1"]) as proc:
        wait_for(lambda: frame_in_progress(out) or proc.poll() is not None, what="a frame of a shard in progress")
        assert proc.poll() is None, "the build ended before a shard was caught"
        (job,) = queued(slurm_env, "RUNNING")
        subprocess.run(["scancel", job], env=slurm_env, check=True)
        assert proc.wait(timeout=1800) == 0, Path(f"{out}.log").read_text()[-3000:]
    assert len(_job_logs(out)) >= 2  # the cancelled job and its replacement
    _set_job_logs_aside(out, tmp_path)
    assert_same_outputs(out, tiny_reference)
    assert (
        json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]["stages"]["render"]["shards_rendered"]
        <= SHARDS
    )
