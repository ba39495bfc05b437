"""The build report's contact sheet, `OUT/report/contact.html`: the world the build drew at a glance.

For every benchmark shown (the front page's, those that ran), a grid of its released images read by its `items`
hook: each image once, under the first category showing it; `PER_BENCHMARK` places dealt in turn to the categories
(a category with fewer images leaves its places to the others), each category's images spread evenly over its
items in released order; only files inside the build root. The images are linked by relative path and shown small
by the report's stylesheet, never copied or embedded, so the page stays a few kilobytes and the same build writes
the same bytes.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.descriptor import Benchmark
from benchfoundry.core.redact import redact
from benchfoundry.pipeline.benchmarks import hook
from benchfoundry.pipeline.report_style import write_page

PAGE = "contact.html"
TITLE = "Contact sheet"
#: The most images of one benchmark.
PER_BENCHMARK = 12
NOTE = (
    "The people and rooms each benchmark released, a few of every category, spread over its items in released "
    "order; each image links to the file."
)


def spread(values: Sequence[Any], most: int) -> list[Any]:
    """Up to `most` of `values`, evenly spaced from the first to the last."""
    if len(values) <= most:
        return list(values)
    if most <= 1:
        return list(values[:most])
    step = (len(values) - 1) / (most - 1)
    return [values[round(k * step)] for k in range(most)]


def sheet_images(descriptor: Benchmark, build: Path) -> list[tuple[str, Path, str]]:
    """(category, image, question) of the benchmark's released images on the sheet, by category in the order the
    categories first appear; only existing files inside the build root."""
    inside = Path(build).resolve()
    first: dict[Path, tuple[str, str]] = {}
    for item in hook(descriptor.name, "items")(build):
        for image in item.images:
            path = Path(image)
            if path not in first and path.resolve().is_relative_to(inside) and path.is_file():
                first[path] = (item.task, item.question)
    by_category: dict[str, list[tuple[Path, str]]] = {}
    for path, (task, question) in first.items():
        by_category.setdefault(task, []).append((path, question))
    places = shares([len(shown) for shown in by_category.values()], PER_BENCHMARK)
    return [
        (task, path, question)
        for (task, shown), most in zip(by_category.items(), places)
        for path, question in spread(shown, most)
    ]


def shares(sizes: Sequence[int], total: int) -> list[int]:
    """Up to `total` places dealt one at a time to each of groups of `sizes` in turn, none past its size."""
    places = [0] * len(sizes)
    while sum(places) < total and any(p < n for p, n in zip(places, sizes)):
        for k, n in enumerate(sizes):
            if places[k] < n and sum(places) < total:
                places[k] += 1
    return places


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _section(descriptor: Benchmark, build: Path, report: Path) -> str:
    head = f'<section class="benchmark" id="{_esc(descriptor.name)}"><h2>{_esc(descriptor.title)}</h2>'
    try:
        shown = sheet_images(descriptor, build)
    except (OSError, ValueError) as exc:
        return f'{head}<p class="note">No released images to show: {_esc(redact(str(exc)))}</p></section>'
    if not shown:
        return f'{head}<p class="note">No released images.</p></section>'
    figures = []
    for task, image, question in shown:
        rel = _esc(Path(os.path.relpath(image, report)).as_posix())
        figures.append(
            f'<figure><a href="{rel}"><img src="{rel}" alt="{_esc(question)}" title="{_esc(question)}"></a>'
            f"<figcaption>{_esc(task)}</figcaption></figure>"
        )
    return f'{head}<div class="shots">{"".join(figures)}</div></section>'


def write_contact_sheet(build: str | os.PathLike[str], shown: Sequence[Benchmark]) -> Path:
    """Write `report/contact.html` of the build root `build` with the released images of the benchmarks `shown`;
    returns its path."""
    root = Path(build)
    report = root / "report"
    parts = [f"<h1>{_esc(TITLE)}</h1>", f'<p class="note">{_esc(NOTE)}</p>']
    parts += [_section(d, root, report) for d in shown]
    if not shown:
        parts.append('<p class="note">No benchmark of this build ran.</p>')
    return write_page(report, PAGE, TITLE, "\n".join(parts))
