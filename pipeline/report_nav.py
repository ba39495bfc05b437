"""One navigation line across the build report's pages (the front page, each registered benchmark's, evaluation,
the comparison with another build (`benchfoundry compare`), where the build's time went, the contact sheet).

Each benchmark writes its own page; `link_pages` puts (or replaces) a `<nav id="pages">` line at the top
of every page present, linking the others, so the report reads as one whatever was built.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.pipeline import contact_sheet, front_page
from benchfoundry.pipeline.benchmarks import registered

#: The front page (pipeline/front_page.py), before the benchmarks' own pages (pipeline/benchmarks.py).
FRONT_PAGE = ("Overview", front_page.PAGE)
#: The report's pages besides the benchmarks' own, after them.
BUILD_PAGES: tuple[tuple[str, str], ...] = (
    ("Evaluation", "eval/index.html"),
    ("Comparison", "compare.html"),
    ("Build time", "build.html"),
    ("Contact sheet", contact_sheet.PAGE),
)
_NAV = re.compile(r'<nav id="pages">.*?</nav>\n?', re.S)


def nav_line(present: list[tuple[str, str]], page: str) -> str:
    """The nav element as seen from `page` (a path relative to the report folder)."""
    here = os.path.dirname(page) or "."
    links = [
        f"<b>{html.escape(name)}</b>"
        if rel == page
        else f'<a href="{html.escape(os.path.relpath(rel, here))}">{html.escape(name)}</a>'
        for name, rel in present
    ]
    return f'<nav id="pages">{" · ".join(links)}</nav>\n'


def pages() -> tuple[tuple[str, str], ...]:
    """(link text, path relative to the report folder) of every page: the front page, the benchmarks' in build
    order, then the build's own."""
    return (FRONT_PAGE, *((b.title, b.report_page) for b in registered()), *BUILD_PAGES)


def link_pages(report_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the nav line into every page present (none when fewer than two pages); returns the pages."""
    root = Path(report_dir)
    present = [(name, rel) for name, rel in pages() if (root / rel).is_file()]
    if len(present) < 2:
        return []
    for _, rel in present:
        path = root / rel
        text = _NAV.sub("", path.read_text(encoding="utf-8"))
        anchor = "<body>" if "<body>" in text else "</title>"
        at = text.find(anchor)
        at = at + len(anchor) if at >= 0 else 0
        text = text[:at] + "\n" + nav_line(present, rel) + text[at:].lstrip("\n")
        write_bytes_atomic(path, text.encode("utf-8"))
    return [root / rel for _, rel in present]
