"""ODI-Bench's evaluation, its descriptor's `evaluation` hook (evaluation/hooks.py): the closed form asked and read
the generic way (evaluation/protocols.py: the paper states multiple choice with lettered options, or yes/no, and
accuracy; its prompt and parser are not public), plus `spatial`, the accuracy over the spatial-level tasks' items;
the open form graded by the LLM judge with each task's rubric (`open`, with `open_items` counted whether judged or
not); Omni-CoT (its `options`: `--omni-cot`, omnicot_options.py; its steps, omnicot.py); the page shows the paper's
tables with our runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchfoundry.benchmarks.odi.harnesses.omnicot_options import OMNI_COT
from benchfoundry.benchmarks.odi.identity import CATEGORIES, SPATIAL
from benchfoundry.benchmarks.odi.release import published
from benchfoundry.evaluation.hooks import Evaluation, Rows
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.tables import Result, Table, baseline_runs, cell, label, pct, render, source

if TYPE_CHECKING:
    from benchfoundry.configs.base import Section
    from benchfoundry.evaluation.run import Progress
    from benchfoundry.pipeline.model_client import ModelClient


class OdiEvaluation(Evaluation):
    """The spatial score, the open form's judge, Omni-CoT and the paper's tables."""

    options = OMNI_COT
    task_groups = {"spatial": SPATIAL}
    judge_label = "open form"
    published_scores = published.ODI_SCORES

    def ask_variant(
        self,
        client: ModelClient,
        items: Sequence[EvalItem],
        variant: str,
        config: Section,
        protocol: str,
        progress: Progress | None = None,
        chunk: int = 32,
    ) -> Rows:
        """The paper's Omni-CoT steps of the mode `variant` with the section `omni_cot` (omnicot.py)."""
        from benchfoundry.benchmarks.odi.harnesses.omnicot import ask_omnicot

        return ask_omnicot(client, items, variant, config, protocol, progress, chunk)

    def judge_scores(self, summary: Result | None, items: Sequence[EvalItem]) -> Result:
        """`open`, the judge's summary (None when no judge ran), and `open_items`, how many open items there are."""
        return {self.judge_key: summary, "open_items": sum(1 for i in items if not i.options)}

    def report_section(self, results: Sequence[Result]) -> str:
        """The paper's main table, Omni-CoT's Tables 4 and 5 with our runs, and our accuracy per task."""
        return "".join([_main_table(results), *_omni_cot_tables(results), _per_task_table(results)])


def _avo_ss(result: Result) -> str | None:
    per_task = result.get("per_task", {})
    if "AVO" not in per_task and "SS" not in per_task:
        return None
    return " / ".join(cell(pct(per_task.get(t))) for t in ("AVO", "SS"))


def _main_table(results: Sequence[Result]) -> str:
    main = [
        (
            label(r),
            pct(r.get("overall")),
            pct((r.get(OdiEvaluation.judge_key) or {}).get("overall")),
            _avo_ss(r),
            source(r),
        )
        for r in baseline_runs(results)
    ]
    return render(published.ODI_MAIN, main)


def _omni_cot_tables(results: Sequence[Result]) -> tuple[str, str]:
    """Tables 4 (Overall by Omni-CoT mode, EVO gain) and 5 (the ablation) with each model's runs with images."""
    runs: dict[tuple[str, str, str], dict[str, Result]] = {}
    for r in results:
        if not r.get("blind"):
            runs.setdefault((str(r["model"]), r["protocol"], source(r)), {})[r.get("omni_cot", "off")] = r
    table4, table5 = [], []
    for (model, _, where), modes in runs.items():
        if len(modes) > 1 or "off" not in modes:
            base, full = modes.get("off"), modes.get("full")
            gain = None
            if base and full and "EVO" in base.get("per_task", {}) and "EVO" in full.get("per_task", {}):
                gain = f"{100 * (full['per_task']['EVO'] - base['per_task']['EVO']):+.2f}"
            overall = [pct(modes[m].get("overall")) if m in modes else None for m in ("off", "guide", "full")]
            table4.append((model, *overall, gain, where))
        for mode in published.ODI_ABLATION_MODES:
            if mode in modes and len(modes) > 1:
                r = modes[mode]
                table5.append(
                    (
                        f"{model}: {published.ODI_ABLATION_LABELS[mode]}",
                        pct(r.get("overall")),
                        pct(r.get("spatial")),
                        "",
                        where,
                    )
                )
    return render(published.ODI_TABLE4, table4), render(published.ODI_TABLE5, table5)


def _per_task_table(results: Sequence[Result]) -> str:
    tasks = [published.ODI_TASK_LABELS.get(t, t) for t in CATEGORIES]
    table = Table(
        "ODI-Bench per task (ours; the paper prints no per-task table), closed form (%)", ("Model", *tasks), ()
    )
    rows = [
        (label(r) + ("" if r.get("omni_cot", "off") == "off" else f" + Omni-CoT {r['omni_cot']}"),)
        + tuple(pct(r.get("per_task", {}).get(t)) for t in CATEGORIES)
        + (source(r),)
        for r in results
    ]
    return render(table, rows) if rows else ""


EVALUATION = OdiEvaluation()
