"""ODI-Bench human review: export, import with bad rows by line, conflicts, release."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from test_odi_questions import candidates

from benchfoundry.benchmarks.odi.stages.questions.question_builder import items_of
from benchfoundry.pipeline import review as ver


@pytest.fixture
def items() -> list[dict]:
    return [i for c in candidates() for i in items_of(c, "room", "panoramas/room.png", 3, "labels")]


def fill(csv_path: Path, decisions: dict[str, tuple[str, str]], extra: list[dict] = ()) -> Path:
    rows = list(csv.DictReader(csv_path.open()))
    for row in rows:
        row["decision"], row["edited_answer"] = decisions.get(row["id"], ("", ""))
    out = csv_path.with_name("filled.csv")
    with out.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=ver.CSV_FIELDS)
        writer.writeheader()
        writer.writerows([*rows, *extra])
    return out


def test_a_review_round_trip_through_the_csv(tmp_path: Path, items: list[dict]) -> None:
    paths = ver.export_for_review(items, tmp_path)
    closed = [i for i in items if i["form"] == "closed" and i["task"] == "EVO"][:2]
    open_ = next(i for i in items if i["form"] == "open")
    other = next(o for o in closed[1]["options"] if o != closed[1]["answer"])
    filled = fill(
        Path(paths["csv"]),
        {closed[0]["id"]: ("accept", ""), closed[1]["id"]: ("edit", other), open_["id"]: ("reject", "")},
        [{"id": "nope", "decision": "accept"}, {"id": closed[0]["id"], "decision": "maybe"}],
    )
    decisions, bad = ver.read_decisions(filled, items)
    assert decisions == {
        closed[0]["id"]: {"decision": "accept", "answer": closed[0]["answer"]},
        closed[1]["id"]: {"decision": "edit", "answer": other},
        open_["id"]: {"decision": "reject", "answer": open_["answer"]},
    }
    assert [b["line"] for b in bad] == [len(items) + 2, len(items) + 3]
    assert "unknown item 'nope'" in bad[0]["reason"] and "'maybe' is not accept" in bad[1]["reason"]
    released = ver.release(items, decisions, release_unreviewed=False)
    assert [(r["id"], r["answer"], r["verified"]) for r in released] == [
        (closed[0]["id"], closed[0]["answer"], True),
        (closed[1]["id"], other, True),
    ]
    everything = ver.release(items, decisions, release_unreviewed=True)
    assert len(everything) == len(items) - 1 and sum(r["verified"] for r in everything) == 2


def test_an_edit_outside_the_options_and_conflicting_decisions_are_refused(tmp_path: Path, items: list[dict]) -> None:
    closed = next(i for i in items if i["form"] == "closed")
    rows = [
        {"id": closed["id"], "decision": "edit", "edited_answer": "purple elephant"},
        {"id": items[-1]["id"], "decision": "accept"},
        {"id": items[-1]["id"], "decision": "reject"},
    ]
    path = tmp_path / "r.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=ver.CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    decisions, bad = ver.read_decisions(path, items)
    assert decisions == {}
    assert [b["line"] for b in bad] == [2, 3, 4] and "not one of the options" in bad[0]["reason"]
    assert all("conflicting" in b["reason"] for b in bad[1:])


def test_a_label_studio_export_and_accumulated_imports(tmp_path: Path, items: list[dict]) -> None:
    ver.export_for_review(items, tmp_path, image_url_prefix="/data/local-files/?d=")
    tasks = json.loads((tmp_path / "label_studio_tasks.json").read_text())
    assert tasks[0]["data"]["image"] == "/data/local-files/?d=panoramas/room.png"
    done = [
        {**tasks[0], "annotations": [{"result": [{"from_name": "decision", "value": {"choices": ["reject"]}}]}]},
        {**tasks[1], "annotations": [{"result": [{"from_name": "decision", "value": {"choices": ["accept"]}}]}]},
        {
            "data": {"id": "ghost"},
            "annotations": [{"result": [{"from_name": "decision", "value": {"choices": ["accept"]}}]}],
        },
    ]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(done))
    decisions, bad = ver.read_decisions(export, items)
    assert set(decisions) == {items[0]["id"], items[1]["id"]} and [b["line"] for b in bad] == [3]
    ver.store_decisions(tmp_path, decisions)
    ver.store_decisions(tmp_path, {items[0]["id"]: {"decision": "accept", "answer": items[0]["answer"]}})
    merged = ver.load_decisions(tmp_path)
    assert merged[items[0]["id"]]["decision"] == "accept" and merged[items[1]["id"]]["decision"] == "accept"


def test_an_unreadable_review_file_is_an_error_naming_it(tmp_path: Path, items: list[dict]) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=f"{bad}: cannot read the review file"):
        ver.read_decisions(bad, items)
