"""Faults at rehearsal scale: SynDORBench's rehearsal preset (configs/rehearsal-syndor.yaml) at a fraction of its
counts, built three or four ways and compared file by file.

1. *incremental*: built with one lighting fewer, then rebuilt with it: the frames the second run renders against
   the frames its plan says are new (at most 1.25 × is the bound).
2. *killed*: from scratch, `kill -9` of the whole build (the flow, its Prefect server and the render workers) once
   half the render shards are done, then run again: the shards done before the kill are not rendered again.
3. *uninterrupted* (`--uninterrupted`): from scratch in one go.
4. *slurm* (`--slurm`): from scratch as SLURM jobs on a one-node cluster in a scratch folder (scripts/slurm-local):
   the jobs it took and the seconds of overhead per task against the local build.

Every output file (all but the run records, completion markers and clock records) of 2–4 is compared with 1's;
with `--no-incremental` 1 is not built and 3–4 are compared with 2's: at 10 % the kill-and-resume and SLURM checks
then take two builds, not four (an equal SLURM build shows both the killed build and itself equal to a build in one
go, since the SLURM build runs uninterrupted). `--reference PATH` names a finished build of the same fraction made
earlier (a killed build kept from another session, say): 1 and 2 are then not built and 3–4 are compared with it.

    .venv/bin/python bench/rehearsal_faults.py [--fraction 0.005] [--no-incremental | --reference PATH]
        [--uninterrupted] [--slurm] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from scale import build_env, preset

from benchfoundry.core.build_files import RUN_FOLDERS, differences
from benchfoundry.flows.slurm_local import local_slurm

#: Per-run folders beside the markers and clocks: the SLURM jobs' output.
SKIPPED_FOLDERS = RUN_FOLDERS | {"slurm"}
#: The lighting the incremental build adds last.
ADDED = "evening_west"
MAX_RENDERED_PER_NEW = 1.25
#: Jobs of one single-threaded worker process, two at a time on the 2-core node, as the local build's two processes
#: (docs/cluster.md: one process of two threads computes the features on one core).
SLURM_JOBS = [
    "runner.backend=slurm",
    "runner.slurm.cores=1",
    "runner.slurm.memory=8GB",
    "runner.slurm.scheduler_port=0",
]


def build_command(out: Path, sets: list[str], fraction: float) -> list[str]:
    args = [sys.executable, "-m", "benchfoundry.cli.main", "build", str(preset("syndor")), "--out", str(out)]
    for item in [f"scale={fraction}", *sets]:
        args += ["--set", item]
    return [*args, "--only", "syndor"]


def run_build(out: Path, sets: list[str], fraction: float, env: dict[str, str], log: Path) -> tuple[int, float]:
    """One build to its end: (exit status, wall seconds)."""
    start = time.monotonic()
    with log.open("a") as sink:
        status = subprocess.run(build_command(out, sets, fraction), env=env, stdout=sink, stderr=sink).returncode
    return status, time.monotonic() - start


def syndor_outcome(out: Path) -> dict[str, Any]:
    return json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]


def planned_shards(sets: list[str], fraction: float, env: dict[str, str]) -> int:
    text = subprocess.run(
        [*build_command(Path(tempfile.mkdtemp()), sets, fraction), "--plan"], env=env, capture_output=True, text=True
    ).stdout
    return int(re.search(r"render shards: ([\d,]+)", text).group(1).replace(",", ""))


def done_markers(out: Path) -> dict[str, bytes]:
    folder = out / "syndor" / "render" / "_done"
    return {p.name: p.read_bytes() for p in folder.glob("*.json")} if folder.is_dir() else {}


def lightings_without(added: str) -> str:
    lightings = yaml.safe_load(preset("syndor").read_text())["syndor"]["lightings"]
    return f"syndor.lightings=[{', '.join(name for name in lightings if name != added)}]"


def incremental(scratch: Path, fraction: float, env: dict[str, str]) -> dict[str, Any]:
    """One lighting fewer, then all: the second run's rendered frames against its plan's new frames."""
    out = scratch / "incremental"
    status, first_s = run_build(out, [lightings_without(ADDED)], fraction, env, scratch / "incremental.log")
    plan = subprocess.run([*build_command(out, [], fraction), "--plan"], env=env, capture_output=True, text=True).stdout
    new = re.search(r"([\d,]+) to render", plan)
    status2, second_s = run_build(out, [], fraction, env, scratch / "incremental.log")
    rendered = syndor_outcome(out)["stages"]["render"]["frames_rendered"]
    new_frames = int(new.group(1).replace(",", "")) if new else None
    return {
        "status": [status, status2],
        "wall_s": [round(first_s), round(second_s)],
        "frames_new": new_frames,
        "frames_rendered": rendered,
        "within_bound": new_frames is not None and rendered <= MAX_RENDERED_PER_NEW * new_frames,
        "plan": plan,
    }


def killed(scratch: Path, fraction: float, env: dict[str, str], shards: int) -> dict[str, Any]:
    """From scratch, the whole process group killed (-9) at half the render shards, then run again."""
    out, log = scratch / "killed", scratch / "killed.log"
    start = time.monotonic()
    with log.open("w") as sink:
        proc = subprocess.Popen(
            build_command(out, [], fraction), env=env, stdout=sink, stderr=sink, start_new_session=True
        )
        while len(done_markers(out)) < shards // 2 and proc.poll() is None:
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    at_kill = done_markers(out)
    status, rerun_s = run_build(out, [], fraction, env, log)
    after = done_markers(out)
    rendered_again = sorted(name for name, body in at_kill.items() if after.get(name) != body)
    return {
        "status": status,
        "killed_after_s": round(time.monotonic() - start - rerun_s),
        "shards_done_at_kill": len(at_kill),
        "shards": shards,
        "rerun_s": round(rerun_s),
        "shards_rendered_by_rerun": syndor_outcome(out)["stages"]["render"]["shards_rendered"],
        "done_shards_rendered_again": rendered_again,
    }


def on_slurm(scratch: Path, fraction: float, env: dict[str, str]) -> dict[str, Any]:
    """From scratch as SLURM jobs on a one-node cluster living in the scratch folder (flows/slurm_local.py)."""
    out = scratch / "slurm"
    try:
        with local_slurm(scratch / "slurm-cluster", env) as slurm:
            status, wall_s = run_build(out, SLURM_JOBS, fraction, {**env, **slurm}, scratch / "slurm.log")
    except RuntimeError as exc:
        return {"status": None, "error": str(exc)}
    jobs = {p.stem for p in (out / "slurm").glob("*.out")} if (out / "slurm").is_dir() else set()
    return {"status": status, "wall_s": round(wall_s), "jobs": len(jobs)}


def tasks_of(out: Path) -> int:
    stages = json.loads((out / "build.json").read_text())["timings"]["benchmarks"]["syndor"]["stages"]
    return sum(int(stage.get("tasks") or 0) for stage in stages.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.005, help="the rehearsal's scale, in (0, 1]")
    references = parser.add_mutually_exclusive_group()
    references.add_argument(
        "--no-incremental", action="store_true", help="no incremental build: the killed build is the reference"
    )
    references.add_argument("--reference", type=Path, help="a finished build of this fraction to compare with instead")
    parser.add_argument("--uninterrupted", action="store_true", help="also a from-scratch build in one go")
    parser.add_argument("--slurm", action="store_true", help="also a from-scratch build on a local SLURM cluster")
    parser.add_argument("--scratch", type=Path, help="where the builds go (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    if not 0 < args.fraction <= 1:
        parser.error(f"--fraction {args.fraction}: must be in (0, 1]")
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="benchfoundry-faults-"))
    home = scratch / "prefect"
    home.mkdir(parents=True, exist_ok=True)
    env = build_env(home)
    results: dict[str, Any] = {"fraction": args.fraction, "scratch": str(scratch)}
    if args.reference:
        if not (args.reference / "build.json").is_file():
            parser.error(f"--reference {args.reference}: no build.json there, not a finished build")
        reference = args.reference
    elif args.no_incremental:
        reference = scratch / "killed"
    else:
        results["incremental"] = incremental(scratch, args.fraction, env)
        print(json.dumps({k: v for k, v in results["incremental"].items() if k != "plan"}), flush=True)
        reference = scratch / "incremental"
    results["reference"] = str(reference)
    if not args.reference:
        results["killed"] = killed(scratch, args.fraction, env, planned_shards([], args.fraction, env))
        if not args.no_incremental:
            results["killed"]["differences"] = differences(scratch / "killed", reference, SKIPPED_FOLDERS)
        print(json.dumps(results["killed"]), flush=True)
    if args.uninterrupted:
        status, wall_s = run_build(scratch / "uninterrupted", [], args.fraction, env, scratch / "uninterrupted.log")
        results["uninterrupted"] = {
            "status": status,
            "wall_s": round(wall_s),
            "differences": differences(scratch / "uninterrupted", reference, SKIPPED_FOLDERS),
        }
        print(json.dumps(results["uninterrupted"]), flush=True)
    if args.slurm:
        results["slurm"] = on_slurm(scratch, args.fraction, env)
        if results["slurm"]["status"] == 0:
            results["slurm"]["differences"] = differences(scratch / "slurm", reference, SKIPPED_FOLDERS)
            local = results.get("uninterrupted", {}).get("wall_s")
            tasks = tasks_of(scratch / "slurm")
            results["slurm"]["tasks"] = tasks
            if local:
                results["slurm"]["overhead_s_per_task"] = round((results["slurm"]["wall_s"] - local) / tasks, 2)
        print(json.dumps(results["slurm"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
