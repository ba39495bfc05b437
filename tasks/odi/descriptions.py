"""Instance descriptions (DESIGN §3.2) and the consistency filter between detector class and description.

Backends: `openai` asks a vision-language model, through the one model client, to describe each
instance's crop; `template` writes the description from what is known: the category, the synthetic
scene's truth (colour, material, sign text) where there is one, else the crop's dominant colour name.
An instance is kept only when its description names its class (the class, a configured synonym, or
their plural, as whole words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import cv2
import numpy as np

from benchfoundry.tasks.common.model_client import ModelClient, ModelError, image_part, user_message

#: Colour names and their sRGB values, for naming a crop's dominant colour.
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


def template_description(
    category: str, colour: str | None = None, material: str | None = None, text: str | None = None
) -> str:
    """`a blue fabric sofa`, `a white paper sign that reads "EXIT"`."""
    words = " ".join(w for w in (colour, material, category) if w)
    article = "an" if words[:1].lower() in "aeiou" else "a"
    return f"{article} {words}" + (f' that reads "{text}"' if text else "")


def names_class(category: str, description: str, synonyms: dict[str, list[str]]) -> bool:
    """Whether the description names the class: the class, a synonym, or a plural of either, as whole words."""
    low = description.lower()
    for word in (category, *synonyms.get(category, ())):
        pattern = r"(?<![\w-])" + re.escape(word.lower()) + r"(?:e?s)?(?![\w-])"
        if re.search(pattern, low):
            return True
    return False


def describe_crops(
    client: ModelClient, crops: Sequence[np.ndarray], categories: Sequence[str], prompt: str
) -> list[str | ModelError]:
    """The model's description of each BGR crop (JPEG data URL), or the request's error."""
    requests = []
    for crop, category in zip(crops, categories):
        ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if not ok:
            raise ValueError(f"{category}: JPEG encoding of the crop failed")
        requests.append([user_message(prompt.format(category=category), [image_part(encoded.tobytes())])])
    return [r if isinstance(r, ModelError) else r.text for r in client.chat_many(requests)]
