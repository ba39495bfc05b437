"""Human review of ViewSpatial's Per-Rel. Dir. candidates on real COCO (docs/design/viewspatial.md §2.4).

Rows that need review are exported with pipeline/review.py to `viewspatial/review/`
(CSV + Label Studio); `benchfoundry viewspatial review-import OUT FILE` stores the decisions. The released
files hold the rows that need no review, the accepted and edited ones (an edit names one of the item's
options; its letter is kept), and, with `viewspatial.coco.per_rel.release_unreviewed`, the undecided ones,
marked `verified: false` in the benchmark JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.pipeline import review

REVIEW_DIR = ("viewspatial", review.FOLDER)


def review_dir(out: str | Path) -> Path:
    return Path(out).joinpath(*REVIEW_DIR)


def options(choices: str) -> list[str]:
    """The option labels of a lettered `choices` string ("A. right\\nB. left…")."""
    return [line.split(". ", 1)[1] for line in choices.split("\n") if ". " in line]


def review_items(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows that need review as review items (closed form, the answer as its label)."""
    if not len(rows) or "needs_review" not in rows:
        return []
    todo = rows[rows["needs_review"].eq(True)]
    return [
        {
            "id": r.item_id,
            "task": r.question_type,
            "form": "closed",
            "question": r.question,
            "options": options(r.choices),
            "answer": r.answer_label,
            "image": str(list(r.image_path)[0]),
        }
        for r in todo.itertuples()
    ]


def _answer(choices: str, label: str) -> str:
    letter = next(line.split(". ", 1)[0] for line in choices.split("\n") if line.split(". ", 1)[1] == label)
    return f"{letter}. {label}"


def released_rows(rows: pd.DataFrame, decisions: dict[str, dict[str, Any]], release_unreviewed: bool) -> pd.DataFrame:
    """The rows to release with a `verified` column (True: no review needed or accepted/edited)."""
    if not len(rows):
        return rows.assign(verified=pd.Series(dtype=bool))
    needs = rows["needs_review"].eq(True) if "needs_review" in rows else pd.Series(False, rows.index)
    released = review.release([{"id": i} for i in rows.loc[needs, "item_id"]], decisions, release_unreviewed)
    verdict = {item["id"]: item["verified"] for item in released}
    keep = ~needs | rows["item_id"].isin(verdict)
    out = rows[keep].copy()
    out["verified"] = [True if not n else verdict[i] for i, n in zip(out["item_id"], needs[keep])]
    for idx, item_id in zip(out.index, out["item_id"]):
        decision = decisions.get(item_id)
        if decision and decision["decision"] == "edit":
            out.at[idx, "answer_label"] = decision["answer"]
            out.at[idx, "answer"] = _answer(out.at[idx, "choices"], decision["answer"])
    return out


def export(out: str | Path, rows: pd.DataFrame) -> dict[str, Any]:
    """Write the review files of the rows that need review (none: nothing written); their paths and count."""
    items = review_items(rows)
    if not items:
        return {"review_items": 0}
    return {"review_items": len(items), **review.export_for_review(items, review_dir(out), "../")}
