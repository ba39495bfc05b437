"""What the commands share for their flags: config sections built from flags, with a bad value named by its
flag in one line, argparse types for counts, model names checked, and error lines bounded in length."""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

#: The most characters of one word (a path, a name, a value) an error line echoes, and of the whole message.
MAX_WORD = 200
MAX_MESSAGE = 2000
#: A model's name as `--model` takes it: `name` or `org/name` of letters, digits and `_ . + : @ -`, each part
#: starting with a letter or digit (so one folder name under the build's `report/eval/`, never `~`, ` ` or `..`).
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+:@-]*(/[A-Za-z0-9][A-Za-z0-9_.+:@-]*)*")


def printable(message: str) -> str:
    """`message` with its control and format characters but line breaks escaped (`\\x1b`, `\\u202e`): an echoed
    name never drives the terminal."""
    return "".join(c if c == "\n" or unicodedata.category(c) not in ("Cc", "Cf") else repr(c)[1:-1] for c in message)


def bounded(message: str) -> str:
    """`message` `printable`, each word longer than MAX_WORD cut to its start, `…` and its end, and the whole cut at
    MAX_MESSAGE characters: a 5,000-character name echoed back stays a readable line."""
    message = printable(message)
    shortened = re.sub(rf"\S{{{MAX_WORD + 1},}}", lambda m: f"{m.group()[: MAX_WORD - 41]}…{m.group()[-40:]}", message)
    if len(shortened) <= MAX_MESSAGE:
        return shortened
    return f"{shortened[:MAX_MESSAGE]}… ({len(shortened) - MAX_MESSAGE} more characters)"


def print_error(message: object) -> None:
    """The command's `error:` line on stderr, bounded (`bounded`)."""
    print_note(f"error: {message}")


def print_out(message: object) -> None:
    """A line of a command's output on stdout (a path it wrote, a count), `printable` but never cut: a script may
    read the path back."""
    print(printable(str(message)))


def print_note(message: object) -> None:
    """A line on stderr, bounded (`bounded`): a skipped row, a failed item, what an input file named."""
    print(bounded(str(message)), file=sys.stderr)


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors echo a bad value bounded (`bounded`)."""

    def error(self, message: str) -> NoReturn:
        super().error(bounded(message))


def model_name_problem(text: str) -> str | None:
    """Why `text` is no model name whose results get one safe folder (MODEL_NAME, at most MAX_WORD characters),
    or None."""
    if len(text) <= MAX_WORD and MODEL_NAME.fullmatch(text):
        return None
    return (
        f"--model {text[:60]!r}{'…' if len(text) > 60 else ''} is not a model name: letters, digits and _ . + : @ -, "
        f"as `name` or `org/name`, each part starting with a letter or digit, at most {MAX_WORD} characters"
    )


def validation_line(exc: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """A ValidationError in one line: `name: reason (got value)` per bad field, the field's flag as its
    name when `names` maps it (pydantic's own dump, with its links, never reaches the user)."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "value"
        name = (names or {}).get(field, field)
        parts.append(f"{name}: {error['msg']} (got {str(error.get('input'))[:60]!r})")
    return "; ".join(parts)


def model_from_flags(model: type[M], flags: Mapping[str, str], values: Mapping[str, Any]) -> M:
    """`model(**values)`, leaving the values that are None to the model's defaults; ValueError naming the
    flag (`flags`: field → flag) of every bad value."""
    try:
        return model(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise ValueError(validation_line(exc, flags)) from None


def whole_number_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`, refused in one line naming what was given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r}: must be at least {minimum}")
        return value

    return parse


#: A count (`--limit`, `--workers`): at least 1; a seed: at least 0.
positive_int = whole_number_at_least(1)
non_negative_int = whole_number_at_least(0)


def path_text(text: str) -> str:
    """An argparse type: a path that is not empty (an unset `$OUT` in `--to $OUT` named the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (an unset variable?); name the folder or file")
    return text
