"""The synthetic COCO set (docs/design/defaults.md §6): rendered people with known body and head yaw, written per split
as `root/<split>/images/<id:06d>.png`, `person_keypoints.json` (COCO) and `truth.json`.

Each image is drawn from (seed, split, index) (benchmarks/viewspatial/coco/scenes/synthetic_image.py), its 17
keypoints projected and ray-tested in numpy (benchmarks/viewspatial/coco/scenes/synthetic_geometry.py), rendered by the
worker (benchmarks/viewspatial/coco/scenes/renderer.py); the object-index pass gives the person's and objects' areas,
boxes and
segmentations (COCO polygons: the outline of each of a mask's parts). The truth names each person's texture
id, outfit colours (person/textures.outfit), against which a clothing phrase can be checked, and noun (man, woman,
boy, girl: read back from their Anny phenotype, drawn per person by the release's shares,
benchmarks/viewspatial/coco/scenes/synthetic_people.py); an object the first person holds (held_objects.py, built at
their
posed hand joint) is an annotation of its COCO category, and its truth names the holder and their hand.
`orientation_accuracy` scores a labeller's rows (benchmarks/viewspatial/coco_people.label_file) on the truth.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.viewspatial.coco.config import FRAMINGS, SECOND_FRAMING, SyntheticCocoConfig
from benchfoundry.benchmarks.viewspatial.coco.scenes import held_objects
from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_image as sc
from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoImage, CocoShard
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_geometry import PosedCamera, coco_box, visibility
from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_people import person_as
from benchfoundry.benchmarks.viewspatial.coco.stages import orientation as ori
from benchfoundry.benchmarks.viewspatial.coco.stages.subjects import phenotype_noun
from benchfoundry.configs.person import PersonConfig
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.directions import facing_direction, horizontal_angle, horizontal_label
from benchfoundry.core.render_spec import DayLight, PersonSpec, Primitive, denoised_engine, write_spec
from benchfoundry.core.seeding import item_rng, item_seed
from benchfoundry.person.prepare import has_keypoints, phenotype_of, prepare_person
from benchfoundry.person.textures import outfit
from benchfoundry.pipeline import render_client

STAGE = "viewspatial.synthetic_coco"
#: What the set draws and writes, beyond its config: 2 adds nouns (man, woman, boy, girl) and held objects; 3
#: draws facings and head turns by label (the release's answer shares) instead of uniformly; 4 stands some second
#: people beside the first (synthetic_image.with_beside).
SET_VERSION = 4
SKELETON = [
    [16, 14],
    [14, 12],
    [17, 15],
    [15, 13],
    [12, 13],
    [6, 12],
    [7, 13],
    [6, 7],
    [6, 8],
    [7, 9],
    [8, 10],
    [9, 11],
    [2, 3],
    [1, 2],
    [1, 3],
    [2, 4],
    [3, 5],
    [4, 6],
    [5, 7],
]
#: How far (m) a surface may lie before a keypoint and still leave it visible. Face points are skin
#: vertices (≤ 4 mm deep on Anny), joints lie inside the body: the depth of a joint below its own skin
#: along the ray, measured on Anny (upright, walking, guard_up; 12 views), is at most 0.11 m (shoulders),
#: 0.06 (elbows), 0.04 (wrists), 0.14 (hips), 0.08 (knees, ankles), while a point behind another part
#: of the body lies ≥ 0.17 m (shoulders), ≥ 0.19 (hips), ≥ 0.2 (limbs), ≥ 0.04 (an eye behind the nose)
#: deep; each tolerance sits between the two.
TOLERANCE_M = np.array([0.03] * 5 + [0.14] * 2 + [0.12] * 2 + [0.10] * 2 + [0.16] * 2 + [0.14] * 4)
PERSON_INDEX = 1


@dataclass(frozen=True)
class Placed:
    """One person of an image, placed in the world: their files, world mesh and keypoints, and truth."""

    files: Any  # person.prepare's PersonFiles
    vertices: np.ndarray  # world
    faces: np.ndarray
    keypoints: np.ndarray  # (17, 3) world
    turn_deg: float
    location: np.ndarray
    delta: float  # head turn Δ relative to the pelvis
    action: str
    framing: str
    noun: str
    texture_id: int

    def triangles(self) -> np.ndarray:
        return self.vertices[self.faces].astype(np.float64)


def relation(location: np.ndarray, turn_deg: float, target: np.ndarray) -> tuple[float, str]:
    """Angle (deg, clockwise from the viewer's front) and 8-way label of a world point in the body frame of a
    viewer standing at `location` turned by `turn_deg` (their front, up +Z)."""
    v = np.asarray(target, dtype=np.float64) - np.asarray(location, dtype=np.float64)
    angle = horizontal_angle([v[0], v[1], 0.0], sc.front_of(turn_deg), (0.0, 0.0, 1.0))
    return angle, horizontal_label(angle)


def label_keypoints(keypoints: np.ndarray, camera: PosedCamera, surfaces: list[np.ndarray]) -> np.ndarray:
    """A person's 17 COCO keypoints (17, 3), world points, with visibility against the surfaces ((F,3,3)
    triangles of every body and object)."""
    return visibility(keypoints, camera, np.concatenate(surfaces), TOLERANCE_M)


def _noun(person: PersonConfig, seed: int, texture_id: int) -> str:
    """The noun of the person's phenotype (the truth's)."""
    phenotype = phenotype_of(person, seed, texture_id) or {}
    return phenotype_noun(phenotype.get("gender", 0.5), phenotype.get("age", 1.0))


def _place(
    person: PersonConfig,
    seed: int,
    plan: sc.ImagePlan | sc.SecondPerson,
    name: str,
    work: Path,
    turn_deg: float,
    location: np.ndarray,
    framing: str,
) -> Placed:
    pose, delta = sc.person_pose(person, seed, plan)
    person = person_as(person, plan.noun)
    files = prepare_person(person, seed, plan.texture_id, name, pose, None, work)
    return Placed(
        files,
        sc.turn_about_z(files.body.vertices, turn_deg, location),
        np.asarray(files.body.faces),
        sc.turn_about_z(files.body.keypoints, turn_deg, location),
        turn_deg,
        location,
        delta,
        plan.action,
        framing,
        _noun(person, seed, plan.texture_id),
        plan.texture_id,
    )


def pose_image(
    person: PersonConfig,
    config: SyntheticCocoConfig,
    seed: int,
    split: str,
    index: int,
    plan: sc.ImagePlan,
    rng: np.random.Generator,
    work: Path,
) -> dict[str, Any]:
    """Pose and label one image of a drawn plan; returns its render entry and its labels before the render."""
    first = _place(person, seed, plan, f"person_{index:06d}", work, 0.0, np.zeros(3), plan.framing)
    camera = sc.frame_camera(first.vertices, first.keypoints, plan, config.width, config.height)
    people = [first]
    for k, other in enumerate((plan.second, plan.third), start=2):
        if other is not None:
            where = sc.second_location(other, camera)
            people.append(
                _place(person, seed, other, f"person_{index:06d}_{k}", work, other.turn_deg, where, SECOND_FRAMING)
            )
    held = held_by(first, plan)
    clear = tuple(p.location for p in people[1:]) + ((np.array(held.center),) if held else ())
    objects = sc.place_objects(rng, plan, camera, clear)
    surfaces = [p.triangles() for p in people] + [o.triangles() for o in objects]
    surfaces += [held.triangles()] if held else []
    keypoints = [label_keypoints(p.keypoints, camera, surfaces) for p in people]
    parts = (
        Primitive(
            shape="box",
            center=(0.0, 0.0, -0.05),
            size=(60.0, 60.0, 0.1),
            yaw_deg=0.0,
            rgb=(0.35, 0.33, 0.3),
            roughness=0.9,
            metallic=0.0,
            pass_index=0,
        ),
    )
    parts += tuple(
        Primitive(
            shape=o.shape,
            center=tuple(o.center),
            size=tuple(o.size),
            yaw_deg=o.yaw_deg,
            rgb=tuple(o.rgb),
            roughness=0.6,
            metallic=0.0,
            pass_index=PERSON_INDEX + len(people) + k,
        )
        for k, o in enumerate(objects)
    )
    parts += tuple(
        Primitive(
            shape=shape,
            center=centre,
            size=size,
            yaw_deg=yaw,
            rgb=held.rgb,
            roughness=0.5,
            metallic=0.0,
            pass_index=PERSON_INDEX + len(people) + len(objects),
        )
        for shape, centre, size, yaw in (held.parts if held else ())
    )
    entry = CocoImage(
        seed=item_seed(seed, STAGE, f"{split}:{index}"),
        camera_matrix=tuple(map(tuple, camera.blender_matrix())),
        focal_mm=camera.f * 24.0 / config.height,
        parts=parts,
        people=tuple(
            PersonSpec(
                mesh=str(p.files.mesh_npz),
                texture=str(p.files.texture_png),
                pass_index=PERSON_INDEX + k,
                location=tuple(float(v) for v in p.location),
                yaw_deg=p.turn_deg,
            )
            for k, p in enumerate(people)
        ),
        light=DayLight(
            sun_elevation_deg=plan.sun[0], sun_bearing_deg=plan.sun[1], sun_strength=3.0, sky_strength=0.3, exposure=0.0
        ),
        image=str(work / f"{index:06d}.png"),
        index_npy=str(work / f"{index:06d}.npy"),
    )
    return {
        "entry": entry,
        "keypoints": keypoints,
        "camera": camera,
        "objects": objects,
        "held": held,
        "people": people,
    }


def held_by(person: Placed, plan: sc.ImagePlan) -> held_objects.HeldObject | None:
    """What the plan's first person holds in their `held_hand` (the drawn object, else the next kind that fits the
    pose: held_objects.first_fitting), at their posed hand joint; None when nothing is held or fits."""
    if plan.held is None:
        return None
    name = held_objects.first_fitting(plan.held, person.keypoints, plan.held_hand)
    if name is None:
        return None
    return held_objects.hold(name, person.keypoints, plan.held_hand, person.turn_deg, plan.held_colour)


def mask_polygons(mask: np.ndarray) -> list[list[float]]:
    """COCO polygon segmentation of a boolean mask: the outer outline of each of its parts, through the
    centres of its boundary pixels (a part of fewer than three outline points is left out)."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [[float(v) for v in c.reshape(-1)] for c in contours if len(c) >= 3]


