"""A model's SynDORBench replies as the predictions file the SynD scorer reads ({img_path, prompt, prediction}).

authors: as the harness (`classification.py`, `e5_score.py`): a presence reply is read by
`protocols.authors_presence` and an ambiguous one (or a failed request) is dropped before scoring, the kept
ones written as "1" / "0"; an action request that failed is scored as the text "None" (the harness embeds
`str(None)`). project: every answered reply as it came; a failed request is missing from the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchfoundry.tasks.evaluation.items import EvalItem
from benchfoundry.tasks.evaluation.protocols import AMBIGUOUS, authors_presence

PRESENCE = "human_detection"


def scorer_rows(
    items: Sequence[EvalItem], rows: Sequence[dict[str, Any]], protocol: str
) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The scorer's rows, and the presence replies dropped as ambiguous per split (authors only)."""
    by_id = {item.id: item for item in items}
    kept: list[dict[str, str]] = []
    dropped: Counter[str] = Counter()
    for row in rows:
        item = by_id[row["id"]]
        prediction = row["prediction"]
        if protocol == "authors" and item.task == PRESENCE:
            label = authors_presence(prediction)
            if label == AMBIGUOUS:
                dropped[item.meta["split"]] += 1
                continue
            prediction = str(label)
        elif prediction is None:
            if protocol != "authors":
                continue
            prediction = "None"
        kept.append({"img_path": item.meta["img_path"], "prompt": item.question, "prediction": prediction})
    return kept, dict(sorted(dropped.items()))
