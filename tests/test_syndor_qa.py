"""QA export: released columns and prompts, splits, determinism, the imagefolder rules, balance."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.configs.build import BuildConfig

RADII = (5.376, 10.752, 23.04)
LIGHTINGS = ("noon_south", "evening_east", "night")
ACTIONS = ("walking", "stepping_over")
#: The released action names (docs/design/syndor.md §2): the action-recognition answers.
PHRASES = {"walking": "walking", "stepping_over": "stepping over something"}
VIEWS = ((0, 0.0), (1, 22.5))  # (azimuth index, elevation); azimuth = 45° · index
HPC = (
    "Respond only with 1 or 0. Respond with 1 if a person is visible in the image, and 0 if not. "
    "Is there a person visible in the image?"
)
ACTION = "Respond only with the name of the action. What action is the person performing in the image?"
#: The design page that states the prompts (its §5).
SYNDOR_DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design" / "syndor.md"


def truth_label(radius: float, lighting: str) -> int:
    """The fixture's labels: night frames are discernible only at the nearest distance."""
    return 1 if lighting != "night" or radius == RADII[0] else 0


def nv_label(radius: float) -> int:
    """Night-vision images are discernible up to the middle distance."""
    return 1 if radius < 20 else 0


def _jpeg(path: Path, colour: tuple[int, int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (32, 18), colour).save(path, format="JPEG")


def make_labelled_build(out: Path, *, nv_column: bool = False, bad_rows: bool = True) -> Path:
    """A build root with tiny images under `out/syndor/` and a labelled manifest; returns the manifest."""
    root = out / "syndor"
    rng = np.random.default_rng(0)
    rows = []
    for action in ACTIONS:
        for lighting in LIGHTINGS:
            for radius in RADII:
                source = f"images/SMPLitex_texture_00000_{action}_desert_{lighting}_{radius}"
                for az, el in VIEWS:
                    name = f"frame0001_cam{az * 4 + (el > 0):03d}_r{int(radius)}_phi{az * 45}_theta{el:g}.jpg"
                    img = f"{source}/pose000/raw_images/{name}"
                    _jpeg(root / img, tuple(int(c) for c in rng.integers(0, 255, 3)))
                    nv = None
                    if lighting != "noon_south":
                        nv = f"{source}/pose000/nv_images/{name}"
                        _jpeg(root / nv, (0, 200, 0))
                    rows.append(
                        {
                            "source_dir": source,
                            "action": action,
                            "scene": "desert",
                            "lighting": lighting,
                            "radius": radius,
                            "smplx_texture": "SMPLitex_texture_00000",
                            "img_path": img,
                            "mask_path": img.replace("raw_images", "masks").replace(".jpg", ".png"),
                            "img_name": name,
                            "nv_path": nv,
                            "human_discernable": truth_label(radius, lighting),
                            "zone": "x",
                            "seed": 1,
                        }
                    )
                    if nv_column:
                        rows[-1]["human_discernable_nv"] = nv_label(radius) if nv else None
    if bad_rows:
        rows.append({**rows[0], "img_path": "images/missing/frame.jpg"})
        rows.append(dict(rows[2]))  # an exact duplicate: one copy is kept
        rows.append({**rows[3], "img_path": "images/x/../../etc.jpg"})
        bad_label = rows[4].copy()
        bad_label["img_path"] = rows[4]["img_path"].replace("raw_images", "raw_images_copy")
        _jpeg(root / bad_label["img_path"], (1, 2, 3))
        bad_label["human_discernable"] = 7
        rows.append(bad_label)
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=3)  # shuffled: the export must sort
    path = out / "syndor" / "discern" / "manifest.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path, index=False)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, dict]:
    manifest = make_labelled_build(tmp_path)
    return tmp_path, qa_stage.export_qa(manifest, tmp_path, QaConfig())


def test_prompts_are_the_design_text() -> None:
    from benchfoundry.benchmarks.syndor.qa_config import ACTION_PROMPT, HPC_PROMPT

    assert HPC_PROMPT == HPC and ACTION_PROMPT == ACTION
    text = " ".join(SYNDOR_DESIGN.read_text(encoding="utf-8").split())
    quoted = re.findall(r'exact prompt: "([^"]+)"', text)
    assert quoted == [HPC, ACTION]


