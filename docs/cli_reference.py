"""Writes docs/cli.md, the command-line reference, from the parser itself (`benchfoundry.cli.main.make_parser`):
every command and subcommand's `--help`, at a fixed width, so the page reads the same on every machine and cannot
drift from the code. tests/test_docs.py fails when the page is stale.

Run: `.venv/bin/python docs/cli_reference.py` (or `make docs`); `--check` exits 1 when docs/cli.md differs.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

from benchfoundry.cli.main import make_parser

PAGE = Path(__file__).resolve().parent / "cli.md"
#: The help's width: fixed, so the terminal the generator runs in changes nothing.
WIDTH = 100

HEADER = """# Command-line reference

Generated from the parser by `docs/cli_reference.py` (`make docs`); do not edit by hand:
`tests/test_docs.py` fails when this page and the parser differ. Each benchmark adds its own commands
(`syndor`, `dori`, `odi`, `sphere`, `assets`, `viewspatial`, `coco`, `scannet`, and one `score` subcommand each)
through its descriptor, so a plug-in benchmark's commands appear here once it is installed.
The guides: [building](building.md), [evaluation](evaluation.md), [exports](exports.md),
[running on a cluster](cluster.md).
"""


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], list[str], argparse.ArgumentParser]]:
    """Every parser below `parser`, depth first in the order they were added: (its words, its aliases, it)."""
    yield path, [], parser
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        names: dict[int, list[str]] = {}
        for name, sub in action.choices.items():
            names.setdefault(id(sub), []).append(name)
        seen: set[int] = set()
        for sub in action.choices.values():
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            first, *aliases = names[id(sub)]
            for words, more, below in commands(sub, (*path, first)):
                yield words, (aliases if below is sub else more), below


def help_text(parser: argparse.ArgumentParser) -> str:
    """The parser's `--help` at WIDTH columns, whatever the terminal."""
    parser.formatter_class = functools.partial(parser.formatter_class, width=WIDTH)
    return parser.format_help().rstrip() + "\n"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading of plain words (lower case, spaces to hyphens)."""
    return heading.lower().replace(" ", "-")


def page() -> str:
    found = list(commands(make_parser(), ("benchfoundry",)))
    contents = []
    sections = []
    for words, aliases, parser in found:
        title = " ".join(words)
        depth = "  " * (len(words) - 1)
        contents.append(f"{depth}- [`{title}`](#{slug(title)})")
        other = ", ".join(f"`{' '.join((*words[:-1], alias))}`" for alias in aliases)
        also = f"\n\nAlso called {other}." if aliases else ""
        sections.append(f"## {title}{also}\n\n```\n{help_text(parser)}```\n")
    return HEADER + "\n" + "\n".join(contents) + "\n\n" + "\n".join(sections)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md is not what the parser gives")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is stale: run .venv/bin/python docs/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"{PAGE}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
