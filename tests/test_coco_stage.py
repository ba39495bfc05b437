"""The COCO stage of ViewSpatial: Per-Rel. Dir. geometry, candidates on a constructed photograph's boxes (other
objects and other people), the review release, subjects named by their captions' noun, the task budgets and
the authors' layout, and one split end to end (items, rerun, a corrupt image)."""

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

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES, SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages import relative_review
from benchfoundry.benchmarks.viewspatial.coco.stages.coco_stage import label_split
from benchfoundry.benchmarks.viewspatial.coco.stages.person_relative import (
    candidate_angle,
    facing_vector,
    ground_point,
    person_angle,
)
from benchfoundry.benchmarks.viewspatial.release.release import authors_path, within_budgets, write_benchmark_files
from benchfoundry.benchmarks.viewspatial.release.report_page import write_report_page
from benchfoundry.cli.main import main
from benchfoundry.configs.loader import load_config
from benchfoundry.core.directions import HORIZONTAL_LABELS, distractor_pool
from benchfoundry.core.store import StageStore

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


PER_REL = "Person perspective - Relative Direction"


def rows(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "item_id": f"i{k}",
                "split": "val",
                "question_type": PER_REL,
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


def photo(seed: int) -> Image.Image:
    """A textured stand-in photograph (a flat image would be rejected as blurry)."""
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (H, W, 3), dtype=np.uint8))


def write_split(tmp_path: Path, captions: bool = False) -> dict[str, str | None]:
    """Three one-person images; the first has a chair and two cups (the cups repeat: not asked); with
    `captions`, a captions file whose majority calls the first image's person a woman."""
    images = tmp_path / "images"
    images.mkdir()
    kps = [project(0.0, -40.0), project(80.0, 50.0), project(0.0, 0.0)]
    anns = []
    for i, kp in enumerate(kps, start=1):
        photo(i).save(images / f"{i:06d}.jpg")
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
    found = None
    if captions:
        said = ["A woman in a red coat stands.", "The lady smiles at the camera.", "A man and a woman.", "A person."]
        found = tmp_path / "captions.json"
        found.write_text(
            json.dumps(
                {
                    "images": coco["images"],
                    "annotations": [{"id": k, "image_id": 1, "caption": c} for k, c in enumerate(said)],
                }
            )
        )
    return {
        "annotations": str(path),
        "images": str(images),
        "instances": None,
        "captions": None if found is None else str(found),
        "truth": None,
    }


def test_a_split_makes_the_three_tasks_reports_a_corrupt_image_and_is_skipped_on_rerun(tmp_path: Path) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    config = CocoConfig(shoulder_ratio=0.72, margin_deg=0.0)
    result = label_split(str(out), "val", source, config, 0)
    store = StageStore(out, "viewspatial", "coco")
    table = store.shard_rows("val")
    assert set(table["question_type"]) == {
        "Camera perspective - Object View Orientation",
        "Person perspective - Object View Orientation",
        PER_REL,
    }
    per_rel = table[table["question_type"] == PER_REL]
    assert list(per_rel["labels"].map(list)) == [["the person", "the chair"]] and per_rel["needs_review"].all()
    assert "the person" in per_rel["question"].iloc[0] and "the chair" in per_rel["question"].iloc[0]
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
    assert label_split(str(out), "val", source, config, 0)["items"] == len(table)
    assert marker.stat().st_mtime_ns == written
    first = store.marker("val")["spec_hash"]
    label_split(str(out), "val", source, config, 1)
    assert store.marker("val")["spec_hash"] != first  # another seed is another build


