"""A built benchmark's released items as table rows, by split, with their images as `hf.ImageRef`s: what the
Hugging Face and lmms-eval exports write; each benchmark's rows come from its descriptor's `export_rows`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.evaluation.items import EvalItem
from benchfoundry.export.hf import ImageRef
from benchfoundry.pipeline.benchmarks import hook

Splits = dict[str, list[dict[str, Any]]]


def refs(item: EvalItem, names: list[str]) -> list[ImageRef]:
    """The item's images under their released names; a refused item's one ref carries why (a problem row)."""
    if item.problem is not None:
        return [ImageRef(Path(), names[0] if names else "", refused=item.problem)]
    return [ImageRef(file, name) for file, name in zip(item.images, names)]


def splits_of(benchmark: str, build: Path) -> Splits:
    """The benchmark's rows by split, from its descriptor's export rows (pipeline/benchmarks.py)."""
    return hook(benchmark, "export_rows")(build)
