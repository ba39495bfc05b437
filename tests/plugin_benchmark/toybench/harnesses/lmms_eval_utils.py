"""`utils.py` of the lmms-eval task `benchfoundry_toybench`, copied there by `benchfoundry export lmms-eval`; it
runs inside lmms-eval and imports nothing of benchfoundry."""

from __future__ import annotations

import re
from typing import Any

INSTRUCTION = "Answer with the option's letter from the given choices directly."
_LETTER = re.compile(r"\b([A-C])\b")


def toy_doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return [doc["image"].convert("RGB")]


def toy_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    return "\n".join([doc["question"], *doc["options"], INSTRUCTION])


def toy_process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    found = _LETTER.search(results[0] if results else "")
    return {"accuracy": float(found is not None and found.group(1) == doc["answer"])}


def toy_aggregate(results: list[float]) -> float:
    return sum(results) / len(results) if results else 0.0
