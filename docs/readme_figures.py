"""Writes the README's marked figures (the QA items each benchmark's smoke build makes) from a build's build.json,
or, without one, from the smoke preset's plans (`build --plan`): never typed by hand.

Run: `.venv/bin/python docs/readme_figures.py [BUILD]` (or `make readme-figures BUILD=out/smoke`).
tests/test_readme_figures.py checks the README's figures against the smoke preset's plans.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.bounded_read import read_json
from benchfoundry.tasks.common import benchmarks

README = Path(__file__).resolve().parents[1] / "README.md"
#: The marked span: `<!-- figures:smoke -->…<!-- /figures:smoke -->`.
MARKED = re.compile(r"(<!-- figures:smoke -->)(.*?)(<!-- /figures:smoke -->)", re.DOTALL)
#: How each benchmark's count reads in the README.
WORDING = {"viewspatial": "{:,} ViewSpatial items", "odi": "{:,} ODI items", "syndor": "{:,} SynD QA items"}


def planned(config: BuildConfig) -> dict[str, int | None]:
    """Each registered benchmark's items as its plan counts them."""
    return {d.name: benchmarks.resolve(d.planned_items)(config) for d in benchmarks.registered() if d.planned_items}


def built(build: Path) -> dict[str, int | None]:
    """Each benchmark's items as the build recorded them (build.json's `benchmarks.<name>.items`)."""
    record = read_json(build / "build.json")
    return {name: outcome.get("items") for name, outcome in record.get("benchmarks", {}).items()}


def wording(figures: dict[str, int | None]) -> str:
    """The marked text: the benchmarks' counts in the README's order."""
    return ", ".join(WORDING[name].format(figures[name]) for name in WORDING if figures.get(name) is not None)


def marked(text: str) -> str:
    """The README's marked text; a ValueError when the markers are missing."""
    found = MARKED.search(text)
    if found is None:
        raise ValueError(f"{README}: no <!-- figures:smoke --> … <!-- /figures:smoke --> markers")
    return found.group(2)


def rewrite(text: str, figures: dict[str, int | None]) -> str:
    marked(text)
    return MARKED.sub(lambda m: m.group(1) + wording(figures) + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", help="a smoke build's output root (default: the smoke preset's plans)")
    args = parser.parse_args(argv)
    figures = built(Path(args.build)) if args.build else planned(load_config("smoke"))
    text = README.read_text(encoding="utf-8")
    new = rewrite(text, figures)
    if new != text:
        README.write_text(new, encoding="utf-8")
    print(f"{README}: {wording(figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
