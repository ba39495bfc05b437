"""Where a build's time went: per benchmark and stage, wall seconds, tasks, the CPU seconds of the tasks and
their render workers, and render seconds per frame.

A stage's wall time is the window of one `flows.collect.collect_shards` (from its call until its last task
finished: `StageWindow`); its task figures are the `timing` slices of the completion markers written in that
window (benchfoundry/core/task_clock.py) and the clock records of its tasks that wrote none. A marker finished
after the benchmark's last window (a task a flow waits on directly, e.g. a labelling stage) makes a row named
after its store. `benchmark_timings` is what
build.json records under `timings.benchmarks.<name>`; `time_table` prints it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchfoundry.core.task_clock import CLOCK_DIR


@dataclass(frozen=True)
class StageWindow:
    """One stage's wait on its tasks: Unix seconds from the collect's start to its last result."""

    stage: str
    start: float
    end: float
    tasks: int
    failed: int = 0


def marker_timings(root: str | os.PathLike[str], benchmark: str, since: float) -> list[dict[str, Any]]:
    """The `timing` of every completion marker of `benchmark` whose slice began at or after `since`, with its
    store (`<root>/<benchmark>/<store>/_done/*.json`), and of every clock record of a task that wrote no marker
    (`<root>/<benchmark>/_clock/<stage>/*.json`, benchfoundry/core/task_clock.py); unreadable ones are left out."""
    found = []
    folder = Path(root) / benchmark
    for path in sorted([*folder.glob("*/_done/*.json"), *folder.glob(f"{CLOCK_DIR}/*/*.json")]):
        try:
            timing = json.loads(path.read_text()).get("timing")
        except (OSError, ValueError):
            continue
        if isinstance(timing, dict) and timing.get("start", 0.0) >= since:
            store = path.parent.name if path.parent.parent.name == CLOCK_DIR else path.parent.parent.name
            found.append({**timing, "store": store})
    return found


def _empty_row(wall_s: float, tasks: int | None, failed: int) -> dict[str, Any]:
    return {
        "wall_s": round(wall_s, 2),
        "tasks": tasks,
        "failed": failed,
        "shards": 0,
        "task_s": 0.0,
        "cpu_s": 0.0,
        "render_frames": 0,
        "render_s": 0.0,
        "stores": [],
    }


def _add_marker(row: dict[str, Any], timing: dict[str, Any]) -> None:
    row["shards"] += 1
    row["task_s"] += float(timing.get("seconds", 0.0))
    row["cpu_s"] += float(timing.get("cpu_seconds", 0.0))
    row["render_frames"] += int(timing.get("render_frames", 0))
    row["render_s"] += float(timing.get("render_seconds", 0.0))
    if timing["store"] not in row["stores"]:
        row["stores"].append(timing["store"])


def _finish(row: dict[str, Any]) -> dict[str, Any]:
    for key in ("task_s", "cpu_s", "render_s"):
        row[key] = round(row[key], 2)
    frames = row["render_frames"]
    row["render_s_per_frame"] = round(row["render_s"] / frames, 3) if frames else None
    return row


def benchmark_timings(
    start: float, end: float, windows: Sequence[StageWindow], markers: Iterable[dict[str, Any]]
) -> dict[str, Any]:
    """A benchmark's record: its wall seconds, one row per stage window (markers go to the first window that
    ended after them; a window reaches back to its earliest task, submitted before the collect began) and per
    store of the markers left over, and `other_s`, the wall time outside every row (planning, manifests,
    reports, tasks called directly)."""
    ordered = sorted(windows, key=lambda w: w.end)
    spans: dict[int | str, list[float]] = {id(w): [w.start, w.end] for w in ordered}
    stages: dict[str, dict[str, Any]] = {}
    for w in ordered:
        row = stages.setdefault(w.stage, _empty_row(0.0, 0, 0))
        row["tasks"] += w.tasks
        row["failed"] += w.failed
    owner: dict[int | str, str] = {id(w): w.stage for w in ordered}
    for timing in markers:
        began = float(timing.get("start", 0.0))
        finished = began + float(timing.get("seconds", 0.0))
        window = next((w for w in ordered if w.end >= finished), None)
        key: int | str = id(window) if window is not None else f"store:{timing['store']}"
        if key not in owner:
            owner[key] = timing["store"]
            spans[key] = [began, finished]
            stages.setdefault(timing["store"], _empty_row(0.0, None, 0))
        span = spans[key]
        span[0], span[1] = min(span[0], began), max(span[1], finished)
        _add_marker(stages[owner[key]], timing)
    for key, (first, last) in spans.items():
        stages[owner[key]]["wall_s"] += last - first
    for row in stages.values():
        row["wall_s"] = round(row["wall_s"], 2)
    covered = sum(last - first for first, last in spans.values())
    finished = {name: _finish(row) for name, row in stages.items()}
    return {
        "wall_s": round(end - start, 2),
        "cpu_s": round(sum(row["cpu_s"] for row in finished.values()), 2),
        "other_s": round(max(0.0, end - start - covered), 2),
        "stages": finished,
    }


def build_cpu_seconds(benchmarks: dict[str, dict[str, Any]]) -> float:
    """The CPU seconds of a build's tasks and the render workers they drove, over every benchmark's stages."""
    return round(sum(float(record.get("cpu_s", 0.0)) for record in benchmarks.values()), 2)


def time_table(timings: dict[str, Any]) -> list[list[str]]:
    """The rows of the "where the time went" table (a header first) from build.json's `timings`."""
    rows = [["benchmark", "stage", "wall s", "tasks", "CPU s", "render s/frame (frames)"]]
    for bench, record in timings.get("benchmarks", {}).items():
        rows.append([bench, "(all)", f"{record['wall_s']:.1f}", "", f"{record.get('cpu_s', 0.0):.1f}", ""])
        for stage, row in record["stages"].items():
            per_frame = row.get("render_s_per_frame")
            rows.append(
                [
                    "",
                    stage,
                    f"{row['wall_s']:.1f}",
                    "" if row["tasks"] is None else str(row["tasks"]),
                    f"{row['cpu_s']:.1f}" if row["shards"] else "",
                    f"{per_frame:.2f} ({row['render_frames']})" if per_frame is not None else "",
                ]
            )
        rows.append(["", "other (planning, manifests, reports)", f"{record['other_s']:.1f}", "", "", ""])
    if "wall_s" in timings:
        cpu = f"{timings['cpu_s']:.1f}" if "cpu_s" in timings else ""
        rows.append(["build", "(all)", f"{timings['wall_s']:.1f}", "", cpu, ""])
    return rows


def format_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as aligned plain text: text columns left, figures right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