def _srgb255(rgb: np.ndarray) -> list[int]:
    return [int(v) for v in np.clip(np.round(np.asarray(rgb) * 255.0), 0, 255)]


def _outfit_truth(texture_id: int) -> dict[str, Any]:
    """The texture's outfit colours (sRGB 0–255): shirt (and its pattern's second colour), trousers, shoes."""
    look = outfit(texture_id)
    return {
        "pattern": look["pattern"],
        "shirt": _srgb255(look["shirt"]),
        "shirt2": _srgb255(look["shirt2"]),
        "long_sleeves": look["long_sleeves"],
        "trousers": _srgb255(look["trousers"]),
        "shorts": look["shorts"],
        "shoes": _srgb255(look["shoes"]),
    }


def _cam(camera: PosedCamera, point: np.ndarray) -> list[float]:
    return [round(float(v), 4) for v in camera.to_camera(np.array([point]))[0]]


def _person_truth(annotation_id: int, p: Placed, camera: PosedCamera) -> dict[str, Any]:
    body = sc.seen_yaw(p.turn_deg, p.location, camera)
    head = (body + p.delta) % 360.0
    hips = p.location + [0.0, 0.0, float(p.keypoints[11:13, 2].mean())]
    return {
        "annotation_id": annotation_id,
        "noun": p.noun,
        "texture_id": p.texture_id,
        "outfit": _outfit_truth(p.texture_id),
        "body_yaw_deg": round(body, 3),
        "head_yaw_deg": round(head, 3),
        "head_delta_deg": round(p.delta, 3),
        "facing": facing_direction(body),
        "head_turn": ori.head_turn(p.delta),
        "action": p.action,
        "framing": p.framing,
        "center_cam": _cam(camera, hips),
        "location": [round(float(v), 4) for v in p.location[:2]],
        "front": [round(float(v), 6) for v in sc.front_of(p.turn_deg)[:2]],
    }


