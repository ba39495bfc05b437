"""The COCO stage of ViewSpatial: Per-Rel. Dir. geometry, candidates on a constructed photograph's boxes,
the review release, and one split end to end (items, rerun, a corrupt image)."""

from __future__ import annotations

import csv
import html
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from test_orientation import project

from benchfoundry.configs.coco import CocoConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.directions import HORIZONTAL_LABELS, distractor_pool
from benchfoundry.core.store import StageStore
from benchfoundry.flows.cli import main
from benchfoundry.tasks.viewspatial import relative_review
from benchfoundry.tasks.viewspatial.coco_stage import coco_task
from benchfoundry.tasks.viewspatial.person_relative import (
    candidate_angle,
    facing_vector,
    ground_point,
    person_angle,
)
from benchfoundry.tasks.viewspatial.release import write_benchmark_files
from benchfoundry.tasks.viewspatial.report_page import write_report_page

W, H = 640, 480
FOCAL = (W / 2) / math.tan(math.radians(30.0))  # the 60° field of view the candidate rule assumes
CAMERA_HEIGHT = 1.6


def pixel(p: np.ndarray) -> tuple[float, float]:
    """Pinhole projection (x right, y down, z forward), principal point at the image centre."""
    return FOCAL * p[0] / p[2] + W / 2, FOCAL * p[1] / p[2] + H / 2


def compass(angle: float) -> str:
    return HORIZONTAL_LABELS[int(math.floor((angle % 360 + 22.5) / 45)) % 8]


def own_frame_angle(yaw: float, person: np.ndarray, obj: np.ndarray) -> float:
    """Clockwise angle from the person's front on the floor plane, from their facing and their own right.

    Facing the camera (yaw 0) the person's right is the image's left; turning by yaw about the vertical
    rotates both. Written out in (x, z) floor coordinates, independently of the module's cross product."""
    t = math.radians(yaw)
    front = np.array([-math.sin(t), -math.cos(t)])
    right = np.array([-math.cos(t), math.sin(t)])
    v = (obj - person)[[0, 2]]
    return math.degrees(math.atan2(v @ right, v @ front)) % 360


@pytest.mark.parametrize(
    ("yaw", "offset", "label"),
    [
        (0.0, (2.0, 0.0), "left"),  # faces the camera: the image's right is on their left
        (0.0, (0.0, 2.0), "back"),  # farther from the camera than them: behind
        (90.0, (0.0, -2.0), "left"),  # faces the image's left: the camera side is their left
        (90.0, (-2.0, 0.0), "front"),
        (270.0, (0.0, -2.0), "right"),
        (180.0, (-2.0, 2.0), "front-left"),  # faces away: ahead is farther, the image's left is their left
    ],
)
def test_person_frame_directions_of_known_placements(yaw: float, offset: tuple[float, float], label: str) -> None:
    person = np.array([0.0, CAMERA_HEIGHT, 6.0])
    obj = person + np.array([offset[0], 0.0, offset[1]])
    assert compass(person_angle(yaw, person, obj)) == label
    assert person_angle(yaw, person, obj) == pytest.approx(own_frame_angle(yaw, person, obj))
    assert np.linalg.norm(facing_vector(yaw)) == pytest.approx(1.0)


def test_a_floor_point_is_recovered_from_its_pixel() -> None:
    p = np.array([1.2, CAMERA_HEIGHT, 5.0])
    found = ground_point(*pixel(p), (W, H))
    assert found * CAMERA_HEIGHT == pytest.approx(p)
    assert ground_point(W / 2, H / 2 - 10, (W, H)) is None  # above the horizon


def box_standing_at(p: np.ndarray, width: float, height: float) -> list[float]:
    """The image box of an upright rectangle of the given size whose bottom centre stands on the floor at p."""
    (x0, y1), (x1, y0) = pixel(p - [width / 2, 0, 0]), pixel(p + [width / 2, -height, 0])
    return [x0, y0, x1 - x0, y1 - y0]


@pytest.mark.parametrize("yaw", [0.0, 30.0, 100.0, 200.0, 300.0])
def test_candidate_angles_from_boxes_match_the_floor_geometry(yaw: float) -> None:
    person, obj = np.array([0.3, CAMERA_HEIGHT, 6.0]), np.array([-1.5, CAMERA_HEIGHT, 4.5])
    kp = np.zeros((17, 3))
    kp[15:17, :2], kp[15:17, 2] = pixel(person), 2
    angle = candidate_angle(yaw, box_standing_at(person, 0.5, 1.7), kp, box_standing_at(obj, 0.5, 0.5), (W, H))
    assert angle == pytest.approx(own_frame_angle(yaw, person, obj), abs=1e-6)


