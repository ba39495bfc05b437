"""ODI-Bench stage 2 (DESIGN §3.2): instances → descriptions → consistency filter → QA → review → release.

One task reads the instance manifest and, per panorama, writes its facts and items as a store shard
(`odi/qa/`): each kept instance gets a description (the `template` backend from the synthetic truth or
the crop's colour, the `openai` backend from a vision-language model) and stays only when the
description names its class (dropped ones counted); general questions come from the templates or from
a language model, spatial candidates always from geometry (tasks/odi/questions.py). Then every item is
exported for human review (`odi/review/`), and `odi/ODI-Bench.json` releases the items reviewers
accepted or edited (plus the undecided ones, unreviewed, with `odi.qa.release_unreviewed`), with a
Parquet copy for Hugging Face `datasets` (`odi/hf/ODI-Bench.parquet`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import pandas as pd

from benchfoundry.configs.odi import OdiConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.store import StageStore, spec_hash, write_json_atomic, write_parquet_atomic
from benchfoundry.tasks.common import review
from benchfoundry.tasks.common.model_client import ModelClient, ModelError
from benchfoundry.tasks.common.shard_task import shard_task
from benchfoundry.tasks.odi import descriptions, model_questions
from benchfoundry.tasks.odi.annotate_stage import BENCHMARK
from benchfoundry.tasks.odi.question_builder import Fact, ItemBuilder
from benchfoundry.tasks.odi.questions import spatial_items, template_items
from benchfoundry.tasks.odi.synthetic_panoramas import TRUTH_SUFFIX

STAGE = "qa"
RELEASE_JSON = "ODI-Bench.json"
#: Part of the QA shards' spec hash: bump it when the templates change.
QA_VERSION = 2
#: How a synthetic person's pose name is said in a question's answer.
POSE_WORDS = {"upright": "standing"}


def truth_records(source: Path) -> dict[int, dict[str, Any]]:
    """The synthetic truth beside a panorama (`<stem>.json`) by instance id; {} for a panorama without one."""
    path = source.with_name(source.name.rsplit(".", 1)[0] + TRUTH_SUFFIX)
    if not path.is_file():
        return {}
    return {int(r["id"]): r for r in json.loads(path.read_text())["instances"]}


def crop_colour(path: Path) -> str:
    """The dominant colour name of a crop's centre (the instance sits there)."""
    rgb = cv2.cvtColor(decode_file(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    h, w = rgb.shape[:2]
    return descriptions.colour_name(rgb[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3])


def instance_fact(row: dict[str, Any], truth: dict[int, dict[str, Any]], odi_root: Path) -> Fact:
    """What is known of one instance: its class and direction, with the synthetic truth's attributes
    (position included) when the instance came from it, else the crop's colour."""
    record = truth.get(int(row["truth_id"]), {}) if int(row["truth_id"]) >= 0 else {}
    if record:
        position = record.get("position_m")
        return Fact(
            int(row["instance"]),
            str(row["class"]),
            float(row["theta_deg"]),
            float(row["phi_deg"]),
            colour=record.get("colour"),
            material=record.get("material"),
            text=record.get("text"),
            pose=POSE_WORDS.get(record.get("pose"), record.get("pose")),
            position_m=tuple(position) if position else None,
        )
    colour = None if row["class"] == "person" else crop_colour(odi_root / str(row["crop"]))
    return Fact(int(row["instance"]), str(row["class"]), float(row["theta_deg"]), float(row["phi_deg"]), colour=colour)


def image_ref(source: Path, odi_root: Path) -> str:
    """The panorama as the released items name it: relative to `OUT/odi` when it lies there, else absolute."""
    try:
        return source.resolve().relative_to(odi_root.resolve()).as_posix()
    except ValueError:
        return str(source.resolve())


def panorama_qa(
    pano: str, rows: pd.DataFrame, odi: OdiConfig, odi_root: Path, seed: int, client: ModelClient | None
) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """(items, counts, problems) of one panorama."""
    source = Path(str(rows["source"].iloc[0]))
    truth = truth_records(source)
    records = rows.sort_values("instance").to_dict("records")
    facts = [instance_fact(r, truth, odi_root) for r in records]
    problems: list[dict[str, Any]] = []
    if client is None:
        texts: list[Any] = [descriptions.template_description(f.category, f.colour, f.material, f.text) for f in facts]
    else:
        crops = [decode_file(odi_root / str(r["crop"]), cv2.IMREAD_COLOR) for r in records]
        texts = descriptions.describe_crops(client, crops, [f.category for f in facts], odi.qa.describe_prompt)
    kept, dropped = [], 0
    for fact, text in zip(facts, texts):
        if isinstance(text, ModelError):
            problems.append(problem(STAGE, f"{pano}:{fact.instance_id}", f"description failed: {text}"))
        elif descriptions.names_class(fact.category, text, odi.qa.synonyms):
            kept.append((fact, text))
        else:
            dropped += 1
    image = image_ref(source, odi_root)
    facts_kept = [f for f, _ in kept]
    census = Counter(str(r["category"]) for r in truth.values()) if truth else None
    if client is None:
        items = template_items(pano, image, facts_kept, seed, odi.qa.margin_deg, census)
    else:
        builder = ItemBuilder(pano, image, seed)
        spatial_items(builder, facts_kept, odi.qa.margin_deg, census)
        reply = client.chat(model_questions.qa_request([(f.category, f.theta_deg, t) for f, t in kept], 20)).text
        written, bad = model_questions.model_items(reply, pano, image, seed)
        problems += [problem(STAGE, pano, reason) for reason in bad]
        items = written + builder.items
    counts = {"instances": len(facts), "kept": len(kept), "dropped_inconsistent": dropped, "items": len(items)}
    return items, {"descriptions": {str(f.instance_id): t for f, t in kept}, **counts}, problems


def qa_spec(odi: OdiConfig, seed: int, rows: pd.DataFrame) -> str:
    return spec_hash([QA_VERSION, seed, odi.qa.model_dump(mode="json"), rows.to_dict("records")])


def qa_all(out: str, manifest: str, odi: OdiConfig, seed: int) -> dict[str, Any]:
    """Every panorama's QA shard (finished ones skipped), then the review files and the release."""
    odi_root = Path(out) / BENCHMARK
    instances = pd.read_parquet(manifest)
    store = StageStore(out, BENCHMARK, STAGE)
    client = None
    if odi.qa.backend == "openai":
        client = ModelClient(odi.qa.describer, odi_root / STAGE / "cache")
    counts: dict[str, Any] = {}
    try:
        for pano, rows in instances.groupby("panorama", sort=True) if len(instances) else ():
            h = qa_spec(odi, seed, rows)
            if not store.is_done(str(pano), h):
                items, info, problems = panorama_qa(str(pano), rows, odi, odi_root, seed, client)
                frame = pd.DataFrame({"item": [json.dumps(i, sort_keys=True) for i in items]})
                store.write_shard(str(pano), frame, spec_hash=h, problems=problems, info={"qa": info})
            counts[str(pano)] = {k: v for k, v in store.marker(str(pano))["qa"].items() if k != "descriptions"}
        usage = client.usage() if client is not None else None
    finally:
        if client is not None:
            client.close()
    done = sorted(counts)
    store.write_manifest(done)
    items = [json.loads(x) for x in store.collect_rows(done)["item"]] if done else []
    exported = review.export_for_review(items, odi_root / review.FOLDER)
    released = review.release(items, review.load_decisions(odi_root / review.FOLDER), odi.qa.release_unreviewed)
    write_json_atomic(odi_root / RELEASE_JSON, released)
    write_parquet_atomic(
        odi_root / "hf" / "ODI-Bench.parquet",
        pd.DataFrame(
            [{**i, "options": list(i["options"]), "instance_ids": list(i["instance_ids"])} for i in released],
            columns=[
                "id",
                "task",
                "form",
                "question",
                "options",
                "answer",
                "image",
                "instance_ids",
                "source",
                "verified",
            ],
        ),
    )
    return {
        "panoramas": counts,
        "items": len(items),
        "released": len(released),
        "review": exported,
        "usage": usage,
        "problems": store.problems(done),
        "release": str(odi_root / RELEASE_JSON),
    }


qa_task = shard_task(qa_all, name="odi-qa")


def release_from_decisions(out: str | os.PathLike[str], odi: OdiConfig) -> dict[str, Any]:
    """Rewrite `ODI-Bench.json` from the stored items and decisions (after `odi review-import`)."""
    odi_root = Path(out) / BENCHMARK
    store = StageStore(out, BENCHMARK, STAGE)
    if not store.manifest_path.exists():
        raise ValueError(f"{store.manifest_path}: no ODI items yet; build the odi benchmark first")
    items = [json.loads(x) for x in store.read_manifest().get("item", [])]  # no column: a manifest of no rows
    released = review.release(items, review.load_decisions(odi_root / review.FOLDER), odi.qa.release_unreviewed)
    write_json_atomic(odi_root / RELEASE_JSON, released)
    return {"items": items, "released": len(released), "verified": sum(i["verified"] for i in released)}
