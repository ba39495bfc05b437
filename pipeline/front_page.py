"""The build report's front page, `OUT/report/index.html`: the build's status and, for every registered benchmark,
its status, its counts as build.json records them (QA items, problems and its descriptor's `front_counts`), a few
of its released images (read by its `items` hook) and a link to its page.

Every count cell carries the benchmark and the key path it was read at (`data-benchmark`, `data-key`), so that
the page can be checked against build.json.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from benchfoundry.core.descriptor import Benchmark
from benchfoundry.core.redact import redact, redact_data
from benchfoundry.core.safe_paths import within
from benchfoundry.pipeline.benchmarks import hook, registered
from benchfoundry.pipeline.contact_sheet import write_contact_sheet
from benchfoundry.pipeline.report_style import write_page

PAGE = "index.html"
#: The most images a benchmark shows on the front page.
SHOWN_IMAGES = 4
#: The counts every benchmark shows: (label, key path into its outcome in build.json).
COMMON_COUNTS: tuple[tuple[str, str], ...] = (("QA items", "items"), ("problems", "problems"))
#: The statuses whose benchmark may have released something to show.
RAN = ("built", "failed", "stopped")


def count_at(outcome: dict[str, Any], key: str) -> int | float | None:
    """The count at `key` ("a/b/c") of a benchmark's outcome: a number as it is, a list or mapping by its length;
    None when absent or not a count."""
    value: Any = outcome
    for part in key.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    return len(value) if isinstance(value, (list, dict)) else None


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _status(status: str) -> str:
    return f'<span class="status status-{_esc(status.replace(" ", "-"))}">{_esc(status)}</span>'


def _count_cell(name: str, key: str, outcome: dict[str, Any]) -> str:
    value = count_at(outcome, key)
    shown = "–" if value is None else f"{value:,}" if isinstance(value, int) else f"{value:g}"
    return f'<td data-benchmark="{_esc(name)}" data-key="{_esc(key)}">{shown}</td>'


def _link(report: Path, rel: str, text: str) -> str:
    """`text` linked to `rel` (relative to the report folder) when that file exists, else plain."""
    return f'<a href="{_esc(rel)}">{_esc(text)}</a>' if (report / rel).is_file() else _esc(text)


def shown_images(descriptor: Benchmark, build: Path) -> list[tuple[Path, Any]]:
    """Up to SHOWN_IMAGES of the benchmark's released images (each once, with the first item showing it), spread
    evenly over its items in released order; only images inside the build root."""
    first: dict[Path, Any] = {}
    for item in hook(descriptor.name, "items")(build):
        for image in item.images:
            first.setdefault(Path(image), item)
    distinct = [(image, item) for image, item in first.items() if _inside(build, image)]
    if len(distinct) <= SHOWN_IMAGES:
        return distinct
    step = (len(distinct) - 1) / (SHOWN_IMAGES - 1)
    return [distinct[round(k * step)] for k in range(SHOWN_IMAGES)]


def _inside(build: Path, image: Path) -> bool:
    try:
        within(build, image, "image")
    except ValueError:
        return False
    return True


def _shots(descriptor: Benchmark, build: Path, report: Path) -> str:
    try:
        shown = shown_images(descriptor, build)
    except (OSError, ValueError) as exc:
        return f'<p class="note">No released images to show: {_esc(redact(str(exc)))}</p>'
    figures = []
    for image, item in shown:
        rel = _esc(Path(os.path.relpath(image, report)).as_posix())
        figures.append(
            f'<figure><a href="{rel}"><img src="{rel}" alt="{_esc(item.question)}" title="{_esc(item.question)}">'
            f"</a><figcaption>{_esc(item.task)}</figcaption></figure>"
        )
    return f'<div class="shots">{"".join(figures)}</div>' if figures else '<p class="note">No released images.</p>'


def _summary(record: dict[str, Any], report: Path) -> str:
    head = "".join(f"<th>{_esc(label)}</th>" for label, _ in COMMON_COUNTS)
    rows = []
    for d in registered():
        outcome = record.get("benchmarks", {}).get(d.name, {})
        cells = "".join(_count_cell(d.name, key, outcome) for _, key in COMMON_COUNTS)
        rows.append(
            f"<tr><td>{_link(report, d.report_page, d.title)}</td>"
            f'<td class="l">{_status(str(outcome.get("status", "not recorded")))}</td>{cells}</tr>'
        )
    return f'<table><tr><th>benchmark</th><th class="l">status</th>{head}</tr>{"".join(rows)}</table>'


def _section(d: Benchmark, outcome: dict[str, Any], build: Path, report: Path) -> str:
    status = str(outcome.get("status", "not recorded"))
    parts = [
        f'<section class="benchmark" id="{_esc(d.name)}"><h2>{_link(report, d.report_page, d.title)}</h2>',
        f"<p>{_status(status)} {_esc(outcome.get('detail', ''))}</p>",
    ]
    if d.front_counts:
        rows = "".join(
            f"<tr><td>{_esc(label)}</td>{_count_cell(d.name, key, outcome)}</tr>" for label, key in d.front_counts
        )
        parts.append(f"<table>{rows}</table>")
    if status in RAN:
        parts.append(_shots(d, build, report))
    parts.append("</section>")
    return "\n".join(parts)


def _build_line(record: dict[str, Any], report: Path) -> str:
    status = str(record.get("status", "not recorded"))
    when = ", ".join(f"{k} {_esc(record[k])}" for k in ("started", "finished") if record.get(k))
    return (
        f"<p>Build {_status(status)}{f' ({when})' if when else ''}; config hash "
        f"<code>{_esc(str(record.get('config_hash', '–'))[:12])}</code>. The build record: "
        f"{_link(report, '../build.json', 'build.json')}; where the time went: "
        f"{_link(report, 'build.html', 'build.html')}.</p>"
    )


def write_front_page(build: str | os.PathLike[str], record: dict[str, Any]) -> Path:
    """Write `report/index.html` of the build root `build` from its build record (redacted here as build.json
    is), and the contact sheet of the benchmarks that ran (pipeline/contact_sheet.py); returns its path."""
    root = Path(build)
    report = root / "report"
    record = redact_data(record)
    outcomes = record.get("benchmarks", {})
    write_contact_sheet(root, [d for d in registered() if outcomes.get(d.name, {}).get("status") in RAN])
    title = f"Build report: {record.get('name', root.name)}"
    parts = [f"<h1>{_esc(title)}</h1>", _build_line(record, report), _summary(record, report)]
    parts += [_section(d, record.get("benchmarks", {}).get(d.name, {}), root, report) for d in registered()]
    return write_page(report, PAGE, title, "\n".join(parts))
