"""ODI-Bench's commands, its descriptor's `commands`: `benchfoundry odi review-import BUILD FILE` (reviewers'
decisions on ODI-Bench items, then the release), `benchfoundry sphere …` (cli_sphere.py) and `benchfoundry assets
infinigen` (cli_assets.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.odi import cli_assets, cli_sphere
from benchfoundry.configs.build import BuildConfig
from benchfoundry.pipeline import review


def _to_review(build: Path, config: BuildConfig) -> tuple[list[dict[str, Any]], Path]:
    """ODI-Bench's items as released now, and their review folder."""
    from benchfoundry.benchmarks.odi.stages.qa_stage import release_from_decisions

    return release_from_decisions(build, config.odi)["items"], build / "odi" / review.FOLDER


def _release(build: Path, config: BuildConfig) -> str:
    from benchfoundry.benchmarks.odi.stages.qa_stage import release_from_decisions

    result = release_from_decisions(build, config.odi)
    return f"ODI-Bench.json now holds {result['released']} items, {result['verified']} verified"


COMMANDS = (
    review.review_import_command("odi", "ODI-Bench", "ODI-Bench items", _to_review, _release),
    cli_sphere.COMMAND,
    cli_assets.COMMAND,
)
