"""Scoring SynDORBench predictions (docs/design/syndor.md §5): presence accuracy / macro-F1, action E5Score, under a
protocol.

One reading for `benchfoundry eval` and `benchfoundry score`, whichever wrote the predictions: eval's own rows
(`{id, task, prediction, error}`) or the authors' harness's (`{img_path, prompt, prediction}`, `task_prompt` in
its older files; a failed request is `null`).

Presence, authors (their `eval/metrics/classification.py`): a reply is read by `authors_presence` (an integer
reply is its value; other text holding both "1" and "0" is ambiguous; then yes/true/1/… is 1 and no/not/0/… is
0); an ambiguous reply and a failed request are dropped before the metrics, counted per split in
`ambiguous_dropped`. project: a reply is 1 or 0 when it contains exactly one of the characters "1" and "0"
(`parse_presence`); containing both or neither makes it invalid, counted, wrong, and against recall (a
prediction of neither class); a failed request is left out. Macro precision, recall and F1 average over the
classes that occur in the answers or the valid predictions (sklearn's `classification_report`).

Action: E5Score = cosine similarity of the L2-normalised embeddings of the prediction and of a reference,
by protocol. authors, as their harness (`eval/metrics/e5_score.py`): the reference is the row's `action` as
released (`stepping_over`), no prefix, and every prediction is embedded as it is, the empty one included
(`n_invalid` counts the empty ones, scored all the same), a failed request as the text "None" (`str(None)`).
project: the reference is the action's released phrase (`stepping over something`), the embedder's prefix
applies, an empty prediction is invalid and scores 0, a failed request is left out.
Z-scores standardise each item's E5Score within its distance range (the seed's "z-score per distance
range"): by the mean and (population) standard deviation of the E5Scores of that distance in the same
predictions file; a group's z is the mean of its items' z. Across several models scored on one build,
`zscores_across_models` standardises each model's mean E5Score per distance by the mean and standard
deviation of every model's items at that distance.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from benchfoundry.evaluation.predictions import json_object, parsed_lines

#: A presence prediction that is neither 1 nor 0 (the authors' harness: ambiguous, dropped).
INVALID = -1
#: Group key meaning "every distance" or "every split".
ALL = "all"

Embed = Callable[[list[str]], np.ndarray]
#: How E5Score reads references and empty replies: "authors" (their harness) or "project".
E5_PROTOCOLS = ("authors", "project")


_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")


def parse_presence(prediction: str) -> int:
    """The project's reading: 1, 0, or INVALID when the text holds both digits or neither."""
    has1, has0 = "1" in prediction, "0" in prediction
    if has1 == has0:
        return INVALID
    return 1 if has1 else 0


def authors_presence(reply: str | None) -> int:
    """The authors' reading (`normalize_to_label`): an integer reply is its value (0 or 1, else INVALID); other
    text holding both "1" and "0" is INVALID, then an affirmative word (yes, true, 1, …) is 1 and a negative one
    (no, not, 0, …) is 0, checked in that order; anything else, or no reply, is INVALID."""
    if reply is None:
        return INVALID
    try:
        value = int(reply)
    except ValueError:
        text = reply.lower().strip()
        if "1" in text and "0" in text:
            return INVALID
        if _AFFIRMATIVE.search(text):
            return 1
        return 0 if _NEGATIVE.search(text) else INVALID
    return value if value in (0, 1) else INVALID


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def presence_metrics(truth: Sequence[int], pred: Sequence[int]) -> dict[str, Any]:
    """Accuracy, macro precision / recall / F1 and the per-class counts of one group."""
    if len(truth) != len(pred):
        raise ValueError("truth and predictions differ in length")
    pairs = list(zip(truth, pred))
    classes = sorted(set(truth) | {p for p in pred if p != INVALID})
    per_class: dict[str, dict[str, float]] = {}
    for c in classes:
        tp = sum(1 for t, p in pairs if t == c and p == c)
        fp = sum(1 for t, p in pairs if t != c and p == c)
        fn = sum(1 for t, p in pairs if t == c and p != c)
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        per_class[str(c)] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": precision,
            "recall": recall,
            "f1": _ratio(2 * precision * recall, precision + recall),
        }
    n = len(pairs)
    macro = {
        k: (float(np.mean([m[k] for m in per_class.values()])) if per_class else 0.0)
        for k in ("precision", "recall", "f1")
    }
    return {
        "n": n,
        "n_invalid": sum(1 for p in pred if p == INVALID),
        "answers_1": sum(1 for t in truth if t == 1),
        "answers_0": sum(1 for t in truth if t == 0),
        "accuracy": _ratio(sum(1 for t, p in pairs if t == p), n),
        "macro_precision": macro["precision"],
        "macro_recall": macro["recall"],
        "macro_f1": macro["f1"],
        "per_class": per_class,
    }


