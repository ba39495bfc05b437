"""ODI-Bench's VLMEvalKit dataset class, copied beside the TSV files as `benchfoundry_vlmeval_<benchmark>.py` by
`benchfoundry export vlmevalkit` and registered by `benchfoundry_vlmeval.register()` (export/
vlmevalkit_datasets.py); it runs inside VLMEvalKit, imports nothing of benchfoundry, and shares the helpers of
`benchfoundry_vlmeval` beside it.

benchfoundry_ODI: the closed form as the paper states it (lettered options and "Answer with the option's
letter…", a yes/no item asked for yes or no); a reply names an option by yes/no, letter or text; two or none
are wrong; accuracy overall and per task. (The open items, `benchfoundry_ODI_open`, keep VLMEvalKit's generic
class: they need the judge, `benchfoundry eval odi`.)
"""

from __future__ import annotations

import re
from typing import Any

from benchfoundry_vlmeval import accuracy, cell_text, dataset_class

LETTERS = "ABCD"
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
YES_NO_INSTRUCTION = "Answer yes or no."
_KEYWORD = re.compile(r"\b(?i:answer|option|choice)\s*(?i:is|:)?\s*\(?([A-D])\b")
_STANDALONE = re.compile(r"(?<![\w-])([A-D])(?![\w-])")
_ARTICLE = re.compile(r"\s+[a-z]")


def options_of(line: Any) -> list[str]:
    return [cell_text(line[c]) for c in LETTERS if c in line and cell_text(line[c])]


def read_choice(reply: str, options: list[str]) -> int | None:
    """The index of the one option the reply names (yes/no words for a yes/no item, then letters, then texts)."""
    reply = cell_text(reply)
    lowered = [o.lower() for o in options]
    if sorted(lowered) == ["no", "yes"]:
        words = {w.lower() for w in re.findall(r"\b(yes|no)\b", reply, re.IGNORECASE)}
        if len(words) == 1:
            return lowered.index(words.pop())
    letters = LETTERS[: len(options)]
    named = {m.group(1) for m in _KEYWORD.finditer(reply)}
    named |= {
        m.group(1) for m in _STANDALONE.finditer(reply) if not (m.group(1) == "A" and _ARTICLE.match(reply, m.end()))
    }
    named &= set(letters)
    if named:
        return letters.index(named.pop()) if len(named) == 1 else None
    low = reply.lower()
    hits = [k for k, text in enumerate(lowered) if re.search(r"(?<![\w-])" + re.escape(text) + r"(?![\w-])", low)]
    return hits[0] if len(hits) == 1 else None


def scores(data: Any) -> dict[str, float | None]:
    rows = []
    for _, line in data.iterrows():
        choice = read_choice(line["prediction"], options_of(line))
        rows.append((line["category"], choice is not None and LETTERS[choice] == line["answer"]))
    return accuracy(rows)


def prompt_text(line: Any) -> str:
    """The closed form as the paper states it: a yes/no item asked for yes or no, else the lettered options."""
    options = options_of(line)
    if sorted(o.lower() for o in options) == ["no", "yes"]:
        return f"{line['question']}\n{YES_NO_INSTRUCTION}"
    lettered = "\n".join(f"{LETTERS[k]}. {o}" for k, o in enumerate(options))
    return f"{line['question']}\n{lettered}\n{MC_INSTRUCTION}"


def classes() -> list[type]:
    from vlmeval.dataset.image_mcq import CustomMCQDataset

    return [dataset_class(CustomMCQDataset, "BenchfoundryODI", "benchfoundry_ODI", scores, prompt_text)]
