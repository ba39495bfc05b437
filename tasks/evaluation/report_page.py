"""`OUT/report/eval/index.html`: every published table of the three papers, complete and in their order, with the
rows of the models evaluated on this build added to the same tables, marked as ours with the build they ran on.

Our rows come from the result files `OUT/report/eval/<model>/<name>.json` (tasks/evaluation/run.py); a row's
label says the model (Blind … for a run without images) and its Source cell the build and the protocol.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.tasks.evaluation import published
from benchfoundry.tasks.evaluation.published import Table
from benchfoundry.tasks.odi.benchmark import TASKS as ODI_TASKS
from benchfoundry.tasks.syndor.scoring import zscores_across_models

_STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td.l,th.l{text-align:left}"
    "tr.pub td{color:#555}tr.ours td{background:#eef6ee;font-weight:bold}caption{text-align:left;color:#555}"
)
PUBLISHED = "published (original data)"
_LEFT = ' class="l"'
Result = dict[str, Any]


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, tuple):
        return " / ".join(_cell(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return html.escape(str(value))


def _pct(value: float | None) -> float | None:
    return None if value is None else 100.0 * value


def render(table: Table, ours: Sequence[tuple[Any, ...]]) -> str:
    """The table with its published rows in their order, then our rows, and a Source column."""
    head = "".join(f"<th{_LEFT if i == 0 else ''}>{html.escape(c)}</th>" for i, c in enumerate(table.columns))
    body = []
    for kind, rows in (("pub", [(*r, PUBLISHED) for r in table.rows]), ("ours", ours)):
        for row in rows:
            cells = "".join(f"<td{_LEFT if i == 0 else ''}>{_cell(v)}</td>" for i, v in enumerate(row[:-1]))
            body.append(f'<tr class="{kind}">{cells}<td class="l">{html.escape(str(row[-1]))}</td></tr>')
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return (
        f"<h3>{html.escape(table.title)}</h3><table>{caption}"
        f'<tr>{head}<th class="l">Source</th></tr>{"".join(body)}</table>'
    )


def load_results(eval_root: Path) -> list[Result]:
    """Every result file under `eval_root` (`<model>/<name>.json` with a `bench`): by model, then the runs with
    images before the blind ones, the baseline before Omni-CoT, the authors' protocol before the project's."""
    found = []
    for path in sorted(eval_root.glob("*/*.json")):
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(result, dict) and "bench" in result and "protocol" in result:
            found.append(result)
    order = {mode: k for k, mode in enumerate(published.ODI_ABLATION_MODES)}
    return sorted(
        found,
        key=lambda r: (
            str(r.get("model")),
            bool(r.get("blind")),
            order.get(r.get("omni_cot", "off"), 9),
            r["protocol"],
        ),
    )


def label(result: Result) -> str:
    return ("Blind " if result.get("blind") else "") + str(result.get("model"))


def source(result: Result) -> str:
    build = result.get("build") or {}
    where = " ".join(str(build[k])[:12] for k in ("name", "config_hash") if build.get(k))
    return f"ours: {f'build {where}' if where else 'this build'}, {result['protocol']} protocol"


def _of(results: Sequence[Result], bench: str, omni_cot: str = "off") -> list[Result]:
    return [r for r in results if r["bench"] == bench and r.get("omni_cot", "off") == omni_cot]


def _presence(result: Result) -> dict[tuple[str, str], dict[str, Any]]:
    """(distance label, split) → presence group."""
    return {
        (g["distance"] if g["distance"] == "all" else f"{float(g['distance']):.1f}", g["split"]): g
        for g in result.get("presence", {}).get("groups", [])
    }


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _syndor(results: Sequence[Result]) -> str:
    runs = _of(results, "syndor")
    distances = [f"{d:.1f}" for d in published.SYNDOR_DISTANCES]
    table1 = []
    for r in runs:
        groups = _presence(r)
        cells = []
        for d in distances:
            cell = [groups[(d, s)] for s in ("day", "night", "nv") if (d, s) in groups]
            acc = _mean([_pct(g["accuracy"]) for g in cell])
            cells.append(None if acc is None else (acc, _mean([_pct(g["macro_f1"]) for g in cell])))
        table1.append((label(r), None, *cells, source(r)))
    parts = [render(published.SYNDOR_TABLE1, table1)]
    for split, table in published.SYNDOR_TABLE2.items():
        ours = []
        for r in runs:
            accs = [_pct(g["accuracy"]) if (g := _presence(r).get((d, split))) else None for d in distances]
            ours.append((label(r), *accs, None if None in accs else _mean(accs), "", source(r)))
        parts.append(render(table, ours))
    parts.append(f"<p>{html.escape(published.SYNDOR_TABLE2_CAPTION)}</p>")
    parts.append(render(published.SYNDOR_ABLATION, []))
    parts.append(_action_table(runs))
    return "".join(parts)


def _action_table(runs: Sequence[Result]) -> str:
    """Action recognition (ours only; the paper prints no table): E5Score per distance with its z across the runs
    listed here, and the judge's share where a judge scored the answers."""
    named = {f"{label(r)} ({r['protocol']})": r for r in runs if (r.get("action") or {}).get("items")}
    if not named:
        return ""
    z = zscores_across_models({name: r["action"] for name, r in named.items()})
    distances = sorted({d for row in z.values() for d in row}, key=float)
    rows = []
    for name, r in named.items():
        e5 = {str(g["distance"]): g["e5score"] for g in r["action"].get("groups", []) if g["split"] == "all"}
        cells = "".join(
            f"<td>{e5[d]:.3f} / {'–' if z[name].get(d) is None else f'{z[name][d]:+.2f}'}</td>"
            if d in e5
            else "<td>–</td>"
            for d in distances
        )
        judged = (r.get("action_judge") or {}).get("overall")
        rows.append(
            f'<tr class="ours"><td class="l">{html.escape(label(r))}</td>{cells}<td>{_cell(_pct(judged))}</td>'
            f'<td class="l">{html.escape(source(r))}</td></tr>'
        )
    head = "".join(f"<th>{d} m E5Score / z</th>" for d in distances)
    return (
        "<h3>SynDORBench action recognition (ours; z across the runs listed here, per distance)</h3>"
        f'<table><tr><th class="l">Model</th>{head}<th>Judge (%)</th><th class="l">Source</th></tr>'
        f"{''.join(rows)}</table>"
    )


