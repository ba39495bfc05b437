"""The project's dependencies from pyproject.toml, one a line: what an image installs before it copies the sources
(so that a changed source file reinstalls only the project), and with --build the build system's requirements too
(the wheelhouse of `make images`, which installs the project without an index). Each line reaches pip as an
argument (`xargs`): a line that is no requirement (an option such as `--index-url=…`, a line break) is refused, and
so is an unknown argument."""

import re
import sys
import tomllib
from pathlib import Path

#: A PEP 508 requirement's start: its distribution name (never a pip option), then one line of specifiers/markers.
REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._, -]*\])?[^\x00-\x1f\x7f]*")


def requirements(project: dict, build: bool) -> list[str]:
    """The dependencies (and with `build` the build system's); ValueError naming the first that is no requirement."""
    found = [*project["project"]["dependencies"], *(project["build-system"]["requires"] if build else ())]
    for line in found:
        if not isinstance(line, str) or not REQUIREMENT.fullmatch(line):
            raise ValueError(f"pyproject.toml: {str(line)[:80]!r} is not a requirement")
    return found


def main(argv: list[str]) -> int:
    if any(arg != "--build" for arg in argv):
        print(f"usage: {Path(__file__).name} [--build]", file=sys.stderr)
        return 2
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    try:
        print(*requirements(project, "--build" in argv), sep="\n")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
