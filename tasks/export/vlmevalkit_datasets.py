"""`benchfoundry_vlmeval.py`, copied beside the TSV files by `benchfoundry export vlmevalkit`: VLMEvalKit dataset
classes that ask and score the exports as the authors do; it runs inside VLMEvalKit and imports nothing of
benchfoundry. VLMEvalKit builds only the classes of `vlmeval.dataset`, so `register()` adds them there before
its `run.py` builds datasets:

    import benchfoundry_vlmeval, runpy, sys
    benchfoundry_vlmeval.register()
    sys.argv = ["run.py", "--data", "benchfoundry_ViewSpatial", "--model", MODEL]
    runpy.run_path("run.py", run_name="__main__")

- benchfoundry_ViewSpatial: the authors' `evaluate.py` prompt (question + choices + "\\nReply only to the
  corresponding option.\\nAnswer:", text before the images) and reading (the first standalone A–D letter, any
  case, on the reply's last line); accuracy overall and per task.
- benchfoundry_ODI: the closed form as the paper states it (lettered options and "Answer with the option's
  letter…", a yes/no item asked for yes or no); a reply names an option by yes/no, letter or text; two or none
  are wrong; accuracy overall and per task. (The open items need the judge: `benchfoundry eval odi`.)
- benchfoundry_SynDOR: the prompt verbatim after the image; presence replies read as the authors' harness (an
  ambiguous one dropped), accuracy and macro-F1 per split; action replies scored by the harness's E5Score
  (reference `action`, no prefix, every reply embedded; `intfloat/e5-large-v2` or BENCHFOUNDRY_E5_MODEL).
"""

from __future__ import annotations

import os
import re
from typing import Any

AMBIGUOUS = -1
LETTERS = "ABCD"
VIEWSPATIAL_SUFFIX = "\nReply only to the corresponding option.\nAnswer:"
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
YES_NO_INSTRUCTION = "Answer yes or no."
_VIEWSPATIAL_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)
_KEYWORD = re.compile(r"\b(?i:answer|option|choice)\s*(?i:is|:)?\s*\(?([A-D])\b")
_STANDALONE = re.compile(r"(?<![\w-])([A-D])(?![\w-])")
_ARTICLE = re.compile(r"\s+[a-z]")
_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")
_MODEL: dict[str, Any] = {}


def _text(value: Any) -> str:
    """A TSV cell as text (pandas reads an empty cell as NaN)."""
    return "" if value is None or value != value else str(value)


def viewspatial_letter(reply: str) -> str | None:
    found = _VIEWSPATIAL_LETTER.search(_text(reply).split("\n")[-1])
    return found.group(1).upper() if found else None


def options_of(line: Any) -> list[str]:
    return [_text(line[c]) for c in LETTERS if c in line and _text(line[c])]


def read_choice(reply: str, options: list[str]) -> int | None:
    """The index of the one option the reply names (yes/no words for a yes/no item, then letters, then texts)."""
    reply = _text(reply)
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


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _accuracy(rows: list[tuple[str, bool]]) -> dict[str, float | None]:
    """Overall and per-category accuracy of (category, correct) rows."""
    out = {"overall": _mean([float(ok) for _, ok in rows])}
    for category in sorted({c for c, _ in rows}):
        out[category] = _mean([float(ok) for c, ok in rows if c == category])
    return out


def viewspatial_scores(data: Any) -> dict[str, float | None]:
    return _accuracy(
        [(line["category"], viewspatial_letter(line["prediction"]) == line["answer"]) for _, line in data.iterrows()]
    )


def odi_scores(data: Any) -> dict[str, float | None]:
    rows = []
    for _, line in data.iterrows():
        choice = read_choice(line["prediction"], options_of(line))
        rows.append((line["category"], choice is not None and LETTERS[choice] == line["answer"]))
    return _accuracy(rows)


def syndor_scores(data: Any) -> dict[str, float | None]:
    """Per `<task>_<split>` category: presence accuracy and macro-F1 over the kept replies, or action E5Score."""
    out: dict[str, float | None] = {}
    for category in sorted(set(data["category"])):
        rows = data[data["category"] == category]
        if category.startswith("human_detection"):
            pairs = [(int(a), presence_label(p)) for a, p in zip(rows["answer"], rows["prediction"])]
            kept = [(t, p) for t, p in pairs if p != AMBIGUOUS]
            out[f"{category}_accuracy"] = _mean([float(t == p) for t, p in kept])
            out[f"{category}_macro_f1"] = macro_f1(kept)
        else:
            out[f"{category}_e5_score"] = e5_score([_text(p) for p in rows["prediction"]], list(rows["action"]))
    return out


def _classes() -> list[type]:
    from vlmeval.dataset.image_mcq import CustomMCQDataset
    from vlmeval.dataset.image_vqa import CustomVQADataset
    from vlmeval.smp import load, toliststr

    class BenchfoundryViewSpatial(CustomMCQDataset):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return ["benchfoundry_ViewSpatial"]

        def build_prompt(self, line: Any) -> list[dict[str, str]]:
            line = self.data.iloc[line] if isinstance(line, int) else line
            images = toliststr(self.dump_image(line))
            text = line["question"] + _text(line["choices"]) + VIEWSPATIAL_SUFFIX
            return [{"type": "text", "value": text}] + [{"type": "image", "value": p} for p in images]

        def evaluate(self, eval_file: str, **judge_kwargs: Any) -> dict[str, float | None]:
            return viewspatial_scores(load(eval_file))

    class BenchfoundryODI(CustomMCQDataset):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return ["benchfoundry_ODI"]

        def build_prompt(self, line: Any) -> list[dict[str, str]]:
            line = self.data.iloc[line] if isinstance(line, int) else line
            options = options_of(line)
            if sorted(o.lower() for o in options) == ["no", "yes"]:
                text = f"{line['question']}\n{YES_NO_INSTRUCTION}"
            else:
                lettered = "\n".join(f"{LETTERS[k]}. {o}" for k, o in enumerate(options))
                text = f"{line['question']}\n{lettered}\n{MC_INSTRUCTION}"
            images = toliststr(self.dump_image(line))
            return [{"type": "image", "value": p} for p in images] + [{"type": "text", "value": text}]

        def evaluate(self, eval_file: str, **judge_kwargs: Any) -> dict[str, float | None]:
            return odi_scores(load(eval_file))

    class BenchfoundrySynDOR(CustomVQADataset):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return ["benchfoundry_SynDOR"]

        def evaluate(self, eval_file: str, **judge_kwargs: Any) -> dict[str, float | None]:
            return syndor_scores(load(eval_file))

    return [BenchfoundryViewSpatial, BenchfoundryODI, BenchfoundrySynDOR]


def register() -> list[type]:
    """Put the classes where VLMEvalKit's `build_dataset` and `--data-config` look (before its own)."""
    import vlmeval.dataset as datasets

    classes = _classes()
    for cls in classes:
        setattr(datasets, cls.__name__, cls)
        if cls not in datasets.DATASET_CLASSES:
            datasets.DATASET_CLASSES.insert(0, cls)
        datasets.SUPPORTED_DATASETS.extend(n for n in cls.supported_datasets() if n not in datasets.SUPPORTED_DATASETS)
    return classes
