"""ODI-Bench stage 2 (docs/design/odi.md §2): instances → descriptions → consistency filter → candidate questions →
budget → distractors → review → release.

One task reads the instance manifest and, per panorama (a store shard of `odi/qa/`, skipped on reruns): each
kept instance is described without its class (benchmarks/odi/stages/questions/descriptions.py) and stays only when its
description
names the class (drops counted by class); the panorama's facts are what a real panorama gives (directions,
floor contact points, mask solid angles, the detector's census, the descriptions: panorama_facts.py), and
every kind of question it can answer clearly becomes a candidate (questions.py, reasoning_questions.py; with
the `openai` backend also the writer model's). Where the synthetic truth lies beside the panorama, each candidate also
gets the truth's answer (benchmarks/odi/stages/questions/truth_facts.py) for the agreement figures; the truth answers
nothing else.
Then the budget chooses the questions of the whole build (benchmarks/odi/stages/questions/budget.py), the writer model
replaces the
template's wrong options of open-vocabulary questions (`openai`), every item is exported for review
(`odi/review/`), the chosen items are kept in `odi/qa/items.parquet`, and the release is written
(benchmarks/odi/release/release.py).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import pandas as pd

from benchfoundry.benchmarks.odi.config import OdiConfig
from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.benchmarks.odi.release.release import RELEASE_JSON, write_release
from benchfoundry.benchmarks.odi.stages.annotate_stage import STAGE as INSTANCES
from benchfoundry.benchmarks.odi.stages.annotation.truth_annotator import load_truth
from benchfoundry.benchmarks.odi.stages.panoramas import truth_files
from benchfoundry.benchmarks.odi.stages.questions import descriptions, model_questions
from benchfoundry.benchmarks.odi.stages.questions.answers import Margins
from benchfoundry.benchmarks.odi.stages.questions.budget import choose
from benchfoundry.benchmarks.odi.stages.questions.candidates import Generator, general_candidates, spatial_candidates
from benchfoundry.benchmarks.odi.stages.questions.descriptions import Description
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import estimated_scene
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate, items_of
from benchfoundry.benchmarks.odi.stages.questions.reasoning_questions import reasoning_candidates
from benchfoundry.benchmarks.odi.stages.questions.template_describer import describe_instances
from benchfoundry.benchmarks.odi.stages.questions.truth_facts import agreement, truth_answer, truth_scene
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.store import StageStore, read_parquet, spec_hash, write_parquet_atomic
from benchfoundry.pipeline import review
from benchfoundry.pipeline.model_client import ModelClient, ModelError
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "qa"
ITEMS = "items.parquet"
#: Part of the QA shards' spec hash: bump it when the candidates change.
QA_VERSION = 3
#: Questions asked of the writer model per panorama.
MODEL_QUESTIONS = 20
#: A straight path whose midpoint passes nearer to me than this (m) has no side of me to ask about.
PATH_CLEARANCE_M = 0.5
#: A panorama's counts that the build record adds up (each panorama's own stay in its marker, `qa`).
PANORAMA_TOTALS = ("instances", "kept", "undescribed", "dropped_inconsistent", "candidates")
#: What the build record keeps of the stage's result (benchmarks.odi.qa in build.json).
SUMMARY = (
    "panoramas",
    "panorama_totals",
    "candidates",
    "questions",
    "items",
    "released",
    "task_mix",
    "forms",
    "answer_from",
    "agreement",
    "dropped_inconsistent_by_class",
)


class Clients:
    """The model clients of the `openai` backend (describer, writer), closed together."""

    def __init__(self, odi: OdiConfig, cache: Path) -> None:
        self.describer = ModelClient(odi.qa.describer, cache)
        self.writer = ModelClient(odi.qa.writer, cache)

    def usage(self) -> dict[str, Any]:
        return {"describer": self.describer.usage(), "writer": self.writer.usage()}

    def close(self) -> None:
        self.describer.close()
        self.writer.close()


def margins(odi: OdiConfig) -> Margins:
    return Margins(
        deg=odi.qa.margin_deg, near=odi.qa.near_margin, size=odi.qa.size_margin, clearance_m=PATH_CLEARANCE_M
    )


def load_truth_beside(image: Path) -> tuple[Any, dict[int, dict[str, Any]]] | None:
    """The synthetic truth beside a panorama (instance map, records by id), or None for a real one."""
    ids_path, json_path = truth_files(image)
    if not (ids_path.is_file() and json_path.is_file()):
        return None
    shape = decode_file(image, cv2.IMREAD_UNCHANGED).shape[:2]
    return load_truth(image, shape)


def describe(
    pano: str, rows: list[dict[str, Any]], odi: OdiConfig, benchmark_dir: Path, truth: Any, clients: Clients | None
) -> tuple[list[Description | ModelError | None], list[dict[str, Any]]]:
    """Each instance's description (None: the template describer has no truth to look at) and problems."""
    if clients is not None:
        crops = [decode_file(benchmark_dir / str(r["crop"]), cv2.IMREAD_COLOR) for r in rows]
        return list(descriptions.describe_crops(clients.describer, crops, odi.qa.describe_prompt)), []
    if truth is None:
        reason = (
            "the template describer sees only the synthetic truth; describe real panoramas with odi.qa.backend: openai"
        )
        return [None] * len(rows), [problem(STAGE, pano, reason)]
    return list(describe_instances(rows, *truth)), []


