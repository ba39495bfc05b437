"""A predictions file read back for `benchfoundry score`: eval's own `predictions.jsonl` (one JSON object a line,
`{id, prediction, error}`; any JSON Lines file naming each item by its released `id` with its `prediction`, `null`
for a failed request), as the rows eval scores. A bad line is reported by number and skipped; an id that is not
the build's, or one given twice, too."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from benchfoundry.evaluation.items import EvalItem

#: A bad line of a predictions file: {line, reason}.
Problem = dict[str, Any]


def prediction_row(item: EvalItem, prediction: Any, error: str | None = None) -> dict[str, Any]:
    """The row eval records for `item`: {id, task, prediction (None: a failed request), error}."""
    return {"id": item.id, "task": item.task, "prediction": prediction, "error": error}


def read_lines(lines: Iterable[str], items: Sequence[EvalItem]) -> tuple[list[dict[str, Any]], list[Problem]]:
    """Eval's rows of the items the lines answer (JSON objects with `id` and `prediction`), and the bad lines."""
    by_id = {item.id: item for item in items}
    rows: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    for number, row in parsed_lines(lines, _parse, problems):
        if row["id"] not in by_id:
            problems.append({"line": number, "reason": f"id {row['id']!r} is not an item of the build"})
        elif row["id"] in rows:
            problems.append({"line": number, "reason": f"second prediction for {row['id']!r}; first kept"})
        else:
            rows[row["id"]] = prediction_row(by_id[row["id"]], row["prediction"], row["error"])
    return list(rows.values()), problems


def parsed_lines(
    lines: Iterable[str], parse: Callable[[str], dict[str, Any] | str], problems: list[Problem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line's number and row as `parse` reads it; a line it refuses (its reason, a string) is added
    to `problems` instead."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        row = parse(text)
        if isinstance(row, str):
            problems.append({"line": number, "reason": row})
        else:
            yield number, row


def json_object(text: str) -> dict[str, Any] | str:
    """One line of a JSON Lines file as its object, or why it is not one."""
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg})"
    except RecursionError:
        return "not JSON (nested too deeply)"
    return row if isinstance(row, dict) else "not a JSON object"


def _parse(text: str) -> dict[str, Any] | str:
    """{id, prediction, error} of one line, or why it is malformed."""
    row = json_object(text)
    if isinstance(row, str):
        return row
    if not isinstance(row.get("id"), (str, int)) or isinstance(row.get("id"), bool):
        return "id missing or not a string"
    if "prediction" not in row or not (row["prediction"] is None or isinstance(row["prediction"], str)):
        return "prediction missing or not a string (null for a failed request)"
    error = row.get("error")
    return {"id": str(row["id"]), "prediction": row["prediction"], "error": None if error is None else str(error)}
