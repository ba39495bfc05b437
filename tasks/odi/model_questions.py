"""ODI-Bench questions written by a language model (DESIGN §3.2, the `openai` backend): the paper's GPT-4o step.

The model gets a panorama's kept instances (description and where each stands around the viewer) and
returns general-task and ODI reasoning (OR) questions as JSON: `[{"task", "question", "answer", "distractors":
[3 strings]}]`. Each proposal is checked (a known task of MODEL_TASKS, a question, an answer, three distinct
distractors that keep DESIGN §4.1's rule) and becomes a closed item with the options shuffled by the item's seed
and an open item, `source: model`, `verified: false`; a reply that is not such JSON, or a proposal that fails a
check, is a problem naming the panorama. These checks are of form only: a model's answer, OR included, cannot be
checked against the scene here (the model sees descriptions and sectors, not positions), so every model item is a
candidate for human review, as the general ones are. The other spatial items stay template-made (their
answers come from geometry), and so do the template OR items beside the model's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from benchfoundry.core.directions import distractor_pool
from benchfoundry.core.seeding import item_rng
from benchfoundry.tasks.common.model_client import user_message
from benchfoundry.tasks.odi.question_builder import quadrant
from benchfoundry.tasks.odi.questions import GENERAL

#: Tasks a model may propose: the general ones and ODI reasoning.
MODEL_TASKS = (*GENERAL, "OR")
QA_PROMPT = (
    "You write questions for a benchmark of 360° panoramas. I stand at the camera. Around me are:\n{objects}\n"
    "Write up to {n} questions about these objects' attributes, the people, what exists and how many, and any "
    'text, worded in the first person ("the chair on my left"), each with its answer and three wrong but '
    "plausible answers. Tasks: OA (object attribute), HA (human attribute), existence, counting, OCR, and OR (ODI "
    "reasoning: a question that needs a step of reasoning over the whole scene around me, such as which object is "
    "closest, or what is in front of me after I turn). Reply with "
    'JSON only: [{{"task": "OA", "question": "…", "answer": "…", "distractors": ["…", "…", "…"]}}]'
)


def objects_text(described: Sequence[tuple[str, float, str]]) -> str:
    """One line per kept instance: `- sofa (in front of me): a blue fabric sofa`."""
    return "\n".join(
        f"- {category} ({quadrant(theta)[0]}): {description}" for category, theta, description in described
    )


def qa_request(described: Sequence[tuple[str, float, str]], n: int) -> list[dict[str, Any]]:
    return [user_message(QA_PROMPT.format(objects=objects_text(described), n=n))]


def _json_list(reply: str) -> list[Any]:
    """The JSON list in a reply, fenced in ``` or bare; ValueError otherwise."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", reply, re.DOTALL)
    text = fenced.group(1) if fenced else reply[reply.find("[") : reply.rfind("]") + 1]
    found = json.loads(text)
    if not isinstance(found, list):
        raise ValueError("not a JSON list")
    return found


def _check(proposal: Any) -> str | None:
    """Why a proposal cannot be an item, or None."""
    if not isinstance(proposal, dict):
        return "not an object"
    task, question, answer = proposal.get("task"), proposal.get("question"), proposal.get("answer")
    distractors = proposal.get("distractors")
    if task not in MODEL_TASKS:
        return f"task {task!r} is not one of {list(MODEL_TASKS)}"
    if not (isinstance(question, str) and question.strip() and isinstance(answer, (str, int)) and str(answer).strip()):
        return "question or answer missing"
    if not (
        isinstance(distractors, list) and len(distractors) == 3 and all(isinstance(d, (str, int)) for d in distractors)
    ):
        return "distractors are not three strings"
    answer_text = str(answer).strip()
    wrong = [str(d).strip() for d in distractors]
    if len(set(wrong)) < 3 or any(w.lower() == answer_text.lower() for w in wrong):
        return "distractors repeat each other or the answer"
    if distractor_pool(answer_text, wrong) != wrong:
        return "a distractor contains the answer or is part of it"
    return None


def model_items(reply: str, panorama: str, image: str, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Closed and open items from the model's reply, and why each rejected proposal (or the reply) failed."""
    try:
        proposals = _json_list(reply)
    except ValueError as exc:
        return [], [f"{panorama}: the QA reply is not a JSON list ({exc})"]
    items, problems = [], []
    for k, proposal in enumerate(proposals):
        reason = _check(proposal)
        if reason is not None:
            problems.append(f"{panorama}: proposal {k}: {reason}")
            continue
        answer = str(proposal["answer"]).strip()
        options = [answer, *(str(d).strip() for d in proposal["distractors"])]
        item_id = f"{panorama}:{proposal['task']}:model{k:03d}"
        order = item_rng(seed, "odi.qa.options", item_id).permutation(4)
        base = {
            "task": proposal["task"],
            "question": proposal["question"].strip(),
            "answer": answer,
            "image": image,
            "instance_ids": [],
            "source": "model",
            "verified": False,
        }
        items.append({"id": f"{item_id}:closed", "form": "closed", **base, "options": [options[i] for i in order]})
        items.append({"id": f"{item_id}:open", "form": "open", **base, "options": []})
    return items, problems
