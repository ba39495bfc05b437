"""The evaluation page: every published table complete and in order, our rows in the same tables, marked as ours
with the build they ran on."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchfoundry.benchmarks.odi.release.published import ODI_MAIN, ODI_TABLE4, ODI_TABLE5
from benchfoundry.benchmarks.syndor.release.published import SYNDOR_ABLATION, SYNDOR_TABLE1, SYNDOR_TABLE2
from benchfoundry.benchmarks.viewspatial.release.published import (
    VIEWSPATIAL_TABLE2,
    VIEWSPATIAL_TABLE3,
    VIEWSPATIAL_TABLE4,
    VIEWSPATIAL_TASKS,
)
from benchfoundry.evaluation.report_page import write_eval_report
from benchfoundry.evaluation.tables import Table


class Tables(HTMLParser):
    """title (the h3 before a table) → [(row class, [cell texts])], the header row first (class "head")."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[str, list[str]]]] = {}
        self._title = ""
        self._in: str | None = None
        self._row: list[str] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "h3":
            self._in, self._text = "h3", ""
        elif tag == "table":
            self.tables[self._title] = []
        elif tag == "tr":
            self._row, self._kind = [], dict(attrs).get("class", "head")
        elif tag in ("td", "th"):
            self._in, self._text = "cell", ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "h3":
            self._title, self._in = self._text, None
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(self._text)
            self._in = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._title].append((self._kind, self._row))
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text += data


def page_tables(path: Path) -> dict[str, list[tuple[str, list[str]]]]:
    parser = Tables()
    parser.feed(path.read_text())
    return parser.tables


def fmt(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, tuple):
        return " / ".join(fmt(v) for v in value)
    return f"{value:.2f}" if isinstance(value, float) else str(value)


ALL_TABLES = [
    SYNDOR_TABLE1,
    *SYNDOR_TABLE2.values(),
    SYNDOR_ABLATION,
    VIEWSPATIAL_TABLE2,
    VIEWSPATIAL_TABLE3,
    VIEWSPATIAL_TABLE4,
    ODI_MAIN,
    ODI_TABLE4,
    ODI_TABLE5,
]


def write(root: Path, model: str, name: str, data: dict) -> None:
    (root / model).mkdir(parents=True, exist_ok=True)
    build = {"out": "/x", "name": "smoke", "config_hash": "0123456789abcdef"}
    (root / model / f"{name}.json").write_text(json.dumps({"build": build, "protocol": "authors", **data}))


def test_every_published_row_in_order_and_ours_in_the_same_tables(tmp_path: Path) -> None:
    root = tmp_path / "report" / "eval"
    # SynD: presence accuracy by (distance, split); the day split at every distance, nv at 5.4 m only.
    accuracy = {("5.4", "day"): 0.9, ("5.4", "night"): 0.5, ("5.4", "nv"): 0.7, ("10.8", "day"): 1.0}
    accuracy |= {("23.0", "day"): 0.8}
    groups = [
        {"distance": float(d), "split": s, "accuracy": a, "macro_f1": a / 2, "n": 10} for (d, s), a in accuracy.items()
    ]
    write(root, "m1", "syndor", {"model": "m1", "bench": "syndor", "presence": {"groups": groups}})
    per_task = dict(zip(VIEWSPATIAL_TASKS, (0.1, 0.2, 0.3, 0.4, 0.5)))
    write(root, "m1", "viewspatial", {"model": "m1", "bench": "viewspatial", "per_task": per_task, "overall": 0.25})
    odi = {"model": "m1", "bench": "odi", "overall": 0.5, "per_task": {"AVO": 0.25, "SS": 0.75, "EVO": 0.1}}
    write(root, "m1", "odi", {**odi, "open": {"overall": 0.4}})
    write(root, "m1", "odi-blind", {**odi, "blind": True, "overall": 0.3})
    write(root, "m1", "odi-omnicot-full", {**odi, "omni_cot": "full", "overall": 0.6, "per_task": {"EVO": 0.35}})
    tables = page_tables(write_eval_report(tmp_path, root))

    counts = {SYNDOR_TABLE1.title: 20, VIEWSPATIAL_TABLE2.title: 5, ODI_MAIN.title: 7}
    counts |= {ODI_TABLE4.title: 5, SYNDOR_TABLE2["nv"].title: 3}
    for table in ALL_TABLES:
        rows = tables[table.title]
        assert rows[0] == ("head", [*table.columns, "Source"])
        pub = [cells for kind, cells in rows if kind == "pub"]
        assert pub == [[*(fmt(v) for v in row), "published (original data)"] for row in table.rows]
        assert len(pub) == counts.get(table.title, len(pub))
    # a few cells as the seeds print them
    assert ["gemma-3n-E2B-it", "2B (SVLM)", "87.10 / 75.78", "86.29 / 65.27", "88.87 / 72.12"] in [
        c[:5] for _, c in tables[SYNDOR_TABLE1.title]
    ]
    assert any(c[0] == "Doubao-Seed-2.0" and c[-2] == "53.52" for _, c in tables[VIEWSPATIAL_TABLE2.title])
    assert any(c[:2] == ["Random Choice", "26.93"] for _, c in tables[ODI_MAIN.title])

    def ours(table: Table) -> list[list[str]]:
        return [cells for kind, cells in tables[table.title] if kind == "ours"]

    source = "ours: build smoke 0123456789ab, authors protocol"
    # Table 1: the mean of the splits' accuracy (and F1) at each distance.
    assert ours(SYNDOR_TABLE1) == [["m1", "—", "70.00 / 35.00", "100.00 / 50.00", "80.00 / 40.00", source]]
    # Global, the mean of the three distances, only where all three were evaluated
    assert ours(SYNDOR_TABLE2["day"]) == [["m1", "90.00", "100.00", "80.00", "90.00", "", source]]
    assert ours(SYNDOR_TABLE2["nv"]) == [["m1", "70.00", "—", "—", "—", "", source]]
    assert ours(VIEWSPATIAL_TABLE2) == [["m1", "10.00", "20.00", "30.00", "40.00", "50.00", "25.00", source]]
    assert ours(ODI_MAIN) == [
        ["m1", "50.00", "40.00", "25.00 / 75.00", source],
        ["Blind m1", "30.00", "—", "25.00 / 75.00", source],
    ]
    assert ours(ODI_TABLE4) == [["m1", "50.00", "—", "60.00", "+25.00", source]]
    assert ours(VIEWSPATIAL_TABLE3) == []


@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda t: t.title.split(":")[0])
def test_every_published_row_has_a_cell_per_column(table: Table) -> None:
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_the_page_shows_action_z_across_the_models_evaluated(tmp_path: Path) -> None:
    root = tmp_path / "report" / "eval"
    e5 = {"m1": [0.9, 0.7], "m2": [0.5, 0.5]}
    for model, values in e5.items():
        action = {
            "groups": [{"distance": 5.4, "split": "all", "e5score": sum(values) / 2}],
            "items": [{"radius": 5.4, "split": "day", "e5": v} for v in values],
        }
        write(root, model, "syndor", {"model": model, "bench": "syndor", "action": action})
    page = write_eval_report(tmp_path, root).read_text()
    pooled = [0.9, 0.7, 0.5, 0.5]
    mean = sum(pooled) / 4
    std = (sum((v - mean) ** 2 for v in pooled) / 4) ** 0.5
    assert (
        f"<td>0.800 / {(0.8 - mean) / std:+.2f}</td>" in page and f"<td>0.500 / {(0.5 - mean) / std:+.2f}</td>" in page
    )