def _viewspatial(results: Sequence[Result]) -> str:
    ours = [
        (
            label(r),
            *(_pct(r.get("per_task", {}).get(t)) for t in published.VIEWSPATIAL_TASKS),
            _pct(r.get("overall")),
            source(r),
        )
        for r in _of(results, "viewspatial")
    ]
    return "".join(
        [
            render(published.VIEWSPATIAL_TABLE2, ours),
            render(published.VIEWSPATIAL_TABLE3, []),
            render(published.VIEWSPATIAL_TABLE4, []),
        ]
    )


def _avo_ss(result: Result) -> str | None:
    per_task = result.get("per_task", {})
    if "AVO" not in per_task and "SS" not in per_task:
        return None
    return " / ".join(_cell(_pct(per_task.get(t))) for t in ("AVO", "SS"))


def _odi(results: Sequence[Result]) -> str:
    main = [
        (
            label(r),
            _pct(r.get("overall")),
            _pct((r.get("open") or {}).get("overall")),
            _avo_ss(r),
            source(r),
        )
        for r in _of(results, "odi")
    ]
    runs: dict[tuple[str, str, str], dict[str, Result]] = {}
    for r in results:
        if r["bench"] == "odi" and not r.get("blind"):
            runs.setdefault((str(r["model"]), r["protocol"], source(r)), {})[r.get("omni_cot", "off")] = r
    table4, table5 = [], []
    for (model, _, where), modes in runs.items():
        if len(modes) > 1 or "off" not in modes:
            base, full = modes.get("off"), modes.get("full")
            gain = None
            if base and full and "EVO" in base.get("per_task", {}) and "EVO" in full.get("per_task", {}):
                gain = f"{100 * (full['per_task']['EVO'] - base['per_task']['EVO']):+.2f}"
            overall = [_pct(modes[m].get("overall")) if m in modes else None for m in ("off", "guide", "full")]
            table4.append((model, *overall, gain, where))
        for mode in published.ODI_ABLATION_MODES:
            if mode in modes and len(modes) > 1:
                r = modes[mode]
                table5.append(
                    (
                        f"{model}: {published.ODI_ABLATION_LABELS[mode]}",
                        _pct(r.get("overall")),
                        _pct(r.get("spatial")),
                        "",
                        where,
                    )
                )
    tasks = [published.ODI_TASK_LABELS.get(t, t) for t in ODI_TASKS]
    per_task = Table(
        "ODI-Bench per task (ours; the paper prints no per-task table), closed form (%)", ("Model", *tasks), ()
    )
    per_task_rows = [
        (label(r) + ("" if r.get("omni_cot", "off") == "off" else f" + Omni-CoT {r['omni_cot']}"),)
        + tuple(_pct(r.get("per_task", {}).get(t)) for t in ODI_TASKS)
        + (source(r),)
        for r in results
        if r["bench"] == "odi"
    ]
    return "".join(
        [
            render(published.ODI_MAIN, main),
            render(published.ODI_TABLE4, table4),
            render(published.ODI_TABLE5, table5),
            render(per_task, per_task_rows) if per_task_rows else "",
        ]
    )


