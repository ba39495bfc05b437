"""ViewSpatial-Bench's evaluation, its descriptor's `evaluation` hook (evaluation/hooks.py). Under the authors'
protocol an item is asked as `evaluate.py` (ZJU-REAL/ViewSpatial-Bench) sends it to the API models: one user
turn, the text `question + choices + "\\nReply only to the corresponding option.\\nAnswer:"` (no separator
between question and choices) before the images; the answer is the first standalone A–D letter, in any case, on
the reply's last line (so a lower-case article "a" there reads as A). The project's protocol is the generic one.
`benchfoundry score viewspatial` reads eval's `predictions.jsonl` or the CSV `evaluate.py` writes
(`result_<model>.csv`: ID, the item's index in the released file, and `Predicted Answer`, the whole reply).
The page shows the paper's tables with our runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.release import published
from benchfoundry.evaluation.choices import letter_of
from benchfoundry.evaluation.hooks import Evaluation
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.tables import Result, baseline_runs, label, pct, render, source

#: The columns of `evaluate.py`'s result CSV that `score` reads.
RESULT_COLUMNS = ("ID", "Predicted Answer", "Correct Answer")

#: `evaluate.py`'s: appended to question + choices.
VIEWSPATIAL_SUFFIX = "\nReply only to the corresponding option.\nAnswer:"

_VIEWSPATIAL_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)


def viewspatial_letter(reply: str) -> str | None:
    """`evaluate.py`'s reading: the first standalone A–D letter, any case, on the reply's last line."""
    found = _VIEWSPATIAL_LETTER.search(reply.split("\n")[-1])
    return found.group(1).upper() if found else None


class ViewSpatialEvaluation(Evaluation):
    """The authors' prompt, request and reading of `evaluate.py`, and the paper's tables."""

    published_scores = published.VIEWSPATIAL_SCORES

    def prompt_text(self, item: EvalItem, protocol: str) -> str:
        """The authors': the question, the released `choices` and the suffix, run together."""
        if protocol == "authors" and item.options:
            return item.question + item.meta.get("choices", "\n".join(item.options)) + VIEWSPATIAL_SUFFIX
        return super().prompt_text(item, protocol)

    def request(self, item: EvalItem, protocol: str, blind: bool = False) -> list[dict[str, Any]]:
        """The authors' send the text before the images (everyone else the images first)."""
        if protocol != "authors" or blind or not item.images:
            return super().request(item, protocol, blind)
        from benchfoundry.pipeline.model_client import image_file_part

        text = self.prompt_text(item, protocol)
        return [{"role": "user", "content": [{"type": "text", "text": text}, *map(image_file_part, item.images)]}]

    def parse_reply(self, item: EvalItem, reply: str, protocol: str) -> int | None:
        """The authors': the option of `viewspatial_letter`'s letter."""
        if protocol != "authors":
            return super().parse_reply(item, reply, protocol)
        letter = viewspatial_letter(reply)
        letters = [letter_of(k) for k in range(len(item.options))]
        return letters.index(letter) if letter in letters else None

    def read_predictions(
        self, path: Path, items: Sequence[EvalItem]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The authors' result CSV (by its header) or eval's `predictions.jsonl`."""
        from benchfoundry.core.bounded_read import csv_records, read_text

        text = read_text(path)
        first = text.split("\n", 1)[0]
        if not all(column in first for column in RESULT_COLUMNS):
            return super().read_predictions(path, items)
        return authors_rows(csv_records(text, str(path))[1], items)

    def report_section(self, results: Sequence[Result]) -> str:
        """The paper's Table 2 with our runs per task, and its Tables 3 and 4 (no row of ours)."""
        ours = [
            (
                label(r),
                *(pct(r.get("per_task", {}).get(t)) for t in published.VIEWSPATIAL_TASKS),
                pct(r.get("overall")),
                source(r),
            )
            for r in baseline_runs(results)
        ]
        return "".join(
            [
                render(published.VIEWSPATIAL_TABLE2, ours),
                render(published.VIEWSPATIAL_TABLE3, []),
                render(published.VIEWSPATIAL_TABLE4, []),
            ]
        )


def authors_rows(
    records: Sequence[tuple[int, dict[str, str]]], items: Sequence[EvalItem]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Eval's rows from `evaluate.py`'s CSV records (line, row): the item is the released file's `ID`-th, the reply
    its `Predicted Answer`; a row whose `Correct Answer` is not that item's answer is another release's (a bad line,
    as is an unknown or repeated ID)."""
    from benchfoundry.evaluation.predictions import prediction_row

    rows: dict[str, dict[str, Any]] = {}
    problems: list[dict[str, Any]] = []
    for line, record in records:
        index = record["ID"].strip()
        if not index.isdigit() or int(index) >= len(items):
            problems.append({"line": line, "reason": f"ID {index!r} is not an item of the build"})
            continue
        item = items[int(index)]
        if viewspatial_letter(record["Correct Answer"]) != item.answer:
            reason = f"ID {index}: correct answer {record['Correct Answer']!r}, the build's is {item.answer}"
            problems.append({"line": line, "reason": reason})
        elif item.id in rows:
            problems.append({"line": line, "reason": f"second prediction for ID {index}; first kept"})
        else:
            rows[item.id] = prediction_row(item, record["Predicted Answer"])
    return list(rows.values()), problems


EVALUATION = ViewSpatialEvaluation()