def test_a_box_cut_by_the_image_edge_falls_back_to_the_lateral_offset() -> None:
    person_box, obj_box = [300.0, 100.0, 60.0, 380.0], [500.0, 300.0, 80.0, 180.0]  # both reach the bottom
    angle = candidate_angle(0.0, person_box, np.zeros((17, 3)), obj_box, (W, H))
    assert compass(angle) == "left" and angle == pytest.approx(270.0)


def rows(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "item_id": f"i{k}",
                "split": "val",
                "question_type": "Per-Rel. Dir.",
                "question": "q",
                "image_path": ["images/x.jpg"],
                "choices": "A. left\nB. right\nC. back\nD. front",
                "answer": "A. left",
                "answer_label": "left",
                "needs_review": k > 0,
            }
            for k in range(n)
        ]
    )


def test_review_releases_accepted_and_edited_rows_and_flags_undecided_ones() -> None:
    decisions = {
        "i1": {"decision": "accept", "answer": "left"},
        "i2": {"decision": "reject", "answer": "left"},
        "i3": {"decision": "edit", "answer": "back"},
    }
    released = relative_review.released_rows(rows(5), decisions, release_unreviewed=False)
    assert list(released["item_id"]) == ["i0", "i1", "i3"] and released["verified"].all()
    edited = released.set_index("item_id").loc["i3"]
    assert edited["answer"] == "C. back" and edited["answer_label"] == "back"
    with_undecided = relative_review.released_rows(rows(5), decisions, release_unreviewed=True)
    assert dict(zip(with_undecided["item_id"], with_undecided["verified"])) == {
        "i0": True,
        "i1": True,
        "i3": True,
        "i4": False,
    }
    assert [item["id"] for item in relative_review.review_items(rows(5))] == ["i1", "i2", "i3", "i4"]


def write_split(tmp_path: Path) -> dict[str, str]:
    """Three one-person images; the first has a chair and two cups (the cups repeat: not asked)."""
    images = tmp_path / "images"
    images.mkdir()
    kps = [project(0.0, -40.0), project(80.0, 50.0), project(0.0, 0.0)]
    anns = []
    for i, kp in enumerate(kps, start=1):
        Image.new("RGB", (W, H), (40 * i, 90, 120)).save(images / f"{i:06d}.jpg")
        anns.append(
            {
                "id": 100 + i,
                "image_id": i,
                "category_id": 1,
                "bbox": [200.0, 40.0, 240.0, 400.0],
                "area": 0.3 * W * H,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": int((kp[:, 2] > 0).sum()),
            }
        )
    objects = [(1, 62, [520.0, 320.0, 80.0, 120.0]), (1, 47, [20.0, 380.0, 20.0, 20.0]), (1, 47, [60.0, 380.0, 20, 20])]
    anns += [
        {"id": 200 + k, "image_id": i, "category_id": c, "bbox": b, "area": b[2] * b[3], "iscrowd": 0}
        for k, (i, c, b) in enumerate(objects)
    ]
    (images / f"{3:06d}.jpg").write_bytes(b"not a jpeg")
    coco = {
        "images": [{"id": i, "file_name": f"{i:06d}.jpg", "width": W, "height": H} for i in (1, 2, 3)],
        "annotations": anns,
        "categories": [{"id": 1, "name": "person"}, {"id": 47, "name": "cup"}, {"id": 62, "name": "chair"}],
    }
    path = tmp_path / "person_keypoints.json"
    path.write_text(json.dumps(coco))
    return {"annotations": str(path), "images": str(images), "instances": None, "truth": None}


