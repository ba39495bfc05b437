"""The build report's page of where the build's time went, `OUT/report/build.html`: the table of build.json's
`timings` (benchfoundry/core/timings.py), rewritten by every build, in the report's one stylesheet."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from benchfoundry.core.timings import time_table
from benchfoundry.pipeline.report_style import write_page

PAGE = "build.html"
NOTE = (
    "Wall seconds per benchmark and stage (a stage: the wait on its tasks, from the first task's start to the "
    "last one's end); tasks submitted; CPU seconds of the tasks' threads and their Blender workers, from the "
    "completion markers written in this build (a skipped shard counts nothing); render seconds per frame or "
    "image as the Blender worker measured them. Other: planning, manifests, reports and tasks a flow calls "
    "directly."
)


def write_timings_page(report_dir: str | Path, timings: dict[str, Any]) -> Path:
    """Write `build.html` into the report folder; returns its path."""
    rows = time_table(timings)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "\n".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows[1:])
    text = (
        f"<h1>Where the time went</h1>\n<p>{html.escape(NOTE)}</p>\n"
        f'<table class="time">\n<tr>{head}</tr>\n{body}\n</table>'
    )
    return write_page(report_dir, PAGE, "Build: where the time went", text)
