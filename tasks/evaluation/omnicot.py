"""The Omni-CoT two-step for ODI-Bench items (DESIGN §3.3): the model first names a grounding box on the
panorama, the box becomes an undistorted perspective crop (tasks/odi/sphere_images.omnicot_crop), and the second
turn answers the item with that crop. A reply that is not a box sends the second turn without a crop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from benchfoundry.tasks.common.model_client import ModelClient, ModelError, image_file_part, image_part, user_message
from benchfoundry.tasks.evaluation.items import EvalItem
from benchfoundry.tasks.evaluation.run import Progress
from benchfoundry.tasks.odi import sphere_images

GROUNDING_PROMPT = (
    "To answer the question below, give the region of this panorama to look at, as a bounding box "
    "(x1, y1, x2, y2) normalised to [0, 1] of the image's width and height. Reply with the four "
    "numbers only.\nQuestion: {question}"
)
ANSWER_PROMPT = "Here is a perspective view of that region.\n{prompt}"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_box(reply: str) -> tuple[float, float, float, float] | None:
    """The first four numbers of a reply as a normalised box (x1 > x2 wraps across ±180°); None when they
    are missing, outside [0, 1] or upside down."""
    numbers = [float(n) for n in _NUMBER.findall(reply)[:4]]
    if len(numbers) < 4 or not all(0.0 <= v <= 1.0 for v in numbers) or numbers[1] > numbers[3]:
        return None
    return numbers[0], numbers[1], numbers[2], numbers[3]


def crop_part(erp: np.ndarray, box: tuple[float, float, float, float], size: int) -> dict[str, Any]:
    """The box's perspective crop as a JPEG data-URL content part."""
    crop, _ = sphere_images.omnicot_crop(erp, box, size)
    ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise ValueError(f"box {box}: JPEG encoding of the crop failed")
    return image_part(encoded.tobytes())


def _failed(item: EvalItem, error: str, turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": item.id, "task": item.task, "prediction": None, "error": error, "turns": turns}


def ask_omnicot(
    client: ModelClient, items: Sequence[EvalItem], crop_px: int = 512, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """One row per item: {id, task, prediction, error, turns}, both turns logged with the box; an item
    whose panorama cannot be read, or whose turn fails, is a row with its error."""
    firsts: dict[int, list[dict[str, Any]]] = {}
    rows: dict[int, dict[str, Any]] = {}
    for k, item in enumerate(items):
        try:
            firsts[k] = [
                user_message(GROUNDING_PROMPT.format(question=item.meta["question"]), [image_file_part(item.images[0])])
            ]
        except OSError as exc:
            rows[k] = _failed(item, f"{exc.filename}: cannot read the image ({exc.strerror})", [])
    seconds: dict[int, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    for k, reply in zip(firsts, client.chat_many(list(firsts.values()))):
        item = items[k]
        if isinstance(reply, ModelError):
            rows[k] = _failed(item, str(reply), [{"prompt": "grounding", "reply": None}])
            continue
        box = parse_box(reply.text)
        turn = {"prompt": "grounding", "reply": reply.text, "box": box}
        try:
            images = [] if box is None else [crop_part(sphere_images.read_erp(item.images[0]), box, crop_px)]
        except ValueError as exc:
            rows[k] = _failed(item, str(exc), [turn])
            continue
        seconds[k] = (
            [
                *firsts[k],
                {"role": "assistant", "content": reply.text},
                user_message(ANSWER_PROMPT.format(prompt=item.prompt), images),
            ],
            turn,
        )
    for k, answer in zip(seconds, client.chat_many([m for m, _ in seconds.values()])):
        failed = isinstance(answer, ModelError)
        rows[k] = {
            "id": items[k].id,
            "task": items[k].task,
            "prediction": None if failed else answer.text,
            "error": str(answer) if failed else None,
            "turns": [seconds[k][1], {"prompt": "answer", "reply": None if failed else answer.text}],
        }
    if progress is not None:
        progress(len(items), len(items), sum(1 for r in rows.values() if r["error"]))
    return [rows[k] for k in range(len(items))]
