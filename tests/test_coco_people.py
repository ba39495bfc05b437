"""COCO people → orientation labels: the filters (with their reasons), several people in an image, bad
annotations, blur, the CLI on real photographs (a man in profile; a head-and-shoulders portrait facing the
camera)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from skimage import data as skimage_data
from test_orientation import project

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages.people import label_file
from benchfoundry.cli.main import main

W, H = 640, 480


def annotation(ann_id: int, image_id: int, kp: np.ndarray, area: float = 0.3 * W * H, **extra: object) -> dict:
    return {
        "id": ann_id,
        "image_id": image_id,
        "category_id": 1,
        "bbox": [200.0, 40.0, 240.0, 430.0],
        "area": area,
        "iscrowd": 0,
        "keypoints": [float(v) for v in kp.reshape(-1)],
        "num_keypoints": int((kp[:, 2] > 0).sum()),
        **extra,
    }


def coco_file(tmp_path: Path) -> tuple[Path, Path]:
    """Eight images: two usable people, then one case for each rejection."""
    images = tmp_path / "images"
    images.mkdir()
    front_turned_left = project(0.0, -40.0)
    turned_to_image_left = project(80.0, 50.0)
    facing_away = project(240.0, 240.0)
    no_shoulder = project(0.0, 0.0)
    no_shoulder[5, 2] = 0
    anns = [
        annotation(1, 1, front_turned_left),
        annotation(2, 2, turned_to_image_left),
        annotation(9, 8, facing_away),
        annotation(3, 3, front_turned_left),
        annotation(4, 3, front_turned_left),  # two people
        annotation(5, 4, front_turned_left, iscrowd=1),
        annotation(6, 5, front_turned_left, area=0.1 * W * H),
        annotation(7, 6, no_shoulder),
        {**annotation(8, 7, front_turned_left), "keypoints": [1.0, 2.0]},
    ]
    for i in range(1, 9):
        Image.new("RGB", (W, H)).save(images / f"{i:012d}.jpg")
    (images / f"{2:012d}.jpg").write_bytes(b"")  # a zero-byte image
    coco = {
        "images": [{"id": i, "file_name": f"{i:012d}.jpg", "width": W, "height": H} for i in range(1, 9)],
        "annotations": anns,
        "categories": [{"id": 1, "name": "person"}],
    }
    path = tmp_path / "person_keypoints.json"
    path.write_text(json.dumps(coco))
    return path, images


def test_filters_and_labels_of_constructed_people(tmp_path: Path) -> None:
    path, images = coco_file(tmp_path)
    result = label_file(path, None, CocoConfig(shoulder_ratio=0.72))
    by_image = {r["image_id"]: r for r in result["labels"]}
    # Facing the camera: "back" (the camera's viewing direction is front); the head 40° to the own left.
    assert by_image[1]["kept"] and by_image[1]["facing"] == "back" and by_image[1]["head_turn"] == "front-left"
    assert by_image[1]["head_delta_deg"] == pytest.approx(-40, abs=6)
    # Yaw 80: faces the image's left; the head 30° further to the own left.
    assert by_image[2]["kept"] and by_image[2]["facing"] == "left" and by_image[2]["head_turn"] == "front-left"
    # Facing away, one ear seen: no face to read the head from.
    assert by_image[8]["reason"] == "low confidence"
    # Two people in image 3: each is labelled.
    two = [r for r in result["labels"] if r["image_id"] == 3]
    assert [r["annotation_id"] for r in two] == [3, 4] and all(r["kept"] and r["facing"] == "back" for r in two)
    assert by_image[4]["reason"] == "crowd region"
    assert by_image[5]["reason"].startswith("person area below 0.2")
    assert by_image[6]["reason"] == "left_shoulder not labelled"
    assert by_image[7]["reason"].startswith("malformed: keypoints")
    assert sum(result["rejected"].values()) == 5
    # The authors' rule, one person an image, turns image 3 away.
    alone = label_file(path, None, CocoConfig(shoulder_ratio=0.72, max_people=1))
    assert [r["reason"] for r in alone["labels"] if r["image_id"] == 3] == ["2 people, more than 1"]


def test_a_head_too_small_to_read_is_rejected_by_its_size(tmp_path: Path) -> None:
    kp = project(0.0, 0.0)
    shoulders = float(kp[5:7, 1].mean())
    small = annotation(1, 1, kp, bbox=[200.0, shoulders - 20, 240.0, 300.0])
    coco = {"images": [{"id": 1, "file_name": "1.jpg", "width": W, "height": H}], "annotations": [small]}
    (tmp_path / "c.json").write_text(json.dumps(coco))
    (row,) = label_file(tmp_path / "c.json", None, CocoConfig(shoulder_ratio=0.72))["labels"]
    assert row["reason"] == "subject too small: head below 24 px"
    (row,) = label_file(tmp_path / "c.json", None, CocoConfig(shoulder_ratio=0.72, min_head_px=16))["labels"]
    assert row["kept"]


def test_an_unreadable_image_is_rejected_when_the_images_are_checked(tmp_path: Path) -> None:
    path, images = coco_file(tmp_path)
    result = label_file(path, images, CocoConfig(shoulder_ratio=0.72))
    row = next(r for r in result["labels"] if r["image_id"] == 2)
    assert not row["kept"] and row["reason"] == "image unusable" and str(images / f"{2:012d}.jpg") in row["detail"]
    assert result["rejected"]["image unusable"] == 1


def test_a_file_that_is_not_coco_is_an_error_naming_it(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"images": 3}')
    assert main(["coco", "label", str(bad)]) == 2
    assert f"{bad}: a COCO file needs" in capsys.readouterr().err


def test_the_cli_labels_a_real_photograph_with_hand_placed_keypoints(tmp_path: Path, capsys) -> None:
    """scikit-image's `camera` photograph: a man in profile looking into a camera on a tripod toward the
    image's right, his head in line with his body. Keypoints placed by hand on the photograph (his right
    side faces us: his left shoulder and hip are hidden, his left eye and ear unseen)."""
    Image.fromarray(skimage_data.camera()).save(tmp_path / "camera.png")
    kp = np.zeros((17, 3))
    placed = {
        0: (254, 163, 2),
        2: (234, 149, 2),
        4: (186, 138, 2),
        6: (120, 160, 2),
        5: (135, 170, 1),
        12: (55, 430, 2),
        11: (70, 435, 1),
    }
    for i, point in placed.items():
        kp[i] = point
    coco = {
        "images": [{"id": 1, "file_name": "camera.png", "width": 512, "height": 512}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [0, 62, 340, 450],
                "area": 0.45 * 512 * 512,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": 7,
            }
        ],
    }
    path = tmp_path / "camera.json"
    path.write_text(json.dumps(coco))
    assert main(["coco", "label", str(path), "--images", str(tmp_path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["labels"]
    assert row["kept"] and row["facing"] == "right" and row["head_turn"] == "front"


#: skimage's `astronaut` (Eileen Collins, a frontal head-and-shoulders portrait, 512 × 512) with keypoints placed
#: by hand on the photograph: her eyes, nose and ears, and her shoulders inside the suit; her hips are out of
#: the frame. Her left is the image's right.
ASTRONAUT_KEYPOINTS = {
    0: (224.0, 125.5, 2),  # nose
    1: (246.0, 103.0, 2),  # left eye
    2: (204.5, 101.0, 2),  # right eye
    3: (270.0, 124.0, 2),  # left ear
    4: (176.0, 120.0, 2),  # right ear
    5: (325.0, 240.0, 2),  # left shoulder
    6: (85.0, 235.0, 2),  # right shoulder
}


def astronaut_coco(tmp_path: Path, image: np.ndarray) -> Path:
    Image.fromarray(image).save(tmp_path / "astronaut.png")
    kp = np.zeros((17, 3))
    for i, point in ASTRONAUT_KEYPOINTS.items():
        kp[i] = point
    coco = {
        "images": [{"id": 1, "file_name": "astronaut.png", "width": 512, "height": 512}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [20.0, 10.0, 350.0, 502.0],
                "area": 0.5 * 512 * 512,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": len(ASTRONAUT_KEYPOINTS),
            }
        ],
    }
    path = tmp_path / "astronaut.json"
    path.write_text(json.dumps(coco))
    return path


def test_a_real_head_and_shoulders_portrait_facing_the_camera_is_kept_facing_back_head_front(
    tmp_path: Path, capsys
) -> None:
    """No hip: the body yaw comes from the shoulders with the head as scale; she faces the lens, which the
    authors' convention calls "back", her head in line with her body."""
    path = astronaut_coco(tmp_path, skimage_data.astronaut())
    assert main(["coco", "label", str(path), "--images", str(tmp_path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["labels"]
    assert row["kept"] and row["facing"] == "back" and row["head_turn"] == "front"
    assert abs(row["head_delta_deg"]) < 20 and row["confidence"] >= 0.5


def test_a_blurred_photograph_is_rejected_as_blurry(tmp_path: Path) -> None:
    blurred = cv2.GaussianBlur(skimage_data.astronaut(), (0, 0), 6)
    result = label_file(astronaut_coco(tmp_path, blurred), tmp_path, CocoConfig())
    (row,) = result["labels"]
    assert not row["kept"] and row["reason"] == "blurry: sharpness below 12"
    assert result["rejected"] == {"blurry: sharpness below 12": 1}
    assert label_file(astronaut_coco(tmp_path, blurred), tmp_path, CocoConfig(min_sharpness=0))["labels"][0]["kept"]


def test_orientation_questions_keep_the_distractor_rule_and_the_answer(tmp_path: Path) -> None:
    from benchfoundry.benchmarks.viewspatial.coco.stages.questions import CAM_OBJ, PER_OBJ, orientation_items
    from benchfoundry.benchmarks.viewspatial.release.qa_items import qa_table

    rng = np.random.default_rng(3)
    rows, truth = [], {}
    for k in range(150):
        body, delta = float(rng.uniform(0, 360)), float(rng.uniform(-85, 85))
        kp = project(body, body + delta)
        rows.append(annotation(k + 1, k + 1, kp))
        truth[k + 1] = (body, delta)
    coco = {"images": [{"id": i, "file_name": f"{i}.jpg", "width": W, "height": H} for i in truth], "annotations": rows}
    (tmp_path / "c.json").write_text(json.dumps(coco))
    labels = label_file(tmp_path / "c.json", None, CocoConfig(shoulder_ratio=0.72))["labels"]
    subjects = {k: ("the woman" if k % 2 else "the man") for k in truth}
    items = orientation_items(labels, {i: f"images/coco/{i}.jpg" for i in truth}, subjects, "val", CocoConfig(), seed=5)
    assert {i["question_type"] for i in items} == {CAM_OBJ, PER_OBJ}
    assert CAM_OBJ == "Camera perspective - Object View Orientation"
    assert PER_OBJ == "Person perspective - Object View Orientation"
    # The release's wordings, all used, each naming the item's subject.
    for task, templates in ((CAM_OBJ, CocoConfig().cam_obj_templates), (PER_OBJ, CocoConfig().per_obj_templates)):
        of_task = [i for i in items if i["question_type"] == task]
        used = {
            t for t in templates for i in of_task if t.format(subject=subjects[i["object_ids"][0]]) == i["question"]
        }
        assert used == set(templates) and all(i["labels"] == [subjects[i["object_ids"][0]]] for i in of_task)
    for item in items:
        options = [line.split(". ", 1)[1] for line in item["choices"].split("\n")]
        answer = item["answer"].split(". ", 1)[1]
        assert len(set(options)) == 4 and answer == item["answer_label"] and answer in options
        assert all(o == answer or (o not in answer and answer not in o) for o in options)
    again = orientation_items(labels, {i: f"images/coco/{i}.jpg" for i in truth}, subjects, "val", CocoConfig(), seed=5)
    assert again == items and len(qa_table(items)) == len(items)
    # Paired as the release pairs them: both questions of the same subject, one subject an image.
    subjects_of = {t: [i["object_ids"][0] for i in items if i["question_type"] == t] for t in (CAM_OBJ, PER_OBJ)}
    assert subjects_of[CAM_OBJ] == subjects_of[PER_OBJ]
    assert len({i["image_path"][0] for i in items if i["question_type"] == CAM_OBJ}) == len(subjects_of[CAM_OBJ])
    # Per-Obj. Ori. answers agree with the constructed head turns for most people: 75 % (a guess: 20 %;
    # the estimate-side margin keeps some people whose true turn lies near a bin edge).
    from benchfoundry.benchmarks.viewspatial.coco.stages.orientation import head_turn

    per_obj = [i for i in items if i["question_type"] == PER_OBJ]
    right = sum(head_turn(truth[i["object_ids"][0]][1]) == i["answer_label"] for i in per_obj)
    assert len(per_obj) >= 30 and right / len(per_obj) >= 0.75
