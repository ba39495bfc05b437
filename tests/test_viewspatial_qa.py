"""Cam-Rel.Dir and Per-Sce.Sim items on hand-made visibility tables with known geometry."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from benchfoundry.benchmarks.viewspatial.release.qa_items import (
    benchmark_records,
    qa_table,
    sft_records,
    split_by_image_count,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.questions import (
    CAM_REL,
    SCENE_SIM,
    QASettings,
    cam_rel_items,
    scene_sim_items,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.visibility import ObjectBox
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.directions import CAMERA_LABELS, HORIZONTAL_LABELS

S = QASettings(
    min_visibility=0.5,
    vertical_min_deg=30.0,
    vertical_only_deg=67.5,
    margin_deg=5.0,
    min_distance_m=0.3,
    cam_rel_per_scene=100,
    cam_rel_per_frame=None,
    scene_sim_per_scene=40,
    run_min_visibility=0.25,
    run_max_frames=32,
    cam_rel_templates=("Where is the {target} relative to the {reference}?",),
    scene_sim_templates=("Stand at the {a} facing the {b}: where is the {c}?",),
)


def vis_row(fid: int, oid: int, label: str, xyz: tuple[float, float, float], visibility: float = 1.0) -> dict:
    return {
        "scene_id": "s",
        "frame_id": fid,
        "object_id": oid,
        "label": label,
        "nyu40_id": 5,
        "n_visible": int(visibility * 8),
        "visibility": visibility,
        "center_in_image": visibility > 0,
        "u_center": 0.0,
        "v_center": 0.0,
        "x_cam": xyz[0],
        "y_cam": xyz[1],
        "z_cam": xyz[2],
    }


def check_choices(item: dict, labels: tuple[str, ...]) -> None:
    options = [line[3:] for line in item["choices"].split("\n")]
    assert len(options) == 4 and len(set(options)) == 4 and set(options) <= set(labels)
    letter = item["answer"][0]
    assert item["answer"] == f"{letter}. {item['answer_label']}"
    assert options["ABCD".index(letter)] == item["answer_label"]
    for o in options:
        if o != item["answer_label"]:
            assert o not in item["answer_label"] and item["answer_label"] not in o


def test_cam_rel_labels_from_camera_coordinates() -> None:
    # Camera axes: x right, y down, z forward. The tv is 1 m right of the sofa at the same depth;
    # the lamp is 1.2 m above the sofa (y −1.2) and slightly right (0.3 m); the bed 1 m behind it.
    table = pd.DataFrame(
        [
            vis_row(0, 1, "sofa", (0.0, 0.0, 3.0)),
            vis_row(0, 2, "tv", (1.0, 0.0, 3.0)),
            vis_row(0, 3, "lamp", (0.3, -1.2, 3.0)),
            vis_row(0, 4, "bed", (0.0, 0.0, 4.0)),
        ]
    )
    items = cam_rel_items("s", "val", table, [0], S, seed=0)
    got = {(tuple(i["labels"])): i["answer_label"] for i in items}
    inverse = {
        "right": "left",
        "left": "right",
        "above": "down",
        "down": "above",
        "front": "back",
        "back": "front",
        "above-left": "down-right",
        "down-right": "above-left",
        "above-right": "down-left",
        "down-left": "above-right",
        "front-right": "back-left",
        "back-left": "front-right",
        "front-left": "back-right",
        "back-right": "front-left",
    }
    expected = {
        ("sofa", "tv"): "right",
        ("sofa", "lamp"): "above",
        ("sofa", "bed"): "front",
        ("tv", "bed"): "front-left",
    }
    for (a, b), label in expected.items():
        assert got.get((a, b), inverse.get(got.get((b, a), ""))) == label
    # tv → lamp: 0.7 m left, 1.2 m up: elevation 60° (between 30° and 67.5°) → above-left.
    assert got.get(("tv", "lamp"), inverse.get(got.get(("lamp", "tv"), ""))) == "above-left"
    for item in items:
        assert item["question_type"] == CAM_REL and item["image_path"] == ["images/s/0.jpg"]
        assert item["question"] == f"Where is the {item['labels'][1]} relative to the {item['labels'][0]}?"
        check_choices(item, CAMERA_LABELS)


def test_cam_rel_skips_ambiguous_labels_low_visibility_and_boundary_cases() -> None:
    table = pd.DataFrame(
        [
            vis_row(0, 1, "sofa", (0.0, 0.0, 3.0)),
            vis_row(0, 2, "chair", (1.0, 0.0, 3.0)),
            vis_row(0, 3, "chair", (-1.0, 0.0, 3.0), visibility=0.125),  # a second chair seen: "the chair" is ambiguous
            vis_row(0, 4, "bed", (0.2, 0.0, 5.0), visibility=0.25),  # too little visible
            vis_row(0, 5, "desk", (2.0, 0.0, 3.0)),  # from the sofa: right, 22.5° from any boundary
            vis_row(0, 6, "tv", (1.0, 0.0, 3.0 + 1 / math.tan(math.radians(22.5)))),  # at the 22.5° boundary
        ]
    )
    items = cam_rel_items("s", "val", table, [0], S, seed=0)
    pairs = {frozenset(i["labels"]) for i in items}
    assert all("chair" not in p and "bed" not in p for p in pairs)
    assert frozenset({"sofa", "tv"}) not in pairs
    assert frozenset({"sofa", "desk"}) in pairs


def boxes_at(centres: dict[str, tuple[float, float, float]]) -> list[ObjectBox]:
    return [
        ObjectBox(i, label, 5, tuple(c[k] - 0.2 for k in range(3)), tuple(c[k] + 0.2 for k in range(3)))
        for i, (label, c) in enumerate(centres.items())
    ]


def test_scene_sim_stand_at_a_face_b() -> None:
    # World z up. Standing at the sofa (origin) facing the tv (+y, rising 0.7 m over 3 m): +x is right.
    centres = {
        "sofa": (0.0, 0.0, 0.5),
        "tv": (0.0, 3.0, 1.2),
        "bed": (2.0, 0.1, 0.3),
        "desk": (-2.0, 2.0, 0.4),
        "lamp": (0.3, -3.0, 0.8),
    }
    boxes = boxes_at(centres)
    table = pd.DataFrame([vis_row(f, b.object_id, b.label, (0, 0, 1)) for f in (4, 9) for b in boxes])
    items = scene_sim_items("s", "train", table, [9, 4], boxes, dataclasses.replace(S, scene_sim_per_scene=100), seed=0)
    by_labels = {tuple(i["labels"]): i for i in items}
    expected = {
        ("sofa", "tv", "bed"): "right",
        ("sofa", "tv", "desk"): "front-left",
        ("sofa", "tv", "lamp"): "back",
        ("tv", "sofa", "bed"): "front-left",
    }
    for key, label in expected.items():
        assert by_labels[key]["answer_label"] == label
        # Both frames see all three: the run is the first and the one after it, in frame order.
        assert by_labels[key]["image_path"] == ["images/s/4.jpg", "images/s/9.jpg"]
    for item in items:
        assert item["question_type"] == SCENE_SIM
        check_choices(item, HORIZONTAL_LABELS)


def test_scene_sim_direction_is_taken_in_3d_as_the_authors_do() -> None:
    # A at the origin, B 1 m ahead (+x) and 1 m up: forward (1, 0, 1)/√2, right = forward × z = −y.
    # C − A = (−1, −0.2, 2): along forward (−1 + 2)/√2 ≈ 0.71, along right 0.2 → 15.9°: front. On the floor
    # plan C is 1 m behind A (forward +x): back. The release's label is the 3-D one.
    centres = {"sofa": (0.0, 0.0, 0.0), "lamp": (1.0, 0.0, 1.0), "bed": (-1.0, -0.2, 2.0)}
    boxes = boxes_at(centres)
    table = pd.DataFrame([vis_row(f, b.object_id, b.label, (0, 0, 1)) for f in (0, 10) for b in boxes])
    items = scene_sim_items("s", "val", table, [0, 10], boxes, dataclasses.replace(S, margin_deg=0.0), seed=0)
    by_labels = {tuple(i["labels"]): i for i in items}
    assert by_labels[("sofa", "lamp", "bed")]["answer_label"] == "front"
    assert by_labels[("sofa", "lamp", "bed")]["margin_deg"] == pytest.approx(
        22.5 - math.degrees(math.atan2(0.2, 1 / math.sqrt(2))), abs=1e-6
    )


def test_scene_sim_never_faces_a_piece_above_or_below_where_one_stands() -> None:
    # The picture hangs 0.1 m off the sofa's plan: facing it from the sofa (or the sofa from it) is looking up or
    # down, no way to face across the room; the picture is still asked about as C.
    centres = {"sofa": (0.0, 0.0, 0.5), "picture": (0.0, 0.1, 1.8), "bed": (2.0, 0.0, 0.3), "desk": (0.0, 3.0, 0.4)}
    boxes = boxes_at(centres)
    table = pd.DataFrame([vis_row(f, b.object_id, b.label, (0, 0, 1)) for f in (0, 10) for b in boxes])
    items = scene_sim_items("s", "val", table, [0, 10], boxes, dataclasses.replace(S, scene_sim_per_scene=100), 0)
    faced = {tuple(i["labels"][:2]) for i in items}
    assert ("sofa", "picture") not in faced and ("picture", "sofa") not in faced
    assert ("sofa", "desk") in faced and any(i["labels"][2] == "picture" for i in items)


def test_scene_sim_frames_are_a_run_whose_union_sees_the_three() -> None:
    # Frame order 0..50 (every 10th): 0 sees nothing, 10 the sofa, 20 nothing, 30 the tv, 40 the bed, 50 the
    # desk; chairs repeat, so never asked. No frame sees three objects.
    centres = {"sofa": (0.0, 0.0, 0.5), "tv": (0.0, 3.0, 1.2), "bed": (2.0, 0.1, 0.3), "desk": (-2.0, 2.0, 0.4)}
    boxes = boxes_at(centres) + [
        ObjectBox(10, "chair", 5, (1, 1, 0), (1.4, 1.4, 0.9)),
        ObjectBox(11, "chair", 5, (3, 1, 0), (3.4, 1.4, 0.9)),
    ]
    ids = {b.label: b.object_id for b in boxes if b.label != "chair"}
    sees = {10: ["sofa"], 30: ["tv"], 40: ["bed"], 50: ["desk"]}
    rows = [vis_row(f, ids[name], name, (0, 0, 1)) for f, names in sees.items() for name in names]
    rows += [vis_row(f, 10, "chair", (0, 0, 1)) for f in range(0, 60, 10)]
    frames = [50, 0, 40, 10, 30, 20]
    s = dataclasses.replace(S, scene_sim_per_scene=100, margin_deg=0.0)
    items = scene_sim_items("s", "val", pd.DataFrame(rows), frames, boxes, s, seed=0)
    runs = {frozenset(i["labels"]): i["frame_ids"] for i in items}
    assert all("chair" not in i["labels"] for i in items)
    # From the first frame seeing one of the three to the frame completing them, and one frame more.
    assert runs[frozenset({"sofa", "tv", "bed"})] == [10, 20, 30, 40, 50]
    assert runs[frozenset({"sofa", "tv", "desk"})] == [10, 20, 30, 40, 50]
    # Completed at the last frame: no frame more to add.
    assert runs[frozenset({"tv", "bed", "desk"})] == [30, 40, 50]
    for item in items:
        assert item["image_path"] == [f"images/s/{f}.jpg" for f in item["frame_ids"]]
    # A run longer than run_max_frames makes no item.
    short = scene_sim_items(
        "s", "val", pd.DataFrame(rows), frames, boxes, dataclasses.replace(s, run_max_frames=3), seed=0
    )
    assert {frozenset(i["labels"]) for i in short} == {frozenset({"tv", "bed", "desk"})}


def test_scene_sim_cap_and_determinism() -> None:
    centres = {f"thing{i}": (float(i % 4) * 1.3, float(i // 4) * 1.7, 0.5) for i in range(7)}
    boxes = boxes_at(centres)
    table = pd.DataFrame([vis_row(f, b.object_id, b.label, (0, 0, 1)) for f in (0, 1) for b in boxes])
    a = scene_sim_items("s", "val", table, [0, 1], boxes, S, seed=3)
    b = scene_sim_items("s", "val", table, [0, 1], boxes, S, seed=3)
    assert len(a) == 40 < len(list(itertools.permutations(range(7), 3)))
    assert a == b


def test_the_released_task_strings_and_several_wordings_drawn_by_the_seed() -> None:
    """question_type is the release's string; the release's wordings (six for Cam-Rel. Dir., four for Per-Sce.
    Sim.) are all used over many items, each item's drawn from its seed; the target of a Cam-Rel. Dir. wording
    is the object whose direction the answer gives."""
    from benchfoundry.benchmarks.viewspatial.scannet.config import DirectionQAConfig

    q = DirectionQAConfig()
    s = dataclasses.replace(
        S, cam_rel_templates=tuple(q.cam_rel_templates), scene_sim_templates=tuple(q.scene_sim_templates)
    )
    assert CAM_REL == "Camera perspective - Relative Direction"
    assert SCENE_SIM == "Person perspective - Scene Simulation Relative Direction"
    table = pd.DataFrame(
        [vis_row(f, i, f"thing{i}", (i * 0.7 - 2.0, 0.0, 3.0 + (i % 3))) for f in range(6) for i in range(6)]
    )
    items = cam_rel_items("s", "val", table, list(range(6)), s, seed=1)
    used = set()
    for item in items:
        reference, target = item["labels"]
        wording = next(
            t for t in q.cam_rel_templates if t.format(target=target, reference=reference) == item["question"]
        )
        used.add(wording)
    assert used == set(q.cam_rel_templates)
    assert items == cam_rel_items("s", "val", table, list(range(6)), s, seed=1)
    # One item a frame at cam_rel_per_frame 1.
    one = cam_rel_items("s", "val", table, list(range(6)), dataclasses.replace(s, cam_rel_per_frame=1), seed=1)
    assert sorted(i["frame_ids"][0] for i in one) == list(range(6))
    boxes = boxes_at({f"thing{i}": (float(i % 4) * 1.3, float(i // 4) * 1.7, 0.5) for i in range(7)})
    flat = pd.DataFrame([vis_row(f, b.object_id, b.label, (0, 0, 1)) for f in (0, 1) for b in boxes])
    sims = scene_sim_items("s", "val", flat, [0, 1], boxes, s, seed=3)
    words = {
        t
        for t in q.scene_sim_templates
        for i in sims
        if t.format(a=i["labels"][0], b=i["labels"][1], c=i["labels"][2]) == i["question"]
    }
    assert words == set(q.scene_sim_templates) and all(i["question_type"] == SCENE_SIM for i in sims)


def test_exports_follow_the_released_schema_and_chat_format() -> None:
    table = pd.DataFrame([vis_row(0, 1, "sofa", (0.0, 0.0, 3.0)), vis_row(0, 2, "tv", (1.0, 0.0, 3.0))])
    rows = qa_table(cam_rel_items("s", "val", table, [0], S, seed=0))
    (record,) = benchmark_records(rows)
    assert set(record) == {"question_type", "image_path", "question", "answer", "choices"}
    sft = sft_records(rows, "Pick a letter.", "Say a direction.")
    assert [r["id"].rsplit(":", 1)[1] for r in sft] == ["mc", "direct"]
    mc, direct = sft
    assert mc["image"] == record["image_path"][0] and mc["images"] == record["image_path"]
    assert mc["conversations"][0]["value"].startswith("<image>\n" + record["question"])
    assert record["choices"] in mc["conversations"][0]["value"]
    assert mc["conversations"][1] == {"from": "gpt", "value": record["answer"]}
    assert direct["conversations"][1]["value"] == record["answer"][3:]
    assert record["choices"] not in direct["conversations"][0]["value"]


def sft_rows(image_counts: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "item_id": f"x{k}",
                "image_path": [f"images/s/{i}.jpg" for i in range(n)],
                "question": "q",
                "choices": "A. a\nB. b\nC. c\nD. d",
                "answer": "A. a",
                "answer_label": "a",
            }
            for k, n in enumerate(image_counts)
        ]
    )


@pytest.mark.parametrize("n_images", [1, 3])
def test_one_image_token_per_image(n_images: int) -> None:
    for record in sft_records(sft_rows([n_images]), "m", "d"):
        assert record["conversations"][0]["value"].count("<image>") == n_images


def test_written_sft_json_reads_as_llava_and_as_llama_factory_sharegpt(tmp_path: Path) -> None:
    records = sft_records(sft_rows([1, 3, 1, 2]), "m", "d")
    with pytest.raises(pa.ArrowTypeError):  # why the file is split: `image` a string here, a list there
        pa.Table.from_pylist(records)
    single, multi = split_by_image_count(records)
    assert sorted(r["id"] for r in single + multi) == sorted(r["id"] for r in records)
    for name, part in (("single.json", single), ("multi.json", multi)):
        path = write_json_atomic(tmp_path / name, part)
        loaded = json.loads(path.read_text())
        assert loaded
        # Hugging Face `datasets` (LLaMA-Factory's loader) builds an Arrow table from the records.
        pa.Table.from_pylist(loaded)
        for r in loaded:
            human, gpt = r["conversations"]
            # LLaMA-Factory sharegpt: `conversations` of from/value, human first; `images` a list
            # with exactly one <image> token per image.
            assert (human["from"], gpt["from"]) == ("human", "gpt") and "<image>" not in gpt["value"]
            assert isinstance(r["images"], list) and human["value"].count("<image>") == len(r["images"])
            # LLaVA: `image` a path string for one image (LLaVA-1.5), the token opening the turn.
            if len(r["images"]) == 1:
                assert r["image"] == r["images"][0] and isinstance(r["image"], str)
                assert human["value"].startswith("<image>\n") and name == "single.json"
            else:
                assert r["image"] == r["images"] and name == "multi.json"
