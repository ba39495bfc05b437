"""A comparison record (compare/comparison.py) as the text table `benchfoundry compare` prints and as its HTML
page in the report (pipeline/report_style.write_page, the report's one stylesheet)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.compare.measures import MEASURES
from benchfoundry.pipeline.report_style import write_page

_COLUMNS = ("category", "items A", "items B", "share A", "share B", "share Δ", *MEASURES, "verdict")


def _num(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f} %" if pct else f"{value:.2f}"


def _cells(row: dict[str, Any]) -> list[str]:
    measures = row["measures"]
    share = measures.get("share", measures.get("categories"))
    return [
        row["task"],
        str(row["items"][0]),
        str(row["items"][1]),
        _num(row["share"][0], pct=True),
        _num(row["share"][1], pct=True),
        _num(share["tv"]),
        *(_num(measures[m]["tv"]) for m in MEASURES),
        row["verdict"],
    ]


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "—"


def overlap_lines(overlap: dict[str, Any], distance: int) -> list[str]:
    """The overlap in words: the headline (B's items A holds too), then images and questions."""
    items, images = overlap["items"], overlap["images"]
    same, near, ident = overlap["same_items"], overlap["near_identical_images"], overlap["identical_images"]
    lines = [
        f"overlap: {same[1]} of {items[1]} items of B are items of A ({_share(same[1], items[1])}); "
        f"{same[0]} of {items[0]} of A are items of B ({_share(same[0], items[0])})",
        f"images: of B's {images[1]}, {ident[1]} identical to one of A's and {near[1]} near-identical "
        f"(perceptual hash within {distance} bits); of A's {images[0]}, {ident[0]} and {near[0]}",
        f"questions: {overlap['same_questions'][1]} of B's {items[1]} items ask a question of A's (normalised); "
        f"{overlap['same_questions'][0]} of A's {items[0]} one of B's",
    ]
    bad = overlap["unreadable_images"]
    if any(bad):
        lines.append(f"unreadable images: {bad[0]} of A's, {bad[1]} of B's")
    return lines


def _scopes(rows: dict[str, Any]) -> str:
    parts = [
        f"{scope} τ = {r['tau']:.2f}, ρ = {r['rho']:.2f} ({len(r['models'])} models)"
        for scope, r in rows.items()
        if r["tau"] is not None
    ]
    return "; ".join(parts) or "fewer than two models ranked on both"


def ranking_lines(ranking: dict[str, Any] | None) -> list[str]:
    """τ and ρ of each scope with two models or more between the sides, then against the paper's table."""
    if ranking is None:
        return ["ranking: no model evaluated on either side"]
    if ranking["protocol"] is None:
        lines = ["ranking: no model evaluated on both sides with one protocol"]
    else:
        lines = [f"ranking ({ranking['protocol']} protocol): {_scopes(ranking['by_scope'])}"]
    lines += [
        f"ranking of {side} against the published table: {_scopes(rows)}" for side, rows in ranking["published"].items()
    ]
    return lines


def _left(k: int, row: Sequence[str]) -> bool:
    """Whether column k is text (the category and the verdict), aligned left."""
    return k in (0, len(row) - 1)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return [
        "  ".join(c.ljust(w) if _left(k, r) else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in rows
    ]


def text(record: dict[str, Any]) -> str:
    """What `compare` prints: each side, the thresholds, and per benchmark its table, overlap and ranking."""
    config = record["config"]
    lines = [f"{label}: {side['path']} ({side['what']})" for label, side in record["sides"].items()]
    lines.append(
        f"thresholds: total-variation distance {config['tv_max']}, category share {config['share_max']}, "
        f"only where a chi-square test rejects at {config['alpha']}; near-identical images within "
        f"{config['phash_distance']} bits"
    )
    for name, entry in record["benchmarks"].items():
        lines.append("")
        lines.append(f"{entry['title']} ({name})")
        if "only_in" in entry:
            lines.append(f"only in {entry['only_in']}")
            continue
        lines += _table([list(_COLUMNS), *(_cells(r) for r in entry["rows"])])
        lines += overlap_lines(entry["overlap"], config["phash_distance"])
        lines += ranking_lines(entry["ranking"])
    return "\n".join(lines) + "\n"


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def cells(tag: str, row: Sequence[str]) -> str:
        return "".join(
            f'<{tag} class="l">{html.escape(c)}</{tag}>' if _left(k, row) else f"<{tag}>{html.escape(c)}</{tag}>"
            for k, c in enumerate(row)
        )

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f"<table><tr>{cells('th', head)}</tr>{body}</table>"


def _examples(overlap: dict[str, Any]) -> str:
    examples = overlap["examples"]
    parts = []
    if examples["near_identical_images"]:
        rows = [[e["image"], e["other"], str(e["distance"])] for e in examples["near_identical_images"]]
        parts.append("<h4>Near-identical images (B, A)</h4>" + _html_table(["image of B", "image of A", "bits"], rows))
    if examples["same_items"]:
        rows = [[e["question"], e["id"], e["other"]] for e in examples["same_items"]]
        parts.append("<h4>Items of B that A holds too</h4>" + _html_table(["question", "item of B", "item of A"], rows))
    if examples["same_questions"]:
        rows = [[e["question"], e["id"], e["other"]] for e in examples["same_questions"]]
        head = ["question", "item of B", "item of A"]
        parts.append("<h4>Questions of B that A asks too</h4>" + _html_table(head, rows))
    return "".join(parts)


def _scope_table(rows: dict[str, Any]) -> str:
    cells = [
        [s, str(len(r["models"])), _num(r["tau"]), _num(r["rho"])] for s, r in rows.items() if r["tau"] is not None
    ]
    if not cells:
        return "<p>Fewer than two models ranked on both.</p>"
    return _html_table(["scope", "models", "Kendall τ", "Spearman ρ"], cells)


def _ranking_html(ranking: dict[str, Any] | None) -> str:
    if ranking is None or ranking["protocol"] is None:
        parts = [f"<p>{html.escape(ranking_lines(ranking)[0])}</p>"]
    else:
        protocol = html.escape(ranking["protocol"])
        parts = [
            f"<p>Models ranked by accuracy on each side, {protocol} protocol.</p>",
            _scope_table(ranking["by_scope"]),
        ]
    for side, rows in (ranking or {}).get("published", {}).items():
        parts += [f"<h4>{html.escape(side)} against the published table (original data)</h4>", _scope_table(rows)]
    return "".join(parts)


def html_body(record: dict[str, Any]) -> str:
    """The page's body: the sides, the thresholds, and per benchmark its table, overlap and ranking."""
    config = record["config"]
    parts = ["<h1>Comparison of two builds</h1>", "<ul>"]
    for label, side in record["sides"].items():
        parts.append(f"<li><b>{html.escape(label)}</b>: {html.escape(side['path'])} ({html.escape(side['what'])})</li>")
    parts.append("</ul>")
    parts.append(
        f'<p class="note">Distances are total-variation distances between the sides\' distributions. A row '
        f"differs where a distance passes {config['tv_max']} (a category's share {config['share_max']}) and a "
        f"chi-square test rejects one distribution at {config['alpha']}. Images are near-identical within "
        f"{config['phash_distance']} bits of their perceptual hashes.</p>"
    )
    for entry in record["benchmarks"].values():
        parts.append(f"<h2>{html.escape(entry['title'])}</h2>")
        if "only_in" in entry:
            parts.append(f"<p>Only in {html.escape(entry['only_in'])}.</p>")
            continue
        parts.append(_html_table(_COLUMNS, [_cells(r) for r in entry["rows"]]))
        parts.append("<h3>Overlap</h3><ul>")
        parts += [f"<li>{html.escape(line)}</li>" for line in overlap_lines(entry["overlap"], config["phash_distance"])]
        parts.append("</ul>" + _examples(entry["overlap"]))
        parts.append("<h3>Model ranking</h3>" + _ranking_html(entry["ranking"]))
    return "\n".join(parts)


def write_html(path: Path, record: dict[str, Any]) -> Path:
    """The comparison's page at `path`, the report's stylesheet beside it."""
    return write_page(path.parent, path.name, "Comparison", html_body(record))
