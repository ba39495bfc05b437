"""Waiting on a stage's shard futures: one helper for every flow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from prefect.futures import PrefectFuture

from benchfoundry.core.buildinfo import problem
from benchfoundry.flows.progress import StageProgress


def collect_shards(
    stage: str, futures: Iterable[tuple[str, PrefectFuture]], paths: Mapping[str, str] | None = None
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The results of the (item, future) pairs that finished, in order, and a `failed` problem naming
    the item (and its input path, when `paths` has one) for each task that raised after its retries.
    A progress bar of the stage (shards done / total, failures) goes to the terminal (stderr)."""
    results, failed = [], []
    pairs = list(futures)
    progress = StageProgress(stage, len(pairs))
    for item, future in pairs:
        try:
            results.append(future.result())
        except Exception as exc:
            failed.append(
                problem(stage, item, f"{type(exc).__name__}: {exc}"[:2000], kind="failed", path=(paths or {}).get(item))
            )
        progress.advance(ok=len(failed) == progress.failed)
    return results, failed
