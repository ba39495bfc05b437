"""Human review of generated items (a benchmark's candidate items): export, import, release, and the
`review-import` command a benchmark with review offers (`review_import_command`).

Every item is exported as a CSV row and a Label Studio task (with its labelling config). A reviewer
accepts, rejects or edits an item (an edited answer replaces the item's answer; for a closed item it
must be one of its options). `benchfoundry <benchmark> review-import OUT FILE` reads a filled CSV or a Label
Studio JSON export: a row naming an unknown item, a decision that is not accept/reject/edit, an edit
without an answer or a closed item's edit outside its options is reported by line and skipped; an item
given two different decisions in one file is refused on every row. Decisions accumulate across
imports (the latest file wins per item). The released benchmark holds the accepted and edited items,
`verified: true`, plus, when `release_unreviewed` is set, the undecided ones as `verified: false` (the released
files keep the authors' field name `verified` for "reviewed by a person").

The CSV is safe to open in a spreadsheet: a cell that would run as a formula (starting with `=`, `+`, `-`,
`@`, a tab or a carriage return: category names, sign text, model-written questions) is exported with a
leading `'`, which the import drops again; a formula-like cell written by a reviewer, and a formula-like
edited answer from either file that is not one of the item's options, is refused. Both files are read
bounded (benchfoundry/core/bounded_read.py), and a Label Studio task of another shape is a bad row, not a
crash.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import unicodedata
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.bounded_read import csv_records, loads_json, read_text
from benchfoundry.pipeline.commands import Command, arg, print_error, print_note, validation_line

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
#: What a spreadsheet runs as a formula when a cell starts with it (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: Any) -> str:
    """A CSV cell a spreadsheet shows as text: one starting like a formula gets a leading `'`."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


#: Control characters a cell may hold (a spreadsheet's line breaks and tabs); any other is refused in an edit.
ALLOWED_CONTROLS = frozenset("\t\n\r")


def control_character(text: str) -> str | None:
    """The first control character of `text` (NUL, escape, C1, …; not a tab or line break) as `U+XXXX at
    position N`, or None."""
    for position, char in enumerate(text):
        if char not in ALLOWED_CONTROLS and unicodedata.category(char) == "Cc":
            return f"U+{ord(char):04X} at position {position}"
    return None


def check_columns(header: Sequence[str], known: Sequence[str], required: Sequence[str], where: str) -> None:
    """ValueError naming `where` and the column for a header an import would misread: a known column but for case
    or spaces (`Decision ` beside or instead of `decision`), an unknown one, or a required one missing. An empty
    name (a spreadsheet's trailing comma) is allowed."""
    canonical = {column.strip().casefold(): column for column in known}
    for column in header:
        if column in known or not column.strip():
            continue
        shown = repr(column[:40] + ("…" if len(column) > 40 else ""))
        near = canonical.get(column.strip().casefold())
        if near is not None:
            raise ValueError(f"{where}: column {shown} is not {near!r} (case or spaces differ): rename it")
        raise ValueError(f"{where}: unknown column {shown}; the columns are {', '.join(known)}")
    missing = [column for column in required if column not in header]
    if missing:
        raise ValueError(f"{where}: no column {', '.join(map(repr, missing))}")


def imported_cell(text: str, column: str, formula_ok: bool = False) -> str:
    """A cell of a filled review CSV: an exported `'`-neutralised cell as it was; ValueError for a cell that
    starts like a formula (unless `formula_ok`: the edited answer, checked against the item's options)."""
    if text.startswith("'") and text[1:].startswith(FORMULA_START):
        return text[1:]
    if text.startswith(FORMULA_START) and not formula_ok:
        raise ValueError(f"{column} {text[:40]!r} starts like a spreadsheet formula: refused")
    return text