def test_master_index_has_the_released_columns_sorted(built: tuple[Path, dict]) -> None:
    out, summary = built
    rows = _lines(out / "syndor" / "index" / "master_index.jsonl")
    n_good = len(ACTIONS) * len(LIGHTINGS) * len(RADII) * len(VIEWS)
    assert len(rows) == n_good == summary["rows"]
    assert all(list(r) == list(release.MASTER_COLUMNS) for r in rows)
    assert [r["img_path"] for r in rows] == sorted(r["img_path"] for r in rows)
    assert all(r["human_discernable"] == truth_label(r["radius"], r["lighting"]) for r in rows)
    reasons = {p["item"]: p["reason"] for p in summary["problems"]}
    assert "images/missing/frame.jpg" in reasons and "images/x/../../etc.jpg" in reasons
    assert any("one copy kept" in r for r in reasons.values()) and any(
        "human_discernable 7" in r for r in reasons.values()
    )
    parquet = pd.read_parquet(out / "syndor" / "index" / "master_index.parquet")
    assert list(parquet.columns) == list(release.MASTER_COLUMNS)
    assert parquet["img_path"].tolist() == [r["img_path"] for r in rows]


def test_task_files_have_prompts_and_the_right_frames(built: tuple[Path, dict]) -> None:
    out, _ = built
    index = out / "syndor" / "index"
    per_view = len(ACTIONS) * len(RADII) * len(VIEWS)
    for task, prompt in (("human_detection", HPC), ("action_recognition", ACTION)):
        files = {s: _lines(index / task / f"{s}.jsonl") for s in ("day", "night", "nv")}
        for rows in files.values():
            assert all(r["prompt"] == prompt and r["task"] == task for r in rows)
            assert all(
                list(r) == [*release.MASTER_COLUMNS, "raw_img_path", "prompt", "task", "action_phrase"] for r in rows
            )
            assert all(r["action_phrase"] == PHRASES[r["action"]] for r in rows)
        assert {r["lighting"] for r in files["day"]} == {"noon_south"}
        assert {r["lighting"] for r in files["night"]} == {"night", "evening_east"}  # the authors' grouping
        assert len(files["day"]) == per_view and len(files["night"]) == 2 * per_view
        assert len(files["nv"]) == 2 * per_view and all(r["nv_path"] for r in files["nv"])
        assert len(pd.read_parquet(index / task / "nv.parquet")) == len(files["nv"])
        master = {r["img_path"]: r for r in _lines(index / "master_index.jsonl")}
        for split, rows in files.items():
            # img_path is the image shown: the night-vision image in nv, the raw frame elsewhere
            for row in rows:
                raw = master[row["raw_img_path"]]
                assert row["img_path"] == (raw["nv_path"] if split == "nv" else raw["img_path"])
                assert ("/nv_images/" if split == "nv" else "/raw_images/") in row["img_path"]
            assert [r["img_path"] for r in rows] == sorted(r["img_path"] for r in rows)
        assert not {r["img_path"] for r in files["nv"]} & {r["img_path"] for r in files["night"] + files["day"]}


def test_evening_can_join_day(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path, bad_rows=False)
    qa_stage.export_qa(manifest, tmp_path, QaConfig(evening_group="day"))
    index = tmp_path / "syndor" / "index" / "human_detection"
    assert {r["lighting"] for r in _lines(index / "day.jsonl")} == {"noon_south", "evening_east"}
    assert {r["lighting"] for r in _lines(index / "night.jsonl")} == {"night"}
    assert {r["lighting"] for r in _lines(index / "nv.jsonl")} == {"night", "evening_east"}  # NV rows stay


def _nv_manifest(tmp_path: Path) -> Path:
    manifest = make_labelled_build(tmp_path, nv_column=True, bad_rows=False)
    frame = pd.read_parquet(manifest)
    frame.astype({"human_discernable_nv": "Int64"}).to_parquet(manifest, index=False)  # the discern stage's dtype
    assert frame["human_discernable_nv"].isna().any()
    return manifest


def test_nv_rows_carry_the_raw_frames_label_by_default(tmp_path: Path) -> None:
    """As the authors' create_task_idxs.py: the nv row is the night row with img_path replaced."""
    summary = qa_stage.export_qa(_nv_manifest(tmp_path), tmp_path, QaConfig())
    nv = _lines(tmp_path / "syndor" / "index" / "human_detection" / "nv.jsonl")
    assert nv and all(r["human_discernable"] == truth_label(r["radius"], r["lighting"]) for r in nv)
    pairs = [(r["radius"], r["lighting"]) for r in nv]
    expected = sum(truth_label(radius, light) != nv_label(radius) for radius, light in pairs)
    assert expected > 0
    assert summary["nv_label"]["source"] == "raw"
    assert summary["nv_label"]["frames"] == len(nv) and summary["nv_label"]["disagree"] == expected
    balance = json.loads((tmp_path / "syndor" / "index" / "balance.json").read_text())
    assert balance["nv_label"] == summary["nv_label"]


