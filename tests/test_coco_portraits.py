"""Real photographs labelled by hand as a COCO annotator would, their facing checked by eye.

skimage's astronaut (Eileen Collins, head and shoulders, facing the lens: the authors' "back"), the same
photograph with her shoulder points at the outer edge of the suit's neck ring instead of the shoulder joints
(an annotator's other choice: the head-scaled span then reads about 35° of turn), her mirror image, and the
cameraman (in near profile to the image's right, hunched over his camera). Keypoints (x, y, v) were read off
the images by eye; no hip is in frame or labelled in any of them. Then head-and-shoulders photographs with the head
straight and turned to either side, labelled by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data as skimage_data

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages.people import label_file

ASTRONAUT_FACE = {
    0: (224.0, 125.5, 2),  # nose
    1: (246.0, 103.0, 2),  # left eye
    2: (204.5, 101.0, 2),  # right eye
    3: (270.0, 124.0, 2),  # left ear
    4: (176.0, 120.0, 2),  # right ear
}
#: Shoulder points on the shoulder joints, and at the outer edge of the suit's neck ring.
AT_THE_JOINTS = {5: (325.0, 240.0, 2), 6: (85.0, 235.0, 2)}
AT_THE_RING = {5: (302.0, 232.0, 2), 6: (112.0, 230.0, 2)}
#: The cameraman: his right side toward us; his left shoulder hidden behind his head and arm.
CAMERAMAN = {
    0: (253.0, 163.0, 2),  # nose
    2: (235.0, 148.0, 2),  # right eye
    4: (187.0, 142.0, 2),  # right ear
    5: (235.0, 200.0, 1),  # left shoulder, occluded
    6: (115.0, 150.0, 2),  # right shoulder
}
#: COCO's left/right keypoint pairs, swapped in a mirror image.
PAIRS = ((1, 2), (3, 4), (5, 6))


def coco_file(tmp_path: Path, name: str, image: np.ndarray, points: dict[int, tuple[float, float, int]]) -> Path:
    h, w = image.shape[:2]
    Image.fromarray(image).save(tmp_path / f"{name}.png")
    kp = np.zeros((17, 3))
    for i, point in points.items():
        kp[i] = point
    coco = {
        "images": [{"id": 1, "file_name": f"{name}.png", "width": w, "height": h}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [0.0, 0.0, float(w), float(h)],
                "area": 0.5 * w * h,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": len(points),
            }
        ],
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(coco))
    return path


def mirrored(points: dict[int, tuple[float, float, int]], width: int) -> dict[int, tuple[float, float, int]]:
    swap = dict(PAIRS) | {b: a for a, b in PAIRS}
    return {swap.get(i, i): (width - 1 - x, y, v) for i, (x, y, v) in points.items()}


def label(tmp_path: Path, name: str, image: np.ndarray, points: dict) -> dict:
    (row,) = label_file(coco_file(tmp_path, name, image, points), tmp_path, CocoConfig())["labels"]
    return row


def test_the_portrait_facing_the_lens_is_kept_facing_back_wherever_the_shoulder_points_sit(tmp_path: Path) -> None:
    photo = skimage_data.astronaut()
    for name, shoulders in (("joints", AT_THE_JOINTS), ("ring", AT_THE_RING)):
        row = label(tmp_path, name, photo, ASTRONAUT_FACE | shoulders)
        assert row["kept"] and row["facing"] == "back", (name, row)
        assert abs(row["facing_yaw_deg"] - 360.0 * round(row["facing_yaw_deg"] / 360.0)) < 22.5
    # Her mirror image faces the lens too.
    row = label(tmp_path, "mirror", photo[:, ::-1].copy(), mirrored(ASTRONAUT_FACE | AT_THE_RING, photo.shape[1]))
    assert row["kept"] and row["facing"] == "back", row


def test_a_straight_head_is_turned_front_wherever_the_shoulder_points_sit(tmp_path: Path) -> None:
    """At the ring the shoulders read a turn of about 35°, within their noise of her face: face and shoulders
    agree, her body faces the lens and her straight head is turned front (no mirror reading to doubt it)."""
    for name, shoulders in (("joints", AT_THE_JOINTS), ("ring", AT_THE_RING)):
        row = label(tmp_path, name, skimage_data.astronaut(), ASTRONAUT_FACE | shoulders)
        assert row["kept"] and row["facing"] == "back" and row["head_turn"] == "front", (name, row)


#: Head-and-shoulders photographs (640 × 480) of people facing the lens, shoulders square to it, labelled by hand
#: (x, y, v; a hidden ear not labelled): the head straight, turned about 50° and about 75° to the person's own left
#: (the face toward the image's right) and to their own right; with the head turn each shows (the bins of
#: docs/design/viewspatial.md §2.3).
PHOTOGRAPHS = {
    "straight": (
        {0: (321, 210, 2), 1: (352, 176, 2), 2: (289, 175, 2), 3: (392, 196, 2), 4: (251, 194, 2)},
        {5: (497, 372, 2), 6: (146, 369, 2)},
        "front",
    ),
    "left": (
        {0: (402, 214, 2), 1: (396, 178, 2), 2: (356, 175, 2), 4: (275, 190, 2)},
        {5: (494, 371, 2), 6: (143, 368, 2)},
        "front-left",
    ),
    "far left": ({0: (421, 220, 2), 2: (383, 180, 2), 4: (300, 192, 2)}, {5: (493, 372, 2), 6: (147, 369, 2)}, "left"),
    "right": (
        {0: (238, 217, 2), 1: (284, 178, 2), 2: (243, 181, 2), 3: (365, 193, 2)},
        {5: (492, 374, 2), 6: (150, 371, 2)},
        "front-right",
    ),
    "far right": (
        {0: (219, 221, 2), 1: (258, 182, 2), 3: (342, 194, 2)},
        {5: (495, 370, 2), 6: (149, 372, 2)},
        "right",
    ),
}


def test_hand_labelled_portraits_get_their_head_turn_and_a_per_obj_ori_item(tmp_path: Path) -> None:
    """Each portrait is kept facing the lens (the authors' "back") with the head turn it shows, and makes its
    Per-Obj. Ori. item answering it."""
    from benchfoundry.benchmarks.viewspatial.coco.stages.questions import PER_OBJ, orientation_items

    names = list(PHOTOGRAPHS)
    annotations = []
    for k, name in enumerate(names, start=1):
        face, shoulders, _ = PHOTOGRAPHS[name]
        kp = np.zeros((17, 3))
        for i, point in (face | shoulders).items():
            kp[i] = point
        annotations.append(
            {
                "id": k,
                "image_id": k,
                "category_id": 1,
                "bbox": [120.0, 90.0, 400.0, 390.0],
                "area": 0.4 * 640 * 480,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": len(face) + len(shoulders),
            }
        )
    images = [{"id": k, "file_name": f"{k}.jpg", "width": 640, "height": 480} for k in range(1, len(names) + 1)]
    path = tmp_path / "portraits.json"
    path.write_text(json.dumps({"images": images, "annotations": annotations}))
    labels = label_file(path, None, CocoConfig())["labels"]
    for name, row in zip(names, labels):
        assert row["kept"] and row["facing"] == "back", (name, row)
        assert row["head_turn"] == PHOTOGRAPHS[name][2], (name, row)
    image_of = {k: f"images/coco/{k}.jpg" for k in range(1, len(names) + 1)}
    items = orientation_items(labels, image_of, {}, "val", CocoConfig(), seed=3)
    per_obj = {i["object_ids"][0]: i["answer_label"] for i in items if i["question_type"] == PER_OBJ}
    assert per_obj == {k: PHOTOGRAPHS[name][2] for k, name in enumerate(names, start=1)}


def test_the_cameraman_in_profile_is_not_given_a_frontal_label(tmp_path: Path) -> None:
    """His face looks to the image's right (the authors' "right"); his hunched shoulders read nearly frontal,
    so head and body disagree: he is rejected or, if kept, faces right."""
    photo = np.repeat(skimage_data.camera()[:, :, None], 3, axis=2)
    row = label(tmp_path, "cameraman", photo, CAMERAMAN)
    assert not row["kept"] or row["facing"] == "right", row
