"""A command of the command line as plain data, and what commands share below the command line.

A benchmark offers its commands through its descriptor's `commands` hook (pipeline/benchmarks.py): a sequence of
`Command`, each its name, help, arguments (`Arg`: what argparse's `add_argument` takes) and the function it runs,
or its subcommands; cli/ turns them into argparse subparsers. What the commands share: argparse types for counts,
config sections built from flags with a bad value named by its flag in one line, and output lines printable and
bounded in length.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

#: The most characters of one word (a path, a name, a value) an error line echoes, and of the whole message.
MAX_WORD = 200
MAX_MESSAGE = 2000


@dataclass(frozen=True)
class Arg:
    """One argument of a command as argparse's `add_argument` takes it: its names (`build`, or `--per-class`) and
    its keywords (`help`, `type`, `default`, `choices`, `metavar`, `required`, `action`, …)."""

    names: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        """The attribute its value takes in the parsed arguments, as argparse names it."""
        if "dest" in self.options:
            return str(self.options["dest"])
        return next((n for n in self.names if n.startswith("--")), self.names[0]).lstrip("-").replace("-", "_")


def arg(*names: str, **options: Any) -> Arg:
    """An `Arg`, written as the `add_argument` call it stands for."""
    return Arg(names, options)


@dataclass(frozen=True)
class Command:
    """A command: its name, help and arguments, and the function it runs ((parsed arguments) -> exit status), or its
    subcommands (one of them required, its name in the parsed arguments' `<name>_command`)."""

    name: str
    help: str
    args: tuple[Arg, ...] = ()
    run: Callable[[argparse.Namespace], int] | None = None
    commands: tuple[Command, ...] = ()
    metavar: str = "COMMAND"  # the subcommand's placeholder in the usage line
    aliases: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments that names its subcommand."""
        return f"{self.name}_command"


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


def validation_line(exc: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """A ValidationError in one line: `name: reason (got value)` per bad field, the field's flag as its
    name when `names` maps it (pydantic's own dump, with its links, never reaches the user)."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "value"
        name = (names or {}).get(where, where)
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