def _group_keys(item: dict[str, Any]) -> list[tuple[Any, str]]:
    """The (distance, split) groups an item counts in: its cell, its split, its distance, overall."""
    radius, split = item["radius"], item["split"]
    return [(radius, split), (ALL, split), (radius, ALL), (ALL, ALL)]


def _sort_key(key: tuple[Any, str]) -> tuple[int, float, int, str]:
    radius, split = key
    split_rank = ("day", "night", "nv", ALL).index(split) if split in ("day", "night", "nv", ALL) else 9
    return (radius == ALL, 0.0 if radius == ALL else float(radius), split_rank, split)


def grouped(
    items: Iterable[dict[str, Any]], summarise: Callable[[list[dict[str, Any]]], dict[str, Any]]
) -> list[dict[str, Any]]:
    """`summarise` applied per distance × split, per split, per distance and overall, in a stable order."""
    groups: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    for item in items:
        for key in _group_keys(item):
            groups.setdefault(key, []).append(item)
    return [{"distance": k[0], "split": k[1], **summarise(groups[k])} for k in sorted(groups, key=_sort_key)]


def presence_groups(items: Iterable[dict[str, Any]], deployable: float) -> list[dict[str, Any]]:
    """Items carry `truth`, `pred` (parsed), `radius`, `split`."""

    def summarise(group: list[dict[str, Any]]) -> dict[str, Any]:
        metrics = presence_metrics([i["truth"] for i in group], [i["pred"] for i in group])
        return {**metrics, "deployable": metrics["accuracy"] >= deployable}

    return grouped(items, summarise)


def action_text(action: str) -> str:
    """An action id as words: `cover_face_with_hands` → `cover face with hands`."""
    return " ".join(action.replace("_", " ").split())


def e5_scores(predictions: Sequence[str], references: Sequence[str], embed: Embed) -> np.ndarray:
    """Cosine similarity of each prediction with its reference; each distinct text is embedded once."""
    if len(predictions) != len(references):
        raise ValueError("predictions and references differ in length")
    texts = sorted(set(predictions) | set(references))
    if not texts:
        return np.zeros(0)
    vectors = np.asarray(embed(texts), dtype=np.float64)
    where = {t: i for i, t in enumerate(texts)}
    a = vectors[[where[p] for p in predictions]]
    b = vectors[[where[r] for r in references]]
    return np.einsum("ij,ij->i", a, b)


def zscores(values: Sequence[float], tol: float = 1e-6) -> tuple[np.ndarray, dict[str, float | None]]:
    """(x − mean) / population std of `values`; NaN when the std is below `tol` (no spread to scale by)."""
    array = np.asarray(values, dtype=np.float64)
    if array.size < 2 or float(array.std()) < tol:
        return np.full(array.shape, np.nan), {"mean": float(array.mean()) if array.size else None, "std": None}
    mean, std = float(array.mean()), float(array.std())
    return (array - mean) / std, {"mean": mean, "std": std}


def action_reference(item: dict[str, Any], protocol: str) -> str:
    """What E5Score embeds as the item's truth: the released `action` under the authors' protocol, the action's
    phrase (its words, for an answer key without phrases) under the project's."""
    if protocol == "authors":
        return str(item.get("action") or item["truth"])
    return action_text(item["truth"])


