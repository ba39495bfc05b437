"""Asking a model every item of a built benchmark, and scoring its replies to the closed items.

Predictions go to `OUT/report/eval/<model>/<name>.predictions.jsonl` (one line per item, with its id, the
reply or the error), scores to `<name>.json`, where the name says the benchmark and the variant (the
benchmark's own way of asking, evaluation/options.py; blind; protocol). Replies come through the model client's
cache (`OUT/report/eval/cache/`), so an interrupted run restarts where it stopped and a rerun sends nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.evaluation.choices import letter_of
from benchfoundry.evaluation.items import EvalItem, refused_image
from benchfoundry.pipeline.model_client import ModelClient, ModelError

Progress = Callable[[int, int, int], None]
Request = Callable[[EvalItem], list[dict[str, Any]]]
#: (item, reply, protocol) -> the index of the option the reply names, or None.
Parse = Callable[[EvalItem, str, str], int | None]


def eval_dir(build: Path) -> Path:
    return build / "report" / "eval"


#: What a folder name keeps of a model's name as it is; and the names under `eval_dir` that are eval's own.
_FOLDER_SAFE = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")
_EVAL_OWN = frozenset({"cache", "index.html"})


def model_dir(build: Path, model: str) -> Path:
    """`OUT/report/eval/<folder>`, one folder per model name. A name of folder-safe characters is its own folder
    (`gpt-4o`); any other (`org/name`, `llava:13b`), or one of eval's own names (`cache`), is made readable
    (`/` → `__`, other characters → `_`) and given `=` and 8 hex digits of its SHA-256 (`org__name=1a2b3c4d`):
    no safe name holds `=`, so no two names share a folder (`llava:13b` and `llava_13b` once did)."""
    if _FOLDER_SAFE.fullmatch(model) and model not in _EVAL_OWN:
        return eval_dir(build) / model
    readable = re.sub(r"[^A-Za-z0-9_.+-]", "_", model.replace("/", "__")).lstrip(".")
    return eval_dir(build) / f"{readable}={hashlib.sha256(model.encode()).hexdigest()[:8]}"


def result_name(bench: str, protocol: str, variant: str | None = None, blind: bool = False) -> str:
    """`<bench>`, `<bench>-<variant>` (its own way of asking, EvalOptions.run_name), `<bench>-blind`,
    `<bench>-project`, …: the file stem of one run's results."""
    name = bench + (f"-{variant}" if variant else "") + ("-blind" if blind else "")
    return name + ("" if protocol == "authors" else f"-{protocol}")


def ask(
    client: ModelClient,
    items: Sequence[EvalItem],
    request: Request,
    progress: Progress | None = None,
    chunk: int = 64,
) -> list[dict[str, Any]]:
    """One prediction row per item, in order: {id, task, prediction, error}; a request or an image that
    fails is recorded with its error and the run goes on."""
    rows: list[dict[str, Any]] = []
    errors = 0
    for start in range(0, len(items), chunk):
        batch = items[start : start + chunk]
        requests, unreadable = [], {}
        for k, item in enumerate(batch):
            if item.problem is not None:
                unreadable[k] = refused_image(item)
                continue
            try:
                requests.append(request(item))
            except OSError as exc:
                unreadable[k] = f"{exc.filename}: cannot read the image ({exc.strerror})"
            except ValueError as exc:
                unreadable[k] = f"cannot read the image: {exc}"
        replies = iter(client.chat_many(requests))
        for k, item in enumerate(batch):
            result = ModelError(unreadable[k]) if k in unreadable else next(replies)
            failed = isinstance(result, ModelError)
            errors += failed
            rows.append(
                {
                    "id": item.id,
                    "task": item.task,
                    "prediction": None if failed else result.text,
                    "error": str(result) if failed else None,
                }
            )
        if progress is not None:
            progress(len(rows), len(items), errors)
    return rows


def write_predictions(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    return write_bytes_atomic(
        path, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode()
    )


def score_choices(
    items: Sequence[EvalItem],
    rows: Sequence[dict[str, Any]],
    protocol: str,
    parse: Parse,
    groups: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Accuracy over the closed items, each reply read by `parse`: a failed request and a reply that names no
    option (or, read the project's way, two) are wrong; `overall` is over all items, not the mean of the task
    columns. Each of `groups` (result key → tasks) adds the accuracy over its tasks' items (None without any)."""
    by_id = {r["id"]: r for r in rows}
    n, answered, correct = Counter(), Counter(), Counter()
    invalid = 0
    for item in items:
        if not item.options:
            continue
        n[item.task] += 1
        reply = by_id.get(item.id, {}).get("prediction")
        if reply is None:
            continue
        answered[item.task] += 1
        choice = parse(item, reply, protocol)
        invalid += choice is None
        correct[item.task] += choice is not None and letter_of(choice) == item.answer
    total = sum(n.values())
    score: dict[str, Any] = {
        "n": total,
        "answered": sum(answered.values()),
        "invalid": invalid,
        "correct": sum(correct.values()),
        "overall": sum(correct.values()) / total if total else None,
        "per_task": {task: correct[task] / n[task] for task in sorted(n)},
        "per_task_n": dict(sorted(n.items())),
    }
    for key, tasks in (groups or {}).items():
        group_n = sum(n[t] for t in tasks)
        score[key] = sum(correct[t] for t in tasks) / group_n if group_n else None
    return score
