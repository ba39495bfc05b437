"""The build report as a reader meets it: every page under report/ opened in headless Chromium (a screenshot that
is not blank, nothing logged as an error: no console error, no exception, no file that failed to load), every
link of every page leading to a file, one stylesheet for all, and the front page's counts those of build.json.

Two builds: the shared tiny SynDORBench build (tests/scaleout_builds.py, rendered once for the test run and only
read here), and a build of the three benchmarks made by the build flow from hand-made files (each benchmark's
flow replaced by one that writes a few tiny images and its page; one benchmark fails), then evaluated by the random
baseline.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pytest
from headless_chromium import Chromium, find_chromium
from PIL import Image
from prefect import flow
from system_programs import skip_reason
from test_eval import odi_build, short_task, viewspatial_build
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.odi.release.report_page import write_report_page as write_odi_page
from benchfoundry.benchmarks.odi.stages.sphere_coords import FACES
from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release.report_page import write_report
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.benchmarks.viewspatial.release.report_page import write_report_page as write_viewspatial_page
from benchfoundry.cli.main import main
from benchfoundry.configs.loader import load_config
from benchfoundry.core.buildinfo import benchmark_outcome, problem
from benchfoundry.flows.build import build
from benchfoundry.pipeline.benchmarks import registered
from benchfoundry.pipeline.front_page import SHOWN_IMAGES

#: The screenshots' size, and the least standard deviation of their grey levels that is not a blank page.
WIDTH, HEIGHT = 1200, 900
BLANK_STD = 2.0


@flow(name="handmade-syndor")
def _syndor(config, out):  # type: ignore[no-untyped-def]
    manifest = make_labelled_build(Path(out))
    summary = qa_stage.export_qa(manifest, out, QaConfig())
    write_report(out, QaConfig(), seed=0)
    stages = {"render": {"frames": len(pd.read_parquet(manifest))}, "qa": {"rows": summary["rows"]}}
    return benchmark_outcome(
        "built", "hand-made frames", stages=stages, problems=summary["problems"], items=summary["items"]
    )


@flow(name="handmade-odi")
def _odi(config, out):  # type: ignore[no-untyped-def]
    """Released items and the faces of one panorama, then a failed QA stage."""
    root = Path(out)
    odi_build(root)
    faces = root / "odi" / "faces" / "pano.jpg"
    faces.mkdir(parents=True)
    for k, face in enumerate(FACES):
        Image.new("RGB", (48, 48), (40 * k, 120, 200 - 30 * k)).save(faces / f"{face}.jpg")
    empty = pd.DataFrame(columns=["panorama", "face", "class"])
    write_odi_page(root, empty, {"pano.jpg": {"front": 1}}, seed=0, thumb_px=64)
    failed = problem("qa", "qa", "hand-made failure", kind="failed")
    return benchmark_outcome("failed", "the QA stage failed", problems=[failed], qa={"panoramas": 1})


@flow(name="handmade-viewspatial")
def _viewspatial(config, out):  # type: ignore[no-untyped-def]
    items = viewspatial_build(Path(out), n=8)
    write_viewspatial_page(out, seed=0)
    released = Counter(short_task(item) for item in items)
    return benchmark_outcome("built", "hand-made items", items=len(items), released=dict(released), coco={})


@pytest.fixture(scope="module")
def handmade(prefect_server: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handmade")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("benchfoundry.benchmarks.syndor.flow.syndor_flow", _syndor)
        patch.setattr("benchfoundry.benchmarks.odi.flow.odi_flow", _odi)
        patch.setattr("benchfoundry.benchmarks.viewspatial.flow.viewspatial_flow", _viewspatial)
        record = build(load_config(None), str(out))
    assert record["status"] == "failed" and record["benchmarks"]["odi"]["status"] == "failed"
    assert main(["eval", "viewspatial", "--build", str(out), "--model", "random"]) == 0
    return out


@pytest.fixture(
    params=[
        pytest.param("tiny_reference", id="tiny-syndor-build", marks=pytest.mark.blender),
        pytest.param("handmade", id="handmade-build"),
    ]
)
def built(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue(request.param)


class _Page(HTMLParser):
    """A page's links (href, src), its stylesheets and inline styles, its count cells and their text, and the
    images of each benchmark's section of the front page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.stylesheets: list[str] = []
        self.inline_styles = 0
        self.cells: list[tuple[dict[str, str], str]] = []
        self.images: dict[str, list[str]] = {}
        self._cell: dict[str, str] | None = None
        self._section: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.links += [found[k] for k in ("href", "src") if found.get(k)]
        self.inline_styles += tag == "style" or "style" in found
        if tag == "link" and found.get("rel") == "stylesheet":
            self.stylesheets.append(found["href"])
        if tag == "section":
            self._section = found.get("id")
        if tag == "img" and self._section is not None:
            self.images.setdefault(self._section, []).append(found["src"])
        if tag == "td" and "data-key" in found:
            self._cell, self._text = found, []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.cells.append((self._cell, "".join(self._text).strip()))
            self._cell = None
        if tag == "section":
            self._section = None

    def handle_data(self, data: str) -> None:
        self._text.append(data)