def panorama_candidates(
    pano: str,
    rows: list[dict[str, Any]],
    spanning: list[dict[str, Any]],
    odi: OdiConfig,
    benchmark_dir: Path,
    seed: int,
    clients: Clients | None,
) -> tuple[list[tuple[Candidate, str | None]], dict[str, Any], list[dict[str, Any]]]:
    """(candidates with the truth's answers, counts, problems) of one panorama."""
    image = benchmark_dir / str(rows[0]["source"])
    truth = load_truth_beside(image)
    texts, problems = describe(pano, rows, odi, benchmark_dir, truth, clients)
    described: dict[int, Description | None] = {}
    dropped: Counter[str] = Counter()
    for row, text in zip(rows, texts):
        k, category = int(row["instance"]), str(row["class"])
        if isinstance(text, ModelError):
            problems.append(problem(STAGE, f"{pano}:{k}", f"description failed: {text}"))
        elif text is None or descriptions.names_class(category, text, odi.qa.synonyms):
            described[k] = text
        else:
            dropped[category] += 1
    scene = estimated_scene(rows, described, spanning, odi.classes, odi.qa)
    g = Generator(scene, pano, seed, margins(odi))
    found = general_candidates(g) + spatial_candidates(g) + reasoning_candidates(g)
    if clients is not None:
        kept = [(f.category, f.theta_deg, described[f.instance_id]) for f in scene.facts]
        lines = [(c, t, f"{d.object}: {d.sentence}") for c, t, d in kept if isinstance(d, Description)]
        picture = model_questions.panorama_part(image, odi.qa.model_image_width)
        reply = clients.writer.chat(model_questions.qa_request(lines, MODEL_QUESTIONS, picture)).text
        written, bad = model_questions.model_candidates(reply, pano)
        found += written
        problems += [problem(STAGE, pano, reason) for reason in bad]
    checked = None if truth is None else truth_scene(rows, *truth, odi.classes)
    counts = {
        "instances": len(rows),
        "kept": len(described),
        "undescribed": sum(d is None for d in described.values()),
        "dropped_inconsistent": sum(dropped.values()),
        "dropped_by_class": dict(sorted(dropped.items())),
        "census": dict(scene.census),
        "candidates": len(found),
        "truth": truth is not None,
    }
    info = {"descriptions": {str(k): None if d is None else d.to_json() for k, d in described.items()}, **counts}
    return [(c, truth_answer(c.spec, checked)) for c in found], info, problems


def qa_spec(odi: OdiConfig, seed: int, rows: pd.DataFrame, spanning: list[dict[str, Any]]) -> str:
    qa = odi.qa.model_dump(mode="json", exclude={"budget", "release_unreviewed"})
    return spec_hash([QA_VERSION, seed, qa, odi.classes, rows.to_dict("records"), spanning])


