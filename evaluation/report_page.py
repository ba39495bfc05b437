"""`OUT/report/eval/index.html`: every registered benchmark's section (its evaluation hook's `report_section`:
the papers' published tables, complete and in their order, with the rows of the models evaluated on this build
added, marked as ours with the build they ran on), after a table of every run; in the report's one stylesheet
(pipeline/report_style.py).

Our rows come from the result files `OUT/report/eval/<model>/<name>.json` (evaluation/run.py); a row's
label says the model (Blind … for a run without images) and its Source cell the build and the protocol.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from benchfoundry.evaluation.hooks import evaluation_of
from benchfoundry.evaluation.options import offered
from benchfoundry.evaluation.tables import Result, label, source
from benchfoundry.pipeline.benchmarks import registered
from benchfoundry.pipeline.report_style import write_page


def load_results(eval_root: Path) -> list[Result]:
    """Every result file under `eval_root` (`<model>/<name>.json` with a `bench`): by model, then the runs with
    images before the blind ones, the baseline before a benchmark's own variants (in their order), the authors'
    protocol before the project's."""
    found = []
    for path in sorted(eval_root.glob("*/*.json")):
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(result, dict) and "bench" in result and "protocol" in result:
            found.append(result)
    options = [o for o, _ in offered()]
    return sorted(
        found,
        key=lambda r: (
            str(r.get("model")),
            bool(r.get("blind")),
            tuple(o.variants.index(v) if (v := o.recorded(r)) in o.variants else len(o.variants) for o in options),
            r["protocol"],
        ),
    )


def _runs(results: Sequence[Result]) -> str:
    """One line per result file: what ran (each benchmark's own variant in a column), on which items, how many failed
    or were dropped."""
    options = [o for o, _ in offered()]
    rows = []
    for r in results:
        dropped = sum((r.get("ambiguous_dropped") or {}).values())
        judge = (r.get("judge") or {}).get("model")
        rows.append(
            f'<tr><td class="l">{html.escape(label(r))}</td><td class="l">{html.escape(r["bench"])}</td>'
            + "".join(f'<td class="l">{html.escape(o.recorded(r))}</td>' for o in options)
            + f"<td>{r.get('n', '–')}</td>"
            f"<td>{r.get('failed_items', 0)}</td><td>{r.get('invalid', '–')}</td><td>{dropped}</td>"
            f'<td class="l">{html.escape(str(judge or "–"))}</td><td class="l">{html.escape(source(r))}</td></tr>'
        )
    if not rows:
        return "<p>No model evaluated on this build yet.</p>"
    return (
        '<table><tr><th class="l">Model</th><th class="l">Benchmark</th>'
        + "".join(f'<th class="l">{html.escape(o.title)}</th>' for o in options)
        + "<th>Items</th>"
        '<th>Failed</th><th>Invalid</th><th>Ambiguous dropped</th><th class="l">Judge</th><th class="l">Source</th>'
        f"</tr>{''.join(rows)}</table>"
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
    for benchmark in registered():
        section = evaluation_of(benchmark.name).report_section([r for r in results if r["bench"] == benchmark.name])
        parts += [f"<h2>{html.escape(benchmark.title)}</h2>", section]
    page = f"{eval_root.name}/index.html"
    return write_page(eval_root.parent, page, f"Evaluation: {build.name}", "\n".join(parts))
