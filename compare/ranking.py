"""Whether two sides rank the models alike: for each benchmark, the models `eval` ran on both sides (their baseline
runs: images shown, no benchmark's own way of asking, the same protocol), Kendall's τ and Spearman's ρ of their
accuracies overall and per category (scipy.stats), where at least two models have both; and each side against the
paper's table (the benchmark's evaluation hook's `published_scores`), its models matched by name (case, punctuation
and an `org/` prefix aside)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchfoundry.evaluation.tables import Result, baseline_runs

#: The protocol compared when both sides ran it, else the first both ran.
PREFERRED_PROTOCOL = "authors"
OVERALL = "overall"


def scores(results: Sequence[Result], benchmark: str, protocol: str) -> dict[str, dict[str, float]]:
    """Model → {"overall": accuracy, <category>: accuracy} of the benchmark's baseline runs with images."""
    found: dict[str, dict[str, float]] = {}
    for r in baseline_runs(results):
        if r.get("bench") != benchmark or r.get("blind") or r.get("protocol") != protocol:
            continue
        values = {OVERALL: r.get("overall"), **(r.get("per_task") or {})}
        found[str(r.get("model"))] = {k: float(v) for k, v in values.items() if isinstance(v, (int, float))}
    return found


def _protocol(a: Sequence[Result], b: Sequence[Result], benchmark: str) -> str | None:
    """The protocol both sides ran the benchmark with (`b` may be `a`): the authors' when both did, else the first
    in common."""
    ran = [{r.get("protocol") for r in results if r.get("bench") == benchmark} for results in (a, b)]
    common = sorted(str(p) for p in ran[0] & ran[1] if p)
    return PREFERRED_PROTOCOL if PREFERRED_PROTOCOL in common else (common[0] if common else None)


def model_key(name: str) -> str:
    """A model's name as matched with a paper's row: no `org/` prefix, case or punctuation."""
    return re.sub(r"[^0-9a-z]", "", name.rsplit("/", 1)[-1].casefold())


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def correlation(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, Any]:
    """τ and ρ over the models both hold (None where fewer than two, or one side ranks them all level)."""
    from scipy.stats import kendalltau, spearmanr

    models = sorted(set(a) & set(b))
    row: dict[str, Any] = {"models": models, "tau": None, "tau_p": None, "rho": None}
    if len(models) < 2 or len({a[m] for m in models}) < 2 or len({b[m] for m in models}) < 2:
        return row
    x, y = [a[m] for m in models], [b[m] for m in models]
    tau = kendalltau(x, y)
    row.update(tau=_finite(tau.statistic), tau_p=_finite(tau.pvalue), rho=_finite(spearmanr(x, y).statistic))
    return row


def by_scope(a: Mapping[str, Mapping[str, float]], b: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """The correlation of two tables of model → {scope: accuracy}, overall first, then each category either has."""
    scopes = [OVERALL] + sorted({k for s in (*a.values(), *b.values()) for k in s} - {OVERALL})
    return {
        scope: correlation(
            {m: s[scope] for m, s in a.items() if scope in s}, {m: s[scope] for m, s in b.items() if scope in s}
        )
        for scope in scopes
    }


def _keyed(table: Mapping[str, Mapping[str, float]]) -> dict[str, Mapping[str, float]]:
    return {model_key(m): s for m, s in table.items()}


def ranking(
    a: Sequence[Result], b: Sequence[Result], benchmark: str, published: Mapping[str, Mapping[str, float]]
) -> dict[str, Any] | None:
    """The benchmark's rank correlations between the sides (when they share a protocol of its runs), and of each
    side with runs against the published table; None when neither side has a run of it."""
    protocols = {"A": _protocol(a, a, benchmark), "B": _protocol(b, b, benchmark)}
    if protocols["A"] is None and protocols["B"] is None:
        return None
    common = _protocol(a, b, benchmark)
    chosen = {s: common or p for s, p in protocols.items()}
    scores_of = {s: scores(r, benchmark, chosen[s]) if chosen[s] else {} for s, r in (("A", a), ("B", b))}
    return {
        "protocol": common,
        "scores": scores_of,
        "by_scope": by_scope(scores_of["A"], scores_of["B"]) if common else {},
        "published": {
            side: by_scope(_keyed(table), _keyed(published)) for side, table in scores_of.items() if table and published
        },
    }
