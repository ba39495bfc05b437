"""How a build's cost grows with its size: each benchmark's rehearsal preset (configs/rehearsal-<name>.yaml, its
published counts on embedded defaults) built at a few fractions of its counts (`scale`), one build a fraction,
measured from outside and from its build.json.

Per benchmark, fraction and stage it prints the wall and CPU seconds (build.json's timings), the CPU seconds per
item and per rendered frame; per build the peak resident memory of the flow process, of the Prefect server and of
the render workers (sampled from the process tree), the Prefect database's size and task-run count, the bytes the
build wrote, its report pages' size, and `export hf`'s time and peak memory. Across fractions it fits each stage's
CPU seconds against its items (the exponent: 1 is linear) and prints each stage's CPU seconds per item as a ratio
to the smallest fraction's, the anchor measured in the same run; a stage whose cost per item grows more than 25 %
(unless it is under 1 % of the largest build's CPU seconds), or a build whose peak memory more than doubles, is
flagged. `--table` writes the measured cost model (per item, per frame, the full build extrapolated) as the markdown
docs/performance.md's span marked `cost-model` holds.

A `--scratch` that holds an interrupted build of a fraction resumes it (a long rehearsal can be continued): its
stages' CPU seconds and frames then count the markers of every run, its wall time and memory the last run only.

    .venv/bin/python bench/scale.py [--fractions 0.01,0.03,0.1,0.3] [--only syndor] [--json PATH] [--table PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from bench_table import add_row

from benchfoundry.core.timings import marker_timings

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = ("syndor", "odi", "viewspatial")
#: Per-item cost growth (largest fraction against the smallest) and peak-memory growth that count as defects.
MAX_COST_GROWTH = 1.25
MAX_MEMORY_GROWTH = 2.0
#: A stage below this share of the largest build's CPU seconds is shown but not flagged: its per-item cost is a
#: fraction of a second at the smallest fraction, where noise alone moves it by a quarter.
MIN_FLAGGED_SHARE = 0.01
CORES = (2, 16, 64)


def preset(benchmark: str) -> Path:
    return REPO / "configs" / f"rehearsal-{benchmark}.yaml"


def role(process: psutil.Process, flow_pid: int) -> str:
    """Which part of a build a process is: the flow, the Prefect server, a render worker or another helper."""
    if process.pid == flow_pid:
        return "flow"
    try:
        command = " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "other"
    if "render.worker" in command:
        return "render_worker"
    if "prefect" in command and "server" in command:
        return "prefect_server"
    return "other"


@dataclass
class PeakMemory:
    """The peak resident memory of each role in a process tree, sampled every `interval_s`."""

    root: int
    interval_s: float = 0.25
    peaks_mb: dict[str, float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def sample(self) -> None:
        try:
            parent = psutil.Process(self.root)
            tree = [parent, *parent.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        totals: dict[str, float] = {}
        for process in tree:
            try:
                rss = process.memory_info().rss / 2**20
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            name = role(process, self.root)
            # a role with several processes (render workers) counts their largest one: what one machine holds
            totals[name] = max(totals.get(name, 0.0), rss)
        for name, value in totals.items():
            self.peaks_mb[name] = max(self.peaks_mb.get(name, 0.0), value)

    def run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def measured_command(argv: Sequence[str], env: dict[str, str], log: Path) -> tuple[int, float, dict[str, float]]:
    """Run a command; its exit status, wall seconds and the peak memory of each role of its process tree."""
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        with PeakMemory(process.pid) as memory:
            status = process.wait()
    return status, time.perf_counter() - started, {k: round(v, 1) for k, v in memory.peaks_mb.items()}


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def prefect_database(home: Path) -> tuple[int, int | None]:
    """The Prefect database's size in bytes and its task-run count (None when it has no such table)."""
    files = list(home.rglob("*.db"))
    if not files:
        return 0, None
    database = max(files, key=lambda p: p.stat().st_size)
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            runs = connection.execute("select count(*) from task_run").fetchone()[0]
    except sqlite3.Error:
        runs = None
    return sum(p.stat().st_size for p in files), runs


def build_env(home: Path) -> dict[str, str]:
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    return env


