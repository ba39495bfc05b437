"""Reading a multiple-choice answer out of a model's reply, the project's way (`--protocol project`, and the
generic authors' reading of a closed item that is not yes/no, evaluation/protocols.py).

A reply answers with an option's letter or with an option's text. A reply that names two options, or
none, is invalid (and counts as wrong). A letter counts when it stands alone (`B`, `(B)`, `B.`,
`B: front-left`, both in `B or C`; not the article in `A person…`) or after "answer"/"option"
(`the answer is B`); letters win over texts. An option's text counts when the reply holds it as whole
words, a text inside a longer matched one (`front` in `front-left`) not counting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchfoundry.core.directions import LETTERS

_KEYWORD = re.compile(r"\b(?i:answer|option|choice)\s*(?i:is|:)?\s*\(?([A-J])\b")
_STANDALONE = re.compile(r"(?<![\w-])([A-J])(?![\w-])")
#: "A" followed by a lower-case word is the article, not option A.
_ARTICLE = re.compile(r"\s+[a-z]")


def letter_of(index: int) -> str:
    return LETTERS[index]


def split_option(option: str) -> tuple[str, str]:
    """`"B. front-left"` → ("B", "front-left"); an unlettered option → ("", text)."""
    found = re.match(r"^\s*([A-J])[.)]\s*(.*)$", option, re.DOTALL)
    return (found.group(1), found.group(2).strip()) if found else ("", option.strip())


def _letters_named(reply: str, letters: str) -> set[str]:
    named = {m.group(1) for m in _KEYWORD.finditer(reply)}
    named |= {
        m.group(1) for m in _STANDALONE.finditer(reply) if not (m.group(1) == "A" and _ARTICLE.match(reply, m.end()))
    }
    return {x for x in named if x in letters}


def _texts_named(reply: str, texts: Sequence[str]) -> set[int]:
    low = reply.lower()
    spans: dict[int, list[tuple[int, int]]] = {}
    for i, text in enumerate(texts):
        if text:
            pattern = r"(?<![\w-])" + re.escape(text.lower()) + r"(?![\w-])"
            spans[i] = [(m.start(), m.end()) for m in re.finditer(pattern, low)]
    hits = set()
    for i, found in spans.items():
        inside = lambda s, e: any(
            j != i and a <= s and e <= b and (b - a) > (e - s) for j, other in spans.items() for a, b in other
        )
        if any(not inside(s, e) for s, e in found):
            hits.add(i)
    return hits


def parse_choice(reply: str, options: Sequence[str]) -> int | None:
    """The index of the one option the reply names, by letter or by text; None when it names two or none."""
    letters = LETTERS[: len(options)]
    named = _letters_named(reply, letters)
    if len(named) == 1:
        return letters.index(named.pop())
    if named:
        return None
    texts = _texts_named(reply, [split_option(o)[1] for o in options])
    return texts.pop() if len(texts) == 1 else None
