"""ViewSpatial-Bench's VLMEvalKit dataset class, copied beside the TSV files as `benchfoundry_vlmeval_<benchmark>.py`
by `benchfoundry export vlmevalkit` and registered by `benchfoundry_vlmeval.register()` (export/
vlmevalkit_datasets.py); it runs inside VLMEvalKit and imports nothing of benchfoundry.

benchfoundry_ViewSpatial: the authors' `evaluate.py` prompt (question + choices + "\\nReply only to the
corresponding option.\\nAnswer:", text before the images) and reading (the first standalone A–D letter, any
case, on the reply's last line); accuracy overall and per task.
"""

from __future__ import annotations

import re
from typing import Any

SUFFIX = "\nReply only to the corresponding option.\nAnswer:"
_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)


def _text(value: Any) -> str:
    """A TSV cell as text (pandas reads an empty cell as NaN)."""
    return "" if value is None or value != value else str(value)


def letter(reply: str) -> str | None:
    found = _LETTER.search(_text(reply).split("\n")[-1])
    return found.group(1).upper() if found else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _accuracy(rows: list[tuple[str, bool]]) -> dict[str, float | None]:
    """Overall and per-category accuracy of (category, correct) rows."""
    out = {"overall": _mean([float(ok) for _, ok in rows])}
    for category in sorted({c for c, _ in rows}):
        out[category] = _mean([float(ok) for c, ok in rows if c == category])
    return out


def scores(data: Any) -> dict[str, float | None]:
    return _accuracy([(line["category"], letter(line["prediction"]) == line["answer"]) for _, line in data.iterrows()])


def classes() -> list[type]:
    from vlmeval.dataset.image_mcq import CustomMCQDataset
    from vlmeval.smp import load, toliststr

    class BenchfoundryViewSpatial(CustomMCQDataset):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return ["benchfoundry_ViewSpatial"]

        def build_prompt(self, line: Any) -> list[dict[str, str]]:
            line = self.data.iloc[line] if isinstance(line, int) else line
            images = toliststr(self.dump_image(line))
            text = line["question"] + _text(line["choices"]) + SUFFIX
            return [{"type": "text", "value": text}] + [{"type": "image", "value": p} for p in images]

        def evaluate(self, eval_file: str, **judge_kwargs: Any) -> dict[str, float | None]:
            return scores(load(eval_file))

    return [BenchfoundryViewSpatial]
