"""The build report's contact sheet (pipeline/contact_sheet.py) on a tiny built folder: hand-made released files of
the three benchmarks, written through the front page as a build writes it."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from test_eval import odi_build, viewspatial_build
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.pipeline.benchmarks import registered
from benchfoundry.pipeline.contact_sheet import PAGE, PER_BENCHMARK, shares, spread
from benchfoundry.pipeline.front_page import write_front_page
from benchfoundry.pipeline.report_nav import link_pages

HOSTILE = '<script>alert("x")</script> & more'


class _Sheet(HTMLParser):
    """The sheet's links, its scripts, and per benchmark section its (image src, caption) pairs."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.shown: dict[str, list[tuple[str, str]]] = {}
        self.scripts = 0
        self._section: str | None = None
        self._caption: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.links += [found[k] for k in ("href", "src") if found.get(k)]
        self.scripts += tag == "script"
        if tag == "section":
            self._section = found["id"]
        if tag == "img" and self._section is not None:
            self.shown.setdefault(self._section, []).append((found["src"], ""))
        if tag == "figcaption":
            self._caption = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "figcaption" and self._caption is not None and self._section is not None:
            src, _ = self.shown[self._section][-1]
            self.shown[self._section][-1] = (src, "".join(self._caption))
            self._caption = None
        if tag == "section":
            self._section = None

    def handle_data(self, data: str) -> None:
        if self._caption is not None:
            self._caption.append(data)


def tiny_build(out: Path, statuses: dict[str, str]) -> dict:
    """Released files of the three benchmarks under `out` (an ODI question with markup in it); the build record."""
    qa_stage.export_qa(make_labelled_build(out), str(out), QaConfig())
    odi_build(out)
    released = out / "odi" / "ODI-Bench.json"
    items = json.loads(released.read_text())
    items[0]["question"] = HOSTILE
    released.write_text(json.dumps(items))
    viewspatial_build(out, n=24)
    return {"status": "built", "benchmarks": {name: {"status": s} for name, s in statuses.items()}}


def sheet(out: Path) -> _Sheet:
    parser = _Sheet()
    parser.feed((out / "report" / PAGE).read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("contact")
    record = tiny_build(out, {d.name: "built" for d in registered()})
    write_front_page(out, record)
    link_pages(out / "report")
    return out


def test_the_sheet_shows_images_of_every_benchmark_that_ran_and_every_link_is_a_file_of_the_build(built: Path) -> None:
    page = sheet(built)
    assert {d.name for d in registered()} <= set(page.shown)
    for name, shown in page.shown.items():
        assert shown and len(shown) <= PER_BENCHMARK, name
        folder = (built / name).resolve()
        assert all((built / "report" / unquote(src)).resolve().is_relative_to(folder) for src, _ in shown), name
        assert len({src for src, _ in shown}) == len(shown), f"{name}: an image twice"
    assert page.links
    for link in page.links:
        assert "://" not in link and not link.startswith(("/", "#")), link
        assert (built / "report" / unquote(link)).is_file(), f"broken link {link}"


def test_each_category_shows_a_few_of_its_images_and_the_index_links_the_sheet(built: Path) -> None:
    page = sheet(built)
    captions = [caption for _, caption in page.shown["viewspatial"]]  # 24 images: 12 a category
    assert len(set(captions)) == 2 and all(captions.count(c) == PER_BENCHMARK // 2 for c in set(captions))
    assert len(page.shown["syndor"]) == PER_BENCHMARK  # one category, many frames
    assert len(page.shown["odi"]) == 1  # one panorama under several categories
    assert f'<a href="{PAGE}">' in (built / "report" / "index.html").read_text(encoding="utf-8")


def test_released_text_is_escaped_and_the_same_build_writes_the_same_bytes(built: Path, tmp_path: Path) -> None:
    text = (built / "report" / PAGE).read_text(encoding="utf-8")
    assert sheet(built).scripts == 0 and "&lt;script&gt;" in text
    again = tmp_path / "again"
    record = tiny_build(again, {d.name: "built" for d in registered()})
    write_front_page(again, record)
    link_pages(again / "report")
    assert (again / "report" / PAGE).read_bytes() == (built / "report" / PAGE).read_bytes()


def test_a_benchmark_not_built_is_left_off(tmp_path: Path) -> None:
    statuses = {d.name: "built" for d in registered()} | {"odi": "not built"}
    write_front_page(tmp_path, tiny_build(tmp_path, statuses))
    assert "odi" not in sheet(tmp_path).shown and "viewspatial" in sheet(tmp_path).shown


def test_spread_keeps_the_first_and_last_and_places_are_dealt_in_turn() -> None:
    assert spread(list(range(10)), 4) == [0, 3, 6, 9]
    assert spread([1, 2], 4) == [1, 2] and spread(list(range(5)), 1) == [0] and spread([1], 0) == []
    assert shares([10, 1, 10], 12) == [6, 1, 5] and shares([2, 3], 12) == [2, 3] and shares([], 12) == []