def run_fraction(benchmark: str, fraction: float, scratch: Path) -> dict[str, Any]:
    """One rehearsal build at `fraction` and its export, measured."""
    out, home = scratch / f"{benchmark}-{fraction:g}", scratch / f"{benchmark}-{fraction:g}-prefect"
    home.mkdir(parents=True, exist_ok=True)
    env = build_env(home)
    cli = [sys.executable, "-m", "benchfoundry.cli.main"]
    build = [
        *cli,
        "build",
        str(preset(benchmark)),
        "--set",
        f"scale={fraction}",
        "--out",
        str(out),
        "--only",
        benchmark,
    ]
    status, wall_s, peaks = measured_command(build, env, scratch / f"{benchmark}-{fraction:g}.log")
    record = json.loads((out / "build.json").read_text()) if (out / "build.json").is_file() else {}
    outcome = record.get("benchmarks", {}).get(benchmark, {})
    timings = record.get("timings", {}).get("benchmarks", {}).get(benchmark, {})
    export = [*cli, "export", "hf", "--build", str(out), "--to", str(scratch / f"export-{benchmark}-{fraction:g}")]
    export_status, export_s, export_peaks = measured_command(
        [*export, "--benchmark", benchmark], env, scratch / f"export-{benchmark}-{fraction:g}.log"
    )
    db_bytes, task_runs = prefect_database(home)
    stages = {
        name: {
            "wall_s": stage.get("wall_s"),
            "cpu_s": stage.get("cpu_s"),
            "tasks": stage.get("tasks"),
            "frames": stage.get("render_frames") or 0,
        }
        for name, stage in timings.get("stages", {}).items()
    }
    resumed = count_earlier_runs(stages, timings.get("stages", {}), marker_timings(out, benchmark, since=0.0))
    frames = sum(s["frames"] for s in stages.values())
    return {
        "benchmark": benchmark,
        "fraction": fraction,
        "status": status,
        "build_status": record.get("status"),
        "resumed": resumed,
        "items": outcome.get("items"),
        "frames": frames,
        "wall_s": round(wall_s, 1),
        "cpu_s": round(sum(s["cpu_s"] or 0 for s in stages.values()), 2) if resumed else timings.get("cpu_s"),
        "peak_rss_mb": max(peaks.values(), default=0.0),
        "peaks_mb": peaks,
        "prefect_db_bytes": db_bytes,
        "task_runs": task_runs,
        "bytes_written": folder_bytes(out) if out.is_dir() else 0,
        "report_bytes": folder_bytes(out / "report") if (out / "report").is_dir() else 0,
        "export": {"status": export_status, "wall_s": round(export_s, 1), "peaks_mb": export_peaks},
        "stages": stages,
    }


def count_earlier_runs(
    stages: dict[str, dict[str, Any]], recorded: dict[str, dict[str, Any]], markers: Sequence[dict[str, Any]]
) -> bool:
    """When `--scratch` held an interrupted build of this fraction and the build resumed it, build.json counts
    only the last run's tasks: put every run's markers (CPU seconds, frames) into `stages`, one row per store (a
    resumed run's stage windows say nothing of the earlier runs' order), and return True. A build made in one run
    is left as it is."""
    if len(markers) <= sum(row.get("shards") or 0 for row in recorded.values()):
        return False
    stages.clear()
    totals: dict[str, dict[str, float]] = {}
    for timing in markers:
        row = totals.setdefault(timing["store"], {"cpu_s": 0.0, "frames": 0})
        row["cpu_s"] += float(timing.get("cpu_seconds", 0.0))
        row["frames"] += int(timing.get("render_frames", 0))
    for name, total in totals.items():
        last = recorded.get(name, {})
        stages[name] = {
            "wall_s": last.get("wall_s"),
            "cpu_s": round(total["cpu_s"], 2),
            "tasks": last.get("tasks"),
            "frames": int(total["frames"]),
        }
    return True


def exponent(points: Iterable[tuple[float, float]]) -> float | None:
    """The least-squares slope of log(cost) against log(work): 1 is linear, 2 quadratic."""
    pairs = [(math.log(w), math.log(c)) for w, c in points if w and c and w > 0 and c > 0]
    if len(pairs) < 2 or len({w for w, _ in pairs}) < 2:
        return None
    mean_w = sum(w for w, _ in pairs) / len(pairs)
    mean_c = sum(c for _, c in pairs) / len(pairs)
    spread = sum((w - mean_w) ** 2 for w, _ in pairs)
    return sum((w - mean_w) * (c - mean_c) for w, c in pairs) / spread


