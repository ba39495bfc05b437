"""The low findings of issue 48's hostile audit: review and label files whose headers an import would misread, control
characters in a released edit, model names sharing a results folder, an export's stale temporaries, `--plan --out`
on a FIFO, echoed long names, sub-second timeouts, a bad Parquet file without its name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchfoundry.benchmarks.syndor import labels
from benchfoundry.cli import review as review_cli
from benchfoundry.pipeline import review

ITEMS = [
    {"id": "a1", "answer": "A", "options": ["A", "B"], "form": "closed"},
    {"id": "o1", "answer": "a red car", "options": [], "form": "open"},
]


@pytest.mark.parametrize(
    "header, column",
    [
        ("id,decision,Decision ,edited_answer", "Decision "),
        ("id,Decision,edited_answer", "Decision"),
        ("id, decision,edited_answer", " decision"),
        ("id,decision,edited_answer,Edited_Answer", "Edited_Answer"),
        ("id,decision,edited_answer,notes", "notes"),
    ],
)
def test_a_review_csv_column_the_import_would_misread_is_refused_by_name(
    tmp_path: Path, header: str, column: str
) -> None:
    path = tmp_path / "review.csv"
    cells = {"decision": "", "Decision ": "reject", "Decision": "reject", " decision": "reject"}
    path.write_text(header + "\n" + ",".join(cells.get(c, "a1" if c == "id" else "") for c in header.split(",")) + "\n")
    with pytest.raises(ValueError) as refused:
        review.read_decisions(path, ITEMS)
    assert str(path) in str(refused.value) and repr(column) in str(refused.value)


def test_a_review_csv_without_a_decision_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text("id,edited_answer\na1,\n")
    with pytest.raises(ValueError, match="no column 'decision'"):
        review.read_decisions(path, ITEMS)


def test_the_exported_review_csv_and_a_trailing_empty_column_still_import(tmp_path: Path) -> None:
    review.export_for_review([{**item, "question": "q", "image": "i.png", "task": "t"} for item in ITEMS], tmp_path)
    filled = (
        (tmp_path / "review.csv")
        .read_text()
        .replace("a1,t,closed,q,A | B,A,,i.png,,", "a1,t,closed,q,A | B,A,,i.png,reject,")
    )
    (tmp_path / "review.csv").write_text(filled)
    assert review.read_decisions(tmp_path / "review.csv", ITEMS)[0] == {"a1": {"decision": "reject", "answer": "A"}}
    (tmp_path / "short.csv").write_text("id,decision,\na1,accept,\n")
    assert review.read_decisions(tmp_path / "short.csv", ITEMS)[0] == {"a1": {"decision": "accept", "answer": "A"}}


@pytest.mark.parametrize("header", ["image,label,Label ", "image,Label", "image,label,comment"])
def test_a_label_csv_column_the_import_would_misread_is_refused_by_name(tmp_path: Path, header: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(header + "\nx.png,yes,no\n")
    with pytest.raises(ValueError) as refused:
        labels._csv_rows(path)
    assert str(path) in str(refused.value) and repr(header.split(",")[-1]) in str(refused.value)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x08"])
@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_a_control_character_in_an_edit_is_refused_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str, suffix: str
) -> None:
    path = tmp_path / f"review{suffix}"
    edit = f"a red{char}car"
    if suffix == ".csv":
        path.write_text(f"id,decision,edited_answer\no1,edit,{edit}\na1,accept,\n")
    else:
        results = [
            {"from_name": "decision", "value": {"choices": ["edit"]}},
            {"from_name": "edited_answer", "value": {"text": [edit]}},
        ]
        accept = [{"from_name": "decision", "value": {"choices": ["accept"]}}]
        tasks = [{"data": {"id": "o1"}, "annotations": [{"result": results}]}]
        path.write_text(json.dumps([*tasks, {"data": {"id": "a1"}, "annotations": [{"result": accept}]}]))
    assert review_cli.import_review_file(str(path), ITEMS, tmp_path) == (1, 1)
    err = capsys.readouterr().err
    assert f"{path}:" in err and "edited_answer" in err and f"U+{ord(char):04X}" in err
    assert "o1" not in review.load_decisions(tmp_path)


def test_tabs_and_line_breaks_in_an_edit_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text('id,decision,edited_answer\no1,edit,"a red\ncar\tparked"\n')
    assert review.read_decisions(path, ITEMS)[0]["o1"]["answer"] == "a red\ncar\tparked"
