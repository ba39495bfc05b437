"""`utils.py` of the lmms-eval task `benchfoundry_odi` (ODI-Bench's closed form), copied there by
`benchfoundry export lmms-eval`; it runs inside lmms-eval and imports nothing of benchfoundry.

Each item is asked as the paper states the closed form: the question with its options lettered A, B, … in
their released order and "Answer with the option's letter from the given choices directly."; a yes/no item
is asked for yes or no. A reply names an option by its letter (alone, or after "answer"/"option") or, failing
that, by its text; a reply that names two options, or none, is wrong. Scores are fractions: `accuracy` over
all items and `accuracy_<task>` over each task's.
"""

from __future__ import annotations

import re
from typing import Any

LETTERS = "ABCDEFGHIJ"
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
YES_NO_INSTRUCTION = "Answer yes or no."
_KEYWORD = re.compile(r"\b(?i:answer|option|choice)\s*(?i:is|:)?\s*\(?([A-J])\b")
_STANDALONE = re.compile(r"(?<![\w-])([A-J])(?![\w-])")
_ARTICLE = re.compile(r"\s+[a-z]")


def _yes_no(doc: dict[str, Any]) -> bool:
    return sorted(o.lower() for o in doc["options"]) == ["no", "yes"]


def process_docs(dataset: Any) -> Any:
    """The closed items, each with `target`, its answer's letter."""
    closed = dataset.filter(lambda form: form == "closed", input_columns=["form"])
    return closed.map(
        lambda options, answer: {"target": LETTERS[list(options).index(answer)]},
        input_columns=["options", "answer"],
    )


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return [doc["image"].convert("RGB")]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    if _yes_no(doc):
        return f"{doc['question']}\n{YES_NO_INSTRUCTION}"
    options = "\n".join(f"{LETTERS[k]}. {text}" for k, text in enumerate(doc["options"]))
    return f"{doc['question']}\n{options}\n{MC_INSTRUCTION}"


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["target"]


def read_choice(reply: str, options: list[str]) -> int | None:
    """The index of the one option the reply names (yes/no words for a yes/no item, then letters, then texts)."""
    lowered = [o.lower() for o in options]
    if sorted(lowered) == ["no", "yes"]:
        words = {w.lower() for w in re.findall(r"\b(yes|no)\b", reply, re.IGNORECASE)}
        if len(words) == 1:
            return lowered.index(words.pop())
    letters = LETTERS[: len(options)]
    named = {m.group(1) for m in _KEYWORD.finditer(reply)}
    named |= {
        m.group(1) for m in _STANDALONE.finditer(reply) if not (m.group(1) == "A" and _ARTICLE.match(reply, m.end()))
    }
    named &= set(letters)
    if named:
        return letters.index(named.pop()) if len(named) == 1 else None
    low = reply.lower()
    hits = [k for k, text in enumerate(lowered) if re.search(r"(?<![\w-])" + re.escape(text) + r"(?![\w-])", low)]
    return hits[0] if len(hits) == 1 else None


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    choice = read_choice(results[0], list(doc["options"]))
    score = 1.0 if choice is not None and LETTERS[choice] == doc["target"] else 0.0
    return {"accuracy": score, f"accuracy_{doc['task']}": score}


def mean(scores: list[float]) -> float:
    return sum(scores) / len(scores) if scores else 0.0