def _runs(results: Sequence[Result]) -> str:
    """One line per result file: what ran, on which items, how many failed or were dropped."""
    rows = []
    for r in results:
        dropped = sum((r.get("ambiguous_dropped") or {}).values())
        judge = (r.get("judge") or {}).get("model")
        rows.append(
            f'<tr><td class="l">{html.escape(label(r))}</td><td class="l">{html.escape(r["bench"])}</td>'
            f'<td class="l">{html.escape(str(r.get("omni_cot", "off")))}</td><td>{r.get("n", "–")}</td>'
            f"<td>{r.get('failed_items', 0)}</td><td>{r.get('invalid', '–')}</td><td>{dropped}</td>"
            f'<td class="l">{html.escape(str(judge or "–"))}</td><td class="l">{html.escape(source(r))}</td></tr>'
        )
    if not rows:
        return "<p>No model evaluated on this build yet.</p>"
    return (
        '<table><tr><th class="l">Model</th><th class="l">Benchmark</th><th class="l">Omni-CoT</th><th>Items</th>'
        '<th>Failed</th><th>Invalid</th><th>Ambiguous dropped</th><th class="l">Judge</th><th class="l">Source</th>'
        f"</tr>{''.join(rows)}</table>"
    )


SECTIONS: tuple[tuple[str, Callable[[Sequence[Result]], str]], ...] = (
    ("SynDORBench", _syndor),
    ("ViewSpatial-Bench", _viewspatial),
    ("ODI-Bench", _odi),
)


def write_eval_report(build: Path, eval_root: Path) -> Path:
    """The evaluation page of a build, from the result files under `eval_root` (`OUT/report/eval/`)."""
    results = load_results(eval_root)
    parts = [
        "<h1>Models evaluated on this build, beside the papers' tables</h1>",
        "<p>Rows marked <i>published</i> are the papers' figures on the original data, for reference; rows "
        "marked <i>ours</i> are models asked this build's items.</p>",
        "<h2>Runs</h2>",
        _runs(results),
    ]
    for title, section in SECTIONS:
        parts += [f"<h2>{title}</h2>", section(results)]
    text = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Evaluation: {html.escape(build.name)}'
        f"</title><style>{_STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )
    return write_bytes_atomic(eval_root / "index.html", text.encode("utf-8"))