def test_a_split_makes_the_three_tasks_reports_a_corrupt_image_and_is_skipped_on_rerun(tmp_path: Path) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    cfg = CocoConfig(shoulder_ratio=0.72, margin_deg=0.0)
    result = coco_task.fn(str(out), "val", source, cfg, 0)
    store = StageStore(out, "viewspatial", "coco")
    table = store.shard_rows("val")
    assert set(table["question_type"]) == {"Cam-Obj. Ori.", "Per-Obj. Ori.", "Per-Rel. Dir."}
    per_rel = table[table["question_type"] == "Per-Rel. Dir."]
    assert list(per_rel["labels"].map(list)) == [["person", "chair"]] and per_rel["needs_review"].all()
    for row in table.itertuples():
        options = [line.split(". ", 1)[1] for line in row.choices.split("\n")]
        assert row.answer_label in options and len(set(options)) == 4
        assert not set(options) - {row.answer_label} - set(distractor_pool(row.answer_label, HORIZONTAL_LABELS))
        assert (out / "viewspatial" / row.image_path[0]).is_file()
    problems = store.marker("val")["problems"]
    assert [p["item"] for p in problems] == ["val:image 3"] and "000003.jpg" in problems[0]["reason"]
    assert result["kept"] == 2 and result["rejected"] == {"image unusable": 1}
    labels = json.loads((out / "viewspatial" / "coco" / "val.labels.json").read_text())
    assert {r["image_id"] for r in labels["labels"] if r["kept"]} == {1, 2}
    marker = store.marker_path("val")
    written = marker.stat().st_mtime_ns
    assert coco_task.fn(str(out), "val", source, cfg, 0)["items"] == len(table)
    assert marker.stat().st_mtime_ns == written
    first = store.marker("val")["spec_hash"]
    coco_task.fn(str(out), "val", source, cfg, 1)
    assert store.marker("val")["spec_hash"] != first  # another seed is another build


def test_candidates_wait_for_review_and_an_imported_edit_releases_them(tmp_path: Path, capsys) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    config = load_config(None, ["viewspatial.coco.margin_deg=0", "viewspatial.coco.shoulder_ratio=0.72"])
    coco_task.fn(str(out), "val", source, config.viewspatial.coco, 0)
    StageStore(out, "viewspatial", "coco").write_manifest(["val"])
    (out / "build.json").write_text(json.dumps({"config": config.model_dump(mode="json")}))
    files = write_benchmark_files(str(out), config.viewspatial)
    released = json.loads(Path(files["benchmark"]).read_text())
    assert files["review_items"] == 1 and "Per-Rel. Dir." not in {r["question_type"] for r in released}
    review_csv = out / "viewspatial" / "review" / "review.csv"
    lines = list(csv.DictReader(review_csv.open()))
    assert [row["task"] for row in lines] == ["Per-Rel. Dir."] and row_image_exists(out, lines[0]["image"])
    other = next(o for o in lines[0]["options"].split(" | ") if o != lines[0]["answer"])
    lines[0].update(decision="edit", edited_answer=other)
    with review_csv.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(lines[0]))
        writer.writeheader()
        writer.writerows(lines)
    assert main(["viewspatial", "review-import", str(out), str(review_csv)]) == 0
    released = json.loads(Path(files["benchmark"]).read_text())
    per_rel = [r for r in released if r["question_type"] == "Per-Rel. Dir."]
    assert len(per_rel) == 1 and per_rel[0]["answer"].split(". ", 1)[1] == other
    assert per_rel[0]["answer"] in per_rel[0]["choices"].split("\n") and "verified" not in per_rel[0]


def row_image_exists(out: Path, image: str) -> bool:
    return (out / "viewspatial" / image).is_file()


def test_the_report_page_counts_the_items_and_shows_released_ones(tmp_path: Path) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    config = load_config(None, ["viewspatial.coco.margin_deg=0", "viewspatial.coco.shoulder_ratio=0.72"])
    coco_task.fn(str(out), "val", source, config.viewspatial.coco, 0)
    rows = StageStore(out, "viewspatial", "coco").shard_rows("val")
    StageStore(out, "viewspatial", "coco").write_manifest(["val"])
    released = json.loads(Path(write_benchmark_files(str(out), config.viewspatial)["benchmark"]).read_text())
    page = write_report_page(out, 0).read_text()
    for task, n in rows["question_type"].value_counts().items():
        assert f"<tr><td>{task}</td><td>{n}</td></tr>" in page
    assert "2 of 3 people kept" in page and "image unusable: 1" in page
    shown = [r for r in released if html.escape(r["question"]) in page]
    assert shown and all(f"../viewspatial/{r['image_path'][0]}" in page for r in shown)
    assert all((out / "report" / f"../viewspatial/{r['image_path'][0]}").is_file() for r in shown)
