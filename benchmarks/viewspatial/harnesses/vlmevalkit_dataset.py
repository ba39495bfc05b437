"""ViewSpatial-Bench's VLMEvalKit dataset class, copied beside the TSV files as `benchfoundry_vlmeval_<benchmark>.py`
by `benchfoundry export vlmevalkit` and registered by `benchfoundry_vlmeval.register()` (export/
vlmevalkit_datasets.py); it runs inside VLMEvalKit, imports nothing of benchfoundry, and shares the helpers of
`benchfoundry_vlmeval` beside it.

benchfoundry_ViewSpatial: the authors' `evaluate.py` prompt (question + choices + "\\nReply only to the
corresponding option.\\nAnswer:", text before the images) and reading (the first standalone A–D letter, any
case, on the reply's last line); accuracy overall and per task.
"""

from __future__ import annotations

import re
from typing import Any

from benchfoundry_vlmeval import accuracy, cell_text, dataset_class

SUFFIX = "\nReply only to the corresponding option.\nAnswer:"
_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)


def letter(reply: str) -> str | None:
    found = _LETTER.search(cell_text(reply).split("\n")[-1])
    return found.group(1).upper() if found else None


def scores(data: Any) -> dict[str, float | None]:
    return accuracy([(line["category"], letter(line["prediction"]) == line["answer"]) for _, line in data.iterrows()])


def prompt_text(line: Any) -> str:
    return line["question"] + cell_text(line["choices"]) + SUFFIX


def classes() -> list[type]:
    from vlmeval.dataset.image_mcq import CustomMCQDataset

    return [
        dataset_class(
            CustomMCQDataset,
            "BenchfoundryViewSpatial",
            "benchfoundry_ViewSpatial",
            scores,
            prompt_text,
            text_first=True,
        )
    ]