def distractors_from_model(
    chosen: dict[str, list[Candidate]], images: dict[str, Path], odi: OdiConfig, clients: Clients
) -> tuple[dict[tuple[str, str], tuple[str, ...]], list[dict[str, Any]]]:
    """The writer model's wrong options for the chosen open-vocabulary questions: (panorama, key) → options."""
    asked = [(pano, c) for pano, cs in chosen.items() for c in cs if c.open_vocabulary]
    pictures = {pano: model_questions.panorama_part(images[pano], odi.qa.model_image_width) for pano, _ in asked}
    replies = clients.writer.chat_many(
        [model_questions.distractor_request(c.question, c.answer, pictures[pano]) for pano, c in asked]
    )
    options, problems = {}, []
    for (pano, c), reply in zip(asked, replies):
        found = reply if isinstance(reply, ModelError) else model_questions.model_distractors(reply.text, c.answer)
        if isinstance(found, tuple):
            options[(pano, c.key)] = (c.answer, *found)
        else:
            problems.append(problem(STAGE, f"{pano}:{c.key}", f"model distractors: {found}; template options kept"))
    return options, problems


class StoredCandidates(Mapping[str, list[Candidate]]):
    """The panoramas' stored candidates, read from the store a panorama at a time when the budget visits it (the
    pool of 2,000 panoramas is about 400,000 candidates, over half a gigabyte held at once). A read notes each of
    the panorama's candidates as (key, task, answer, truth's answer) for the stage's agreement figures."""

    def __init__(self, store: StageStore, done: list[str]) -> None:
        self.store, self.done, self.known = store, done, set(done)
        self.records: dict[str, list[tuple[str, str, str, str | None]]] = {}

    def __getitem__(self, pano: str) -> list[Candidate]:
        if pano not in self.known:
            raise KeyError(pano)
        part = self.store.shard_rows(pano)
        found = [Candidate.from_json(json.loads(text)) for text in part.get("candidate", [])]
        truths = [None if t is None or pd.isna(t) else str(t) for t in part.get("truth", [])]
        self.records[pano] = [(c.key, c.task, c.answer, t) for c, t in zip(found, truths)]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.done)

    def __len__(self) -> int:
        return len(self.done)


def chosen_items(
    chosen: dict[str, list[Candidate]],
    images: dict[str, str],
    model_options: dict[tuple[str, str], tuple[str, ...]],
    seed: int,
) -> list[dict[str, Any]]:
    """The closed and open items of the chosen candidates, with the model's wrong options where it wrote them."""
    items = []
    for pano, picked in chosen.items():
        for c in picked:
            options = model_options.get((pano, c.key))
            made = c if options is None else Candidate.from_json({**c.to_json(), "options": options})
            items += items_of(made, pano, images[pano], seed, distractors_from(c, options is not None))
    return items


def summary(
    counts: dict[str, Any],
    candidates: StoredCandidates,
    chosen: dict[str, list[Candidate]],
    items: list[dict[str, Any]],
) -> dict[str, Any]:
    """What build.json keeps of the stage (SUMMARY) but the release's own figures: totals, never a row a panorama."""
    truths = {pano: {k: t for k, _, _, t in rows} for pano, rows in candidates.records.items()}
    picked = [
        {"task": c.task, "answer": c.answer, "truth": truths[pano][c.key]} for pano, cs in chosen.items() for c in cs
    ]
    every = ({"task": task, "answer": a, "truth": t} for rows in candidates.records.values() for _, task, a, t in rows)
    dropped = sum((Counter(v["dropped_by_class"]) for v in counts.values()), Counter())
    return {
        "panoramas": len(counts),
        "panorama_totals": {k: sum(v[k] for v in counts.values()) for k in PANORAMA_TOTALS},
        "candidates": sum(len(rows) for rows in candidates.records.values()),
        "questions": sum(len(cs) for cs in chosen.values()),
        "items": len(items),
        "task_mix": dict(sorted(Counter(i["task"] for i in items).items())),
        "forms": dict(sorted(Counter(i["form"] for i in items).items())),
        "answer_from": dict(sorted(Counter(i["answer_from"] for i in items if i["form"] == "closed").items())),
        "agreement": {"chosen": agreement(picked), "candidates": agreement(every)},
        "dropped_inconsistent_by_class": dict(sorted(dropped.items())),
    }


