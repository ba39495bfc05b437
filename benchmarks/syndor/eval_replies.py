"""A model's SynDORBench replies as the predictions file the SynD scorer reads ({img_path, prompt, prediction}).

authors: as the harness (jzyee/SynDORBench `eval/metrics/classification.py`, `e5_score.py`): the prompt is
sent verbatim; a presence reply is read by `authors_presence` and an ambiguous one (or a failed request) is
dropped before scoring, the kept ones written as "1" / "0"; an action request that failed is scored as the text
"None" (the harness embeds `str(None)`); an action reply's E5Score is taken against the released `action`
(`stepping_over`), with no prefix, the empty reply embedded as it is (scoring.py).
project: every answered reply as it came; a failed request is missing from the file. A presence reply holding
both or neither of "1" and "0" is invalid and counts as wrong; an action reply's E5Score is taken against the
action's phrase (`stepping over something`), with the embedding model's prefix, and an empty reply scores 0.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchfoundry.evaluation.items import EvalItem

PRESENCE = "human_detection"
#: A presence reply the authors' harness cannot read (dropped before scoring).
AMBIGUOUS = -1

_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")


def authors_presence(reply: str | None) -> int:
    """A presence reply as the SynDOR harness reads it: an integer reply is its value (0 or 1, else ambiguous);
    other text holding both "1" and "0" is ambiguous, then an affirmative word (yes, true, 1, …) is 1 and a
    negative one (no, not, 0, …) is 0, checked in that order; anything else, or no reply, is ambiguous."""
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
