"""Bad input is one line naming the file or field, never a traceback nor a wrong result (issue 26, classes 5-8):
every image open goes through the guarded decoder, configs refuse meaningless values, readers are bounded in
depth, size and expansion, and a model built from flags names the flag."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_coco_people import annotation, coco_file
from test_guarded_decode import forged_png
from test_odi_questions import candidates
from test_orientation import project

from benchfoundry.benchmarks.odi.stages.questions.question_builder import items_of
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages.people import label_file
from benchfoundry.benchmarks.viewspatial.scannet.stages import scannet_read as sio
from benchfoundry.cli.main import main
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.core import bounded_read
from benchfoundry.core.store import StageStore
from benchfoundry.pipeline import review
from benchfoundry.pipeline.model_client import reply_text

REPO = Path(__file__).resolve().parent.parent
#: The folders whose code runs in a build or a command.
SOURCES = ("benchfoundry", "configs", "assets", "person", "render", "tasks", "flows", "compare")
#: Ways to open an image other than the guarded decoder.
IMAGE_OPENS = re.compile(r"Image\.open\(|cv2\.imread|cv2\.imdecode|imageio|skimage\.io|plt\.imread|iio\.")


def odi_items() -> list[dict]:
    """The closed and open items of the ODI question tests' room."""
    return [item for c in candidates() for item in items_of(c, "room", "odi/panoramas/room.png", 3, "labels")]


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


# --- 5. every image open is the guarded decoder -------------------------------------------------------------


def test_nothing_but_the_guarded_decoder_opens_an_image() -> None:
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in SOURCES
        for path in sorted((REPO / folder).rglob("*.py"))
        if path.name != "image_decode.py"
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if IMAGE_OPENS.search(line)
    ]
    assert not found, found


def test_a_forged_header_is_an_unusable_image_in_coco_label_and_a_scan(tmp_path: Path) -> None:
    path, images = coco_file(tmp_path)
    (images / f"{1:012d}.jpg").write_bytes(forged_png(60000, 30000))
    result = label_file(path, images, CocoConfig(shoulder_ratio=0.72))
    row = next(r for r in result["labels"] if r["image_id"] == 1)
    assert row["reason"] == "image unusable" and "declares 60000x30000" in row["detail"]
    (tmp_path / "huge.png").write_bytes(forged_png(60000, 30000))
    with pytest.raises(sio.ScanFormatError, match=r"huge\.png: the PNG header declares 60000x30000"):
        sio.image_size(tmp_path / "huge.png")


# --- 6. configs refuse empty or meaningless values ----------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("syndor.rig.azimuths_deg=[]", "syndor.rig.azimuths_deg"),
        ("syndor.rig.elevations_deg=[]", "syndor.rig.elevations_deg"),
        ("syndor.lightings=[]", "syndor.lightings"),
        ("syndor.scenes=[]", "syndor.scenes"),
        ("viewspatial.coco.synthetic.images={val: -3}", "viewspatial.coco.synthetic.images.val"),
        ("viewspatial.coco.synthetic.images={val: 0}", "viewspatial.coco.synthetic.images.val"),
        ("runner.retry_delay_s=.inf", "runner.retry_delay_s"),
        ("syndor.render.shard_timeout_s=.nan", "syndor.render.shard_timeout_s"),
        ("viewspatial.coverage.voxel_m=1e-9", "viewspatial.coverage.voxel_m"),
        ("odi.sphere.crop_min_fov_deg=170", "odi.sphere"),
    ],
)
def test_a_meaningless_config_value_is_refused_naming_its_field(override: str, field: str) -> None:
    with pytest.raises(ConfigError, match=rf"\n  {re.escape(field)}: .*\[from --set"):
        load_config(None, [override])


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["scannet", "select", "SCAN", "--voxel", "1e-9"], "--voxel"),
        (["scannet", "select", "SCAN", "--budget", "-1"], "--budget"),
        (["scannet", "select", "SCAN", "--depth-stride", "0"], "--depth-stride"),
        (["coco", "label", "ANN", "--min-area-ratio", "-1"], "--min-area-ratio"),
        (["sphere", "crop", "PANO", "--box", "0.1,0.1,0.2,0.2", "OUT", "--min-fov", "170", "--max-fov", "10"], "fov"),
        (["sphere", "views", "PANO", "OUTDIR", "--fov", "inf"], "--fov"),
    ],
)
def test_a_bad_flag_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], flag: str
) -> None:
    pano = tmp_path / "pano.png"
    pano.write_bytes(b"")
    names = {"SCAN": tmp_path, "ANN": tmp_path / "a.json", "PANO": pano, "OUT": tmp_path / "c.png"}
    assert main([str(names.get(a, a)) for a in argv]) == 2
    line = error_line(capsys)
    assert line.startswith("error: ") and flag in line and "pydantic" not in line


def test_eval_limit_zero_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "eval",
                "odi",
                "--build",
                str(tmp_path),
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--limit",
                "0",
            ]
        )
    assert exit_.value.code == 2 and "--limit" in capsys.readouterr().err


def test_a_seed_of_5000_digits_names_the_override() -> None:
    with pytest.raises(ConfigError, match=r"^--set seed: a value YAML cannot hold"):
        load_config(None, ["seed=" + "9" * 5000])
    with pytest.raises(ConfigError, match=r"\n  seed: "):
        load_config(None, ["seed=" + "9" * 40])