def test_nv_rows_can_carry_the_night_vision_label(tmp_path: Path) -> None:
    qa_stage.export_qa(_nv_manifest(tmp_path), tmp_path, QaConfig(nv_label="own"))
    nv = _lines(tmp_path / "syndor" / "index" / "human_detection" / "nv.jsonl")
    assert nv and all(r["human_discernable"] == nv_label(r["radius"]) for r in nv)
    night = _lines(tmp_path / "syndor" / "index" / "human_detection" / "night.jsonl")
    assert all(r["human_discernable"] == truth_label(r["radius"], r["lighting"]) for r in night)


def test_export_bytes_are_deterministic(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path)
    qa_stage.export_qa(manifest, tmp_path, QaConfig())
    index = tmp_path / "syndor" / "index"
    first = {p: p.read_bytes() for p in sorted(index.rglob("*.jsonl"))}
    frame = pd.read_parquet(manifest).sample(frac=1.0, random_state=11)
    frame.to_parquet(manifest, index=False)
    qa_stage.export_qa(manifest, tmp_path, QaConfig())
    assert {p: p.read_bytes() for p in sorted(index.rglob("*.jsonl"))} == first
    assert len(first) == 1 + 6


IMAGEFOLDER_EXTENSIONS = {".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".webp"}


def check_imagefolder(folder: Path) -> list[dict]:
    """The `datasets` imagefolder rules for a folder with metadata.jsonl, checked directly."""
    rows = _lines(folder / "metadata.jsonl")
    keys = [tuple(r) for r in rows]
    assert len(set(keys)) <= 1, "every metadata row must have the same columns"
    names = [r["file_name"] for r in rows]
    assert len(names) == len(set(names)), "file_name must be unique"
    for row in rows:
        assert "image" not in row, "imagefolder adds the image column itself"
        assert all(v is not None for v in row.values()), "a null-only column would get Arrow type null"
        assert not [k for k in row if k != "file_name" and k.endswith(("file_name", "file_names"))], (
            "keys ending in file_name become image columns"
        )
        name = row["file_name"]
        assert isinstance(name, str) and not name.startswith("/") and "\\" not in name
        assert ".." not in PurePosixPath(name).parts
        assert PurePosixPath(name).suffix.lower() in IMAGEFOLDER_EXTENSIONS
        assert (folder / name).is_file()
    for typed in zip(*[[type(v).__name__ for v in r.values()] for r in rows]):
        assert len(set(typed) - {"NoneType"}) <= 1, "a column must keep one type"
    return rows


def test_imagefolder_layout(built: tuple[Path, dict]) -> None:
    out, _ = built
    hf = out / "syndor" / "hf"
    for task in ("human_detection", "action_recognition"):
        types = set()
        for split in ("day", "night", "nv"):
            rows = check_imagefolder(hf / task / split)
            types.add(tuple((k, type(v).__name__) for k, v in rows[0].items()))
            expected = _lines(out / "syndor" / "index" / task / f"{split}.jsonl")
            assert len(rows) == len(expected)
            for row in rows:
                assert row["file_name"] == row["img_path"] == (row["nv_path"] if split == "nv" else row["raw_img_path"])
                want = row["human_discernable"] if task == "human_detection" else PHRASES[row["action"]]
                assert row["answer"] == want
                assert (hf / task / split / row["file_name"]).read_bytes() == (
                    out / "syndor" / row["file_name"]
                ).read_bytes()
        assert len(types) == 1, "the splits' metadata must have the same features"


def test_balance_counts_and_empty_scene_note(built: tuple[Path, dict], tmp_path: Path) -> None:
    out, summary = built
    balance = json.loads((out / "syndor" / "index" / "balance.json").read_text())
    per = len(ACTIONS) * len(VIEWS)
    night_ones = per + 3 * per  # night: only the nearest distance is discernible; evening (night group): all three
    assert balance["per_split"]["night"] == {
        "1": night_ones,
        "0": 2 * per,
        "total": 6 * per,
        "empty_scene": 0,
        "share_0": round(2 / 6, 4),
    }
    assert balance["per_split"]["day"] == {"1": 3 * per, "0": 0, "total": 3 * per, "empty_scene": 0, "share_0": 0}
    far_night = [c for c in balance["per_distance_split"] if c["split"] == "night" and c["radius"] == RADII[2]]
    assert far_night == [{"radius": RADII[2], "split": "night", "1": per, "0": per, "total": 2 * per}]  # evening 1s
    assert balance["empty_scene_rows"] == 0 and "off" in balance["note"]
    manifest = out / "syndor" / "discern" / "manifest.parquet"
    on = qa_stage.export_qa(manifest, out, QaConfig(empty_scene_negatives=True))
    assert "has no empty-scene renders" in on["balance"]["note"]


def test_empty_scene_rows_are_presence_negatives_only(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path, bad_rows=False)
    frame = pd.read_parquet(manifest)
    frame["empty_scene"] = False
    empty = frame.iloc[[0]].copy()
    empty["img_path"] = "images/empty/frame0001.jpg"
    empty["action"], empty["human_discernable"], empty["empty_scene"], empty["nv_path"] = "", 1, True, None
    _jpeg(tmp_path / "syndor" / "images/empty/frame0001.jpg", (9, 9, 9))
    pd.concat([frame, empty]).to_parquet(manifest, index=False)
    off = qa_stage.export_qa(manifest, tmp_path, QaConfig())
    on = qa_stage.export_qa(manifest, tmp_path, QaConfig(empty_scene_negatives=True))
    assert on["rows"] == off["rows"] + 1 and on["balance"]["empty_scene_rows"] == 1
    index = tmp_path / "syndor" / "index"
    day = {r["img_path"]: r for r in _lines(index / "human_detection" / "day.jsonl")}
    assert day["images/empty/frame0001.jpg"]["human_discernable"] == 0
    assert all(
        r["img_path"] != "images/empty/frame0001.jpg" for r in _lines(index / "action_recognition" / "day.jsonl")
    )


def test_conflicting_duplicates_are_all_skipped(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path, bad_rows=False)
    frame = pd.read_parquet(manifest)
    twin = frame.iloc[[0]].copy()
    twin["human_discernable"] = 1 - twin["human_discernable"]
    pd.concat([frame, twin]).to_parquet(manifest, index=False)
    summary = qa_stage.export_qa(manifest, tmp_path, QaConfig())
    assert summary["rows"] == len(frame) - 1
    assert [p["item"] for p in summary["problems"]] == [frame.iloc[0]["img_path"]] * 2


def test_render_stage_dtypes(tmp_path: Path) -> None:
    """The render manifest's dtypes: radius as a "5.4" label, nv_path `string` with NA, labels `boolean`."""
    manifest = make_labelled_build(tmp_path, bad_rows=False)
    frame = pd.read_parquet(manifest)
    frame["radius"] = [f"{r:.1f}" for r in frame["radius"]]
    frame = frame.astype({"nv_path": "string", "human_discernable": "boolean"})
    frame.to_parquet(manifest, index=False)
    summary = qa_stage.export_qa(manifest, tmp_path, QaConfig())
    assert summary["problems"] == [] and summary["rows"] == len(frame)
    rows = _lines(tmp_path / "syndor" / "index" / "master_index.jsonl")
    assert {r["radius"] for r in rows} == {5.4, 10.8, 23.0}
    assert {r["human_discernable"] for r in rows} == {0, 1}
    assert sum(r["nv_path"] is None for r in rows) == frame["nv_path"].isna().sum() > 0


def test_answer_key_refuses_task_files_without_raw_img_path(built: tuple[Path, dict]) -> None:
    out, _ = built
    path = out / "syndor" / "index" / "human_detection" / "nv.jsonl"
    old = [{k: v for k, v in row.items() if k != "raw_img_path"} for row in _lines(path)]
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    with pytest.raises(ValueError, match=r"nv\.jsonl.*raw_img_path"):
        release.answer_key(out / "syndor" / "index")


def test_missing_column_names_file_and_column(tmp_path: Path) -> None:
    path = tmp_path / "m.parquet"
    pd.DataFrame({"img_path": ["a.jpg"]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"m\.parquet.*human_discernable"):
        qa_stage.export_qa(path, tmp_path, QaConfig())


def test_qa_stage_in_a_flow_writes_index_and_report(tmp_path: Path, prefect_server: None) -> None:
    from prefect import flow

    from benchfoundry.benchmarks.syndor import flow as syndor

    manifest = make_labelled_build(tmp_path)

    @flow
    def run(path: str | None) -> dict:
        return syndor.qa_flow(BuildConfig(), str(tmp_path), path)

    assert run(None)["rows"] == 0 and not (tmp_path / "syndor" / "index").exists()
    summary = run(str(manifest))
    assert Path(summary["report"]) == tmp_path / "report" / "syndor.html" and Path(summary["report"]).is_file()
    assert summary["rows"] == len(_lines(tmp_path / "syndor" / "index" / "master_index.jsonl"))
    assert len(summary["problems"]) == 4
