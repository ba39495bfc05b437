"""bench/bench_table.py: the rows the benches record become the Benchmarks table of docs/performance.md, in the
order they ran, and a rows file that is not rows is refused with its line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_table", ROOT / "bench" / "bench_table.py")
bench_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_table)


def test_rows_are_recorded_only_when_make_bench_names_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = tmp_path / "rows.jsonl"
    monkeypatch.delenv(bench_table.ROWS_ENV, raising=False)
    bench_table.add_row("`bench/a.py`", "unrecorded", "anchor", "1×")
    assert not rows.exists()
    monkeypatch.setenv(bench_table.ROWS_ENV, str(rows))
    bench_table.add_row("`bench/a.py`", "first | with a pipe", "anchor a", "2.0×")
    bench_table.add_row("`bench/b.py`", "second\nover two lines", "anchor b", "0.5×")
    recorded = bench_table.read_rows(rows)
    assert [r["benchmark"] for r in recorded] == ["`bench/a.py`", "`bench/b.py`"]
    lines = bench_table.table(recorded).splitlines()
    assert lines[0] == "| benchmark | what | anchor | ratio |"
    assert len(lines) == 4
    # every body line has exactly the four columns: a pipe inside a cell is escaped, a newline folded
    for line in lines[2:]:
        cells = line.replace("\\|", "").split("|")[1:-1]
        assert len(cells) == 4, line
    assert "first \\| with a pipe" in lines[2] and "second over two lines" in lines[3]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "not JSON"),
        ('{"benchmark": "b", "what": "w", "anchor": "a"}', "exactly the string fields"),
        ('{"benchmark": "b", "what": "w", "anchor": "a", "ratio": 2}', "exactly the string fields"),
    ],
)
def test_a_line_that_is_not_a_row_is_refused_with_its_number(tmp_path: Path, line: str, said: str) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"benchmark": "b", "what": "w", "anchor": "a", "ratio": "1×"}\n' + line + "\n")
    with pytest.raises(ValueError, match=rf"rows.jsonl:2: .*{said}"):
        bench_table.read_rows(rows)


def test_a_bench_run_again_replaces_only_its_own_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `make bench BENCHES=…` runs them: one rows file per bench, the table in the order of the files' names."""
    folder = tmp_path / "rows"
    folder.mkdir()

    def run(bench: str, figure: str) -> None:
        (folder / f"{bench}.jsonl").unlink(missing_ok=True)
        monkeypatch.setenv(bench_table.ROWS_ENV, str(folder / f"{bench}.jsonl"))
        bench_table.add_row(f"`bench/{bench}.py`", figure, "anchor", "1×")

    run("sphere", "first sphere run")
    run("coverage", "coverage run")
    run("sphere", "second sphere run")
    assert [r["what"] for r in bench_table.read_folder(folder)] == ["coverage run", "second sphere run"]


def test_the_script_refuses_an_empty_rows_folder(tmp_path: Path) -> None:
    rows = tmp_path / "rows"
    rows.mkdir()
    (rows / "sphere.jsonl").write_text("")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_table.py"), str(rows), str(tmp_path / "t.md")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "no rows" in done.stderr
    assert not (tmp_path / "t.md").exists()


def test_the_performance_page_holds_a_generated_table_in_its_span() -> None:
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    start, end = text.index("<!-- figures:benchmarks -->"), text.index("<!-- /figures:benchmarks -->")
    lines = text[start:end].splitlines()[1:]
    assert lines[0] == "| benchmark | what | anchor | ratio |"
    assert all(line.startswith("| `bench/") for line in lines[2:]), lines[2:]


def test_a_table_of_other_columns_is_written_alike() -> None:
    """bench/render_quality.py's table goes through the same writer, with its own columns, in their order."""
    text = bench_table.table([{"kind": "coco", "chosen": "2 spp | fast"}], ("kind", "chosen"))
    assert text == "| kind | chosen |\n|---|---|\n| coco | 2 spp \\| fast |\n"
