"""`OUT/report/eval/index.html`: per benchmark, the models evaluated on this build beside the published rows."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.store import write_bytes_atomic
from benchfoundry.tasks.evaluation import published
from benchfoundry.tasks.syndor.scoring import zscores_across_models

_STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td.l,th.l{text-align:left}"
    "tr.pub td{color:#666;font-style:italic}"
)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.2f}" if isinstance(value, float) else html.escape(str(value))


def _table(header: Sequence[str], ours: list[list[Any]], theirs: list[list[Any]]) -> str:
    head = "".join(f'<th class="{"l" if i == 0 else ""}">{html.escape(h)}</th>' for i, h in enumerate(header))
    rows = [
        f'<tr><td class="l">{html.escape(str(r[0]))}</td>' + "".join(f"<td>{_pct(v)}</td>" for v in r[1:]) + "</tr>"
        for r in ours
    ]
    rows += [
        f'<tr class="pub"><td class="l">{html.escape(r[0])} (published)</td>'
        + "".join(f"<td>{'–' if v is None else f'{v:.2f}'}</td>" for v in r[1:])
        + "</tr>"
        for r in theirs
    ]
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _scores(root: Path, bench: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(root.glob(f"*/{bench}.json")):
        try:
            found.append((path.parent.name, json.loads(path.read_text())))
        except (OSError, ValueError):
            continue
    return found


def _choice_section(root: Path, bench: str, columns: Sequence[str], rows: dict[str, Sequence[Any]]) -> str:
    scored = _scores(root, bench)
    tasks = sorted({t for _, s in scored for t in s.get("per_task", {})})
    header = ["model", *tasks, "overall", "n", "invalid"]
    ours = [
        [
            s.get("model", name),
            *(s.get("per_task", {}).get(t) for t in tasks),
            s.get("overall"),
            s.get("n"),
            s.get("invalid"),
        ]
        for name, s in scored
    ]
    mine = _table(header, ours, []) if ours else "<p>No model evaluated on this build yet.</p>"
    return mine + _table(["model", *columns], [], [[m, *v] for m, v in rows.items()])


def _syndor_section(root: Path) -> str:
    scored = _scores(root, "syndor")
    distances = sorted(
        {
            g["distance"]
            for _, s in scored
            for g in s.get("presence", {}).get("groups", [])
            if g["distance"] != "all" and g["split"] == "all"
        }
    )
    ours = []
    for name, s in scored:
        cells = {g["distance"]: g for g in s.get("presence", {}).get("groups", []) if g["split"] == "all"}
        ours.append(
            [
                s.get("model", name),
                *(
                    f"{100 * cells[d]['accuracy']:.2f} / {100 * cells[d]['macro_f1']:.2f}" if d in cells else None
                    for d in [*distances, "all"]
                ),
            ]
        )
    header = ["model", *(f"{d} m acc / F1" for d in distances), "all acc / F1"]
    mine = _table(header, ours, []) if ours else "<p>No model evaluated on this build yet.</p>"
    theirs = [[m, *(f"{a:.2f} / {f:.2f}" for a, f in cells)] for m, cells in published.SYNDOR.items()]
    head = "".join(f"<th>{d} m acc / F1</th>" for d in published.SYNDOR_DISTANCES)
    body = "".join(
        f'<tr class="pub"><td class="l">{html.escape(r[0])} (published)</td>'
        + "".join(f"<td>{c}</td>" for c in r[1:])
        + "</tr>"
        for r in theirs
    )
    return mine + f'<table><tr><th class="l">model</th>{head}</tr>{body}</table>' + _action_table(scored)


def _action_table(scored: list[tuple[str, dict[str, Any]]]) -> str:
    """Action recognition: each model's E5Score per distance and its z against every model evaluated here."""
    actions = {s.get("model", name): s["action"] for name, s in scored if isinstance(s.get("action"), dict)}
    if not actions:
        return ""
    z = zscores_across_models(actions)
    distances = sorted({d for row in z.values() for d in row}, key=float)
    rows = []
    for model, action in actions.items():
        e5 = {str(g["distance"]): g["e5score"] for g in action.get("groups", []) if g["split"] == "all"}
        cells = "".join(
            f"<td>{e5[d]:.3f} / {'–' if z[model].get(d) is None else f'{z[model][d]:+.2f}'}</td>"
            if d in e5
            else "<td>–</td>"
            for d in distances
        )
        rows.append(f'<tr><td class="l">{html.escape(model)}</td>{cells}</tr>')
    head = "".join(f"<th>{d} m E5Score / z</th>" for d in distances)
    return (
        "<h3>Action recognition (z across the models evaluated here, per distance)</h3>"
        f'<table><tr><th class="l">model</th>{head}</tr>{"".join(rows)}</table>'
    )


def write_eval_report(build: Path, eval_root: Path) -> Path:
    """The evaluation page of a build, from the score files under `eval_root` (`OUT/report/eval/`)."""
    parts = [
        "<h1>Models evaluated on this build</h1>",
        "<p>Our rows are this build's items; rows marked <i>published</i> are the papers' figures on the "
        "original data, for reference only.</p>",
        "<h2>SynDORBench: human presence</h2>",
        _syndor_section(eval_root),
        "<h2>ViewSpatial-Bench</h2>",
        _choice_section(eval_root, "viewspatial", published.VIEWSPATIAL_COLUMNS, published.VIEWSPATIAL),
        "<h2>ODI-Bench (closed form)</h2>",
        _choice_section(eval_root, "odi", published.ODI_COLUMNS, published.ODI),
        "<h2>ODI-Bench with Omni-CoT (closed form)</h2>",
        _choice_section(eval_root, "odi-omnicot", published.ODI_OMNICOT_COLUMNS, published.ODI_OMNICOT),
    ]
    text = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Evaluation: {html.escape(build.name)}'
        f"</title><style>{_STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )
    return write_bytes_atomic(eval_root / "index.html", text.encode("utf-8"))
