"""ViewSpatial-Bench's evaluation, its descriptor's `evaluation` hook (evaluation/hooks.py). Under the authors'
protocol an item is asked as `evaluate.py` (ZJU-REAL/ViewSpatial-Bench) sends it to the API models: one user
turn, the text `question + choices + "\\nReply only to the corresponding option.\\nAnswer:"` (no separator
between question and choices) before the images; the answer is the first standalone A–D letter, in any case, on
the reply's last line (so a lower-case article "a" there reads as A). The project's protocol is the generic one.
The page shows the paper's tables with our runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from benchfoundry.benchmarks.viewspatial import published
from benchfoundry.evaluation.choices import letter_of
from benchfoundry.evaluation.hooks import Evaluation
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.tables import Result, baseline_runs, label, pct, render, source

#: `evaluate.py`'s: appended to question + choices.
VIEWSPATIAL_SUFFIX = "\nReply only to the corresponding option.\nAnswer:"

_VIEWSPATIAL_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)


def viewspatial_letter(reply: str) -> str | None:
    """`evaluate.py`'s reading: the first standalone A–D letter, any case, on the reply's last line."""
    found = _VIEWSPATIAL_LETTER.search(reply.split("\n")[-1])
    return found.group(1).upper() if found else None


class ViewSpatialEvaluation(Evaluation):
    """The authors' prompt, request and reading of `evaluate.py`, and the paper's tables."""

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


EVALUATION = ViewSpatialEvaluation()
