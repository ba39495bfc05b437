"""What a language model writes for ODI-Bench (docs/design/odi.md §2.5, the `openai` backend): the paper's GPT-4o steps.

Questions: the model gets a panorama (`panorama_part`: the ERP scaled to `odi.qa.model_image_width`) and its
kept instances (description and the side of me each stands on) and returns general-task and ODI reasoning (OR)
questions as JSON: `[{"task", "question", "answer", "distractors": [3 strings]}]`. Each proposal is checked (a task
of MODEL_TASKS, a question, an answer, three distinct distractors that keep the rule of docs/design/viewspatial.md §1.6)
and becomes a candidate (`source: model`, `answer_from: model`) that the budget may choose like the others; its answer
cannot be checked against the scene here, so it waits for review as every item does.

Distractors: for a chosen closed question whose answer is not from a fixed label set (an attribute, what a person
does or wears, a text), the model gets the question, its answer and the panorama and writes three wrong but
plausible answers; they replace the template's pool (`distractors_from: model`). A reply that is not such JSON,
or a proposal that fails a check, is a problem naming the panorama, and the template's options stay.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2

from benchfoundry.benchmarks.odi.identity import GENERAL
from benchfoundry.benchmarks.odi.stages.panoramas import display_bgr, load_panorama
from benchfoundry.benchmarks.odi.stages.questions.answers import in_sector
from benchfoundry.benchmarks.odi.stages.questions.question_builder import QUADRANTS, Candidate
from benchfoundry.core.directions import distractor_pool
from benchfoundry.pipeline.model_client import image_part, user_message

#: Tasks a model may propose: the general ones and ODI reasoning.
MODEL_TASKS = (*GENERAL, "OR")
QA_PROMPT = (
    "You write questions for a benchmark of 360° panoramas. The image is the equirectangular panorama; I stand "
    "at the camera, facing its centre. Around me are:\n{objects}\n"
    "Write up to {n} questions about these objects' attributes, the people, what exists and how many, and any "
    'text, worded in the first person ("the chair on my left"), each with its answer and three wrong but '
    "plausible answers. Tasks: OA (object attribute), HA (human attribute), existence, counting, OCR, and OR (ODI "
    "reasoning: a question that needs a step of reasoning over the whole scene around me, such as which object is "
    "closest, or what is in front of me after I turn). Reply with "
    'JSON only: [{{"task": "OA", "question": "…", "answer": "…", "distractors": ["…", "…", "…"]}}]'
)
DISTRACTOR_PROMPT = (
    "This is a 360° equirectangular panorama; I stand at the camera, facing its centre. A multiple-choice question "
    "about it:\nQuestion: {question}\nCorrect answer: {answer}\nWrite three wrong but plausible answers of the same "
    "kind, each different from the correct answer and from each other, and none of them also true of this "
    'panorama. Reply with JSON only: ["…", "…", "…"]'
)


def panorama_part(path: Path, width: int) -> dict[str, Any]:
    """The panorama scaled to `width` (no larger than it is) as a JPEG content part."""
    bgr = display_bgr(load_panorama(path))
    if bgr.shape[1] > width:
        bgr = cv2.resize(bgr, (width, width // 2), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise ValueError(f"{path}: JPEG encoding of the panorama failed")
    return image_part(data.tobytes())


def side_phrase(theta: float) -> str:
    """The side of me a direction is on, as the prompt says it."""
    return next(phrase for phrase, centre in QUADRANTS if in_sector(theta, centre, 0.0) is not False)


def objects_text(described: Sequence[tuple[str, float, str]]) -> str:
    """One line per kept instance: `- sofa (in front of me): a blue fabric sofa`."""
    return "\n".join(f"- {category} ({side_phrase(theta)}): {text}" for category, theta, text in described)


def qa_request(
    described: Sequence[tuple[str, float, str]], n: int, panorama: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    return [user_message(QA_PROMPT.format(objects=objects_text(described), n=n), [panorama] if panorama else [])]


def distractor_request(question: str, answer: str, panorama: dict[str, Any]) -> list[dict[str, Any]]:
    return [user_message(DISTRACTOR_PROMPT.format(question=question, answer=answer), [panorama])]


def _json_list(reply: str) -> list[Any]:
    """The JSON list in a reply, fenced in ``` or bare; ValueError otherwise."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", reply, re.DOTALL)
    text = fenced.group(1) if fenced else reply[reply.find("[") : reply.rfind("]") + 1]
    found = json.loads(text)
    if not isinstance(found, list):
        raise ValueError("not a JSON list")
    return found


def check_distractors(answer: str, distractors: Any) -> str | None:
    """Why `distractors` cannot be a closed question's three wrong options, or None."""
    if not (
        isinstance(distractors, list) and len(distractors) == 3 and all(isinstance(d, (str, int)) for d in distractors)
    ):
        return "distractors are not three strings"
    wrong = [str(d).strip() for d in distractors]
    if len(set(wrong)) < 3 or any(not w or w.lower() == answer.lower() for w in wrong):
        return "distractors repeat each other or the answer"
    if distractor_pool(answer, wrong) != wrong:
        return "a distractor contains the answer or is part of it"
    return None


def _check(proposal: Any) -> str | None:
    """Why a proposal cannot be a question, or None."""
    if not isinstance(proposal, dict):
        return "not an object"
    task, question, answer = proposal.get("task"), proposal.get("question"), proposal.get("answer")
    if task not in MODEL_TASKS:
        return f"task {task!r} is not one of {list(MODEL_TASKS)}"
    if not (isinstance(question, str) and question.strip() and isinstance(answer, (str, int)) and str(answer).strip()):
        return "question or answer missing"
    return check_distractors(str(answer).strip(), proposal.get("distractors"))


def model_candidates(reply: str, panorama: str) -> tuple[list[Candidate], list[str]]:
    """Candidates from the model's reply, and why each rejected proposal (or the reply) failed."""
    try:
        proposals = _json_list(reply)
    except ValueError as exc:
        return [], [f"{panorama}: the QA reply is not a JSON list ({exc})"]
    found, problems = [], []
    for k, proposal in enumerate(proposals):
        reason = _check(proposal)
        if reason is not None:
            problems.append(f"{panorama}: proposal {k}: {reason}")
            continue
        answer = str(proposal["answer"]).strip()
        found.append(
            Candidate(
                task=proposal["task"],
                kind="model",
                key=f"model{k:03d}",
                question=proposal["question"].strip(),
                answer=answer,
                options=(answer, *(str(d).strip() for d in proposal["distractors"])),
                instance_ids=(),
                spec=None,
                answer_from="model",
                source="model",
            )
        )
    return found, problems


def model_distractors(reply: str, answer: str) -> tuple[str, ...] | str:
    """The three wrong options of a distractor reply, or why there are none."""
    try:
        found = _json_list(reply)
    except ValueError as exc:
        return f"the distractor reply is not a JSON list ({exc})"
    reason = check_distractors(answer, found)
    return reason if reason is not None else tuple(str(d).strip() for d in found)
