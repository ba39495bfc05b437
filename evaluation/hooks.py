"""What a benchmark's evaluation plugs in: the class `Evaluation`, whose instance a benchmark's descriptor names
as its `evaluation` hook (pipeline/benchmarks.py). `benchfoundry eval` and the evaluation page ask it how the
benchmark's items are put to a model, how the replies are read and scored, which free-form answers the LLM judge
reads, and what its section of the page shows; they never name a benchmark themselves.

The defaults are the generic protocols (evaluation/protocols.py), accuracy over the closed items (run.py), every
free-form item judged by its task's rubric, and a per-task table; a benchmark overrides what its authors do
otherwise, and may offer a way of asking of its own (`options`, evaluation/options.py: `eval`'s flags that choose
and tune it, its section of the evaluation config). `benchfoundry score` reads a predictions file (eval's own, or a
format of the benchmark's authors) into the rows eval scores and scores them with the same `score`. A benchmark
without the hook gets `Evaluation()`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchfoundry.evaluation import protocols, tables
from benchfoundry.evaluation.baselines import Answerer, closed_answerer
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.evaluation.options import EvalOptions
from benchfoundry.evaluation.tables import Result
from benchfoundry.pipeline.benchmarks import hook
from benchfoundry.pipeline.commands import Arg

if TYPE_CHECKING:
    from benchfoundry.configs.base import Section
    from benchfoundry.evaluation.run import Progress
    from benchfoundry.pipeline.model_client import ModelClient

#: Prediction rows, one per item: {id, task, prediction, error, …} (evaluation/run.ask).
Rows = list[dict[str, Any]]


class Evaluation:
    """How one benchmark is evaluated; every method has the generic behaviour, a benchmark overrides its own."""

    #: Its own way of asking (`ask_variant` asks it), with its flags of `eval` and its config section; None: none.
    options: EvalOptions | None = None
    #: Tasks scored together besides each task: result key → the tasks whose closed items it covers.
    task_groups: Mapping[str, tuple[str, ...]] = {}
    #: `benchfoundry score <benchmark>`'s flags of its own, their values handed to `score_file` and `scored`.
    score_flags: tuple[Arg, ...] = ()
    #: The result's key of the judge's summary.
    judge_key: str = "open"
    #: The rubric every judged item is graded by (configs/evaluation.JudgeConfig); None: each item's task's.
    rubric_task: str | None = None
    #: How `eval`'s printed line names the judged answers; None: no line.
    judge_label: str | None = None
    #: The paper's accuracies (shares) by model as its tables print them, {"overall" or a category: accuracy}: the
    #: third side `benchfoundry compare` ranks the models against; none here.
    published_scores: Mapping[str, Mapping[str, float]] = {}

    # Asking ------------------------------------------------------------------------------------------------

    def prompt_text(self, item: EvalItem, protocol: str) -> str:
        """The text of the item's user turn."""
        return protocols.prompt_text(item, protocol)

    def request(self, item: EvalItem, protocol: str, blind: bool = False) -> list[dict[str, Any]]:
        """The item's messages (no images when blind); OSError or ValueError when an image is unreadable."""
        return protocols.request(item, self.prompt_text(item, protocol), blind)

    def parse_reply(self, item: EvalItem, reply: str, protocol: str) -> int | None:
        """The index of the option a closed item's reply names, or None."""
        return protocols.parse_reply(item, reply, protocol)

    def random_answerer(self, items: Sequence[EvalItem], protocol: str) -> Answerer:
        """How the random baseline answers `items`: a uniform option of a closed item, no reply to a free one."""
        return closed_answerer(protocol)

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
        """The items asked its own way (`options`) in `variant`, not the baseline, with its section of the evaluation
        config `config`: one row each."""
        raise ValueError("this benchmark has no way of asking of its own")

    # Judging -----------------------------------------------------------------------------------------------

    def judged(self, items: Sequence[EvalItem]) -> list[EvalItem]:
        """The free-form items the judge reads, as it reads them: every item without options."""
        return [i for i in items if not i.options]

    def judge_groups(self, judged: Sequence[EvalItem]) -> Mapping[str, str] | None:
        """Item id → the group its verdict is also averaged in (the summary's `per_group`); None: no groups."""
        return None

    def judge_scores(self, summary: Result | None, items: Sequence[EvalItem]) -> Result:
        """The result's entries of the judge's summary (None: no judge ran)."""
        return {} if summary is None else {self.judge_key: summary}

    # Scoring -----------------------------------------------------------------------------------------------

    def score_choices(self, items: Sequence[EvalItem], rows: Sequence[dict[str, Any]], protocol: str) -> Result:
        """Accuracy over the closed items, per task and overall, and over each of `task_groups`."""
        from benchfoundry.evaluation.run import score_choices

        return score_choices(items, rows, protocol, self.parse_reply, self.task_groups)

    def score(
        self,
        build: Path,
        items: Sequence[EvalItem],
        rows: Sequence[dict[str, Any]],
        protocol: str,
        target: Path,
        name: str,
    ) -> Result:
        """The result's scores of the replies `rows` (files it writes go to `target/<name>.*`); OSError or
        ValueError when they cannot be had."""
        return self.score_choices(items, rows, protocol)

    # Scoring a predictions file (`benchfoundry score`) ---------------------------------------------------------

    def read_predictions(self, path: Path, items: Sequence[EvalItem]) -> tuple[Rows, list[dict[str, Any]]]:
        """Eval's rows of the items a predictions file answers, and its bad lines ({line, reason}): here eval's own
        `predictions.jsonl` (evaluation/predictions.py); OSError or ValueError naming the file when unreadable."""
        from benchfoundry.core.bounded_read import read_text
        from benchfoundry.evaluation.predictions import read_lines

        return read_lines(read_text(path).splitlines(), items)

    def score_file(
        self, build: Path, items: Sequence[EvalItem], path: Path, protocol: str, target: Path, flags: Mapping[str, Any]
    ) -> Result:
        """A predictions file's scores, by the `score` eval's replies get, and its bad lines (`problems`); files the
        scoring writes go beside `target`; ValueError naming the file when no line answers an item."""
        rows, problems = self.read_predictions(path, items)
        if not rows:
            bad = f" ({len(problems)} bad lines)" if problems else ""
            raise ValueError(f"{path}: no usable prediction{bad}")
        return {**self.score(build, items, rows, protocol, target.parent, target.stem), "problems": problems}

    def score_text(self, result: Result) -> str:
        """What `score` prints of a result: the accuracy over the closed items, overall and per task."""
        if result.get("overall") is None:
            return "no closed item scored"
        tasks = ", ".join(f"{t} {a:.3f}" for t, a in result.get("per_task", {}).items())
        return (
            f"overall {result['overall']:.3f} over {result['n']} closed items ({result['answered']} answered, "
            f"{result['invalid']} invalid); {tasks}"
        )

    def scored(self, build: Path, flags: Mapping[str, Any]) -> list[str]:
        """What `score` prints once the score file is written into the build (pages it re-rendered): none here."""
        return []

    # The evaluation page -------------------------------------------------------------------------------------

    def report_section(self, results: Sequence[Result]) -> str:
        """Its section of the evaluation page (HTML) from its results, every variant: here our runs per task."""
        tasks = sorted({t for r in results for t in r.get("per_task", {})})
        return tables.per_task_table("Accuracy per task (ours), closed form (%)", tasks, tables.baseline_runs(results))


def evaluation_of(benchmark: str) -> Evaluation:
    """The benchmark's `evaluation` hook, or the generic `Evaluation()` when it declares none."""
    found = hook(benchmark, "evaluation")
    return Evaluation() if found is None else found
