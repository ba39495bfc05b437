"""Writes the documentation's marked figures, never typed by hand: the QA items each benchmark's smoke build makes
(docs/exports.md), from a build's build.json or, without one, from the smoke preset's plans (`build --plan`); and,
with `--marked NAME FILE`, any other marked span from a file a bench wrote (`make bench`: the tables of
docs/performance.md). A span `<!-- figures:NAME -->…<!-- /figures:NAME -->` lives in whichever page of README.md and
docs/*.md holds it, and moves with its section.

Run: `.venv/bin/python docs/readme_figures.py [BUILD]` (or `make readme-figures BUILD=out/smoke`),
`.venv/bin/python docs/readme_figures.py --marked render-quality TABLE.md`.
tests/test_readme_figures.py checks the smoke figures against the smoke preset's plans.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.bounded_read import read_json
from benchfoundry.pipeline import benchmarks

ROOT = Path(__file__).resolve().parents[1]
#: The pages that may hold a marked span.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
#: How each benchmark's count reads in the documentation.
WORDING = {"viewspatial": "{:,} ViewSpatial items", "odi": "{:,} ODI items", "syndor": "{:,} SynD QA items"}


def planned(config: BuildConfig) -> dict[str, int | None]:
    """Each registered benchmark's items as its plan counts them."""
    return {d.name: benchmarks.resolve(d.planned_items)(config) for d in benchmarks.registered() if d.planned_items}


def built(build: Path) -> dict[str, int | None]:
    """Each benchmark's items as the build recorded them (build.json's `benchmarks.<name>.items`)."""
    record = read_json(build / "build.json")
    return {name: outcome.get("items") for name, outcome in record.get("benchmarks", {}).items()}


def wording(figures: dict[str, int | None]) -> str:
    """The marked text: the benchmarks' counts in the documentation's order."""
    return ", ".join(WORDING[name].format(figures[name]) for name in WORDING if figures.get(name) is not None)


def span(name: str) -> re.Pattern[str]:
    """The marked span `<!-- figures:NAME -->…<!-- /figures:NAME -->`."""
    return re.compile(rf"(<!-- figures:{re.escape(name)} -->)(.*?)(<!-- /figures:{re.escape(name)} -->)", re.DOTALL)


def marked(text: str, name: str = "smoke") -> str:
    """The text marked NAME; a ValueError when the markers are missing."""
    found = span(name).search(text)
    if found is None:
        raise ValueError(f"no <!-- figures:{name} --> … <!-- /figures:{name} --> markers")
    return found.group(2)


def page_of(name: str) -> Path:
    """The page of README.md and docs/*.md that holds the span marked NAME; a ValueError when none does."""
    for page in PAGES:
        if span(name).search(page.read_text(encoding="utf-8")):
            return page
    raise ValueError(
        f"no page of README.md or docs/*.md has <!-- figures:{name} --> … <!-- /figures:{name} --> markers"
    )


def replace_marked(text: str, name: str, body: str) -> str:
    """`text` with the span marked NAME holding `body` (nothing else changed)."""
    marked(text, name)
    return span(name).sub(lambda m: m.group(1) + body + m.group(3), text)


def rewrite(text: str, figures: dict[str, int | None]) -> str:
    return replace_marked(text, "smoke", wording(figures))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", help="a smoke build's output root (default: the smoke preset's plans)")
    parser.add_argument("--marked", nargs=2, metavar=("NAME", "FILE"), help="write FILE into the span marked NAME")
    args = parser.parse_args(argv)
    page = page_of(args.marked[0] if args.marked else "smoke")
    text = page.read_text(encoding="utf-8")
    if args.marked:
        name, source = args.marked
        new, said = replace_marked(text, name, "\n" + Path(source).read_text(encoding="utf-8")), f"{name} from {source}"
    else:
        figures = built(Path(args.build)) if args.build else planned(load_config("smoke"))
        new, said = rewrite(text, figures), wording(figures)
    if new != text:
        page.write_text(new, encoding="utf-8")
    print(f"{page}: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
