"""Human review of generated items (ODI-Bench, ViewSpatial Per-Rel. Dir.): export, import, release.

Every item is exported as a CSV row and a Label Studio task (with its labelling config). A reviewer
accepts, rejects or edits an item (an edited answer replaces the item's answer; for a closed item it
must be one of its options). `benchfoundry odi review-import OUT FILE` reads a filled CSV or a Label
Studio JSON export: a row naming an unknown item, a decision that is not accept/reject/edit, an edit
without an answer or a closed item's edit outside its options is reported by line and skipped; an item
given two different decisions in one file is refused on every row. Decisions accumulate across
imports (the latest file wins per item). The released benchmark holds the accepted and edited items,
`verified: true`, plus, when `release_unreviewed` is set, the undecided ones as `verified: false` (the released
files keep the authors' field name `verified` for "reviewed by a person").
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.store import write_bytes_atomic, write_json_atomic

#: The folder of a benchmark's review files (`<out>/<benchmark>/review/`).
FOLDER = "review"
DECISIONS = ("accept", "reject", "edit")
#: `answer_from` says how a generated answer was obtained (empty for items that do not say).
CSV_FIELDS = (
    "id",
    "task",
    "form",
    "question",
    "options",
    "answer",
    "answer_from",
    "image",
    "decision",
    "edited_answer",
)
LABEL_STUDIO_CONFIG = """<View>
  <Image name="image" value="$image"/>
  <Header value="$question"/>
  <Text name="options" value="$options"/>
  <Text name="answer" value="$answer"/>
  <Choices name="decision" toName="image" choice="single" required="true">
    <Choice value="accept"/>
    <Choice value="reject"/>
    <Choice value="edit"/>
  </Choices>
  <TextArea name="edited_answer" toName="image" maxSubmissions="1" placeholder="the right answer, when editing"/>
</View>
"""
DECISIONS_FILE = "decisions.json"


def export_for_review(items: Sequence[dict[str, Any]], directory: Path, image_url_prefix: str = "") -> dict[str, str]:
    """`review.csv`, `label_studio_tasks.json` and `label_studio_config.xml` in `directory`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for item in items:
        writer.writerow(
            {
                **{k: item.get(k, "") for k in CSV_FIELDS},
                "options": " | ".join(item["options"]),
                "decision": "",
                "edited_answer": "",
            }
        )
    tasks = [
        {
            "data": {
                "id": item["id"],
                "image": image_url_prefix + item["image"],
                "question": item["question"],
                "options": " | ".join(item["options"]) or "(open question)",
                "answer": item["answer"],
            }
        }
        for item in items
    ]
    return {
        "csv": str(write_bytes_atomic(directory / "review.csv", buffer.getvalue().encode())),
        "label_studio": str(write_json_atomic(directory / "label_studio_tasks.json", tasks)),
        "label_studio_config": str(
            write_bytes_atomic(directory / "label_studio_config.xml", LABEL_STUDIO_CONFIG.encode())
        ),
    }


def _csv_rows(path: Path) -> list[tuple[int, Any, Any, Any]]:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    return [(n, r.get("id"), r.get("decision"), r.get("edited_answer")) for n, r in enumerate(rows, start=2)]


def _label_studio_rows(path: Path) -> list[tuple[int, Any, Any, Any]]:
    """(task position, item id, decision, edited answer) of a Label Studio JSON export."""
    tasks = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: a Label Studio export is a JSON list of tasks")
    rows = []
    for n, task in enumerate(tasks, start=1):
        data = task.get("data", {}) if isinstance(task, dict) else {}
        results = [
            r
            for a in (task.get("annotations") or [] if isinstance(task, dict) else [])
            if isinstance(a, dict)
            for r in a.get("result") or []
            if isinstance(r, dict)
        ]
        decision = next(
            (
                r["value"]["choices"][0]
                for r in results
                if r.get("from_name") == "decision" and r.get("value", {}).get("choices")
            ),
            None,
        )
        edited = next(
            (
                r["value"]["text"][0]
                for r in results
                if r.get("from_name") == "edited_answer" and r.get("value", {}).get("text")
            ),
            None,
        )
        rows.append((n, data.get("id"), decision, edited))
    return rows


def read_decisions(
    path: str | Path, items: Sequence[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(item id → {decision, answer}, bad rows {line, id, reason}) of one review file."""
    path = Path(path)
    try:
        rows = _label_studio_rows(path) if path.suffix.lower() == ".json" else _csv_rows(path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the review file ({exc})") from None
    by_id = {item["id"]: item for item in items}
    good: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    bad = []
    for line, item_id, decision, edited in rows:
        decision = str(decision or "").strip().lower()
        edited = str(edited or "").strip()
        item = by_id.get(str(item_id))
        if not decision:
            continue
        reason = None
        if item is None:
            reason = f"unknown item {item_id!r}"
        elif decision not in DECISIONS:
            reason = f"decision {decision!r} is not accept, reject or edit"
        elif decision == "edit" and not edited:
            reason = "edit without an edited answer"
        elif decision == "edit" and item["form"] == "closed" and edited not in item["options"]:
            reason = f"edited answer {edited!r} is not one of the options"
        if reason is not None:
            bad.append({"line": line, "id": item_id, "reason": reason})
            continue
        answer = edited if decision == "edit" else item["answer"]
        good.setdefault(str(item_id), []).append((line, {"decision": decision, "answer": answer}))
    decisions = {}
    for item_id, given in good.items():
        if len({json.dumps(d, sort_keys=True) for _, d in given}) > 1:
            bad += [
                {"line": line, "id": item_id, "reason": "conflicting decisions for this item: all refused"}
                for line, _ in given
            ]
        else:
            decisions[item_id] = given[0][1]
    return decisions, sorted(bad, key=lambda row: row["line"])


def store_decisions(directory: Path, decisions: dict[str, dict[str, Any]]) -> Path:
    """Merge the decisions into `decisions.json` (the latest import wins per item)."""
    merged = {**load_decisions(directory), **decisions}
    return write_json_atomic(directory / DECISIONS_FILE, dict(sorted(merged.items())))


def load_decisions(directory: Path) -> dict[str, dict[str, Any]]:
    path = directory / DECISIONS_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def release(
    items: Sequence[dict[str, Any]], decisions: dict[str, dict[str, Any]], release_unreviewed: bool
) -> list[dict[str, Any]]:
    """The released items: accepted and edited ones `verified`, rejected ones dropped, undecided ones
    kept (not `verified`) only when asked."""
    out = []
    for item in items:
        decision = decisions.get(item["id"])
        if decision is None:
            if release_unreviewed:
                out.append({**item, "verified": False})
        elif decision["decision"] != "reject":
            out.append({**item, "answer": decision["answer"], "verified": True})
    return out