def test_candidates_wait_for_review_and_an_imported_edit_releases_them(tmp_path: Path, capsys) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    config = load_config(None, ["viewspatial.coco.margin_deg=0", "viewspatial.coco.shoulder_ratio=0.72"])
    label_split(str(out), "val", source, config.viewspatial.coco, 0)
    StageStore(out, "viewspatial", "coco").write_manifest(["val"])
    (out / "build.json").write_text(json.dumps({"config": config.model_dump(mode="json")}))
    files = write_benchmark_files(str(out), config.viewspatial, config.seed)
    released = json.loads(Path(files["benchmark"]).read_text())
    assert files["review_items"] == 1 and PER_REL not in {r["question_type"] for r in released}
    review_csv = out / "viewspatial" / "review" / "review.csv"
    lines = list(csv.DictReader(review_csv.open()))
    assert [row["task"] for row in lines] == [PER_REL] and row_image_exists(out, lines[0]["image"])
    other = next(o for o in lines[0]["options"].split(" | ") if o != lines[0]["answer"])
    lines[0].update(decision="edit", edited_answer=other)
    with review_csv.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(lines[0]))
        writer.writeheader()
        writer.writerows(lines)
    assert main(["viewspatial", "review-import", str(out), str(review_csv)]) == 0
    released = json.loads(Path(files["benchmark"]).read_text())
    per_rel = [r for r in released if r["question_type"] == PER_REL]
    assert len(per_rel) == 1 and per_rel[0]["answer"].split(". ", 1)[1] == other
    assert per_rel[0]["answer"] in per_rel[0]["choices"].split("\n") and "verified" not in per_rel[0]


def row_image_exists(out: Path, image: str) -> bool:
    return (out / "viewspatial" / image).is_file()


def test_the_report_page_counts_the_items_and_shows_released_ones(tmp_path: Path) -> None:
    out, source = tmp_path / "out", write_split(tmp_path)
    config = load_config(None, ["viewspatial.coco.margin_deg=0", "viewspatial.coco.shoulder_ratio=0.72"])
    label_split(str(out), "val", source, config.viewspatial.coco, 0)
    rows = StageStore(out, "viewspatial", "coco").shard_rows("val")
    StageStore(out, "viewspatial", "coco").write_manifest(["val"])
    released = json.loads(Path(write_benchmark_files(str(out), config.viewspatial, 0)["benchmark"]).read_text())
    page = write_report_page(out, 0).read_text()
    for task, n in rows["question_type"].value_counts().items():
        assert f"<tr><td>{SHORT_NAMES[task]}</td><td>{n}</td></tr>" in page
    assert "2 of 3 people kept" in page and "image unusable: 1" in page
    shown = [r for r in released if html.escape(r["question"]) in page]
    assert shown and all(f"../viewspatial/{r['image_path'][0]}" in page for r in shown)
    assert all((out / "report" / f"../viewspatial/{r['image_path'][0]}").is_file() for r in shown)


def two_people_split(tmp_path: Path) -> dict[str, str | None]:
    """One image, two people side by side (both facing the camera), a chair at the right edge."""
    images = tmp_path / "images"
    images.mkdir()
    photo(1).save(images / "000001.jpg")
    anns = []
    for k, dx in enumerate((-150.0, 150.0)):
        kp = project(0.0, 0.0)
        kp[:, 0] += dx * (kp[:, 2] > 0)
        anns.append(
            {
                "id": 101 + k,
                "image_id": 1,
                "category_id": 1,
                "bbox": [200.0 + dx, 40.0, 240.0, 400.0],
                "area": 0.25 * W * H,
                "iscrowd": 0,
                "keypoints": kp.reshape(-1).tolist(),
                "num_keypoints": int((kp[:, 2] > 0).sum()),
            }
        )
    coco = {
        "images": [{"id": 1, "file_name": "000001.jpg", "width": W, "height": H}],
        "annotations": anns,
        "categories": [{"id": 1, "name": "person"}],
    }
    path = tmp_path / "person_keypoints.json"
    path.write_text(json.dumps(coco))
    return {"annotations": str(path), "images": str(images), "instances": None, "captions": None, "truth": None}


