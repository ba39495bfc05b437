"""How an item is put to a model and how its reply is read, by protocol (docs/design/evaluation.md §1): the generic
readings every benchmark's evaluation starts from (evaluation/hooks.Evaluation); a benchmark whose authors ask or read
otherwise says so in its own evaluation module.

authors (the default; reproduces a published row): a closed item is the question, its lettered options and "Answer
with the option's letter…"; a yes/no item is asked for yes or no and read as the one of yes and no its reply says
(else as the project reads it); a reply names an option by letter or text (`choices.parse_choice`).
project: every closed item lettered with the project's template and read by `choices.parse_choice`.
A free-form item is its question under either protocol.
"""

from __future__ import annotations

import re
from typing import Any

from benchfoundry.evaluation.choices import letter_of, parse_choice
from benchfoundry.evaluation.items import EvalItem

PROTOCOLS = ("authors", "project")
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
YES_NO_INSTRUCTION = "Answer yes or no."
#: The project's multiple-choice prompt: the question, the lettered options, and how to answer.
MC_TEMPLATE = "{question}\n{choices}\n" + MC_INSTRUCTION

_YES_NO_WORD = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def prompt_text(item: EvalItem, protocol: str) -> str:
    """The text of the item's user turn."""
    if not item.options:
        return item.question
    if protocol == "authors" and item.yes_no:
        return f"{item.question}\n{YES_NO_INSTRUCTION}"
    return MC_TEMPLATE.format(question=item.question, choices="\n".join(item.options))


def request(item: EvalItem, text: str, blind: bool = False) -> list[dict[str, Any]]:
    """The item's messages: one user turn, its images (none when blind) before the text; OSError when an image
    is unreadable."""
    from benchfoundry.pipeline.model_client import image_file_part, user_message  # httpx only once asking

    return [user_message(text, [] if blind else [image_file_part(p) for p in item.images])]


def _yes_no(item: EvalItem, reply: str) -> int | None:
    words = {w.lower() for w in _YES_NO_WORD.findall(reply)}
    if len(words) != 1:
        return parse_choice(reply, item.options)
    return [t.lower() for t in item.texts].index(words.pop())


def parse_reply(item: EvalItem, reply: str, protocol: str) -> int | None:
    """The index of the option a closed item's reply names, None when it names none (or, by the project's
    reading, two)."""
    if protocol == "authors" and item.yes_no:
        return _yes_no(item, reply)
    return parse_choice(reply, item.options)


def answer_reply(item: EvalItem, index: int, protocol: str) -> str:
    """The shortest reply that names option `index` under the protocol (what the random baseline says)."""
    if protocol == "authors" and item.yes_no:
        return item.texts[index]
    return letter_of(index)
