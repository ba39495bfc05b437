"""How Toy-Bench is evaluated (benchfoundry's `evaluation.hooks.Evaluation`): its own line before every prompt,
and accuracy per colour besides the generic scores."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.evaluation.hooks import Evaluation
from benchfoundry.evaluation.items import EvalItem

#: The first line of every Toy-Bench prompt.
PREAMBLE = "Toy-Bench: look at the cube."


class ToyEvaluation(Evaluation):
    def prompt_text(self, item: EvalItem, protocol: str) -> str:
        return f"{PREAMBLE}\n{super().prompt_text(item, protocol)}"

    def score(
        self,
        build: Path,
        items: Sequence[EvalItem],
        rows: Sequence[dict[str, Any]],
        protocol: str,
        target: Path,
        name: str,
    ) -> dict[str, Any]:
        result = super().score(build, items, rows, protocol, target, name)
        replies = {r["id"]: r["prediction"] for r in rows}
        per_colour: dict[str, list[bool]] = {}
        for item in items:
            reply = replies.get(item.id)
            choice = None if reply is None else self.parse_reply(item, reply, protocol)
            right = choice is not None and item.options[choice].startswith(f"{item.answer}.")
            per_colour.setdefault(item.meta["colour"], []).append(right)
        result["per_colour"] = {c: sum(v) / len(v) for c, v in sorted(per_colour.items())}
        return result


EVALUATION = ToyEvaluation()
