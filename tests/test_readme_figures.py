"""The documentation's marked smoke figures (docs/exports.md), written from a smoke build's build.json by
docs/readme_figures.py, agree with what the smoke preset's plans count."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from benchfoundry.benchmarks.odi.build_plan import plan_config as odi_plan
from benchfoundry.benchmarks.syndor.build_plan import plan_config as syndor_plan
from benchfoundry.configs.loader import load_config

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "docs" / "readme_figures.py")
figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures)


def readme_counts() -> dict[str, int]:
    text = figures.marked(figures.page_of("smoke").read_text(encoding="utf-8"))
    return {name: int(n.replace(",", "")) for n, name in re.findall(r"([\d,]+) (ViewSpatial|ODI|SynD)", text)}


def test_readme_figures_are_the_smoke_plans() -> None:
    config = load_config("smoke")
    syndor = syndor_plan(config)
    budgets = config.viewspatial.release.budgets
    counts = readme_counts()
    assert counts["SynD"] == syndor["items"] + syndor["empty_scene_items"]
    assert counts["ODI"] == 2 * odi_plan(config)["questions"]  # each question closed and open
    # ViewSpatial's budgets are caps: a scan gives one Cam-Rel. Dir. question a selected frame, so fewer may come.
    caps = sum(getattr(budgets, t) for t in ("cam_rel", "cam_obj", "per_obj", "per_rel", "scene_sim"))
    assert 0 < counts["ViewSpatial"] <= caps


def test_a_builds_record_rewrites_the_marked_span_only(tmp_path: Path) -> None:
    record = {"benchmarks": {"syndor": {"items": 1234}, "odi": {"items": 56}, "viewspatial": {"items": 7}}}
    (tmp_path / "build.json").write_text(json.dumps(record))
    text = "before <!-- figures:smoke -->old<!-- /figures:smoke --> after"
    new = figures.rewrite(text, figures.built(tmp_path))
    assert figures.marked(new) == "7 ViewSpatial items, 56 ODI items, 1,234 SynD QA items"
    assert new.startswith("before <!-- figures:smoke -->") and new.endswith("<!-- /figures:smoke --> after")
    with pytest.raises(ValueError, match="markers"):
        figures.rewrite("no markers", figures.built(tmp_path))


def test_a_named_span_takes_a_files_text_and_the_other_spans_stay() -> None:
    text = "a <!-- figures:smoke -->1 ODI items<!-- /figures:smoke --> b <!-- figures:t -->old<!-- /figures:t --> c"
    new = figures.replace_marked(text, "t", "| x |\n")
    assert figures.marked(new, "t") == "| x |\n"
    assert figures.marked(new) == "1 ODI items"
    assert new.replace("| x |\n", "old") == text
    with pytest.raises(ValueError, match="figures:u"):
        figures.replace_marked(text, "u", "y")


def test_the_docs_have_the_spans_make_bench_and_scale_write() -> None:
    for name in ("render-quality", "benchmarks", "cost-model"):
        figures.marked(figures.page_of(name).read_text(encoding="utf-8"), name)
    with pytest.raises(ValueError, match="figures:no-such-span"):
        figures.page_of("no-such-span")
