"""The documentation holds together: docs/cli.md is what docs/cli_reference.py makes of the parser today, every
relative link and #anchor in README.md, docs/*.md and docs/design/*.md leads to a file and a heading that exist
(GitHub's anchor slugs), the README stays a page, not a manual, and no file of the repository points outside it: the
design is docs/design/, and every `docs/design/<page>.md §N` cited in code or docs names a page and a numbered
section heading that exist."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN_PAGES = ROOT / "docs" / "design"
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(DESIGN_PAGES.glob("*.md")))
README_MAX_LINES = 250

_spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "cli_reference.py")
cli_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cli_reference)

#: An inline link or image `[text](target)` / `![alt](target "title")`; the text may hold one level of brackets.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: A reference definition `[label]: target`.
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HTML_ID = re.compile(r"""<a\s+(?:name|id)=["']([^"']+)["']""")
#: What once pointed outside the repository (the design brief and the papers' summaries beside the checkout), spelled
#: so that this file does not match itself.
_OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(?:DESIGN|seeds)\b|\bDESIGN(?:\.md\b|\s*§|'s\b)")
#: A design citation: `docs/design/<page>.md`, then optionally its sections: `§2`, `§1.4, §2.2`, `§3–4`.
_CITATION = re.compile(r"docs/design/([\w.-]+\.md)((?:\s*(?:,\s*)?§\s*\d+(?:\.\d+)*(?:\s*[–-]\s*\d+(?:\.\d+)*)?)*)")
#: A numbered section heading of a design page: `## 2. Rendering`, `### 2.3 Tasks`.
_SECTION = re.compile(r"^ {0,3}#{2,6}\s+(\d+(?:\.\d+)*)\.?\s")


def prose(text: str) -> list[str]:
    """The page's lines, those of fenced and indented code blocks blank and inline code spans blanked."""
    lines: list[str] = []
    fenced = indented = False
    previous_blank = True
    for line in text.splitlines():
        blank = not line.strip()
        if _FENCE.match(line):
            fenced = not fenced
            line = ""
        elif fenced:
            line = ""
        elif (previous_blank or indented) and (line.startswith("    ") or (indented and blank)):
            indented, line = True, ""
        else:
            indented = False
            line = re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)
        previous_blank = blank
        lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text as rendered (no markup), lower case, every character that is not a
    letter, digit, mark, space, hyphen or underscore dropped, spaces made hyphens."""
    code: list[str] = []

    def keep(match: re.Match[str]) -> str:
        code.append(match.group(2))
        return f"\0{len(code) - 1}\0"

    text = re.sub(r"(`+)(.+?)\1", keep, heading)  # code spans: their content, untouched by what follows
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = re.sub(r"(\*\*|\*)(.+?)\1", r"\2", text)  # emphasis
    text = re.sub(r"(?<![^\W_])(__|_)(.+?)\1(?![^\W_])", r"\2", text)  # underscores emphasise only between words
    text = re.sub("\0(\\d+)\0", lambda m: code[int(m.group(1))], text)
    kept = "".join(
        c for c in text.lower() if c in " -_" or unicodedata.category(c)[0] in "LNM" or unicodedata.category(c) == "Pc"
    )
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of the page: its headings' slugs (a repeated one numbered -1, -2, … as GitHub does) and the ids
    of its `<a name=…>` / `<a id=…>` tags."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(_HTML_ID.findall(line))
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """(line number, target) of every link and image of the page outside code."""
    found = []
    for number, line in enumerate(prose(page.read_text(encoding="utf-8")), start=1):
        found += [(number, m.group(1)) for m in _LINK.finditer(line)]
        found += [(number, m.group(1)) for m in _REFERENCE.finditer(line)]
    return found


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """The page's relative links whose file or anchor does not exist (or lies outside `root`), as
    `page:line: target (why)`."""
    problems = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # http:, https:, mailto:, …: not this repository's
        path, _, anchor = target.partition("#")
        where = f"{page.relative_to(root)}:{number}: {target}"
        resolved = (page.parent / unquote(path)).resolve() if path else page
        if not resolved.is_relative_to(root) or not resolved.exists():
            problems.append(f"{where} (no such file)")
        elif anchor and (resolved.suffix != ".md" or unquote(anchor) not in anchors(resolved)):
            problems.append(f"{where} (no such anchor)")
    return problems


def repository_files(root: Path = ROOT) -> list[Path]:
    """The repository's text files: tracked, or new and not ignored (what a commit would hold)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        path = root / name
        if path.is_file() and b"\0" not in path.read_bytes()[:8192]:
            files.append(path)
    return files


def sections(page: Path) -> set[str]:
    """The numbers of a design page's numbered section headings, outside code blocks."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _SECTION.match(line)):
            found.add(match.group(1))
    return found


def outside_references(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: text` of every reference to a path outside the repository."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        f"{path.relative_to(root)}:{number}: {match.group(0)}"
        for number, line in enumerate(text.splitlines(), start=1)
        for match in _OUTSIDE.finditer(line)
    ]


def bad_citations(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: citation (why)` of every `docs/design/<page>.md §N` whose page or section does not exist."""
    text = path.read_text(encoding="utf-8", errors="replace")
    problems = []
    for match in _CITATION.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        where = f"{path.relative_to(root)}:{number}: {' '.join(match.group(0).split())}"
        page = root / "docs" / "design" / match.group(1)
        if not page.is_file():
            problems.append(f"{where} (no such page)")
            continue
        missing = [n for n in re.findall(r"\d+(?:\.\d+)*", match.group(2)) if n not in sections(page)]
        if missing:
            problems.append(f"{where} (no section {', '.join(missing)})")
    return problems


