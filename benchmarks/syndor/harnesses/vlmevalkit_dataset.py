"""SynDORBench's VLMEvalKit dataset class, copied beside the TSV files as `benchfoundry_vlmeval_<benchmark>.py`
by `benchfoundry export vlmevalkit` and registered by `benchfoundry_vlmeval.register()` (export/
vlmevalkit_datasets.py); it runs inside VLMEvalKit, imports nothing of benchfoundry, and shares the helpers of
`benchfoundry_vlmeval` beside it.

benchfoundry_SynDOR: the prompt verbatim after the image; presence replies read as the authors' harness (an
ambiguous one dropped), accuracy and macro-F1 per split; action replies scored by the harness's E5Score
(reference `action`, no prefix, every reply embedded; `intfloat/e5-large-v2` or BENCHFOUNDRY_E5_MODEL).
"""

from __future__ import annotations

import os
import re
from typing import Any

from benchfoundry_vlmeval import cell_text, dataset_class, mean

AMBIGUOUS = -1
_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")
_MODEL: dict[str, Any] = {}


def presence_label(reply: Any) -> int:
    """1, 0, or AMBIGUOUS, as the harness's `normalize_to_label` reads a reply."""
    if reply is None or reply != reply:
        return AMBIGUOUS
    reply = str(reply)
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


def macro_f1(pairs: list[tuple[int, int]]) -> float:
    """Macro-F1 over the classes of the answers and the predictions, of (truth, prediction) pairs."""
    scores = []
    for c in sorted({t for t, _ in pairs} | {p for _, p in pairs}):
        tp = sum(t == c and p == c for t, p in pairs)
        predicted, actual = sum(p == c for _, p in pairs), sum(t == c for t, _ in pairs)
        precision, recall = (tp / predicted if predicted else 0.0), (tp / actual if actual else 0.0)
        scores.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def embed(texts: list[str]) -> list[list[float]]:
    """Mean-pooled, L2-normalised embeddings (the harness's E5 model, loaded once), in batches of 64."""
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


def e5_score(predictions: list[str], references: list[str]) -> float | None:
    if not predictions:
        return None
    pairs = zip(embed(predictions), embed(references))
    return sum(sum(x * y for x, y in zip(u, v)) for u, v in pairs) / len(predictions)


def scores(data: Any) -> dict[str, float | None]:
    """Per `<task>_<split>` category: presence accuracy and macro-F1 over the kept replies, or action E5Score."""
    out: dict[str, float | None] = {}
    for category in sorted(set(data["category"])):
        rows = data[data["category"] == category]
        if category.startswith("human_detection"):
            pairs = [(int(a), presence_label(p)) for a, p in zip(rows["answer"], rows["prediction"])]
            kept = [(t, p) for t, p in pairs if p != AMBIGUOUS]
            out[f"{category}_accuracy"] = mean([float(t == p) for t, p in kept])
            out[f"{category}_macro_f1"] = macro_f1(kept)
        else:
            out[f"{category}_e5_score"] = e5_score([cell_text(p) for p in rows["prediction"]], list(rows["action"]))
    return out


def classes() -> list[type]:
    from vlmeval.dataset.image_vqa import CustomVQADataset

    return [dataset_class(CustomVQADataset, "BenchfoundrySynDOR", "benchfoundry_SynDOR", scores)]
