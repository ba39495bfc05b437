"""The odi build on the embedded synthetic panoramas (Blender): the truth annotator against the ERP ground
truth warped here independently, the truth file against the rendered map, build.json, reruns."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pandas as pd
import pytest
from test_odi_instances import face_pixel, iou, warp_nearest
from test_odi_truth_hidden import absolute_paths

from benchfoundry.benchmarks.odi.scenes.panorama_stage import STAGE as PANORAMA_STAGE
from benchfoundry.benchmarks.odi.stages.annotation.instances import decode_rle, touches_border
from benchfoundry.benchmarks.odi.stages.sphere_coords import FACES
from benchfoundry.configs.loader import load_config
from benchfoundry.flows.build import build

pytestmark = pytest.mark.blender
FACE = 256
SETTINGS = [
    "odi.synthetic.width=1024",
    "odi.synthetic.samples=1",
    f"odi.sphere.face_width={FACE}",
    "odi.sphere.crop_size=64",
    "odi.batch_size=1",
]


@pytest.fixture(scope="module")
def built(prefect_server: None, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("odi")
    record = build(load_config("smoke", SETTINGS), str(out), ["odi"])
    return out, record


def panoramas(out: Path) -> Path:
    return out / "odi" / "synthetic" / "panoramas"


def test_build_records_odi_with_the_truth_annotator(built: tuple[Path, dict]) -> None:
    out, record = built
    saved = json.loads((out / "build.json").read_text())
    odi = saved["benchmarks"]["odi"]
    assert odi["status"] == "built", odi["detail"]
    assert odi["annotator"]["name"] == "truth" and "no GroundedSAM checkpoint" in odi["annotator"]["reason"]
    manifest = pd.read_parquet(out / "odi" / "instances" / "manifest.parquet")
    assert set(manifest["panorama"]) == {"living_room.png", "courtyard.png"}
    # Each scene has two objects placed across a face border on purpose (at θ = ±45°, ±135°); build.json keeps
    # their total, each panorama's own count stays in its marker.
    markers = [json.loads(p.read_text()) for p in (out / "odi" / "instances" / "_done").glob("*.json")]
    assert len(markers) == 2 and all(sum(m["dropped_at_border"].values()) >= 4 for m in markers)
    assert sum(odi["dropped_at_border"].values()) == sum(sum(m["dropped_at_border"].values()) for m in markers)


def test_the_panorama_stage_records_its_render_workers_cpu(built: tuple[Path, dict]) -> None:
    """The panorama task writes no store marker: its clock record carries its two frames and their CPU seconds."""
    out, _ = built
    timings = json.loads((out / "build.json").read_text())["timings"]["benchmarks"]["odi"]["stages"]
    row = timings[PANORAMA_STAGE]
    assert row["render_frames"] == 2 and row["cpu_s"] > 0 and row["shards"] == 2


def test_truth_annotator_recovers_every_object_inside_one_face(built: tuple[Path, dict]) -> None:
    out, _ = built
    manifest = pd.read_parquet(out / "odi" / "instances" / "manifest.parquet")
    classes = set(load_config("smoke").odi.classes)
    for scene in ("living_room", "courtyard"):
        ids = cv2.imread(str(panoramas(out) / f"{scene}.instances.png"), cv2.IMREAD_UNCHANGED)
        truth = json.loads((panoramas(out) / f"{scene}.json").read_text())["instances"]
        rows = manifest[manifest["panorama"] == f"{scene}.png"]
        faces = {f: warp_nearest(ids, f, FACE) for f in FACES}
        expected = {}
        for record in truth:
            if record["category"] not in classes:
                continue
            on = [f for f in FACES if (faces[f] == record["id"]).any()]
            if len(on) == 1 and not touches_border(faces[on[0]] == record["id"]):
                expected[record["id"]] = on[0]
        assert len(expected) >= 8
        assert sorted(rows["truth_id"]) == sorted(expected)
        for row in rows.itertuples():
            mask = decode_rle({"size": [row.rle_height, row.rle_width], "counts": row.rle_counts})
            assert row.face == expected[row.truth_id]
            assert iou(mask, faces[row.face] == row.truth_id) >= 0.9
            assert not touches_border(mask)
            u, v = face_pixel(row.face, row.theta_deg, row.phi_deg, FACE)
            ys, xs = np.nonzero(mask)
            assert xs.min() <= u <= xs.max() + 1 and ys.min() <= v <= ys.max() + 1
            assert (out / "odi" / row.crop).exists()


def test_truth_file_directions_match_the_rendered_instance_map(built: tuple[Path, dict]) -> None:
    """The Blender camera follows docs/design/odi.md §1: each object's 3D centre and its pixels agree in longitude."""
    out, _ = built
    for scene in ("living_room", "courtyard"):
        ids = cv2.imread(str(panoramas(out) / f"{scene}.instances.png"), cv2.IMREAD_UNCHANGED)
        h, w = ids.shape
        for record in json.loads((panoramas(out) / f"{scene}.json").read_text())["instances"]:
            ys, xs = np.nonzero(ids == record["id"])
            assert len(xs) > 0, record
            if abs(record["phi_deg"]) > 60:
                continue
            theta = -180.0 + (xs + 0.5) / w * 360.0
            mean = np.degrees(np.arctan2(np.sin(np.radians(theta)).mean(), np.cos(np.radians(theta)).mean()))
            assert abs((mean - record["theta_deg"] + 180) % 360 - 180) < 3.0, record