def test_the_cli_reference_is_the_parsers() -> None:
    page = ROOT / "docs" / "cli.md"
    assert page.read_text(encoding="utf-8") == cli_reference.page(), (
        "docs/cli.md is stale: run `.venv/bin/python docs/cli_reference.py` (make docs)"
    )


def test_the_cli_reference_names_every_command() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in ("build", "compare", "eval", "export", "score syndor", "sphere crop", "runner job-script"):
        assert f"## benchfoundry {command}\n" in text
        assert f"usage: benchfoundry {command} " in text


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken(page) == []


def test_the_readme_is_a_page_not_a_manual() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES
    readme = "\n".join(lines)
    for page in ("docs/building.md", "docs/cli.md", "docs/anny_person.jpg"):
        assert f"]({page}" in readme, page
    assert "make demo" in readme and "make test" in readme


def test_no_issue_number_in_the_documentation() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bissues? \d+", text, re.I), page


def test_slugs_are_githubs() -> None:
    assert slug("ODI-Bench: panoramas → cube faces → instances") == "odi-bench-panoramas--cube-faces--instances"
    assert slug("Where a build's time goes") == "where-a-builds-time-goes"
    assert slug("`benchfoundry build`") == "benchfoundry-build"
    assert slug("How to add …") == "how-to-add-"
    assert slug("Cost model (rough)") == "cost-model-rough"
    assert slug("Decode caps: `odi.sphere.max_decoded_mb` and _emphasis_") == (
        "decode-caps-odispheremax_decoded_mb-and-emphasis"
    )
    assert slug("COCO person orientation (ViewSpatial-Bench, §4.2)") == "coco-person-orientation-viewspatial-bench-42"
    assert slug("2.2 Facing direction (Cam-Obj. Ori.)") == "22-facing-direction-cam-obj-ori"


def test_a_broken_link_or_anchor_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\n## Two words\n\n## Two words\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#two-words) [ok](a.md#two-words-1) [self](#b) [web](https://example.com/x#y)\n"
        "# B\n\n```\n[in code](missing.md)\n```\n`[inline](missing.md)`\n"
        "[gone](missing.md) [no anchor](a.md#three) [no second](a.md#two-words-2)\n"
    )
    assert broken(page, tmp_path) == [
        "b.md:8: missing.md (no such file)",
        "b.md:8: a.md#three (no such anchor)",
        "b.md:8: a.md#two-words-2 (no such anchor)",
    ]


def test_no_file_points_outside_the_repository() -> None:
    found = [problem for path in repository_files() for problem in outside_references(path)]
    assert found == [], "cite the design pages (docs/design/) instead:\n" + "\n".join(found)


def test_every_design_citation_names_a_page_and_section() -> None:
    files = repository_files()
    found = [problem for path in files for problem in bad_citations(path)]
    assert found == []
    cited = sum(len(_CITATION.findall(path.read_text(encoding="utf-8", errors="replace"))) for path in files)
    assert cited >= 100  # the code cites its design throughout: a regex gone blind would pass vacuously


def test_the_design_pages_are_indexed_and_numbered() -> None:
    index = (DESIGN_PAGES / "README.md").read_text(encoding="utf-8")
    for page in sorted(DESIGN_PAGES.glob("*.md")):
        if page.name != "README.md":
            assert f"]({page.name})" in index, page.name
            assert sections(page), f"{page.name} has no numbered section"


def test_an_outside_reference_or_a_bad_citation_is_found(tmp_path: Path) -> None:
    design = tmp_path / "docs" / "design"
    design.mkdir(parents=True)
    (design / "a.md").write_text("# A\n\n## 1. One\n\n### 1.2 One, two\n\n```\n## 3. In code\n```\n\n## 4 Four\n")
    assert sections(design / "a.md") == {"1", "1.2", "4"}
    code = tmp_path / "code.py"
    # in pieces: this file is scanned too
    shared, brief, a, b = "../" + "shared/", "DESIGN", "docs/" + "design/a.md", "docs/" + "design/b.md"
    code.write_text(
        f'"""Read {shared}{brief}.md; as {brief} §2.1 says; {brief}\'s bins; from {shared}seeds/."""\n'
        f"# {a} §1, §1.2 and {a} §1–4; {a}\n"
        f"# {a} §3 (in code only), {b} §1, {a} §1.2–2\n"
    )
    assert outside_references(code, tmp_path) == [
        f"code.py:1: {shared[:-1]}",
        f"code.py:1: {brief}.md",
        f"code.py:1: {brief} §",
        f"code.py:1: {brief}'s",
        f"code.py:1: {shared[:-1]}",
    ]
    assert bad_citations(code, tmp_path) == [
        f"code.py:3: {a} §3 (no section 3)",
        f"code.py:3: {b} §1 (no such page)",
        f"code.py:3: {a} §1.2–2 (no section 2)",
    ]
    assert outside_references(design / "a.md", tmp_path) == bad_citations(design / "a.md", tmp_path) == []
