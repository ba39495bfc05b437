"""The build report's one look: the stylesheet `OUT/report/style.css` and `write_page`, through which every page
of the report is written (the document, its title, the stylesheet linked relatively from the page's folder)."""

from __future__ import annotations

import html
import os
from pathlib import Path

from benchfoundry.core.atomic_files import write_bytes_atomic

STYLESHEET = "style.css"
CSS = """\
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;background:#fff;line-height:1.4;
  margin:0 auto;padding:1em 2em 3em;max-width:1200px}
nav#pages{padding:.6em 0;margin-bottom:1em;border-bottom:1px solid #ccc}
nav#pages a{color:#2a5db0;text-decoration:none}
nav#pages a:hover{text-decoration:underline}
h1{font-size:1.6em;margin:.6em 0}
h2{font-size:1.3em;margin:1.4em 0 .5em;border-bottom:1px solid #eee}
h3{font-size:1.05em;margin:1em 0 .4em}
a{color:#2a5db0}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #bbb;padding:2px 8px;text-align:right;vertical-align:top}
th{background:#eee}
td:first-child,th:first-child,td.l,th.l,table.time td:nth-child(2),table.time th:nth-child(2){text-align:left}
caption{text-align:left;color:#555}
tr.pub td{color:#555}
tr.ours td{background:#eef6ee;font-weight:bold}
img{max-width:100%}
figure{display:inline-block;margin:4px;vertical-align:top}
figcaption{font-size:.85em;color:#555;max-width:260px}
.grid img{margin:2px}
.warn{color:#a40}
.note{color:#555}
.example{margin:8px 0}
.status{font-weight:bold}
.status-built,.status-finished{color:#1a7f37}
.status-failed,.status-interrupted,.status-stopped{color:#b42318}
.status-not-built{color:#777}
section.benchmark{border:1px solid #ddd;border-radius:6px;padding:0 1em 1em;margin:1.5em 0}
.shots figure img{height:140px;width:auto}
"""


def write_stylesheet(report_dir: str | os.PathLike[str]) -> Path:
    """Write the report's stylesheet into the report folder; returns its path."""
    return write_bytes_atomic(Path(report_dir) / STYLESHEET, CSS.encode("utf-8"))


def write_page(report_dir: str | os.PathLike[str], page: str, title: str, body: str) -> Path:
    """Write `page` (relative to the report folder) as one document titled `title` around `body` (HTML whose
    values are already escaped), linking the stylesheet, which it writes too; returns the page's path."""
    here = os.path.dirname(page) or "."
    href = html.escape(os.path.relpath(STYLESHEET, here))
    text = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<link rel="stylesheet" href="{href}"></head><body>\n{body}\n</body></html>\n'
    )
    write_stylesheet(report_dir)
    return write_bytes_atomic(Path(report_dir) / page, text.encode("utf-8"))
