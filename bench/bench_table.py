"""The "Benchmarks" table of docs/performance.md, written from what the benches measured, never typed by hand.

Each bench calls `add_row` with its figures; a row is appended (one JSON line) to the file named by
`BENCH_ROWS` when that variable is set, and nothing is written otherwise. `make bench` gives each bench its own
rows file in one folder (so `make bench BENCHES=bench/sphere.py` replaces that bench's rows and keeps the
others'). Run as a script, it turns the folder's rows files, in the order of their names, into the markdown table
`make bench` puts in the span marked `benchmarks` (docs/readme_figures.py --marked); `table` also
writes bench/render_quality.py's table:

    .venv/bin/python bench/bench_table.py ROWS_FOLDER TABLE.md
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

ROWS_ENV = "BENCH_ROWS"
COLUMNS = ("benchmark", "what", "anchor", "ratio")


def add_row(benchmark: str, what: str, anchor: str, ratio: str) -> None:
    """Record one row of the table in the file `BENCH_ROWS` names (no-op when unset)."""
    path = os.environ.get(ROWS_ENV, "").strip()
    if not path:
        return
    row = dict(zip(COLUMNS, (benchmark, what, anchor, ratio), strict=True))
    with open(path, "a", encoding="utf-8") as rows:
        rows.write(json.dumps(row, ensure_ascii=False) + "\n")


def cell(text: str) -> str:
    """A markdown table cell: one line, its pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def read_rows(path: Path) -> list[dict[str, str]]:
    """The rows recorded in `path`, in the order the benches ran; a ValueError naming the line when one is
    not a row."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from None
        if not isinstance(row, dict) or set(row) != set(COLUMNS) or not all(isinstance(v, str) for v in row.values()):
            raise ValueError(f"{path}:{number}: a row has exactly the string fields {', '.join(COLUMNS)}")
        rows.append(row)
    return rows


def read_folder(folder: Path) -> list[dict[str, str]]:
    """The rows of every `*.jsonl` file in `folder`, file by file in the order of their names."""
    return [row for path in sorted(folder.glob("*.jsonl")) for row in read_rows(path)]


def table(rows: Sequence[Mapping[str, str]], columns: Sequence[str] = COLUMNS) -> str:
    """The markdown table of `rows` (each a cell per column)."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="the folder of the rows files the benches wrote (BENCH_ROWS)")
    parser.add_argument("out", type=Path, help="the markdown table to write")
    args = parser.parse_args(argv)
    rows = read_folder(args.rows)
    if not rows:
        parser.error(f"{args.rows}: no rows (was {ROWS_ENV} set for the benches?)")
    args.out.write_text(table(rows), encoding="utf-8")
    print(f"{args.out}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
