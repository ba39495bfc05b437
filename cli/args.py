"""What the commands share for their flags: the parser whose usage errors stay bounded, the parsers a command
description (pipeline/commands.py) stands for, model names checked, and paths that are not empty."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from typing import NoReturn

from benchfoundry.pipeline.commands import MAX_WORD, Arg, Command, bounded

#: A model's name as `--model` takes it: `name` or `org/name` of letters, digits and `_ . + : @ -`, each part
#: starting with a letter or digit (so one folder name under the build's `report/eval/`, never `~`, ` ` or `..`).
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+:@-]*(/[A-Za-z0-9][A-Za-z0-9_.+:@-]*)*")


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors echo a bad value bounded (`bounded`)."""

    def error(self, message: str) -> NoReturn:
        super().error(bounded(message))


def add_args(parser: argparse.ArgumentParser, args: Iterable[Arg]) -> None:
    """Each argument on `parser`, in order."""
    for spec in args:
        parser.add_argument(*spec.names, **spec.options)


def add_command(subparsers: argparse._SubParsersAction, command: Command) -> None:
    """The command's parser among `subparsers`: its arguments, then its function or its subcommands' parsers."""
    parser = subparsers.add_parser(command.name, help=command.help, aliases=list(command.aliases))
    add_args(parser, command.args)
    if command.commands:
        sub = parser.add_subparsers(dest=command.dest, required=True, metavar=command.metavar)
        for subcommand in command.commands:
            add_command(sub, subcommand)
    if command.run is not None:
        parser.set_defaults(func=command.run)


def model_name_problem(text: str) -> str | None:
    """Why `text` is no model name whose results get one safe folder (MODEL_NAME, at most MAX_WORD characters),
    or None."""
    if len(text) <= MAX_WORD and MODEL_NAME.fullmatch(text):
        return None
    return (
        f"--model {text[:60]!r}{'…' if len(text) > 60 else ''} is not a model name: letters, digits and _ . + : @ -, "
        f"as `name` or `org/name`, each part starting with a letter or digit, at most {MAX_WORD} characters"
    )


def path_text(text: str) -> str:
    """An argparse type: a path that is not empty (an unset `$OUT` in `--to $OUT` named the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (an unset variable?); name the folder or file")
    return text
