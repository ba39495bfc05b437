"""A paper's results table shown with our rows added (the evaluation page, evaluation/report_page.py): the table
as published, how a cell is written, and how one of our result files is labelled.

A benchmark's published tables live in its own folder, built from `Table`; a cell is a number (%, two decimals),
an (Acc, F1) pair, a string where the paper prints one, or None where it prints "—". The published figures were
measured on the original data, not on a rebuilt benchmark: the page labels them so.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchfoundry.evaluation.options import offered

#: A result file of one run (`OUT/report/eval/<model>/<name>.json`, evaluation/run.py).
Result = dict[str, Any]
PUBLISHED = "published (original data)"
LEFT = ' class="l"'


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[str, ...]  # the first names the row label
    rows: tuple[tuple[Any, ...], ...]
    caption: str = ""


def cell(value: Any) -> str:
    """A cell's text: "—" for None, two decimals for a float, pairs joined by " / "."""
    if value is None:
        return "—"
    if isinstance(value, tuple):
        return " / ".join(cell(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return html.escape(str(value))


def pct(value: float | None) -> float | None:
    """A share as a percentage (None stays None)."""
    return None if value is None else 100.0 * value


def mean(values: Sequence[float | None]) -> float | None:
    """The mean of the values present, None when none is."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def render(table: Table, ours: Sequence[tuple[Any, ...]]) -> str:
    """The table with its published rows in their order, then our rows (each ending with its Source), and a
    Source column."""
    head = "".join(f"<th{LEFT if i == 0 else ''}>{html.escape(c)}</th>" for i, c in enumerate(table.columns))
    body = []
    for kind, rows in (("pub", [(*r, PUBLISHED) for r in table.rows]), ("ours", ours)):
        for row in rows:
            cells = "".join(f"<td{LEFT if i == 0 else ''}>{cell(v)}</td>" for i, v in enumerate(row[:-1]))
            body.append(f'<tr class="{kind}">{cells}<td class="l">{html.escape(str(row[-1]))}</td></tr>')
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return (
        f"<h3>{html.escape(table.title)}</h3><table>{caption}"
        f'<tr>{head}<th class="l">Source</th></tr>{"".join(body)}</table>'
    )


def label(result: Result) -> str:
    """Our row's label: the model, "Blind …" for a run without images."""
    return ("Blind " if result.get("blind") else "") + str(result.get("model"))


def source(result: Result) -> str:
    """Our row's Source cell: the build it ran on and the protocol."""
    build = result.get("build") or {}
    where = " ".join(str(build[k])[:12] for k in ("name", "config_hash") if build.get(k))
    return f"ours: {f'build {where}' if where else 'this build'}, {result['protocol']} protocol"


def baseline_runs(results: Sequence[Result]) -> list[Result]:
    """The runs that asked the generic way: every benchmark's own variant at its baseline (evaluation/options.py)."""
    options = [o for o, _ in offered()]
    return [r for r in results if all(o.recorded(r) == o.baseline for o in options)]


def per_task_table(title: str, tasks: Sequence[str], results: Sequence[Result]) -> str:
    """Our runs' accuracy per task and overall (%), one row each (no published rows)."""
    table = Table(title, ("Model", *tasks, "Overall"), ())
    ours = [
        (label(r), *(pct(r.get("per_task", {}).get(t)) for t in tasks), pct(r.get("overall")), source(r))
        for r in results
    ]
    return render(table, ours)