def test_rerun_renders_and_annotates_nothing(built: tuple[Path, dict], prefect_server: None) -> None:
    out, _ = built
    markers = sorted((out / "odi" / "instances" / "_done").glob("*.json"))
    before = {p: p.read_text() for p in markers}
    record = build(load_config("smoke", SETTINGS), str(out), ["odi"])
    assert record["benchmarks"]["odi"]["synthetic_render"] == {"scenes": 2, "rendered": 0, "render_s": 0.0}
    assert {p: p.read_text() for p in markers} == before


def released(out: Path) -> list[dict]:
    return json.loads((out / "odi" / "ODI-Bench.json").read_text())


def english_plurals(noun: str) -> set[str]:
    """The forms a question may use for a category: the word and its regular or irregular plurals."""
    irregular = {"person": "people", "bookshelf": "bookshelves", "shelf": "shelves"}
    return {noun, noun + "s", noun + "es", noun[:-1] + "ies", irregular.get(noun, noun)}


def test_odi_bench_holds_every_task_from_what_the_panoramas_give(built: tuple[Path, dict]) -> None:
    """The smoke preset releases its template items unreviewed: every task in both forms, none over 30 % of the
    items; attributes, texts and counts checked against the truth files; the agreement in build.json."""
    out, _ = built
    items = released(out)
    tasks = Counter(i["task"] for i in items)
    assert set(tasks) == {"OA", "HA", "existence", "counting", "OCR", "EVO", "AVO", "SS", "RD", "OR"}
    assert max(tasks.values()) <= 0.3 * len(items)
    assert {i["form"] for i in items} == {"closed", "open"} and not any(i["verified"] for i in items)
    manifest = pd.read_parquet(out / "odi" / "instances" / "manifest.parquet").set_index(["panorama", "instance"])
    truth = {
        f"{p.stem}.png": {r["id"]: r for r in json.loads(p.read_text())["instances"]}
        for p in panoramas(out).glob("*.json")
    }
    for item in items:
        pano = item["id"].split(":")[0]
        if item["form"] == "closed":
            assert item["answer"] in item["options"] and len(set(item["options"])) == len(item["options"])
            assert len(item["options"]) == (2 if item["answer"] in ("yes", "no") else 4)
        if item["task"] == "OA" and "colour" in item["question"]:
            (k,) = item["instance_ids"]
            assert truth[pano][int(manifest.loc[(pano, k), "truth_id"])]["colour"] == item["answer"]
        if item["task"] == "OCR":
            assert item["answer"] in {r["text"] for r in truth[pano].values() if r.get("text")}
        if item["task"] == "counting":
            category = item["question"].split("How many ")[1].split(" are")[0]
            assert int(item["answer"]) == sum(category in english_plurals(r["category"]) for r in truth[pano].values())
    qa = json.loads((out / "build.json").read_text())["benchmarks"]["odi"]["qa"]
    assert qa["task_mix"] == dict(sorted(tasks.items()))
    assert set(qa["agreement"]["chosen"]) == set(tasks) and all(
        r["checked"] for r in qa["agreement"]["chosen"].values()
    )
    assert "agree (chosen)" in (out / "report" / "odi.html").read_text()
    table = pd.read_parquet(out / "odi" / "hf" / "ODI-Bench.parquet")
    assert table["id"].tolist() == [i["id"] for i in items]


def test_review_import_releases_the_reviewed_answers(built: tuple[Path, dict], tmp_path: Path, capsys) -> None:
    import csv
    import shutil

    from benchfoundry.cli.main import main

    out = tmp_path / "build"
    shutil.copytree(built[0], out)
    review = out / "odi" / "review" / "review.csv"
    rows = list(csv.DictReader(review.open()))
    closed = [r for r in rows if r["form"] == "closed" and r["task"] == "EVO"]
    other = next(o for o in closed[1]["options"].split(" | ") if o != closed[1]["answer"])
    for row in rows:
        row["decision"], row["edited_answer"] = {closed[0]["id"]: ("reject", ""), closed[1]["id"]: ("edit", other)}.get(
            row["id"], ("accept", "")
        )
    rows.append({**rows[0], "id": "no-such-item"})
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert main(["odi", "review-import", str(out), str(filled)]) == 0
    assert f"{filled}:{len(rows) + 1}: skipped: unknown item 'no-such-item'" in capsys.readouterr().err
    after = {i["id"]: i for i in released(out)}
    assert closed[0]["id"] not in after and after[closed[1]["id"]]["answer"] == other
    assert all(i["verified"] for i in after.values()) and len(after) == len(rows) - 2
    table = pd.read_parquet(out / "odi" / "hf" / "ODI-Bench.parquet")
    assert table["id"].tolist() == list(after) and table["answer"].tolist() == [i["answer"] for i in after.values()]


def test_no_released_file_names_an_absolute_path(built: tuple[Path, dict]) -> None:
    out, _ = built
    assert absolute_paths(out / "odi", str(out)) == []


def test_panoramas_that_give_no_question_fail_the_benchmark_instead_of_releasing_nothing() -> None:
    from benchfoundry.benchmarks.odi.flow import outcome_status

    assert outcome_status(2, False, 80) == ("built", "")
    status, why = outcome_status(2, False, 0)
    assert status == "failed" and "no question" in why
    assert outcome_status(0, False, None)[0] == outcome_status(2, True, 80)[0] == "failed"