def qa_all(out: str, manifest: str, odi: OdiConfig, seed: int) -> dict[str, Any]:
    """Every panorama's candidates (finished ones skipped), the budget, the distractors, review files, release."""
    benchmark_dir = Path(out) / BENCHMARK
    instances = read_parquet(manifest)
    store = StageStore(out, BENCHMARK, STAGE)
    marks = StageStore(out, BENCHMARK, INSTANCES)
    clients = Clients(odi, benchmark_dir / STAGE / "cache") if odi.qa.backend == "openai" else None
    counts: dict[str, Any] = {}
    images: dict[str, str] = {}
    model_options: dict[tuple[str, str], tuple[str, ...]] = {}
    model_problems: list[dict[str, Any]] = []
    try:
        for pano, frame in instances.groupby("panorama", sort=True) if len(instances) else ():
            pano = str(pano)
            images[pano] = str(frame["source"].iloc[0])
            spanning = (marks.marker(pano) or {}).get("spanning", [])
            h = qa_spec(odi, seed, frame, spanning)
            if not store.is_done(pano, h):
                rows = frame.sort_values("instance").to_dict("records")
                found, info, problems = panorama_candidates(pano, rows, spanning, odi, benchmark_dir, seed, clients)
                shard = pd.DataFrame(
                    {
                        "candidate": [json.dumps(c.to_json(), sort_keys=True) for c, _ in found],
                        "truth": pd.Series([t for _, t in found], dtype=object),
                    }
                )
                store.write_shard(pano, shard, spec_hash=h, problems=problems, info={"qa": info})
            counts[pano] = {k: v for k, v in store.marker(pano)["qa"].items() if k != "descriptions"}
        done = sorted(counts)
        store.write_manifest(done)
        candidates = StoredCandidates(store, done)
        chosen = choose(candidates, odi.qa.budget, seed)
        if clients is not None:
            paths = {pano: benchmark_dir / image for pano, image in images.items()}
            model_options, model_problems = distractors_from_model(chosen, paths, odi, clients)
        usage = clients.usage() if clients is not None else None
    finally:
        if clients is not None:
            clients.close()
    items = chosen_items(chosen, images, model_options, seed)
    write_parquet_atomic(
        benchmark_dir / STAGE / ITEMS, pd.DataFrame({"item": [json.dumps(i, sort_keys=True) for i in items]})
    )
    exported = review.export_for_review(items, benchmark_dir / review.FOLDER)
    decisions = review.load_decisions(benchmark_dir / review.FOLDER)
    released = write_release(benchmark_dir, items, decisions, odi.qa.release_unreviewed)
    return {
        **summary(counts, candidates, chosen, items),
        "released": len(released),
        "review": exported,
        "usage": usage,
        "problems": store.problems(done) + model_problems,
        "release": str(benchmark_dir / RELEASE_JSON),
    }


def distractors_from(c: Candidate, from_model: bool) -> str:
    """Where a closed item's wrong options came from: the model, a template pool (or nearby counts), or the
    question's fixed label set (the sides, the corners, yes/no, the objects asked about)."""
    if from_model or c.source == "model":
        return "model"
    return "pool" if c.open_vocabulary or c.kind in ("count", "sector_count") else "labels"


@shard_task(resource="model", name="odi-qa")
def qa_task(out: str, shard: str, config: BuildConfig) -> dict[str, Any]:
    """Descriptions, questions, review files and release from the instance manifest `shard` (`qa_all`)."""
    return qa_all(out, shard, config.odi, config.seed)


def release_from_decisions(out: str | os.PathLike[str], odi: OdiConfig) -> dict[str, Any]:
    """Rewrite the release from the chosen items and the decisions (after `odi review-import`)."""
    benchmark_dir = Path(out) / BENCHMARK
    path = benchmark_dir / STAGE / ITEMS
    if not path.is_file():
        raise ValueError(f"{path}: no ODI items yet; build the odi benchmark first")
    items = [json.loads(x) for x in read_parquet(path).get("item", [])]  # no column: no items
    released = write_release(
        benchmark_dir, items, review.load_decisions(benchmark_dir / review.FOLDER), odi.qa.release_unreviewed
    )
    return {"items": items, "released": len(released), "verified": sum(i["verified"] for i in released)}
