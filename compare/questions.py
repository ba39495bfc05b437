"""What a question is, read from its text alone, the same way for every benchmark: its normalised form (two
questions are the same when these are), its template (the words common in its category kept, the rest masked)
and the kind of its subject (a person, an animal, an object)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

#: A quoted phrase (a sign's text, a name): masked whole in a template.
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’")
_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)?|[^\w\s]")
#: A template's masks: a masked run of words, a number, a quoted phrase.
SLOT, NUMBER, QUOTE = "…", "#", "«»"


def normalised(text: str) -> str:
    """The question as compared: Unicode compatibility forms, case folded, every run of non-word characters one
    space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", folded))


def _tokens(text: str) -> list[str]:
    """Words, numbers and punctuation, case folded; a quoted phrase is one QUOTE."""
    marked = _QUOTED.sub(" \x00 ", unicodedata.normalize("NFKC", text).casefold())
    return [QUOTE if t == "\x00" else t for t in _TOKEN.findall(marked)]


def common_words(questions: Iterable[str], min_share: float) -> frozenset[str]:
    """The words held by at least `min_share` of the distinct questions, and by two of them when there are two:
    a word only one question holds is its own (an object's name), not its template's."""
    distinct = {normalised(q): q for q in questions}.values()
    counts: Counter[str] = Counter()
    for question in distinct:
        counts.update({t for t in _tokens(question) if t[0].isalpha()})
    total = len(distinct)
    return frozenset(w for w, n in counts.items() if n >= min(2, total) and n / total >= min_share)


def template(question: str, common: frozenset[str]) -> str:
    """The question with its numbers, quoted phrases and every run of words not in `common` masked."""
    out: list[str] = []
    for token in _tokens(question):
        if token[0].isdigit():
            token = NUMBER
        elif token[0].isalpha() and token not in common:
            token = SLOT
        if not (token == SLOT and out and out[-1] == SLOT):
            out.append(token)
    return " ".join(out)


def subject_kind(question: str, words: Mapping[str, Sequence[str]]) -> str:
    """The kind whose word comes first in the question, "object" when none does."""
    subject_of = {w.casefold(): kind for kind, listed in words.items() for w in listed}
    return next((subject_of[t] for t in _tokens(question) if t in subject_of), "object")
