"""An LLM judge for free-form answers (those a benchmark's evaluation hands it, hooks.Evaluation.judged): any
OpenAI-compatible model through the one model client, so its verdicts are cached and retried like every other
request.

The judge reads the task's rubric (configs/evaluation.JudgeConfig), the question, the reference and the
model's answer, and replies with an integer 0 … scale; the first integer of its reply is the score. An item
the model did not answer scores 0; an item whose verdict cannot be had or read is left out and counted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchfoundry.configs.evaluation import JudgeConfig
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.pipeline.model_client import ModelClient, ModelError, user_message

JUDGE_TEMPLATE = (
    "You grade a model's answer to a question about an image, against the reference answer.\n"
    "{rubric}\n\nQuestion: {question}\nReference answer: {reference}\nModel's answer: {reply}\n\n"
    "Reply with the score only: an integer from 0 to {scale}."
)
_INTEGER = re.compile(r"(?<![\d.])-?\d+(?![\d.])")


def rubric_for(config: JudgeConfig, task: str) -> str:
    return config.rubrics.get(task, config.default_rubric)


def rubrics_sha256(config: JudgeConfig) -> str:
    """A hash of what the judge is told (template, rubrics, scale): two results with the same hash were judged alike."""
    text = json.dumps([JUDGE_TEMPLATE, config.model_dump(mode="json")], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def parse_score(reply: str, scale: int) -> int | None:
    """The first integer of the judge's reply, when it lies in 0 … scale."""
    found = _INTEGER.search(reply)
    if found is None:
        return None
    value = int(found.group())
    return value if 0 <= value <= scale else None


def judge_request(config: JudgeConfig, item: EvalItem, rubric_task: str, reply: str) -> list[dict[str, Any]]:
    text = JUDGE_TEMPLATE.format(
        rubric=rubric_for(config, rubric_task),
        question=item.question,
        reference=item.answer,
        reply=reply,
        scale=config.scale,
    )
    return [user_message(text)]


def judge_replies(
    client: ModelClient,
    config: JudgeConfig,
    items: Sequence[EvalItem],
    rows: Sequence[dict[str, Any]],
    rubric_task: str | None = None,
) -> list[dict[str, Any]]:
    """One verdict row per item: {id, task, score (0 … scale, or None), judge_reply, error}. `rubric_task`
    names one rubric for every item (a benchmark's `Evaluation.rubric_task`); otherwise each item's task picks
    its rubric."""
    by_id = {r["id"]: r for r in rows}
    verdicts: dict[int, dict[str, Any]] = {}
    asked: list[int] = []
    requests = []
    for k, item in enumerate(items):
        reply = by_id.get(item.id, {}).get("prediction")
        if reply is None:
            verdicts[k] = {"id": item.id, "task": item.task, "score": 0, "judge_reply": None, "error": "no answer"}
            continue
        asked.append(k)
        requests.append(judge_request(config, item, rubric_task or item.task, reply))
    for k, verdict in zip(asked, client.chat_many(requests)):
        item = items[k]
        if isinstance(verdict, ModelError):
            verdicts[k] = {"id": item.id, "task": item.task, "score": None, "judge_reply": None, "error": str(verdict)}
            continue
        score = parse_score(verdict.text, config.scale)
        verdicts[k] = {
            "id": item.id,
            "task": item.task,
            "score": score,
            "judge_reply": verdict.text,
            "error": None if score is not None else f"judge reply has no score in 0…{config.scale}",
        }
    return [verdicts[k] for k in range(len(items))]


def summarise(
    verdicts: Sequence[dict[str, Any]], scale: int, groups: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Mean judge score as a share of the scale, overall, per task and (given item id → group) per group, over
    the verdicts that have one."""

    def mean_of(keyed: Callable[[dict[str, Any]], str]) -> dict[str, float]:
        found: dict[str, list[int]] = defaultdict(list)
        for v in verdicts:
            if v["score"] is not None:
                found[keyed(v)].append(v["score"])
        return {k: sum(s) / (scale * len(s)) for k, s in sorted(found.items())}

    scores = [v["score"] for v in verdicts if v["score"] is not None]
    result = {
        "n": len(verdicts),
        "judged": len(scores),
        "judge_failed": sum(1 for v in verdicts if v["score"] is None),
        "overall": sum(scores) / (scale * len(scores)) if scores else None,
        "per_task": mean_of(lambda v: v["task"]),
    }
    if groups is not None:
        result["per_group"] = mean_of(lambda v: groups[v["id"]])
    return result
