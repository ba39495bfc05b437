"""Instance descriptions (docs/design/odi.md §2.2) and the consistency filter between the detector's class and a
description.

A describer is shown an instance's crop and never told the detector's class. It answers with a `Description`:
what the object is, one sentence, and what the questions need (colour, material, the text written on it; for a
person what they wear, do and hold). Backends: `openai` asks a vision-language model through the one model
client with `odi.qa.describe_prompt` and reads its JSON reply (a reply that is not JSON is kept as the sentence);
`template` stands in for that model on the synthetic panoramas (benchmarks/odi/stages/questions/template_describer.py).
An instance is
kept only when its description names its class (the class, a configured synonym, or their plural, as whole words).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np

from benchfoundry.pipeline.model_client import ModelClient, ModelError, image_part, user_message

#: Colour names and their sRGB values, for naming a colour.
NAMED_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (200, 30, 30),
    "orange": (240, 140, 20),
    "yellow": (230, 210, 40),
    "green": (40, 150, 50),
    "blue": (30, 70, 200),
    "purple": (120, 50, 160),
    "brown": (120, 70, 30),
    "black": (15, 15, 15),
    "white": (240, 240, 240),
    "grey": (128, 128, 128),
}


@dataclass(frozen=True)
class Description:
    """What a describer says of one crop; attributes it cannot tell are None."""

    object: str
    sentence: str
    colour: str | None = None
    material: str | None = None
    text: str | None = None
    clothing: str | None = None
    action: str | None = None
    holding: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _lab(rgb: np.ndarray) -> np.ndarray:
    pixels = np.asarray(rgb, dtype=np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).reshape(-1, 3).astype(float)


def colour_name(pixels: np.ndarray) -> str:
    """The named colour nearest (CIE Lab) to the median of (N, 3) RGB pixels."""
    if len(pixels) == 0:
        raise ValueError("no pixels to name a colour from")
    median = np.median(np.asarray(pixels).reshape(-1, 3), axis=0)
    names = list(NAMED_COLOURS)
    distances = np.linalg.norm(_lab(np.array([NAMED_COLOURS[n] for n in names])) - _lab(median[None]), axis=1)
    return names[int(np.argmin(distances))]


def with_article(words: str) -> str:
    """`an orange shirt`, `a blue sofa`."""
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


def template_description(
    category: str, colour: str | None = None, material: str | None = None, text: str | None = None
) -> str:
    """`a blue fabric sofa`, `a white paper sign that reads "EXIT"`."""
    words = " ".join(w for w in (colour, material, category) if w)
    return with_article(words) + (f' that reads "{text}"' if text else "")


def names_class(category: str, description: Description | str, synonyms: dict[str, list[str]]) -> bool:
    """Whether the description names the class: the class, a synonym, or a plural of either, as whole words."""
    low = (description if isinstance(description, str) else f"{description.object}. {description.sentence}").lower()
    for word in (category, *synonyms.get(category, ())):
        pattern = r"(?<![\w-])" + re.escape(word.lower()) + r"(?:e?s)?(?![\w-])"
        if re.search(pattern, low):
            return True
    return False


def _text(value: Any) -> str | None:
    """A JSON value as a stripped string; None for null, empty, "none" or "null"."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return None if text.lower() in ("", "none", "null", "n/a", "nothing") else text


def parse_description(reply: str) -> Description:
    """A describer's reply: the JSON object of `odi.qa.describe_prompt` (fenced or bare), else the whole reply as
    its sentence with no attributes."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", reply, re.DOTALL)
    text = fenced.group(1) if fenced else reply[reply.find("{") : reply.rfind("}") + 1]
    try:
        found = json.loads(text)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        return Description(object="", sentence=reply.strip())
    person = found.get("person") if isinstance(found.get("person"), dict) else {}
    return Description(
        object=_text(found.get("object")) or "",
        sentence=_text(found.get("description")) or "",
        colour=_text(found.get("colour", found.get("color"))),
        material=_text(found.get("material")),
        text=_text(found.get("text")),
        clothing=_text(person.get("clothing")),
        action=_text(person.get("action")),
        holding=_text(person.get("holding")),
    )


def describe_crops(client: ModelClient, crops: Sequence[np.ndarray], prompt: str) -> list[Description | ModelError]:
    """The model's description of each BGR crop (a JPEG data URL and the prompt, no class), or the request's error."""
    requests = []
    for k, crop in enumerate(crops):
        ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if not ok:
            raise ValueError(f"crop {k}: JPEG encoding failed")
        requests.append([user_message(prompt, [image_part(encoded.tobytes())])])
    return [r if isinstance(r, ModelError) else parse_description(r.text) for r in client.chat_many(requests)]
