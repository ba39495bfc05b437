"""ViewSpatial-Bench's COCO stage (docs/design/viewspatial.md §2): one task per split labels the people of a COCO file
and makes its Cam-Obj. Ori., Per-Obj. Ori. and Per-Rel. Dir. items.

A split's source is a real COCO split (`viewspatial.coco.splits`) or the rendered synthetic set (with its
truth: Per-Rel. Dir. is then exact and the labels are scored against the truth, per framing too). People
are named by noun (the truth's, or the captions' of a lone person, `CocoSplit.captions`). The images of the
people asked about are copied to `viewspatial/images/coco/<split>/`, the labels written to
`viewspatial/coco/<split>.labels.json`; the shard's marker (spec hash: the files' hashes, the config and
the seed) holds the rejection counts and the accuracies, so a rerun skips a finished split. Rejected
people are counted by reason; a malformed annotation or unusable image is also a problem row of the build.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_set import orientation_accuracy
from benchfoundry.benchmarks.viewspatial.coco.stages.animals import label_animals, select_animals
from benchfoundry.benchmarks.viewspatial.coco.stages.clothing import described_phrases, image_colours, person_polygons
from benchfoundry.benchmarks.viewspatial.coco.stages.people import Labelled, Person, label_people, read_annotations
from benchfoundry.benchmarks.viewspatial.coco.stages.person_relative import (
    candidate_items,
    image_objects,
    synthetic_items,
)
from benchfoundry.benchmarks.viewspatial.coco.stages.questions import animal_items, orientation_items
from benchfoundry.benchmarks.viewspatial.coco.stages.subjects import alone_of_their_noun, caption_noun, subject_phrases
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.qa_items import QA_COLUMNS, worded
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import read_image_bytes
from benchfoundry.core.safe_paths import inside
from benchfoundry.core.seeding import item_rng
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "coco"
COCO_COLUMNS = QA_COLUMNS + ("needs_review",)
#: Rejection reasons that are input faults (reported as problems), not people the filters turned away.
FAULTS = ("malformed", "image unusable")


def _file_hash(path: str | None) -> str | None:
    return None if path is None else hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _copy_images(out: str, split: str, images: Path, names: dict[int, str]) -> dict[int, str]:
    """Copy each image into the benchmark (and remove the split's images no longer asked about); image id →
    its path relative to the benchmark folder."""
    folder = Path(out) / BENCHMARK / "images" / "coco" / split
    rel = {}
    for image_id, name in sorted(names.items()):
        # checked (inside the images folder once links are followed, a regular file) before anything is read
        data, dest = read_image_bytes(inside(images, name, "file_name")), inside(folder, name, "file_name")
        if not dest.is_file() or dest.read_bytes() != data:
            write_bytes_atomic(dest, data)
        rel[image_id] = f"images/coco/{split}/{name}"
    wanted = {folder / name for name in names.values()}
    for stale in (p for p in folder.rglob("*") if p.is_file() and p not in wanted):
        stale.unlink()
    return rel


def _faults(split: str, labels: list[dict[str, Any]], annotations: str, images: str) -> list[dict[str, Any]]:
    rows = []
    for row in labels:
        reason = str(row.get("reason") or "")
        if not row["kept"] and reason.startswith(FAULTS):
            item = f"{split}:image {row['image_id']}"
            path = annotations if reason.startswith("malformed") else images
            rows.append(problem(STAGE, item, row.get("detail") or reason, path=path))
    return rows


def read_captions(path: str | None) -> dict[int, list[str]]:
    """Image id → its captions, from a COCO captions file (None: none); ValueError naming a bad file."""
    if path is None:
        return {}
    data = read_annotations(path)
    captions: dict[int, list[str]] = {}
    for ann in data["annotations"]:
        if isinstance(ann, dict) and isinstance(ann.get("caption"), str):
            captions.setdefault(ann.get("image_id"), []).append(ann["caption"])
    return captions


def subjects(
    people_of: dict[int, list[Person]],
    nouns: dict[int, str],
    captions: dict[int, list[str]],
    colours: dict[int, str | None] | None = None,
    described_share: float = 0.0,
    seed: int = 0,
    colour_phrases: Mapping[str, float] | None = None,
) -> dict[int, str]:
    """Annotation id → the phrase naming the person: their noun (`nouns`: the synthetic truth), else the
    captions' noun for an image's lone person, else "person"; a person sharing their noun with another is
    described by clothing colour (`colours`: annotation id → its colour; `colour_phrases`: its wordings, "in
    {colour}" when none), as the release does, and so is `described_share` of the people alone of their noun
    (drawn per person by the seed: the questions' subjects are mostly such people); place ("the man on the left")
    only where the colour does not single them out."""
    noun_of = {}
    for image_id, people in people_of.items():
        lone = caption_noun(captions[image_id]) if len(people) == 1 and captions.get(image_id) else "person"
        noun_of[image_id] = {p.annotation_id: nouns.get(p.annotation_id, lone) for p in people}
    where = {
        image_id: [(p.annotation_id, noun_of[image_id][p.annotation_id], p.bbox[0] + p.bbox[2] / 2) for p in people]
        for image_id, people in people_of.items()
    }
    alone = {image_id: alone_of_their_noun(w) for image_id, w in where.items()}

    def wording(a: int, colour: str) -> str:
        return worded(colour_phrases or {"in {colour}": 1.0}, seed, f"colour:{a}", colour=colour)

    phrases: dict[int, str] = {}
    for image_id, named in noun_of.items():
        wanted = {
            a
            for a in named
            if a not in alone[image_id]
            or item_rng(seed, "viewspatial.coco.described", str(a)).random() < described_share
        }
        worn = [(a, named[a], (colours or {}).get(a)) for a in named]
        topless = {p.annotation_id for p in people_of[image_id] if not (p.keypoints[[5, 6], 2] > 0).any()}
        phrases.update(described_phrases(worn, subject_phrases(where[image_id]), wanted, wording, topless))
    return phrases


def label_and_colour(data: dict[str, Any], images: str, config: CocoConfig) -> tuple[Labelled, dict[int, str | None]]:
    """`label_people`'s result and the clothing colour of each person (annotation id → `image_colours`), measured
    on each image as the labelling decodes it (one decode an image); none for an image the labelling does not
    read (no person labelled in it) or cannot read."""
    polygons = person_polygons(data)
    colours: dict[int, str | None] = {}
    labelled = label_people(
        data, images, config, on_image=lambda image, people: colours.update(image_colours(image, people, polygons))
    )
    return labelled, colours


def _animals(source: dict[str, Any], config: CocoConfig) -> list[dict[str, Any]]:
    """Label rows of the split's animals (with their `file_name`), labelled through Orient-Anything from the
    instances file; none with the keypoint estimator (an animal has no keypoints) or without instances."""
    if config.estimator != "orient-anything" or not source.get("instances"):
        return []
    from benchfoundry.benchmarks.viewspatial.coco.stages import orient_anything

    found = select_animals(read_annotations(source["instances"]), config)
    if not found:
        return []
    estimator = orient_anything.load(config.orient_anything)
    file_of = {a.annotation_id: a.file_name for a in found}
    rows = label_animals(found, Path(source["images"]), estimator, config)
    return [{**r, "file_name": file_of[r["annotation_id"]]} for r in rows]


def split_items(
    out: str, split: str, source: dict[str, Any], config: CocoConfig, seed: int
) -> tuple[pd.DataFrame, dict[str, Any], list[dict[str, Any]]]:
    """(item rows, marker info, problems) of one split."""
    data = read_annotations(source["annotations"])
    labelled, colours = label_and_colour(data, source["images"], config)
    labels = labelled.result["labels"]
    write_json_atomic(Path(out) / BENCHMARK / STAGE / f"{split}.labels.json", labelled.result)
    kept = {r["annotation_id"]: r for r in labels if r["kept"]}
    people = [p for p in labelled.usable if p.annotation_id in kept]
    animal_rows = _animals(source, config)
    animal_images = {r["image_id"]: r["file_name"] for r in animal_rows if r["kept"]}
    names = animal_images | {p.image_id: p.file_name for p in people}
    image_of = _copy_images(out, split, Path(source["images"]), names)
    truth = read_json(source["truth"])["images"] if source.get("truth") else None
    nouns = {p["annotation_id"]: p["noun"] for t in truth or [] for p in t["people"]}
    captions = read_captions(source.get("captions"))
    named = (labelled.people_of, nouns, captions, colours)
    subject_of = subjects(*named, config.described_share, seed, config.colour_phrases)
    viewer_of = subjects(*named, config.per_rel.described_share, seed, config.colour_phrases)
    items = orientation_items(labels, image_of, subject_of, split, config, seed)
    items += animal_items(animal_rows, image_of, split, config, seed)
    items = [{**item, "needs_review": False} for item in items]
    info: dict[str, Any] = {
        "rejected": labelled.result["rejected"],
        "people": len(labels),
        "kept": len(kept),
        "head_turn_unsure": sum(r["head_turn"] is None for r in kept.values()),
        "animals": len(animal_rows),
        "animals_kept": len(animal_images),
        "images": len(image_of),
    }
    if truth is not None:
        items += synthetic_items(truth, image_of, viewer_of, set(kept), split, config, seed)
        info["accuracy"] = orientation_accuracy(labels, {"images": truth})
    else:
        objects = image_objects(read_annotations(source["instances"]) if source.get("instances") else data)
        facing = {a: float(r["facing_yaw_deg"]) for a, r in kept.items()}
        items += candidate_items(labelled.people_of, facing, objects, image_of, viewer_of, split, config, seed)
    table = pd.DataFrame(items, columns=list(COCO_COLUMNS))
    return table, info, _faults(split, labels, source["annotations"], source["images"])


@dataclass(frozen=True)
class CocoSplit:
    """One COCO split and its files (`annotations`, `images`, `instances`, `captions`, `truth`; None: absent)."""

    split: str
    source: dict[str, Any]


def estimator_device(config: BuildConfig) -> str:
    """The torch device of the orientation estimator: Orient-Anything's, or the CPU for keypoints."""
    cc = config.viewspatial.coco
    return cc.orient_anything.device if cc.estimator == "orient-anything" else "cpu"


@shard_task(resource="gpu", name="viewspatial-coco", device=estimator_device)
def coco_task(out: str, shard: CocoSplit, config: BuildConfig) -> dict[str, Any]:
    """Labels and items of one split (`label_split`)."""
    return label_split(out, shard.split, shard.source, config.viewspatial.coco, config.seed)


def label_split(out: str, split: str, source: dict[str, Any], config: CocoConfig, seed: int) -> dict[str, Any]:
    """Labels and items of one split unless its marker says they are made from these files and settings."""
    store = StageStore(out, BENCHMARK, STAGE)
    h = spec_hash(
        [
            split,
            {k: _file_hash(source.get(k)) for k in ("annotations", "instances", "captions", "truth")},
            config.model_dump(mode="json"),
            seed,
        ]
    )
    if not store.is_done(split, h):
        table, info, problems = split_items(out, split, source, config, seed)
        store.write_shard(split, table, spec_hash=h, problems=problems, info=info)
    marker = store.marker(split) or {}
    return {
        "split": split,
        "items": marker.get("rows", 0),
        "rejected": marker.get("rejected", {}),
        "accuracy": marker.get("accuracy"),
        "people": marker.get("people"),
        "kept": marker.get("kept"),
        "head_turn_unsure": marker.get("head_turn_unsure"),
        "images": marker.get("images"),
    }