def score_actions(items: list[dict[str, Any]], embed: Embed | None, protocol: str = "authors") -> dict[str, Any]:
    """Items carry `truth` (the action phrase), `action` (its released id), `prediction`, `radius`, `split`;
    adds per-group E5Score and z under `protocol` (see the module's docstring)."""
    if protocol not in E5_PROTOCOLS:
        raise ValueError(f"protocol: {protocol!r} is not one of {', '.join(E5_PROTOCOLS)}")
    authors = protocol == "authors"
    valid = [i for i in items if authors or i["prediction"].strip()]
    if valid and embed is None:
        raise ValueError("action predictions need an embedding model")
    scores = (
        e5_scores(
            [i["prediction"] if authors else i["prediction"].strip() for i in valid],
            [action_reference(i, protocol) for i in valid],
            embed,
        )
        if valid
        else []
    )
    by_id = {id(i): float(s) for i, s in zip(valid, scores)}
    values = [by_id.get(id(i), 0.0) for i in items]
    z = np.full(len(items), np.nan)
    reference: dict[str, Any] = {}
    for radius in sorted({i["radius"] for i in items}, key=float):
        at = [k for k, i in enumerate(items) if i["radius"] == radius]
        z[at], ref = zscores([values[k] for k in at])
        reference[str(radius)] = {**ref, "n": len(at)}
    scored = [
        {**i, "e5": v, "z": float(zv), "invalid": not i["prediction"].strip()} for i, v, zv in zip(items, values, z)
    ]

    def summarise(group: list[dict[str, Any]]) -> dict[str, Any]:
        zs = [g["z"] for g in group if not math.isnan(g["z"])]
        return {
            "n": len(group),
            "n_invalid": sum(1 for g in group if g["invalid"]),
            "e5score": float(np.mean([g["e5"] for g in group])),
            "z": float(np.mean(zs)) + 0.0 if zs else None,
        }

    return {
        "groups": grouped(scored, summarise),
        "z_reference": reference,
        "items": [
            {"img_path": i.get("img_path"), "radius": i["radius"], "split": i["split"], "e5": i["e5"]} for i in scored
        ],
    }


def zscores_across_models(actions: dict[str, dict[str, Any]], tol: float = 1e-6) -> dict[str, dict[str, float | None]]:
    """Model → {distance: z} from several models' `score_actions` results on one build: a model's mean
    E5Score at a distance, standardised by the mean and population std of all models' items there
    (None where the spread is below `tol`)."""
    pooled: dict[str, list[float]] = {}
    for result in actions.values():
        for item in result.get("items", []):
            pooled.setdefault(str(item["radius"]), []).append(float(item["e5"]))
    out: dict[str, dict[str, float | None]] = {}
    for model, result in actions.items():
        mine: dict[str, list[float]] = {}
        for item in result.get("items", []):
            mine.setdefault(str(item["radius"]), []).append(float(item["e5"]))
        row: dict[str, float | None] = {}
        for radius, values in mine.items():
            everyone = np.asarray(pooled[radius])
            std = float(everyone.std())
            row[radius] = None if std < tol else (float(np.mean(values)) - float(everyone.mean())) / std
        out[model] = row
    return out


def _prediction(row: dict[str, Any]) -> str | None | bool:
    """The row's reply as text, None for a failed request (`null`), False when it is missing or not text."""
    if "prediction" not in row:
        return False
    prediction = row["prediction"]
    if prediction is None:
        return None
    if isinstance(prediction, bool) or not isinstance(prediction, (str, int)):
        return False
    return str(prediction)


def parse_prediction_line(text: str) -> dict[str, Any] | str:
    """One predictions-file line as {img_path, task or prompt, prediction (None: a failed request)}, or the reason
    it is malformed. Eval's rows name the item by `id` (`<task>:<img_path>`) and `task`; the authors' by `img_path`
    and `prompt` (`task_prompt` in their older files)."""
    row = json_object(text)
    if isinstance(row, str):
        return row
    prediction = _prediction(row)
    if prediction is False:
        return "prediction missing or not a string"
    if "img_path" not in row and isinstance(row.get("id"), str) and isinstance(row.get("task"), str):
        task, _, img_path = row["id"].partition(":")
        if task != row["task"] or not img_path.strip():
            return f"id {row['id']!r} is not <task>:<img_path> of its task {row['task']!r}"
        return {"img_path": img_path.strip(), "task": task, "prediction": prediction}
    prompt = row.get("prompt", row.get("task_prompt"))
    for field, value in (("img_path", row.get("img_path")), ("prompt", prompt)):
        if not isinstance(value, str) or not value.strip():
            return f"{field} missing or not a string"
    return {"img_path": row["img_path"].strip(), "prompt": prompt.strip(), "prediction": prediction}


