"""SynDORBench's evaluation, its descriptor's `evaluation` hook (evaluation/hooks.py): its items are free-form
(no options), asked with the prompt verbatim under either protocol; the replies are scored by the SynD scorer
(presence accuracy / F1, action E5Score, each reply read as the protocol reads it: scoring.py), the same code
for eval's replies and for a predictions file given to `benchfoundry score syndor` (cli_score.py); the judge reads
the action answers with the action in words, grouped by distance; the random baseline says 1 or 0 to a presence
item and one of the build's actions to an action item; the page shows the paper's tables with our runs.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.syndor import cli_score
from benchfoundry.benchmarks.syndor.harnesses.scoring import action_text, zscores_across_models
from benchfoundry.benchmarks.syndor.release import published
from benchfoundry.evaluation.baselines import Answerer
from benchfoundry.evaluation.hooks import Evaluation
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.tables import Result, baseline_runs, cell, label, mean, pct, render, source

PRESENCE = "human_detection"
ACTION = "action_recognition"


class SyndorEvaluation(Evaluation):
    """The SynD scorer, the action judge and the paper's tables."""

    judge_key = "action_judge"
    rubric_task = "action"
    score_flags = cli_score.SCORE_FLAGS  # the embedding model of E5Score

    def random_answerer(self, items: Sequence[EvalItem], protocol: str) -> Answerer:
        """1 or 0 to a presence item, one of the build's actions (in words) to an action item."""
        actions = sorted({action_text(item.answer) for item in items if item.task == ACTION})
        closed = super().random_answerer(items, protocol)

        def answer(item: EvalItem, rng: np.random.Generator) -> str | None:
            if item.options:
                return closed(item, rng)
            if item.task == PRESENCE:
                return str(int(rng.integers(2)))
            if item.task == ACTION:
                return actions[int(rng.integers(len(actions)))]
            return None

        return answer

    def judged(self, items: Sequence[EvalItem]) -> list[EvalItem]:
        """The action items, the action as words (`cover_face_with_hands` → "cover face with hands")."""
        return [replace(i, answer=action_text(i.answer)) for i in items if i.task == ACTION]

    def judge_groups(self, judged: Sequence[EvalItem]) -> Mapping[str, str]:
        """Each action item's distance (m, one decimal)."""
        return {i.id: f"{float(i.meta['radius']):.1f}" for i in judged}

    def score(
        self,
        build: Path,
        items: Sequence[EvalItem],
        rows: Sequence[dict[str, Any]],
        protocol: str,
        target: Path,
        name: str,
    ) -> Result:
        """The SynD scorer (cli_score.score_lines: presence accuracy / F1, action E5Score) of the replies, each
        read as the protocol reads it."""
        lines = [json.dumps({k: r.get(k) for k in ("id", "task", "prediction", "error")}) for r in rows]
        score = cli_score.score_lines(build, lines, protocol, where=f"{name}: the replies")
        summary: Result = {"n": len(items), "answered": sum(1 for r in rows if r["prediction"] is not None)}
        return {**summary, **{k: v for k, v in score.items() if k != "problems"}}

    def score_file(
        self, build: Path, items: Sequence[EvalItem], path: Path, protocol: str, target: Path, flags: Mapping[str, Any]
    ) -> Result:
        """The SynD scorer of a predictions file: eval's `predictions.jsonl` or the authors' harness's rows
        ({img_path, prompt, prediction}), every task and split in one file or one file each."""
        return cli_score.score_file(build, path, protocol, flags)

    def score_text(self, result: Result) -> str:
        """The presence and action tables."""
        return cli_score.format_tables(result)

    def scored(self, build: Path, flags: Mapping[str, Any]) -> list[str]:
        """The build report re-rendered with the new score file."""
        return cli_score.refresh_report(build, flags)

    def report_section(self, results: Sequence[Result]) -> str:
        """The paper's Tables 1 and 2 and its ablation with our presence rows, then our action table."""
        runs = baseline_runs(results)
        return _presence_tables(runs) + _action_table(runs)


def _presence(result: Result) -> dict[tuple[str, str], dict[str, Any]]:
    """(distance label, split) → presence group."""
    return {
        (g["distance"] if g["distance"] == "all" else f"{float(g['distance']):.1f}", g["split"]): g
        for g in result.get("presence", {}).get("groups", [])
    }


def _presence_tables(runs: Sequence[Result]) -> str:
    distances = [f"{d:.1f}" for d in published.SYNDOR_DISTANCES]
    table1 = []
    for r in runs:
        groups = _presence(r)
        cells = []
        for d in distances:
            found = [groups[(d, s)] for s in ("day", "night", "nv") if (d, s) in groups]
            acc = mean([pct(g["accuracy"]) for g in found])
            cells.append(None if acc is None else (acc, mean([pct(g["macro_f1"]) for g in found])))
        table1.append((label(r), None, *cells, source(r)))
    parts = [render(published.SYNDOR_TABLE1, table1)]
    for split, table in published.SYNDOR_TABLE2.items():
        ours = []
        for r in runs:
            accs = [pct(g["accuracy"]) if (g := _presence(r).get((d, split))) else None for d in distances]
            ours.append((label(r), *accs, None if None in accs else mean(accs), "", source(r)))
        parts.append(render(table, ours))
    parts.append(f"<p>{html.escape(published.SYNDOR_TABLE2_CAPTION)}</p>")
    parts.append(render(published.SYNDOR_ABLATION, []))
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
        judged = (r.get(SyndorEvaluation.judge_key) or {}).get("overall")
        rows.append(
            f'<tr class="ours"><td class="l">{html.escape(label(r))}</td>{cells}<td>{cell(pct(judged))}</td>'
            f'<td class="l">{html.escape(source(r))}</td></tr>'
        )
    head = "".join(f"<th>{d} m E5Score / z</th>" for d in distances)
    return (
        "<h3>SynDORBench action recognition (ours; z across the runs listed here, per distance)</h3>"
        f'<table><tr><th class="l">Model</th>{head}<th>Judge (%)</th><th class="l">Source</th></tr>'
        f"{''.join(rows)}</table>"
    )


EVALUATION = SyndorEvaluation()
