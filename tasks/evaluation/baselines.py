"""The papers' Random row as a model (`--model random`): no endpoint, every reply drawn from the item's own seed.

A closed item gets one of its options, uniformly, said as the protocol expects (a letter; yes or no for a
yes/no item read the authors' way); a SynD presence item 1 or 0; a SynD action item one of the build's
action names (in words); an ODI open item no reply (the papers report no random open-form score). The blind baseline
is a real model asked without images (`--blind`, tasks/evaluation/protocols.request).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchfoundry.core.seeding import item_rng
from benchfoundry.tasks.evaluation.items import EvalItem
from benchfoundry.tasks.evaluation.protocols import answer_reply
from benchfoundry.tasks.syndor.scoring import action_text

MODEL = "random"
STAGE = "eval.random"


def random_rows(items: Sequence[EvalItem], protocol: str, seed: int) -> list[dict[str, Any]]:
    """One prediction row per item, as `run.ask` writes them; the same seed gives the same replies."""
    actions = sorted({action_text(item.answer) for item in items if item.task == "action_recognition"})
    rows = []
    for item in items:
        rng = item_rng(seed, STAGE, item.id)
        if item.options:
            reply: str | None = answer_reply(item, int(rng.integers(len(item.options))), protocol)
        elif item.task == "human_detection":
            reply = str(int(rng.integers(2)))
        elif item.task == "action_recognition":
            reply = actions[int(rng.integers(len(actions)))]
        else:
            reply = None
        rows.append(
            {
                "id": item.id,
                "task": item.task,
                "prediction": reply,
                "error": None,
            }
        )
    return rows