def test_each_person_of_an_image_is_labelled_and_the_other_is_their_per_rel_target(tmp_path: Path) -> None:
    """Two people facing the camera: each one's right is the image's left, so from the one on the left the
    other (at the same depth, to the image's right) stands on their left, and the other way round."""
    out, source = tmp_path / "out", two_people_split(tmp_path)
    config = CocoConfig(shoulder_ratio=0.72, margin_deg=0.0)
    result = label_split(str(out), "val", source, config, 0)
    assert result["kept"] == 2
    table = StageStore(out, "viewspatial", "coco").shard_rows("val")
    per_rel = table[table["question_type"] == PER_REL]
    got = {tuple(r.labels): r.answer_label for r in per_rel.itertuples()}
    assert got == {
        ("the person on the left", "the person on the right"): "left",
        ("the person on the right", "the person on the left"): "right",
    }
    assert per_rel["needs_review"].all()
    cam_obj = table[table["question_type"] == CATEGORIES["Cam-Obj. Ori."]]
    # One subject an image is asked both orientation questions, as the release pairs them.
    assert list(cam_obj["answer_label"]) == ["back"]
    per_obj = table[table["question_type"] == CATEGORIES["Per-Obj. Ori."]]
    assert list(per_obj["object_ids"].map(list)) == list(cam_obj["object_ids"].map(list))
    capped = label_split(
        str(tmp_path / "capped"),
        "val",
        source,
        config.model_copy(update={"per_rel": config.per_rel.model_copy(update={"per_image": 1})}),
        0,
    )
    assert capped["items"] == len(table) - 1


def test_a_lone_person_is_named_by_the_noun_most_captions_give(tmp_path: Path) -> None:
    out, source = tmp_path / "out", write_split(tmp_path, captions=True)
    label_split(str(out), "val", source, CocoConfig(shoulder_ratio=0.72, margin_deg=0.0), 0)
    table = StageStore(out, "viewspatial", "coco").shard_rows("val")
    first = table[table["scene_id"] == "coco:1"]
    assert set(first["labels"].map(lambda v: list(v)[0])) == {"the woman"}
    assert all("the woman" in q for q in first["question"])
    assert set(table[table["scene_id"] == "coco:2"]["labels"].map(lambda v: list(v)[0])) == {"the person"}


def budget_rows(n: int, task: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "item_id": f"{task}:{k}",
                "scene_id": f"coco:{k}",
                "split": "val",
                "question_type": task,
                "image_path": [f"images/coco/val/{k:012d}.jpg"],
            }
            for k in range(n)
        ]
    )


def test_budgets_cap_each_task_prefer_shared_images_and_keep_the_release_order() -> None:
    from benchfoundry.benchmarks.viewspatial.config import TaskBudgets

    cam, per = CATEGORIES["Cam-Obj. Ori."], CATEGORIES["Per-Obj. Ori."]
    rows = pd.concat([budget_rows(50, per), budget_rows(50, cam)], ignore_index=True)
    kept = within_budgets(rows, TaskBudgets(cam_obj=20, per_obj=20, per_rel=None), seed=4)
    assert kept["question_type"].value_counts().to_dict() == {cam: 20, per: 20}
    # The same images for both tasks, the release's task order, then by image path.
    assert set(kept[kept["question_type"] == cam]["scene_id"]) == set(kept[kept["question_type"] == per]["scene_id"])
    assert list(kept["question_type"]) == [cam] * 20 + [per] * 20
    paths = [p[0] for p in kept["image_path"]]
    assert paths[:20] == sorted(paths[:20])
    assert within_budgets(rows, TaskBudgets(cam_obj=20, per_obj=20), seed=4).equals(kept)
    assert not within_budgets(rows, TaskBudgets(cam_obj=20, per_obj=20), seed=5).equals(kept)
    assert len(within_budgets(rows, TaskBudgets(cam_obj=None, per_obj=None), seed=4)) == 100
    # The defaults are the release's counts and its camera / person balance.
    default = TaskBudgets()
    counts = [default.cam_rel, default.cam_obj, default.per_obj, default.per_rel, default.scene_sim]
    assert counts == [1773, 996, 996, 842, 1105]
    assert round((default.cam_rel + default.cam_obj) / sum(counts), 3) == 0.485


