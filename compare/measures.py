"""The rows of a comparison: per benchmark and per category, the items on each side and how their distributions
differ (total-variation distance, with a chi-square test of homogeneity), and a verdict against the thresholds.

The measures of an item: its answer (the correct option's letter; a free-form answer as written, where its
category has few), its number of options, its question's template and subject kind (compare/questions.py), and
its number of images (frames). A measure differs when its distance passes its threshold and the test rejects
the same distribution at `alpha`: a small sample's noise is no difference.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from benchfoundry.compare.questions import common_words, normalised, subject_kind, template
from benchfoundry.configs.compare import CompareConfig
from benchfoundry.evaluation.items import EvalItem

#: The whole benchmark's row, besides one per category.
ALL = "(all)"
#: The measures, in the table's order.
MEASURES = ("answers", "options", "templates", "subjects", "frames")

Measure = Callable[[EvalItem], Hashable | None]


def tv_distance(a: Counter[Any], b: Counter[Any]) -> float | None:
    """Half the L1 distance between the two normalised distributions; None when either is empty."""
    na, nb = sum(a.values()), sum(b.values())
    if not na or not nb:
        return None
    return 0.5 * sum(abs(a[k] / na - b[k] / nb) for k in set(a) | set(b))


def homogeneity_p(a: Counter[Any], b: Counter[Any]) -> float | None:
    """The chi-square test's p-value that both counts come from one distribution (1.0 when both hold one value
    only); None when either is empty."""
    from scipy.stats import chi2_contingency

    keys = sorted(set(a) | set(b), key=repr)
    if not sum(a.values()) or not sum(b.values()):
        return None
    if len(keys) < 2:
        return 1.0
    return float(chi2_contingency([[a[k] for k in keys], [b[k] for k in keys]]).pvalue)


def judged(a: Counter[Any], b: Counter[Any], threshold: float, alpha: float) -> dict[str, Any]:
    """A measure's distance, p-value and whether it differs (past `threshold` and rejected at `alpha`)."""
    tv, p = tv_distance(a, b), homogeneity_p(a, b)
    differs = tv is not None and p is not None and tv > threshold and p < alpha
    return {"tv": tv, "p": p, "differs": differs}


def _measures(a: Sequence[EvalItem], b: Sequence[EvalItem], config: CompareConfig) -> dict[str, Measure]:
    """Each measure of an item of this group (its category, or the benchmark), read the same on both sides."""
    common = common_words((i.question for i in (*a, *b)), config.template_min_share)
    free = {normalised(i.answer) for i in (*a, *b) if not i.options}
    categorical = len(free) <= config.categorical_max

    def answer(item: EvalItem) -> Hashable | None:
        if item.options:
            return item.answer
        return f"free: {normalised(item.answer)}" if categorical else None

    return {
        "answers": answer,
        "options": lambda i: len(i.options),
        "templates": lambda i: template(i.question, common),
        "subjects": lambda i: subject_kind(i.question, config.subject_words),
        "frames": lambda i: None if i.problem else len(i.images),
    }


def counts(items: Sequence[EvalItem], measure: Measure) -> Counter[Any]:
    return Counter(v for v in map(measure, items) if v is not None)


def group_row(
    benchmark: str,
    task: str,
    a: Sequence[EvalItem],
    b: Sequence[EvalItem],
    totals: tuple[int, int],
    config: CompareConfig,
) -> dict[str, Any]:
    """One row: the items of a category (or of the benchmark, `ALL`) on each side, their share of the benchmark's
    items, each measure judged, and the verdict naming what differs."""
    row: dict[str, Any] = {"benchmark": benchmark, "task": task, "items": [len(a), len(b)]}
    row["share"] = [len(a) / totals[0] if totals[0] else None, len(b) / totals[1] if totals[1] else None]
    judgements: dict[str, dict[str, Any]] = {}
    if task != ALL:
        # the distance of a two-way split (in the category or not) is the difference of its shares
        judgements["share"] = judged(
            Counter({"in": len(a), "out": totals[0] - len(a)}),
            Counter({"in": len(b), "out": totals[1] - len(b)}),
            config.share_max,
            config.alpha,
        )
    else:
        judgements["categories"] = judged(
            Counter(i.task for i in a), Counter(i.task for i in b), config.tv_max, config.alpha
        )
    for name, measure in _measures(a, b, config).items():
        judgements[name] = judged(counts(a, measure), counts(b, measure), config.tv_max, config.alpha)
    row["measures"] = judgements
    differs = [name for name, j in judgements.items() if j["differs"]]
    if not a or not b:
        row["verdict"] = f"only in {'A' if a else 'B'}"
    else:
        row["verdict"] = "differs: " + ", ".join(differs) if differs else "close"
    return row


def benchmark_rows(
    benchmark: str, categories: Sequence[str], a: Sequence[EvalItem], b: Sequence[EvalItem], config: CompareConfig
) -> list[dict[str, Any]]:
    """The benchmark's row, then one per category either side holds (its declared categories first, in order)."""
    present = {i.task for i in (*a, *b)}
    tasks = [t for t in categories if t in present] + sorted(present - set(categories))
    totals = (len(a), len(b))
    rows = [group_row(benchmark, ALL, a, b, totals, config)]
    for task in tasks:
        in_a, in_b = [i for i in a if i.task == task], [i for i in b if i.task == task]
        rows.append(group_row(benchmark, task, in_a, in_b, totals, config))
    return rows
