"""The papers' Random row as a model (`--model random`): no endpoint, every reply drawn from the item's own seed.

A closed item gets one of its options, uniformly, said as the protocol expects (a letter; yes or no for a
yes/no item read the authors' way); a free-form item gets what its benchmark's evaluation draws for it
(evaluation/hooks.Evaluation.random_answerer), by default no reply (the papers report no random open-form
score). The blind baseline is a real model asked without images (`--blind`, hooks.Evaluation.request).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchfoundry.core.seeding import item_rng
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.protocols import answer_reply

MODEL = "random"
STAGE = "eval.random"

#: (item, its generator) -> the random baseline's reply, or None for no reply.
Answerer = Callable[[EvalItem, np.random.Generator], str | None]


def closed_answerer(protocol: str) -> Answerer:
    """A closed item's reply: one of its options, uniformly, as the protocol says it; no reply to a free-form item."""

    def answer(item: EvalItem, rng: np.random.Generator) -> str | None:
        return answer_reply(item, int(rng.integers(len(item.options))), protocol) if item.options else None

    return answer


def random_rows(items: Sequence[EvalItem], answer: Answerer, seed: int) -> list[dict[str, Any]]:
    """One prediction row per item, as `run.ask` writes them; the same seed gives the same replies."""
    return [
        {
            "id": item.id,
            "task": item.task,
            "prediction": answer(item, item_rng(seed, STAGE, item.id)),
            "error": None,
        }
        for item in items
    ]
