"""How an item is put to a model and how its reply is read: the authors' protocol of each benchmark, or the
project's (DESIGN §7).

authors (the default; reproduces a published row):
- viewspatial, as `evaluate.py` (ZJU-REAL/ViewSpatial-Bench) sends it to the API models: one user turn, the
  text `question + choices + "\\nReply only to the corresponding option.\\nAnswer:"` (no separator between
  question and choices) before the images; the answer is the first standalone A–D letter, in any case, on the
  reply's last line (so a lower-case article "a" there reads as A).
- syndor, as the authors' harness (jzyee/SynDORBench `eval/metrics/classification.py`): the prompt verbatim;
  a presence reply is read by `authors_presence`, and an ambiguous one is dropped before scoring; an action
  reply's E5Score is taken against the released `action` (`stepping_over`), with no prefix, the empty reply
  embedded as it is (`eval/metrics/e5_score.py`; tasks/syndor/scoring.py).
- odi, as the paper states its closed form (multiple choice with lettered options, or yes/no; accuracy): the
  question, the lettered options and "Answer with the option's letter…"; a yes/no item is asked for yes or
  no. The authors' prompt text and parser are not public: a reply names an option by letter or text.
project: every closed item lettered with the project's template and read by `choices.parse_choice`; a SynD
presence reply holding both or neither of "1" and "0" is invalid and counts as wrong; an action reply's E5Score
is taken against the action's phrase (`stepping over something`), with the embedding model's prefix, and an
empty reply scores 0.
"""

from __future__ import annotations

import re
from typing import Any

from benchfoundry.tasks.common.model_client import image_file_part, user_message
from benchfoundry.tasks.evaluation.choices import letter_of, parse_choice
from benchfoundry.tasks.evaluation.items import EvalItem

PROTOCOLS = ("authors", "project")
#: ViewSpatial's `evaluate.py`: appended to question + choices.
VIEWSPATIAL_SUFFIX = "\nReply only to the corresponding option.\nAnswer:"
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
YES_NO_INSTRUCTION = "Answer yes or no."
#: The project's multiple-choice prompt: the question, the lettered options, and how to answer.
MC_TEMPLATE = "{question}\n{choices}\n" + MC_INSTRUCTION
#: A presence reply the authors' harness cannot read (dropped before scoring).
AMBIGUOUS = -1

_VIEWSPATIAL_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)
_AFFIRMATIVE = re.compile(r"\b(yes|affirmative|true|correct|positive|1)\b")
_NEGATIVE = re.compile(r"\b(no|none|not|absent|empty|0)\b")
_YES_NO_WORD = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def prompt_text(item: EvalItem, protocol: str, bench: str) -> str:
    """The text of the item's user turn."""
    if not item.options:
        return item.question
    choices = "\n".join(item.options)
    if protocol == "authors" and bench == "viewspatial":
        return item.question + item.meta.get("choices", choices) + VIEWSPATIAL_SUFFIX
    if protocol == "authors" and item.yes_no:
        return f"{item.question}\n{YES_NO_INSTRUCTION}"
    return MC_TEMPLATE.format(question=item.question, choices=choices)


def request(item: EvalItem, protocol: str, bench: str, blind: bool = False) -> list[dict[str, Any]]:
    """The item's messages: one user turn with its images (none when blind); OSError when an image is unreadable.
    ViewSpatial's authors send the text before the images, everyone else the images first."""
    text = prompt_text(item, protocol, bench)
    images = [] if blind else [image_file_part(p) for p in item.images]
    if protocol == "authors" and bench == "viewspatial" and images:
        return [{"role": "user", "content": [{"type": "text", "text": text}, *images]}]
    return [user_message(text, images)]


def viewspatial_letter(reply: str) -> str | None:
    """`evaluate.py`'s reading: the first standalone A–D letter, any case, on the reply's last line."""
    found = _VIEWSPATIAL_LETTER.search(reply.split("\n")[-1])
    return found.group(1).upper() if found else None


def _yes_no(item: EvalItem, reply: str) -> int | None:
    words = {w.lower() for w in _YES_NO_WORD.findall(reply)}
    if len(words) != 1:
        return parse_choice(reply, item.options)
    return [t.lower() for t in item.texts].index(words.pop())


def parse_reply(item: EvalItem, reply: str, protocol: str, bench: str) -> int | None:
    """The index of the option a closed item's reply names, None when it names none (or, by the project's
    reading, two)."""
    if protocol == "authors" and bench == "viewspatial":
        letter = viewspatial_letter(reply)
        letters = [letter_of(k) for k in range(len(item.options))]
        return letters.index(letter) if letter in letters else None
    if protocol == "authors" and item.yes_no:
        return _yes_no(item, reply)
    return parse_choice(reply, item.options)


def answer_reply(item: EvalItem, index: int, protocol: str) -> str:
    """The shortest reply that names option `index` under the protocol (what the random baseline says)."""
    if protocol == "authors" and item.yes_no:
        return item.texts[index]
    return letter_of(index)


def authors_presence(reply: str | None) -> int:
    """A presence reply as the SynDOR harness reads it: an integer reply is its value (0 or 1, else ambiguous);
    other text holding both "1" and "0" is ambiguous, then an affirmative word (yes, true, 1, …) is 1 and a
    negative one (no, not, 0, …) is 0, checked in that order; anything else, or no reply, is ambiguous."""
    if reply is None:
        return AMBIGUOUS
    try:
        value = int(reply)
    except ValueError:
        text = reply.lower().strip()
        if "1" in text and "0" in text:
            return AMBIGUOUS
        if _AFFIRMATIVE.search(text):
            return 1
        return 0 if _NEGATIVE.search(text) else AMBIGUOUS
    return value if value in (0, 1) else AMBIGUOUS