def export_for_review(items: Sequence[dict[str, Any]], directory: Path, image_url_prefix: str = "") -> dict[str, str]:
    """`review.csv`, `label_studio_tasks.json` and `label_studio_config.xml` in `directory`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for item in items:
        row = {**{k: item.get(k, "") for k in CSV_FIELDS}, "options": " | ".join(item["options"])}
        writer.writerow({**{k: neutralise_cell(v) for k, v in row.items()}, "decision": "", "edited_answer": ""})
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


Row = tuple[int, Any, str, str, str | None]  # (line or task position, item id, decision, edited answer, problem)


def _csv_rows(path: Path) -> list[Row]:
    rows: list[Row] = []
    header, records = csv_records(read_text(path, what="review CSV"), str(path))
    check_columns(header, CSV_FIELDS, ("id", "decision"), f"{path}: line 1")
    for line, row in records:
        try:
            cells = {
                k: imported_cell(row.get(k) or "", k, k == "edited_answer") for k in ("id", "decision", "edited_answer")
            }
        except ValueError as exc:
            rows.append((line, row.get("id"), "?", "", str(exc)))
            continue
        rows.append((line, cells["id"], cells["decision"], cells["edited_answer"], None))
    return rows


def _choice(results: list[dict[str, Any]], name: str, key: str) -> tuple[str | None, str | None]:
    """(the first value of `value[key]` in the result `name`, or None; why that result is unusable, or None)."""
    for r in results:
        if r.get("from_name") != name:
            continue
        value = r.get("value")
        found = value.get(key) if isinstance(value, dict) else None
        if not (isinstance(found, list) and all(isinstance(v, str) for v in found)):
            return None, f"the {name!r} result is not {{value: {{{key}: [text]}}}}"
        if found:
            return found[0], None
    return None, None


def _label_studio_rows(path: Path) -> list[Row]:
    """(task position, item id, decision, edited answer, problem) of a Label Studio JSON export."""
    tasks = loads_json(read_text(path, what="Label Studio export"), str(path))
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: a Label Studio export is a JSON list of tasks")
    rows: list[Row] = []
    for n, task in enumerate(tasks, start=1):
        task = task if isinstance(task, dict) else {}
        data = task.get("data")
        annotations = task.get("annotations")
        results = [
            r
            for a in (annotations if isinstance(annotations, list) else [])
            if isinstance(a, dict) and isinstance(a.get("result"), list)
            for r in a["result"]
            if isinstance(r, dict)
        ]
        decision, bad_decision = _choice(results, "decision", "choices")
        edited, bad_edit = _choice(results, "edited_answer", "text")
        item_id = data.get("id") if isinstance(data, dict) else None
        problem = bad_decision or bad_edit or (None if isinstance(data, dict) else "the task has no data object")
        rows.append((n, item_id, "?" if problem else decision or "", edited or "", problem))
    return rows


def _refusal(item: dict[str, Any] | None, item_id: Any, decision: str, edited: str) -> str | None:
    """Why a decision row is refused, or None."""
    if item is None:
        return f"unknown item {repr(item_id)[:80]}"
    if decision not in DECISIONS:
        return f"decision {decision[:40]!r} is not accept, reject or edit"
    if decision == "edit" and not edited:
        return "edit without an edited answer"
    if decision == "edit" and (control := control_character(edited)):
        return f"edited_answer holds a control character ({control}): refused"
    if decision == "edit" and edited.startswith(FORMULA_START) and edited not in item["options"]:
        return f"edited answer {edited[:40]!r} starts like a spreadsheet formula: refused"
    if decision == "edit" and item["form"] == "closed" and edited not in item["options"]:
        return f"edited answer {edited[:40]!r}{'…' if len(edited) > 40 else ''} is not one of the options"
    return None


def read_decisions(
    path: str | Path, items: Sequence[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(item id → {decision, answer}, bad rows {line, id, reason}) of one review file."""
    path = Path(path)
    try:
        rows = _label_studio_rows(path) if path.suffix.lower() == ".json" else _csv_rows(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the review file ({exc.strerror})") from None
    except ValueError as exc:
        raise ValueError(f"{path}: cannot read the review file ({str(exc).removeprefix(f'{path}: ')})") from None
    by_id = {item["id"]: item for item in items}
    good: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    bad = []
    for line, item_id, decision, edited, problem in rows:
        decision = decision.strip().lower()
        edited = edited.strip()
        item = by_id.get(str(item_id)) if isinstance(item_id, (str, int)) else None
        if not decision:
            continue
        reason = problem or _refusal(item, item_id, decision, edited)
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


# The `review-import` commands: the build's record and config, and importing one review file. A command holds the
# build's lock while it writes (benchfoundry/core/output_root.py).


def built_config(build_arg: str, benchmark: str) -> tuple[Path, BuildConfig]:
    """The build folder and the config it was built with; ValueError when it has no usable build record."""
    from benchfoundry.core.output_root import check_output_dir

    build = check_output_dir(build_arg, create=False)
    record = build / "build.json"
    if not record.is_file():
        raise ValueError(f"{record}: no build record; build the {benchmark} benchmark first")
    return build, recorded_config(record)


def recorded_config(record: Path) -> BuildConfig:
    """The config a build record holds; ValueError naming the record when it holds none."""
    from pydantic import ValidationError

    from benchfoundry.core.bounded_read import read_json

    data = read_json(record)
    config = data.get("config") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise ValueError(f"{record}: no `config` in the build record")
    try:
        return BuildConfig.model_validate(config)
    except ValidationError as exc:
        raise ValueError(f"{record}: the recorded config is not valid now: {validation_line(exc)}") from None


#: Bad rows of a review file printed one by one; the rest are counted.
SHOWN_BAD_ROWS = 20


def import_review_file(path: str, items: Sequence[dict[str, Any]], directory: Path) -> tuple[int, int] | None:
    """Store the file's usable decisions in `directory`; (imported, bad rows), or None (said on stderr) when
    it holds none. Each bad row is reported by line."""
    decisions, bad = read_decisions(path, items)
    for row in bad[:SHOWN_BAD_ROWS]:
        print_note(f"{path}:{row['line']}: skipped: {row['reason']}")
    if len(bad) > SHOWN_BAD_ROWS:
        print_note(f"{path}: … and {len(bad) - SHOWN_BAD_ROWS} more bad rows")
    if not decisions:
        print_error(f"{path}: no usable decision ({len(bad)} bad rows); nothing imported")
        return None
    store_decisions(directory, decisions)
    return len(decisions), len(bad)


#: What a review import works on: (build root, its config) → the items under review and their review folder.
ToReview = Callable[[Path, BuildConfig], tuple[Sequence[dict[str, Any]], Path]]
#: The release again after an import: (build root, its config) → what the released files now hold, said in a line.
Rerelease = Callable[[Path, BuildConfig], str]


def run_review_import(benchmark: str, to_review: ToReview, rerelease: Rerelease, args: argparse.Namespace) -> int:
    """Import the review file `args.file` into the build `args.build`, then release again, holding its lock."""
    from benchfoundry.core.output_root import hold_build_lock

    build, config = built_config(args.build, benchmark)
    with hold_build_lock(build):
        items, directory = to_review(build, config)
        counts = import_review_file(args.file, items, directory)
        if counts is None:
            return 1
        held = rerelease(build, config)
    print(f"imported {counts[0]} decisions ({counts[1]} bad rows skipped); {held}")
    return 0


def review_import_command(benchmark: str, title: str, items: str, to_review: ToReview, rerelease: Rerelease) -> Command:
    """`benchfoundry BENCHMARK review-import BUILD FILE`, the group's one command: `run_review_import`."""
    return Command(
        benchmark,
        f"{title} human review",
        commands=(
            Command(
                "review-import",
                f"import accept / reject / edit decisions on {items} (CSV or Label Studio JSON); "
                "verify-import: its old name, kept for one release",
                (
                    arg("build", metavar="BUILD", help="the build's output root"),
                    arg(
                        "file",
                        metavar="FILE",
                        help=f"the filled {benchmark}/review/review.csv, or a Label Studio export",
                    ),
                ),
                partial(run_review_import, benchmark, to_review, rerelease),
                aliases=("verify-import",),
            ),
        ),
    )
