"""`utils.py` of the lmms-eval tasks `benchfoundry_syndor_<task>_<split>`, copied there by
`benchfoundry export lmms-eval`; it runs inside lmms-eval and imports nothing of benchfoundry.

As the authors' harness (jzyee/SynDORBench `eval/`) scores a task file: the prompt verbatim with the one
image; a presence reply is read as the harness reads it (an integer reply is its value, else "1" and "0"
together are ambiguous, then affirmative words are 1 and negative ones 0) and an ambiguous reply is dropped
before accuracy and macro-F1 (over the classes of the answers and the kept replies); an action reply scores
the E5Score of the harness, the cosine of mean-pooled, L2-normalised `intfloat/e5-large-v2` embeddings of the
reply and the `action` field, no prefix (set BENCHFOUNDRY_E5_MODEL to a local copy). Scores are fractions,
overall and per distance (`accuracy_5.4m`, …).
"""

from __future__ import annotations

import os
import re
from typing import Any

AMBIGUOUS = -1
_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")
_MODEL: dict[str, Any] = {}


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return [doc["image"].convert("RGB")]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    return doc["prompt"]


def doc_to_target(doc: dict[str, Any]) -> str:
    return str(doc["human_discernable"]) if doc["task"] == "human_detection" else str(doc["action"])


def presence_label(reply: str | None) -> int:
    """1, 0, or AMBIGUOUS, as the harness's `normalize_to_label` reads a reply."""
    if reply is None:
        return AMBIGUOUS
    try:
        value = int(reply)
    except ValueError:
        text = reply.lower().strip()
        if "1" in text and "0" in text:
            return AMBIGUOUS
        if _AFFIRMATIVE.search(text):
            return 1
        return 0 if _NEGATIVE.search(text) else AMBIGUOUS
    return value if value in (0, 1) else AMBIGUOUS


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, Any]:
    distance = f"{float(doc['radius']):.1f}m"
    if doc["task"] == "human_detection":
        value = {"pred": presence_label(results[0]), "truth": int(doc["human_discernable"])}
        return {"accuracy": value, "macro_f1": value, f"accuracy_{distance}": value, f"macro_f1_{distance}": value}
    value = {"prediction": str(results[0]), "reference": str(doc["action"])}
    return {"e5_score": value, f"e5_score_{distance}": value}


def _kept(items: list[dict[str, int]]) -> list[dict[str, int]]:
    return [i for i in items if i["pred"] != AMBIGUOUS]


def accuracy(items: list[dict[str, int]]) -> float:
    kept = _kept(items)
    return sum(i["pred"] == i["truth"] for i in kept) / len(kept) if kept else 0.0


def macro_f1(items: list[dict[str, int]]) -> float:
    kept = _kept(items)
    scores = []
    for c in sorted({i["truth"] for i in kept} | {i["pred"] for i in kept}):
        tp = sum(i["pred"] == c and i["truth"] == c for i in kept)
        predicted = sum(i["pred"] == c for i in kept)
        actual = sum(i["truth"] == c for i in kept)
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        scores.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def embed(texts: list[str]) -> list[list[float]]:
    """Mean-pooled, L2-normalised embeddings of the texts (the harness's E5 model, loaded once)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    name = os.environ.get("BENCHFOUNDRY_E5_MODEL", "intfloat/e5-large-v2")
    if name not in _MODEL:
        _MODEL[name] = (AutoTokenizer.from_pretrained(name), AutoModel.from_pretrained(name).eval())
    tokenizer, model = _MODEL[name]
    vectors = []
    for start in range(0, len(texts), 64):
        batch = tokenizer(texts[start : start + 64], padding=True, truncation=True, max_length=512, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        vectors += torch.nn.functional.normalize(pooled, p=2, dim=1).tolist()
    return vectors


def e5_score(items: list[dict[str, str]]) -> float:
    if not items:
        return 0.0
    a = embed([i["prediction"] for i in items])
    b = embed([i["reference"] for i in items])
    return sum(sum(x * y for x, y in zip(u, v)) for u, v in zip(a, b)) / len(items)
