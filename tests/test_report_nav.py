"""The report's pages link each other, from any folder depth, and relinking replaces the line."""

from __future__ import annotations

import re
from pathlib import Path

from benchfoundry.pipeline.report_nav import link_pages


def page(path: Path, body: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("<!doctype html><title>t</title>" + ("<body><h1>x</h1></body>" if body else "<h1>x</h1>"))


def test_every_page_links_every_other_existing_page(tmp_path: Path) -> None:
    page(tmp_path / "index.html", body=True)
    page(tmp_path / "odi.html", body=False)
    page(tmp_path / "eval" / "index.html", body=True)
    assert link_pages(tmp_path) == [tmp_path / "index.html", tmp_path / "odi.html", tmp_path / "eval" / "index.html"]
    link_pages(tmp_path)  # twice: still one line each
    for path in link_pages(tmp_path):
        text = path.read_text()
        assert text.count('<nav id="pages">') == 1 and "viewspatial.html" not in text
        for href in re.findall(r'href="([^"]+)"', text):
            assert (path.parent / href).resolve().is_file() and (path.parent / href).resolve() != path.resolve()
        assert text.index("<nav") < text.index("<h1>")


def test_one_page_alone_is_left_as_it_is(tmp_path: Path) -> None:
    page(tmp_path / "viewspatial.html", body=True)
    before = (tmp_path / "viewspatial.html").read_text()
    assert link_pages(tmp_path) == [] and (tmp_path / "viewspatial.html").read_text() == before
