"""Omni-CoT for ODI-Bench items (the paper's three steps, docs/design/odi.md §3; `eval odi --omni-cot MODE`, through
evaluation.py), each step switchable for its ablation:

1. viewpoint guiding: the panorama's six perspective views (front, right, back, left, top, bottom) are each
   described by the model; the descriptions, tagged with their direction, are prepended to the question as
   text and the model answers with the panorama (the first answer);
2. crop grounding: the model names a box on the panorama, which becomes an undistorted perspective crop
   (benchmarks/odi/sphere_images.omnicot_crop); refinement: the model says whether that crop is relevant
   (yes/no), and an irrelevant crop (or no box) falls back to the full view alone;
3. answer revision: the panorama, the six descriptions, the kept crop tagged with its direction and the
   first answer go back to the model, which answers again.

Modes (`--omni-cot`), the columns of the paper's Tables 4 and 5: `guide` stops after step 1 ("w/ viewpoint
guiding"); `ground` runs steps 1–3 without refinement ("+ crop grounding, no refinement"); `full` runs all
("w/ full Omni-CoT"). `off` is the baseline (evaluation/run.ask). The paper's prompts are not public:
the wording here is the project's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.odi.harnesses.omnicot_options import MODES, OmniCotConfig
from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.evaluation.items import EvalItem, refused_image
from benchfoundry.evaluation.protocols import prompt_text
from benchfoundry.evaluation.run import Progress
from benchfoundry.pipeline.model_client import (
    ModelClient,
    ModelError,
    Reply,
    image_file_part,
    image_part,
    user_message,
)

DESCRIBE_PROMPT = (
    "This is the view {where} in a 360° panorama, seen from where I stand. "
    "Describe what it shows in one or two sentences."
)
GUIDE_PROMPT = "The panorama around me, seen as six views:\n{views}\n\n{prompt}"
GROUNDING_PROMPT = (
    "To answer the question below, give the region of this panorama to look at, as a bounding box "
    "(x1, y1, x2, y2) normalised to [0, 1] of the image's width and height. Reply with the four "
    "numbers only.\nQuestion: {question}"
)
REFINE_PROMPT = (
    "This is a close-up of the panorama, {where}. Does it help to answer the question below? "
    "Answer yes or no.\nQuestion: {question}"
)
REVISE_PROMPT = (
    "The panorama around me, seen as six views:\n{views}\n\n{crop}"
    "Your previous answer was: {previous}\nRethink with the views{and_crop}, then answer.\n{prompt}"
)
CROP_NOTE = "After the panorama comes a close-up of the region that matters, {where}.\n"
#: Where each described view looks, in the questions' first-person words.
VIEW_WHERE = {
    "front": "in front of me",
    "right": "on my right",
    "back": "behind me",
    "left": "on my left",
    "top": "above me",
    "bottom": "below me",
}
_NUMBER = r"-?\d+(?:\.\d+)?"


def parse_box(reply: str) -> tuple[float, float, float, float] | None:
    """The first four numbers of a reply as a normalised box (x1 > x2 wraps across ±180°); None when they
    are missing, outside [0, 1] or upside down."""
    numbers = [float(n) for n in re.findall(_NUMBER, reply)[:4]]
    if len(numbers) < 4 or not all(0.0 <= v <= 1.0 for v in numbers) or numbers[1] > numbers[3]:
        return None
    return numbers[0], numbers[1], numbers[2], numbers[3]


def parse_yes(reply: str) -> bool:
    """Whether a yes/no reply says yes (and not no)."""
    words = {w.lower() for w in re.findall(r"\b(yes|no)\b", reply, re.IGNORECASE)}
    return words == {"yes"}


def direction_words(theta_deg: float, phi_deg: float) -> str:
    """A view centre in the questions' words: "on my right, slightly above (θ 80°, φ 20°)" (θ 0 ahead, +90 right)."""
    sector = ("in front of me", "on my right", "behind me", "on my left")[int(((theta_deg + 45.0) % 360.0) // 90.0)]
    height = " and above" if phi_deg > 30.0 else " and below" if phi_deg < -30.0 else ""
    return f"centred {sector}{height} (θ {theta_deg:.0f}°, φ {phi_deg:.0f}°)"


def _jpeg_part(image: np.ndarray) -> dict[str, Any]:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise ValueError("JPEG encoding of a view failed")
    return image_part(encoded.tobytes())


def _text(reply: Reply | ModelError) -> str | None:
    return None if isinstance(reply, ModelError) else reply.text


class _Panorama:
    """One panorama's six described views (its content parts and the descriptions)."""

    def __init__(self, path: Path, config: OmniCotConfig) -> None:
        self.path = path
        self.error: str | None = None
        self.view_parts: dict[str, dict[str, Any]] = {}
        self.descriptions: dict[str, str | None] = {}
        try:
            views = sphere_images.omnicot_views(sphere_images.read_erp(path), config.view_px)
            self.view_parts = {face: _jpeg_part(img) for face, img in views.items()}
        except (OSError, ValueError) as exc:
            self.error = f"{path}: cannot read the panorama ({exc})"

    def views_text(self) -> str:
        return "\n".join(
            f"{face} ({VIEW_WHERE[face]}): {text if text is not None else '(no description)'}"
            for face, text in self.descriptions.items()
        )


def _describe(client: ModelClient, panoramas: Sequence[_Panorama]) -> None:
    wanted = [(p, face, part) for p in panoramas if p.error is None for face, part in p.view_parts.items()]
    requests = [[user_message(DESCRIBE_PROMPT.format(where=VIEW_WHERE[face]), [part])] for _, face, part in wanted]
    for (panorama, face, _), reply in zip(wanted, client.chat_many(requests)):
        panorama.descriptions[face] = _text(reply)


def _crop(item: EvalItem, box: tuple[float, float, float, float], config: OmniCotConfig) -> tuple[dict[str, Any], str]:
    crop, view = sphere_images.omnicot_crop(
        sphere_images.read_erp(item.images[0]), box, config.crop_px, margin_deg=config.margin_deg
    )
    return _jpeg_part(crop), direction_words(view.theta_deg, view.phi_deg)


def ask_omnicot(
    client: ModelClient,
    items: Sequence[EvalItem],
    mode: str,
    config: OmniCotConfig,
    protocol: str,
    progress: Progress | None = None,
    chunk: int = 32,
) -> list[dict[str, Any]]:
    """One row per item: {id, task, prediction (the last answer), error, turns (every step's prompt kind and
    reply, the box, whether the crop was kept)}; an item whose panorama or a step fails is a row with its error."""
    if mode not in MODES[1:]:
        raise ValueError(f"Omni-CoT mode {mode!r}: one of {MODES[1:]}")
    rows: list[dict[str, Any]] = []
    for start in range(0, len(items), chunk):
        batch = items[start : start + chunk]
        asked = iter(_chunk(client, [i for i in batch if i.problem is None], mode, config, protocol))
        rows += [next(asked) if i.problem is None else _row(i, ModelError(refused_image(i)), []) for i in batch]
        if progress is not None:
            progress(len(rows), len(items), sum(1 for r in rows if r["error"]))
    return rows


def _row(item: EvalItem, reply: str | ModelError, turns: list[dict[str, Any]]) -> dict[str, Any]:
    failed = isinstance(reply, ModelError)
    return {
        "id": item.id,
        "task": item.task,
        "prediction": None if failed else reply,
        "error": str(reply) if failed else None,
        "turns": turns,
    }


class _Steps:
    """One chunk of items through the steps, each step one `chat_many` over the items still going."""

    def __init__(self, client: ModelClient, items: Sequence[EvalItem], config: OmniCotConfig, protocol: str) -> None:
        self.client, self.items, self.config, self.protocol = client, items, config, protocol
        self.panoramas = {p: _Panorama(p, config) for p in dict.fromkeys(item.images[0] for item in items)}
        _describe(client, list(self.panoramas.values()))
        self.turns = {
            k: [{"step": "views", "descriptions": dict(self._panorama(k).descriptions)}] for k in range(len(items))
        }
        self.crops: dict[int, tuple[dict[str, Any], str]] = {}

    def _panorama(self, k: int) -> _Panorama:
        return self.panoramas[self.items[k].images[0]]

    def _ask(self, step: str, requests: dict[int, list[dict[str, Any]]]) -> dict[int, str | ModelError]:
        replies = dict(zip(requests, self.client.chat_many(list(requests.values()))))
        for k, reply in replies.items():
            self.turns[k].append({"step": step, "reply": None if isinstance(reply, ModelError) else reply.text})
        return {k: r if isinstance(r, ModelError) else r.text for k, r in replies.items()}

    def _prompt(self, k: int) -> str:
        return prompt_text(self.items[k], self.protocol)

    def guided(self) -> dict[int, str | ModelError]:
        """Step 1: the answer with the six views described (items whose panorama is unreadable: its error)."""
        live = [k for k in range(len(self.items)) if self._panorama(k).error is None]
        answers = self._ask(
            "guided answer",
            {
                k: [
                    user_message(
                        GUIDE_PROMPT.format(views=self._panorama(k).views_text(), prompt=self._prompt(k)),
                        [image_file_part(self.items[k].images[0])],
                    )
                ]
                for k in live
            },
        )
        return {
            k: answers[k] if k in answers else ModelError(str(self._panorama(k).error)) for k in range(len(self.items))
        }

    def ground(self, live: Sequence[int]) -> None:
        """Step 2: a box from the model, its crop."""
        question = lambda k: GROUNDING_PROMPT.format(question=self.items[k].question)
        boxes = self._ask(
            "grounding", {k: [user_message(question(k), [image_file_part(self.items[k].images[0])])] for k in live}
        )
        for k, reply in boxes.items():
            box = None if isinstance(reply, ModelError) else parse_box(reply)
            self.turns[k][-1]["box"] = box
            if box is None:
                continue
            try:
                self.crops[k] = _crop(self.items[k], box, self.config)
            except (OSError, ValueError) as exc:
                self.turns[k][-1]["error"] = f"no crop: {exc}"

    def refine(self) -> None:
        """Step 2, refinement: a crop the model does not call relevant is dropped (the full view stays)."""
        verdicts = self._ask(
            "refinement",
            {
                k: [user_message(REFINE_PROMPT.format(where=where, question=self.items[k].question), [part])]
                for k, (part, where) in self.crops.items()
            },
        )
        for k, verdict in verdicts.items():
            keep = not isinstance(verdict, ModelError) and parse_yes(verdict)
            self.turns[k][-1]["kept"] = keep
            if not keep:
                del self.crops[k]

    def revise(self, first: dict[int, str]) -> dict[int, str | ModelError]:
        """Step 3: the answer again, with the views, the kept crop and the first answer."""

        def request(k: int) -> list[dict[str, Any]]:
            crop = self.crops.get(k)
            text = REVISE_PROMPT.format(
                views=self._panorama(k).views_text(),
                crop=CROP_NOTE.format(where=crop[1]) if crop else "",
                previous=first[k],
                and_crop=" and the close-up" if crop else "",
                prompt=self._prompt(k),
            )
            return [user_message(text, [image_file_part(self.items[k].images[0]), *([crop[0]] if crop else [])])]

        answers = self._ask("revision", {k: request(k) for k in first})
        for k in answers:
            self.turns[k][-1]["crop"] = k in self.crops
        return answers


def _chunk(
    client: ModelClient, items: Sequence[EvalItem], mode: str, config: OmniCotConfig, protocol: str
) -> list[dict[str, Any]]:
    steps = _Steps(client, items, config, protocol)
    answers = steps.guided()
    if mode != "guide":
        first = {k: a for k, a in answers.items() if not isinstance(a, ModelError)}
        steps.ground(list(first))
        if mode == "full":
            steps.refine()
        answers |= steps.revise(first)
    return [_row(item, answers[k], steps.turns[k]) for k, item in enumerate(items)]