def test_the_authors_layout_names_images_as_the_release_does(tmp_path: Path) -> None:
    assert authors_path("images/scene0011_00/280.jpg", "val") == (
        "ViewSpatial-Bench/scannetv2_val/scene0011_00/original_images/280.jpg"
    )
    assert authors_path("images/coco/val/000000000285.jpg", "val") == "ViewSpatial-Bench/val2017/000000000285.jpg"
    with pytest.raises(ValueError, match="not an image path"):
        authors_path("elsewhere/x.jpg", "val")
    out, source = tmp_path / "out", write_split(tmp_path)
    config = load_config(
        None,
        ["viewspatial.coco.margin_deg=0", "viewspatial.coco.shoulder_ratio=0.72", "viewspatial.release.layout=authors"],
    )
    label_split(str(out), "val", source, config.viewspatial.coco, 0)
    StageStore(out, "viewspatial", "coco").write_manifest(["val"])
    text = Path(write_benchmark_files(str(out), config.viewspatial, 0)["benchmark"]).read_text(encoding="utf-8")
    released = json.loads(text)
    # Written as the release is: its key order, indent 2, ’ and — as they are, no final newline.
    assert released and not text.endswith("\n") and text.startswith('[\n  {\n    "question_type": ')
    assert all(list(r) == ["question_type", "image_path", "question", "answer", "choices"] for r in released)
    assert "\\u20" not in text
    for record in released:
        (path,) = record["image_path"]
        assert path.startswith("ViewSpatial-Bench/val2017/") and (out / "viewspatial" / path).is_file()
    # Back to the build layout: the authors' tree goes, the paths are the build's.
    build = config.viewspatial.model_copy(
        update={"release": config.viewspatial.release.model_copy(update={"layout": "build"})}
    )
    again = json.loads(Path(write_benchmark_files(str(out), build, 0)["benchmark"]).read_text())
    assert all(r["image_path"][0].startswith("images/coco/val/") for r in again)
    assert not (out / "viewspatial" / "ViewSpatial-Bench").exists()


@pytest.mark.parametrize(("hands", "expected_hands"), [(30, 5), (3, 3), (0, 0)])
def test_per_rel_budget_takes_its_hand_share_from_two_option_items_first(hands: int, expected_hands: int) -> None:
    """A budget of 20 with a quarter for "which hand" items: 5 of them when there are enough, all when fewer,
    the rest of the 20 from the direction items; the budget is never exceeded."""
    from benchfoundry.benchmarks.viewspatial.config import TaskBudgets

    per_rel = CATEGORIES["Per-Rel. Dir."]
    directions = budget_rows(100, per_rel)
    hand_rows = budget_rows(hands, per_rel).assign(
        item_id=[f"coco:{k}:per_rel_hand:{k}" for k in range(hands)],
        image_path=[[f"images/coco/val/hand{k:06d}.jpg"] for k in range(hands)],
    )
    rows = pd.concat([directions, hand_rows], ignore_index=True)
    kept = within_budgets(rows, TaskBudgets(per_rel=20), seed=2, hand_share=0.25)
    two_option = kept["item_id"].str.contains(":per_rel_hand:")
    assert len(kept) == 20 and int(two_option.sum()) >= expected_hands
    if hands <= 5:
        assert int(two_option.sum()) == hands  # fewer than the share: every one of them
    # Without a share the draw is the seed's order alone, which here takes fewer than the share.
    plain = within_budgets(rows, TaskBudgets(per_rel=20), seed=2)
    assert len(plain) == 20 and int(plain["item_id"].str.contains(":per_rel_hand:").sum()) <= int(two_option.sum())


def test_per_rel_viewers_are_named_with_their_own_described_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The orientation tasks name their subjects with coco.described_share, Per-Rel. Dir. its viewers and targets
    with per_rel.described_share (the release describes more of them)."""
    from benchfoundry.benchmarks.viewspatial.coco.stages import coco_stage

    def named_by_share(people_of: dict, *named: object) -> dict[int, str]:
        described_share = named[3]  # after nouns, captions and colours
        return {p.annotation_id: f"the person {described_share}" for ps in people_of.values() for p in ps}

    monkeypatch.setattr(coco_stage, "subjects", named_by_share)
    config = CocoConfig(shoulder_ratio=0.72, margin_deg=0.0, described_share=0.25)
    config = config.model_copy(update={"per_rel": config.per_rel.model_copy(update={"described_share": 0.75})})
    label_split(str(tmp_path / "out"), "val", two_people_split(tmp_path), config, 0)
    table = StageStore(tmp_path / "out", "viewspatial", "coco").shard_rows("val")
    per_rel = table[table["question_type"] == PER_REL]
    assert len(per_rel) and all(list(r.labels) == ["the person 0.75"] * 2 for r in per_rel.itertuples())
    cam_obj = table[table["question_type"] == CATEGORIES["Cam-Obj. Ori."]]
    assert len(cam_obj) and all("the person 0.25" in q for q in cam_obj["question"])