def per_item(run: dict[str, Any], stage: str) -> float | None:
    cpu, items = run["stages"].get(stage, {}).get("cpu_s"), run.get("items")
    return cpu / items if cpu and items else None


def stage_rows(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per stage across the fractions: the exponent, per-item costs, their ratio to the smallest fraction's."""
    runs = sorted(runs, key=lambda r: r["fraction"])
    largest = runs[-1] if runs else {}
    rows = []
    for stage in dict.fromkeys(s for r in runs for s in r["stages"]):
        costs = [per_item(r, stage) for r in runs]
        anchor = next((c for c in costs if c), None)
        ratio = costs[-1] / anchor if anchor and costs[-1] else None
        share = (largest["stages"].get(stage, {}).get("cpu_s") or 0) / largest["cpu_s"] if largest.get("cpu_s") else 0
        rows.append(
            {
                "stage": stage,
                "exponent": exponent((r.get("items") or 0, r["stages"].get(stage, {}).get("cpu_s") or 0) for r in runs),
                "cpu_s_per_item": costs,
                "ratio": ratio,
                "share": share,
                "defect": ratio is not None and ratio > MAX_COST_GROWTH and share >= MIN_FLAGGED_SHARE,
            }
        )
    return rows


def print_benchmark(benchmark: str, runs: Sequence[dict[str, Any]]) -> None:
    runs = sorted(runs, key=lambda r: r["fraction"])
    print(f"\n== {benchmark}")
    print(
        f"{'fraction':>9} {'items':>7} {'frames':>7} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'flow MB':>8} "
        f"{'server MB':>9} {'worker MB':>9} {'db MB':>6} {'tasks':>6} {'out MB':>7} {'report KB':>9} {'export s':>8}"
    )
    for r in runs:
        p = r["peaks_mb"]
        print(
            f"{r['fraction']:>9g} {r['items'] or 0:>7} {r['frames']:>7} {r['wall_s']:>8.1f} {r['cpu_s'] or 0:>8.1f} "
            f"{r['peak_rss_mb']:>8.0f} {p.get('flow', 0):>8.0f} {p.get('prefect_server', 0):>9.0f} "
            f"{p.get('render_worker', 0):>9.0f} {r['prefect_db_bytes'] / 2**20:>6.1f} {r['task_runs'] or 0:>6} "
            f"{r['bytes_written'] / 2**20:>7.1f} {r['report_bytes'] / 2**10:>9.0f} {r['export']['wall_s']:>8.1f}"
        )
    print(f"{'stage':<24} {'exponent':>8}  CPU s per item by fraction  (ratio to the smallest fraction's)")
    for row in stage_rows(runs):
        costs = "  ".join("-" if c is None else f"{c:.4f}" for c in row["cpu_s_per_item"])
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        slope = "-" if row["exponent"] is None else f"{row['exponent']:.2f}"
        minor = row["ratio"] is not None and row["ratio"] > MAX_COST_GROWTH and not row["defect"]
        flag = "  DEFECT" if row["defect"] else f"  (under {MIN_FLAGGED_SHARE:.0%} of the build)" if minor else ""
        print(f"{row['stage']:<24} {slope:>8}  {costs}  ({ratio}){flag}")
    if len(runs) > 1 and runs[0]["peak_rss_mb"]:
        growth = runs[-1]["peak_rss_mb"] / runs[0]["peak_rss_mb"]
        flag = "  DEFECT" if growth > MAX_MEMORY_GROWTH else ""
        print(
            f"peak memory {runs[-1]['peak_rss_mb']:.0f} MB at {runs[-1]['fraction']:g}, "
            f"{growth:.2f}x the smallest{flag}"
        )


def full_items(benchmark: str) -> int:
    """The items the full rehearsal preset plans (its `planned_items` hook)."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.pipeline.benchmarks import hook

    planned = hook(benchmark, "planned_items")
    return int(planned(load_config(preset(benchmark)))) if planned is not None else 0


def earlier_rows(table: str) -> dict[str, str]:
    """The benchmark rows of an earlier cost-model table, by benchmark."""
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] in BENCHMARKS:
            rows[cells[0]] = line.rstrip()
    return rows


def cost_model(runs_by: dict[str, list[dict[str, Any]]], earlier: str = "") -> str:
    """The measured cost model, markdown: per item and per frame at the largest fraction, the full build (the
    preset's planned items) extrapolated linearly on 2, 16 and 64 cores, and the render term apart (CPU seconds
    per rendered frame here: put your own GPU's seconds per frame in its place). A benchmark measured in none of
    `runs_by` keeps its row of the `earlier` table."""
    rows = earlier_rows(earlier)
    lines = [
        "| benchmark | measured at | CPU s / item | render CPU s / frame | full items | full build, CPU h | "
        + " | ".join(f"wall h on {c} cores" for c in CORES)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(CORES),
    ]
    for benchmark in BENCHMARKS:
        runs = runs_by.get(benchmark, [])
        largest = max((r for r in runs if r.get("items")), key=lambda r: r["fraction"], default=None)
        if largest is None:
            if benchmark in rows:
                lines.append(rows[benchmark])
            continue
        render_cpu = sum(s["cpu_s"] or 0 for s in largest["stages"].values() if s["frames"])
        per_frame = render_cpu / largest["frames"] if largest["frames"] else None
        per_item_cpu = (largest["cpu_s"] or 0) / largest["items"]
        items = full_items(benchmark) or round(largest["items"] / largest["fraction"])
        total_h = per_item_cpu * items / 3600
        walls = " | ".join(f"{total_h / c:.1f}" for c in CORES)
        frame_text = "-" if per_frame is None else f"{per_frame:.2f}"
        lines.append(
            f"| {benchmark} | {largest['fraction']:g} ({largest['items']:,} items) | {per_item_cpu:.3f} | {frame_text} "
            f"| {items:,} | {total_h:.1f} | {walls} |"
        )
    return "\n".join(lines) + "\n"


def write_table(path: Path, runs_by: dict[str, list[dict[str, Any]]]) -> None:
    """Write the cost model to `path`, keeping the rows of benchmarks not measured now from the table already there."""
    path.write_text(cost_model(runs_by, path.read_text() if path.is_file() else ""))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fractions", default="0.01,0.03,0.1,0.3", help="comma-separated scales in (0, 1]")
    parser.add_argument("--only", choices=BENCHMARKS, help="one benchmark (default: every one)")
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument(
        "--table", type=Path, help="write the cost model's markdown table here (an existing one's other rows are kept)"
    )
    parser.add_argument("--scratch", type=Path, help="where the builds go (default: a temporary folder)")
    parser.add_argument(
        "--runs", type=Path, help="print and tabulate the measurements of an earlier --json; build none"
    )
    args = parser.parse_args(argv)
    if args.runs:
        runs_by = json.loads(args.runs.read_text())
        for benchmark, runs in runs_by.items():
            print_benchmark(benchmark, runs)
        if args.table:
            write_table(args.table, runs_by)
        return 0
    fractions = sorted(float(f) for f in args.fractions.split(","))
    if not fractions or not all(0 < f <= 1 for f in fractions):
        parser.error(f"--fractions {args.fractions!r}: each must be in (0, 1]")
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="benchfoundry-scale-"))
    runs_by: dict[str, list[dict[str, Any]]] = {}
    for benchmark in [args.only] if args.only else BENCHMARKS:
        for fraction in fractions:
            run = run_fraction(benchmark, fraction, scratch)
            runs_by.setdefault(benchmark, []).append(run)
            print(
                f"{benchmark} at {fraction:g}: exit {run['status']}, {run['items']} items, {run['frames']} frames, "
                f"{run['wall_s']:.0f} s",
                flush=True,
            )
        print_benchmark(benchmark, runs_by[benchmark])
        worst = max((r["ratio"] for r in stage_rows(runs_by[benchmark]) if r["ratio"]), default=None)
        if worst is not None:
            add_row(
                benchmark,
                f"rehearsal at {fractions[0]:g}–{fractions[-1]:g} of the published counts: the stage whose CPU s per "
                "item grows most",
                f"its CPU s per item at {fractions[0]:g} (same run)",
                f"{worst:.2f}x",
            )
    if args.json:
        args.json.write_text(json.dumps(runs_by, indent=2) + "\n")
    if args.table:
        write_table(args.table, runs_by)
    print(f"\nbuilds in {scratch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