def _records(image_id: int, made: dict[str, Any], ids: np.ndarray) -> tuple[list[dict], dict[str, Any]] | None:
    """COCO annotations and the truth record of one rendered image; None when the first person is not in it."""
    camera, people = made["camera"], made["people"]
    anns, truth_people, present = [], [], []
    for k, (p, kp) in enumerate(zip(people, made["keypoints"])):
        mask = ids == PERSON_INDEX + k
        found = coco_box(mask)
        if found is None:
            if k == 0:
                return None
            continue
        ann_id = image_id * 10 + k
        anns.append(
            {
                "id": ann_id,
                "image_id": image_id,
                "category_id": 1,
                "bbox": found[0],
                "area": found[1],
                "segmentation": mask_polygons(mask),
                "keypoints": [round(float(v), 2) if i % 3 < 2 else int(v) for i, v in enumerate(kp.reshape(-1))],
                "num_keypoints": int((kp[:, 2] > 0).sum()),
                "iscrowd": 0,
            }
        )
        truth_people.append(_person_truth(ann_id, p, camera))
        present.append((ann_id, p))
    truth_objects, targets = [], [(ann_id, p.location) for ann_id, p in present]
    for k, obj in enumerate(made["objects"]):
        mask = ids == PERSON_INDEX + len(people) + k
        found = coco_box(mask)
        if found is None:
            continue
        ann_id = image_id * 10 + len(people) + k
        ann, truth_object = _object_rows(ann_id, image_id, obj, mask, found, camera)
        anns.append(ann)
        truth_objects.append(truth_object)
        targets.append((ann_id, np.array(obj.center)))
    held, index = made["held"], PERSON_INDEX + len(people) + len(made["objects"])
    found = None if held is None else coco_box(ids == index)
    if found is not None:  # held by the first person, who is in the image
        ann_id = image_id * 10 + index - PERSON_INDEX
        ann, truth_object = _object_rows(ann_id, image_id, held, ids == index, found, camera)
        anns.append(ann)
        grip = [round(float(v), 4) for v in held.grip]
        truth_objects.append({**truth_object, "held_by": present[0][0], "hand": held.hand, "grip": grip})
        targets.append((ann_id, np.array(held.center)))
    relations = []
    for viewer_id, viewer in present:
        for target_id, where in targets:
            if target_id != viewer_id:
                angle, label = relation(viewer.location, viewer.turn_deg, where)
                relations.append(
                    {
                        "viewer": viewer_id,
                        "target": target_id,
                        "angle_deg": round(angle, 3),
                        "label": label,
                    }
                )
    up = camera.R @ np.array([0.0, 0.0, 1.0])
    truth = {
        "image_id": image_id,
        "file_name": f"{image_id:06d}.png",
        "up_cam": [round(float(v), 6) for v in up],
        "people": truth_people,
        "objects": truth_objects,
        "relations": relations,
    }
    return anns, truth


