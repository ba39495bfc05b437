"""A comparison of two sides (compare/sides.py) as one JSON-ready record: what each side is, the rows of each
benchmark both hold (compare/measures.py), their overlap (compare/overlap.py) and, where both ran `eval`, how
alike they rank the models (compare/ranking.py)."""

from __future__ import annotations

from typing import Any

from benchfoundry.compare.measures import benchmark_rows
from benchfoundry.compare.overlap import overlap
from benchfoundry.compare.ranking import ranking
from benchfoundry.compare.sides import Side
from benchfoundry.configs.compare import CompareConfig
from benchfoundry.evaluation.hooks import evaluation_of
from benchfoundry.pipeline.benchmarks import get, registered


def compare(a: Side, b: Side, config: CompareConfig) -> dict[str, Any]:
    """The record of the comparison of A and B under `config`'s thresholds."""
    record: dict[str, Any] = {
        "sides": {s.label: {"path": str(s.path), "what": s.what, "benchmarks": s.benchmarks} for s in (a, b)},
        "config": config.model_dump(),
        "benchmarks": {},
    }
    for descriptor in registered():
        name = descriptor.name
        if name not in a.items and name not in b.items:
            continue
        entry: dict[str, Any] = {"title": descriptor.title}
        if name in a.items and name in b.items:
            items_a, items_b = a.items[name], b.items[name]
            entry["rows"] = benchmark_rows(name, get(name).categories, items_a, items_b, config)
            entry["overlap"] = overlap(items_a, items_b, config.phash_distance, config.examples)
            entry["ranking"] = ranking(a.results, b.results, name, evaluation_of(name).published_scores)
        else:
            entry["only_in"] = a.label if name in a.items else b.label
        record["benchmarks"][name] = entry
    return record
