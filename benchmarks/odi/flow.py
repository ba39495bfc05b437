"""ODI-Bench flow (docs/design/odi.md): panoramas → cube faces → annotator → instances → descriptions and questions →
release.

Without `odi.panorama_root` the embedded synthetic panoramas are rendered first (one task per scene,
skipped when rendered). Panoramas are annotated in batches (one task per `odi.batch_size` panoramas,
each panorama its own store shard); a panorama that cannot be read is a problem row and the others go
on. The instance manifest `odi/instances/manifest.parquet` is written then, and one QA task makes the
descriptions, candidate questions, the budget's choice, review files and `odi/ODI-Bench.json`
(benchmarks/odi/stages/qa_stage.py); build.json gets its task mix and the agreement with the synthetic truth, and the
report page `report/odi.html` shows them with the instances.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from prefect import flow

from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.benchmarks.odi.release.report_page import write_report_page
from benchfoundry.benchmarks.odi.scenes.panorama_stage import STAGE as PANORAMA_STAGE
from benchfoundry.benchmarks.odi.scenes.panorama_stage import panorama_folder, panorama_task
from benchfoundry.benchmarks.odi.stages.annotate_stage import STAGE, annotate_task
from benchfoundry.benchmarks.odi.stages.annotation.groundedsam import check_files
from benchfoundry.benchmarks.odi.stages.panoramas import batches, panorama_id, panorama_listing
from benchfoundry.benchmarks.odi.stages.qa_stage import STAGE as QA_STAGE
from benchfoundry.benchmarks.odi.stages.qa_stage import SUMMARY as QA_SUMMARY
from benchfoundry.benchmarks.odi.stages.qa_stage import qa_task
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import benchmark_outcome, render_summary
from benchfoundry.core.store import StageStore
from benchfoundry.flows.collect import run_shards


@flow(name="odi")
def odi_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """Panoramas (given or synthetic) → cube faces → instances, crops, COCO files."""
    odi = config.odi
    extra: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    if odi.panorama_root is None:
        folder = panorama_folder(out)
        made, problems = run_shards(
            PANORAMA_STAGE, panorama_task, out, [(name, name) for name in odi.synthetic.names], config
        )
        extra["synthetic_render"] = render_summary(r["seconds"] for r in made)
        paths = [folder / f"{r['scene']}.png" for r in made]
        source = f"{len(paths)} synthetic panoramas in {folder}"
        if not paths:  # every render failed (a full disk, a broken Blender): nothing asked for was made
            return benchmark_outcome(
                "failed",
                f"0/{len(odi.synthetic.names)} synthetic panoramas rendered; nothing to annotate",
                problems=problems,
                **extra,
            )
    else:
        paths, refused = panorama_listing(Path(odi.panorama_root))
        problems += refused
        source = f"{len(paths)} panoramas in {odi.panorama_root}"
    annotator = odi.chosen_annotator
    if annotator == "groundedsam":
        check_files(odi.groundedsam)
        reason = "GroundingDINO + SAM checkpoints configured"
    else:
        reason = (
            "set by odi.annotator"
            if odi.annotator == "truth"
            else "no GroundedSAM checkpoint configured (odi.groundedsam): the synthetic ground truth"
        )
    extra["annotator"] = {"name": annotator, "reason": reason}
    shards = [(f"batch{k:04d}", tuple(str(p) for p in batch)) for k, batch in enumerate(batches(paths, odi.batch_size))]
    results, failed = run_shards(STAGE, annotate_task, out, shards, config)
    problems += failed
    rows = [r for batch in results for r in batch]
    problems += [p for r in rows for p in r["problems"]]
    done = sorted(r["panorama"] for r in rows if r["done"])
    store = StageStore(out, BENCHMARK, STAGE)
    manifest = store.write_manifest(done)
    dropped = {r["panorama"]: r["dropped_at_border"] for r in rows if r["done"]}
    extra["dropped_at_border"] = summed(dropped.values())
    n_instances = sum(r["instances"] for r in rows if r["done"])
    n_dropped = sum(extra["dropped_at_border"].values())
    extra["census"] = summed(r["census"] for r in rows if r["done"])
    stages = {STAGE: str(manifest), "coco": str(store.dir / "coco")}
    qa_runs, qa_failed = run_shards(QA_STAGE, qa_task, out, [("qa", str(manifest))], config)
    problems += qa_failed
    qa = qa_runs[0] if qa_runs else None
    if qa is not None:
        problems += qa["problems"]
        stages.update(release=qa["release"], review=qa["review"]["csv"])
        extra["qa"] = {
            "backend": odi.qa.backend,
            "model_usage": qa["usage"],
            **{k: qa[k] for k in QA_SUMMARY},
        }
        extra["items"] = qa["items"]
        qa_text = (
            f"{qa['questions']} questions chosen of {qa['candidates']} candidates ({odi.qa.backend} backend), "
            f"{qa['items']} items, {qa['released']} released "
            f"{'(undecided ones unreviewed)' if odi.qa.release_unreviewed else '(reviewed only)'}"
        )
    else:
        qa_text = "QA failed"
    stages["report"] = str(write_report_page(out, store.read_manifest(), dropped, config.seed, qa))
    detail = (
        f"{len(done)}/{len(paths)} panoramas annotated ({source}); {n_instances} instances kept, "
        f"{n_dropped} dropped at face borders; annotator {annotator} ({reason}); {qa_text}."
    )
    unreadable = {panorama_id(p) for p in paths} - set(done)
    status, why = outcome_status(len(done), bool(qa_failed), qa["items"] if qa is not None else None)
    detail += f" {why}" if why else ""
    return benchmark_outcome(status, detail, stages=stages, problems=problems, unannotated=sorted(unreadable), **extra)


def summed(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    """Per-panorama counts added up, by key, sorted: build.json's totals (each panorama's own stay in its marker)."""
    total: Counter[str] = Counter()
    for row in counts:
        total.update(row)
    return dict(sorted(total.items()))


def outcome_status(annotated: int, qa_failed: bool, items: int | None) -> tuple[str, str]:
    """(`built` or `failed`, what the detail must add): nothing annotated, the QA stage failed (the detail says
    so already), or the panoramas gave no question (an empty ODI-Bench.json is no release)."""
    if not annotated:
        return "failed", "No panorama was annotated."
    if qa_failed or items is None:
        return "failed", ""
    if not items:
        return "failed", "The annotated panoramas gave no question: nothing to release."
    return "built", ""