def _object_rows(
    ann_id: int, image_id: int, obj: Any, mask: np.ndarray, found: tuple[list[float], int], camera: PosedCamera
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An object's COCO annotation (box and area `found` from its `mask`) and its truth row; `obj` has a
    `category_id`, a `name` and a world `center`."""
    ann = {
        "id": ann_id,
        "image_id": image_id,
        "category_id": obj.category_id,
        "bbox": found[0],
        "area": found[1],
        "segmentation": mask_polygons(mask),
        "iscrowd": 0,
    }
    truth = {
        "annotation_id": ann_id,
        "name": obj.name,
        "category_id": obj.category_id,
        "center_cam": _cam(camera, np.array(obj.center)),
        "location": [round(float(v), 4) for v in obj.center[:2]],
    }
    return ann, truth


def categories() -> list[dict[str, Any]]:
    person = {
        "id": 1,
        "name": "person",
        "supercategory": "person",
        "keypoints": list(ori.KEYPOINT_NAMES),
        "skeleton": SKELETON,
    }
    named = {cid: name for name, (cid, _, _) in sc.OBJECTS.items()}
    named.update({k.category_id: name for name, k in held_objects.KINDS.items()})
    return [person] + [{"id": cid, "name": name, "supercategory": name} for cid, name in sorted(named.items())]


def make_split(
    root: str | Path, split: str, config: SyntheticCocoConfig, person: PersonConfig, seed: int
) -> dict[str, Any]:
    """Render and write one split under `root/<split>/` in one go; returns counts, render seconds, paths and
    problems (the build renders a split in parts: `render_part`, `write_split`)."""
    check_split(config, person, split)
    return render_plans(root, split, config, person, seed, split_plans(config, person, seed, split))


def check_split(config: SyntheticCocoConfig, person: PersonConfig, split: str) -> None:
    """ValueError naming the field when the set cannot be made: a body without COCO keypoints, an unknown split."""
    if not has_keypoints(person):
        raise ValueError(
            f"person.body.model_type {person.body.model_type}: the synthetic COCO set needs a body with COCO keypoints"
        )
    if split not in config.images:
        raise ValueError(f"viewspatial.coco.synthetic.images has no split {split!r}: {sorted(config.images)}")


def split_plans(
    config: SyntheticCocoConfig, person: PersonConfig, seed: int, split: str, numbers: range | None = None
) -> list[tuple[sc.ImagePlan, np.random.Generator]]:
    """Each image's drawn plan of a split (or of its images `numbers`), with the generator that goes on to place its
    objects; an image's plan depends on its number alone, not on the split's size or parts."""
    plans = []
    ids = list(config.texture_ids or person.textures.ids)
    for index in numbers or range(1, config.images[split] + 1):
        rng = item_rng(seed, STAGE, f"{split}:{index}")
        plan = sc.draw_plan(rng, config, ids)
        plan = sc.with_third(item_rng(seed, STAGE, f"{split}:{index}:third"), config, plan, ids)
        plan = sc.with_beside(item_rng(seed, STAGE, f"{split}:{index}:beside"), config, plan)
        plans.append((sc.with_people(item_rng(seed, STAGE, f"{split}:{index}:people"), config, plan), rng))
    return plans


def render_part(
    folder: Path,
    split: str,
    config: SyntheticCocoConfig,
    person: PersonConfig,
    seed: int,
    numbered: list[tuple[int, tuple[sc.ImagePlan, np.random.Generator]]],
) -> dict[str, Any]:
    """Pose and render the images of `numbered` ((image number, (plan, generator))), put each rendered image in
    `folder/images/` under its number and return their COCO images, annotations, truth rows, problems and the
    render's seconds."""
    work = folder / f"_tmp_{numbered[0][0]:06d}" if numbered else folder / "_tmp"
    work.mkdir(parents=True, exist_ok=True)
    made = [(i, pose_image(person, config, seed, split, i, plan, rng, work)) for i, (plan, rng) in numbered]
    spec = CocoShard(
        width=config.width,
        height=config.height,
        sensor_height_mm=24.0,
        engine=denoised_engine(config, max_bounces=3),
        images=tuple(m["entry"] for _, m in made),
    )
    reply = render_client.render_spec(
        write_spec(work / "spec.json", spec), timeout_s=config.render_timeout_s, shards_per_worker=1
    )
    part: dict[str, Any] = {"images": [], "annotations": [], "truth": [], "problems": [], "render_s": reply["seconds"]}
    (folder / "images").mkdir(exist_ok=True)
    for image_id, m in made:
        found = _records(image_id, m, np.load(m["entry"].index_npy))
        if found is None:
            part["problems"].append(
                problem("synthetic_coco", f"{split}:{image_id}", "the person is not in the rendered image")
            )
            continue
        Path(m["entry"].image).replace(folder / "images" / image_name(image_id))
        part["images"].append({"id": image_id, "file_name": image_name(image_id), "width": config.width,
                               "height": config.height})  # fmt: skip
        part["annotations"] += found[0]
        part["truth"].append(found[1])
    shutil.rmtree(work)
    return part


def image_name(image_id: int) -> str:
    return f"{image_id:06d}.png"


def write_split(root: str | Path, split: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The split's COCO file and truth from its parts (in image order), the images no part names removed from
    its images folder; `make_split`'s result."""
    folder = Path(root) / split
    images = [image for part in parts for image in part["images"]]
    named = {image["file_name"] for image in images}
    for stale in (folder / "images").glob("[0-9][0-9][0-9][0-9][0-9][0-9].png"):
        if stale.name not in named:
            stale.unlink()
    annotations = [a for part in parts for a in part["annotations"]]
    write_json_atomic(
        folder / "person_keypoints.json", {"images": images, "annotations": annotations, "categories": categories()}
    )
    write_json_atomic(folder / "truth.json", {"images": [t for part in parts for t in part["truth"]]})
    return {
        "split": split,
        "images": len(images),
        "render_s": float(sum(part["render_s"] for part in parts)),
        "problems": [p for part in parts for p in part["problems"]],
        "paths": split_paths(root, split),
    }


def render_plans(
    root: str | Path,
    split: str,
    config: SyntheticCocoConfig,
    person: PersonConfig,
    seed: int,
    plans: list[tuple[sc.ImagePlan, np.random.Generator]],
) -> dict[str, Any]:
    """Pose, render and write the images of `plans` (each with the generator that places its objects), numbered
    from 1, as one split under `root/<split>/`; `make_split`'s result."""
    folder = Path(root) / split
    folder.mkdir(parents=True, exist_ok=True)
    return write_split(root, split, [render_part(folder, split, config, person, seed, list(enumerate(plans, start=1)))])


def split_paths(root: str | Path, split: str) -> dict[str, str]:
    """Where a split's COCO file, images folder and truth file lie."""
    folder = Path(root) / split
    return {
        "annotations": str(folder / "person_keypoints.json"),
        "images": str(folder / "images"),
        "truth": str(folder / "truth.json"),
    }


def orientation_accuracy(labels: list[dict[str, Any]], truth: dict[str, Any]) -> dict[str, Any]:
    """A labeller's rows (coco_people.label_row) scored on `truth.json`: 8-bin facing accuracy over the kept
    people and head-turn bin accuracy over those with a head turn (not left unsure), overall and per framing
    (whole, knees, hips, shoulders, second person), and the rejections by reason."""
    by_person = {p["annotation_id"]: p for t in truth["images"] for p in t["people"]}
    kept = [row for row in labels if row.get("kept") and row.get("annotation_id") in by_person]

    def scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
        facing = sum(row["facing"] == by_person[row["annotation_id"]]["facing"] for row in rows)
        turned = [row for row in rows if row["head_turn"] is not None]
        turn = sum(row["head_turn"] == by_person[row["annotation_id"]]["head_turn"] for row in turned)
        return {
            "kept": len(rows),
            "facing_accuracy": round(facing / len(rows), 4) if rows else None,
            "head_turns": len(turned),
            "head_turn_accuracy": round(turn / len(turned), 4) if turned else None,
        }

    framings = list(FRAMINGS) + [SECOND_FRAMING]
    people = Counter(
        by_person[row["annotation_id"]]["framing"] for row in labels if row.get("annotation_id") in by_person
    )
    per_framing = {}
    for framing in framings:
        of_framing = [row for row in kept if by_person[row["annotation_id"]]["framing"] == framing]
        if people[framing]:
            per_framing[framing] = {"people": people[framing], **scores(of_framing)}
    rejected = Counter(str(row.get("reason")) for row in labels if not row.get("kept"))
    return {
        "people": len(labels),
        **scores(kept),
        "per_framing": per_framing,
        "rejected": dict(sorted(rejected.items())),
    }