def match_predictions(
    lines: Iterable[str], key: dict[tuple[str, str], dict[str, Any]], prompts: dict[str, str]
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Predictions matched to answer-key items by (task, image path); bad lines by number.

    `key` maps (task, shown image path) to {truth, radius, split}; `prompts` maps prompt → task (a line of the
    authors' names its task by its prompt).
    """
    matched: dict[str, list[dict[str, Any]]] = {task: [] for task in sorted(set(prompts.values()))}
    problems: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for number, row in parsed_lines(lines, parse_prediction_line, problems):
        task = row["task"] if "task" in row else prompts.get(row["prompt"])
        if task is None:
            problems.append({"line": number, "reason": "unknown prompt (not a SynDORBench prompt)"})
            continue
        item = key.get((task, row["img_path"]))
        if item is None:
            problems.append({"line": number, "reason": f"unknown img_path {row['img_path']!r} for {task}"})
            continue
        if (task, row["img_path"]) in seen:
            problems.append(
                {"line": number, "reason": f"second prediction for {row['img_path']!r} ({task}); first kept"}
            )
            continue
        seen.add((task, row["img_path"]))
        matched.setdefault(task, []).append({**item, "img_path": row["img_path"], "prediction": row["prediction"]})
    return matched, problems


def coverage(
    matched: dict[str, list[dict[str, Any]]], key: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, dict[str, dict[str, int]]]:
    """Answer-key items, predicted items and missing items per task and split."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for (task, _), item in key.items():
        cell = table.setdefault(task, {}).setdefault(item["split"], {"items": 0, "predicted": 0, "missing": 0})
        cell["items"] += 1
    for task, items in matched.items():
        for item in items:
            table[task][item["split"]]["predicted"] += 1
    for splits in table.values():
        for cell in splits.values():
            cell["missing"] = cell["items"] - cell["predicted"]
    return table


def read_presence(items: list[dict[str, Any]], protocol: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The presence items the protocol scores, each with `pred` read by its reader, and the items dropped per
    split: the authors' drop an ambiguous reply and a failed request; the project's leaves out a failed request
    and counts an unreadable reply INVALID."""
    kept: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    for item in items:
        if protocol == "authors":
            label = authors_presence(item["prediction"])
            if label == INVALID:
                dropped[item["split"]] += 1
                continue
        elif item["prediction"] is None:
            continue
        else:
            label = parse_presence(item["prediction"])
        kept.append({**item, "pred": label})
    return kept, dict(sorted(dropped.items()))


def read_actions(items: list[dict[str, Any]], protocol: str) -> list[dict[str, Any]]:
    """The action items the protocol scores: a failed request is the text "None" to the authors' harness (it
    embeds `str(None)`), left out by the project's."""
    if protocol == "authors":
        return [{**i, "prediction": "None" if i["prediction"] is None else i["prediction"]} for i in items]
    return [i for i in items if i["prediction"] is not None]


def score_predictions(
    matched: dict[str, list[dict[str, Any]]],
    key: dict[tuple[str, str], dict[str, Any]],
    embed: Embed | None,
    deployable: float,
    protocol: str = "authors",
) -> dict[str, Any]:
    """Presence metrics and action E5Scores of matched predictions under `protocol`, with coverage of the answer
    key and the presence replies the authors' reading dropped (`ambiguous_dropped`, per split)."""
    if protocol not in E5_PROTOCOLS:
        raise ValueError(f"protocol: {protocol!r} is not one of {', '.join(E5_PROTOCOLS)}")
    presence_items, dropped = read_presence(matched.get("human_detection", []), protocol)
    result: dict[str, Any] = {"coverage": coverage(matched, key), "ambiguous_dropped": dropped}
    result["presence"] = {"deployable_accuracy": deployable, "groups": presence_groups(presence_items, deployable)}
    result["action"] = {
        **score_actions(read_actions(matched.get("action_recognition", []), protocol), embed, protocol),
        "protocol": protocol,
    }
    return result