def parsed(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def pages(build_root: Path) -> list[Path]:
    return sorted((build_root / "report").rglob("*.html"))


def expected_count(record: dict[str, Any], benchmark: str, key: str) -> str:
    """What build.json says for a count cell: the problems listed under the benchmark's name, else the number
    at the key path (a list or mapping by its length), "–" where there is none."""
    if key == "problems":
        return str(sum(1 for p in record["problems"] if p["benchmark"] == benchmark))
    value: Any = record["benchmarks"][benchmark]
    for part in key.split("/"):
        if not isinstance(value, dict) or part not in value:
            return "–"
        value = value[part]
    value = len(value) if isinstance(value, (list, dict)) else value
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "–"


def test_every_page_links_only_files_of_the_build_and_the_one_stylesheet(built: Path) -> None:
    report = built / "report"
    found = pages(built)
    assert report / "index.html" in found and report / "build.html" in found
    for page in found:
        seen = parsed(page)
        assert seen.links, page
        for link in seen.links:
            assert "://" not in link and not link.startswith(("/", "#")), f"{page}: {link} is not a relative link"
            assert (page.parent / unquote(link)).resolve().is_file(), f"{page}: broken link {link}"
            assert (page.parent / unquote(link)).resolve().is_relative_to(built.resolve()), f"{page}: {link}"
        assert [(page.parent / s).resolve() for s in seen.stylesheets] == [(report / "style.css").resolve()], page
        assert seen.inline_styles == 0, f"{page}: an inline style"
    nav = {(page.parent / link).resolve() for page in found for link in parsed(page).links if link.endswith(".html")}
    assert nav == {p.resolve() for p in found}  # every page is reached from the others


def test_the_front_page_counts_are_build_json_s_and_it_shows_each_benchmarks_images(built: Path) -> None:
    record = json.loads((built / "build.json").read_text())
    front = parsed(built / "report" / "index.html")
    shown = {(cell["data-benchmark"], cell["data-key"]): text for cell, text in front.cells}
    for descriptor in registered():
        keys = {"items", "problems", *(key for _, key in descriptor.front_counts)}
        assert {k for b, k in shown if b == descriptor.name} == keys, descriptor.name
    assert len(shown) == len(front.cells)  # each count once
    for (benchmark, key), text in shown.items():
        assert text == expected_count(record, benchmark, key), (benchmark, key)
    assert any(text not in ("0", "–") for text in shown.values())
    page = (built / "report" / "index.html").read_text()
    assert f'status-{record["status"]}">{record["status"]}</span>' in page
    for name, outcome in record["benchmarks"].items():
        status = outcome["status"]
        images = front.images.get(name, [])
        assert f'status-{status.replace(" ", "-")}">{status}</span>' in page, name
        if status == "not built":
            assert not images, name
            continue
        assert 1 <= len(images) <= SHOWN_IMAGES and len(set(images)) == len(images), name
        folder = (built / name).resolve()
        assert all((built / "report" / src).resolve().is_relative_to(folder) for src in images), name


@pytest.mark.system_programs
@pytest.mark.skipif(find_chromium() is None, reason=skip_reason(["chromium"], "the report's pages opened headless"))
def test_every_page_shows_something_in_chromium_and_logs_no_error(built: Path, tmp_path: Path) -> None:
    executable = find_chromium()
    assert executable is not None
    with Chromium(executable, tmp_path / "chromium", WIDTH, HEIGHT) as browser:
        for page in pages(built):
            opened = browser.open(page.as_uri())
            shot = tmp_path / (page.relative_to(built / "report").as_posix().replace("/", "_") + ".png")
            shot.write_bytes(opened.png)
            assert not opened.errors, f"{page}: {opened.errors}"
            with Image.open(io.BytesIO(opened.png)) as image:
                grey = np.asarray(image.convert("L"), dtype=float)
            assert grey.shape == (HEIGHT, WIDTH), page
            assert grey.std() > BLANK_STD and len(np.unique(grey)) > 2, f"{page} looks blank: {shot}"