# --- 7. bounded readers -------------------------------------------------------------------------------------


def test_json_nested_too_deep_is_one_line_in_coco_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["coco", "label", str(deep)]) == 2
    assert str(deep) in error_line(capsys)
    moderate = tmp_path / "moderate.json"
    moderate.write_text('{"images": ' + "[" * 200 + "]" * 200 + ', "annotations": []}')
    assert main(["coco", "label", str(moderate)]) == 2
    assert "nested deeper than 100 levels" in error_line(capsys)


def test_yaml_nested_too_deep_or_an_alias_bomb_is_a_config_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 20_000 + "]" * 20_000 + "\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(deep))}: nested too deeply"):
        load_config(deep)
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    bomb += [f"{c}: &{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcdefgh", "bcdefghi")]
    (tmp_path / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    assert len((tmp_path / "bomb.yaml").read_bytes()) < 500
    with pytest.raises(ConfigError, match="expands to more than"):
        load_config(tmp_path / "bomb.yaml")


def test_a_huge_csv_field_is_named_by_file_and_line(tmp_path: Path) -> None:
    items = odi_items()
    path = tmp_path / "review.csv"
    path.write_text("id,decision,edited_answer\n" + f"{items[0]['id']},accept,\n" + "x,edit," + "y" * 200_000 + "\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: cannot read .*line 3: .*field larger"):
        review.read_decisions(path, items)


@pytest.mark.parametrize(
    "task",
    [
        {"data": "a string", "annotations": []},
        {"data": {"id": "X"}, "annotations": [{"result": [{"from_name": "decision", "value": "accept"}]}]},
        {"data": {"id": "X"}, "annotations": [{"result": [{"from_name": "decision", "value": {"choices": {"a": 1}}}]}]},
        {"data": {"id": "X"}, "annotations": "not a list"},
        [1, 2, 3],
    ],
)
def test_a_label_studio_task_of_another_shape_is_a_bad_row(tmp_path: Path, task: object) -> None:
    items = odi_items()
    good = {
        "data": {"id": items[0]["id"]},
        "annotations": [{"result": [{"from_name": "decision", "value": {"choices": ["accept"]}}]}],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps([good, task]))
    decisions, bad = review.read_decisions(path, items)
    assert list(decisions) == [items[0]["id"]]
    assert all(b["line"] == 2 for b in bad)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda a: {**a, "image_id": [1, 2]},
        lambda a: {**a, "bbox": [200.0, 40.0, float("nan"), 430.0]},
        lambda a: {**a, "bbox": [200.0, 40.0, -240.0, 430.0]},
        lambda a: {**a, "area": float("inf")},
        lambda a: {**a, "keypoints": [float("nan")] * 51},
        lambda a: {**a, "id": True},
    ],
)
def test_a_malformed_coco_annotation_is_rejected_not_kept(tmp_path: Path, mutate) -> None:
    """An image_id that is a list, a NaN / negative box, an infinite area: the person is not kept."""
    ann = mutate(annotation(1, 1, project(0.0, -40.0)))
    coco = {"images": [{"id": 1, "file_name": "a.jpg", "width": 640, "height": 480}], "annotations": [ann]}
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(coco).replace("NaN", "NaN").replace("Infinity", "Infinity"))
    result = label_file(path, None, CocoConfig(shoulder_ratio=0.72))
    assert not any(r["kept"] for r in result["labels"])
    assert len(result["labels"]) == 1 and result["labels"][0]["reason"].startswith(("malformed", "no person"))


def test_a_ply_face_beyond_the_vertices_names_the_file(tmp_path: Path) -> None:
    header = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
    header += "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype="<f4").tobytes()
    face = bytes([3]) + np.array([0, 1, 10**9], dtype="<i4").tobytes()
    path = tmp_path / "m.ply"
    path.write_bytes(header.encode() + verts + face)
    with pytest.raises(sio.ScanFormatError, match=rf"{re.escape(str(path))}: a face refers to vertex 1000000000"):
        sio.read_ply(path)


def test_a_reply_part_whose_text_is_not_a_string_is_a_malformed_reply() -> None:
    reply = {"choices": [{"message": {"content": [{"type": "text", "text": 5}]}}]}
    with pytest.raises(ValueError, match="not a string"):
        reply_text(reply)
    assert reply_text({"choices": [{"message": {"content": [{"type": "text", "text": "A"}]}}]}) == "A"


def test_a_stage_of_empty_shards_keeps_its_columns(tmp_path: Path) -> None:
    """An ODI QA shard with no items: the manifest still has its `item` column (review-import reads it)."""
    import pandas as pd

    store = StageStore(tmp_path, "odi", "qa")
    store.write_shard("room", pd.DataFrame({"item": []}), spec_hash="h")
    store.write_manifest(["room"])
    assert list(store.read_manifest().columns) == ["item"] and len(store.read_manifest()) == 0


def test_bounded_readers_refuse_a_file_over_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 1000 + "1]")
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}: \d+ bytes, over the limit of 100"):
        bounded_read.read_json(path, max_bytes=100)


# --- 8. one line, naming the field, from the console script -------------------------------------------------


def test_the_console_script_prints_one_line_for_bad_input(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    run = subprocess.run(
        [sys.executable, "-m", "benchfoundry.cli.main", "coco", "label", str(tmp_path / "deep.json")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
