"""Toy-Bench's flow: render every item's cube (one task each, on the build's runner), then the released file and
the report page."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from prefect import flow

from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.buildinfo import benchmark_outcome
from benchfoundry.flows.collect import collect_shards
from benchfoundry.flows.task_runner import submit_shards
from toybench.identity import BENCHMARK, CATEGORY, RELEASED, TITLE
from toybench.scenes.cubes import QUESTION, image_name, item_id, options_of
from toybench.stages.render_stage import STAGE, render_task

#: The report page, relative to `<out>/report/` (the descriptor's `report_page`).
REPORT_PAGE = "toybench.html"


def released_row(k: int, colour: str) -> dict[str, Any]:
    return {
        "id": item_id(k),
        "task": CATEGORY,
        "question": QUESTION,
        "options": options_of(k),
        "answer": colour,
        "image": image_name(k),
    }


def write_report_page(out: str, rows: list[dict[str, Any]]) -> Path:
    cells = "".join(
        f'<tr><td>{html.escape(r["id"])}</td><td><img src="../{BENCHMARK}/{html.escape(r["image"])}"></td>'
        f"<td>{html.escape(r['answer'])}</td></tr>\n"
        for r in rows
    )
    page = (
        f"<!doctype html>\n<html><head><title>{TITLE}</title></head><body>\n<h1>{TITLE}</h1>\n"
        f"<p>{len(rows)} items</p>\n<table>\n{cells}</table>\n</body></html>\n"
    )
    return write_bytes_atomic(Path(out) / "report" / REPORT_PAGE, page.encode())


@flow(name="toybench")
def toy_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    toy = config.section(BENCHMARK)
    shards = [(item_id(k), k) for k in range(toy.items)]
    rendered, problems = collect_shards(STAGE, submit_shards(render_task, out, shards, config))
    rows = [released_row(r["item"], r["colour"]) for r in sorted(rendered, key=lambda r: r["item"])]
    released = write_json_atomic(Path(out) / RELEASED, rows)
    page = write_report_page(out, rows)
    return benchmark_outcome(
        "built" if rows and not problems else "failed",
        f"{len(rows)}/{toy.items} cubes rendered and released",
        stages={STAGE: str(Path(out) / BENCHMARK / "images"), "release": str(released), "report": str(page)},
        problems=problems,
        items=len(rows),
        render_s=round(sum(r["seconds"] for r in rendered), 3),
    )
