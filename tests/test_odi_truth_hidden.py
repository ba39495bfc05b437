"""ODI-Bench from what a real panorama gives, on synthetic panoramas with the truth hidden (no Blender: the scenes
of tests/odi_scenes.py): instances from the truth annotator, but no census and no 3D. Every task makes items in
both forms, the budget keeps every task under 30 %, the agreement with the truth is recounted here from the truth
files, a deliberately wrong class is dropped by the consistency filter, review-import rewrites the JSON and the
Parquet alike, and no released file names an absolute path."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from odi_scenes import write_scene

from benchfoundry.benchmarks.odi.release.report_page import write_report_page
from benchfoundry.benchmarks.odi.stages import annotate_stage
from benchfoundry.benchmarks.odi.stages.annotate_stage import STAGE, annotate_batch
from benchfoundry.benchmarks.odi.stages.annotation.instances import Detection
from benchfoundry.benchmarks.odi.stages.panoramas import list_panoramas
from benchfoundry.benchmarks.odi.stages.qa_stage import qa_all
from benchfoundry.cli.main import main
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.store import StageStore

CATEGORIES = {"OA", "HA", "existence", "counting", "OCR", "EVO", "AVO", "SS", "RD", "OR"}
SETTINGS = ["odi.sphere.face_width=256", "odi.sphere.crop_size=64"]


def build_odi(tmp: Path, config: BuildConfig) -> tuple[Path, dict]:
    """Annotate and make the QA of the scenes in `tmp/panos` into `tmp/out` (as the odi flow does)."""
    out = tmp / "out"
    odi = config.odi
    rows = annotate_batch(str(out), [str(p) for p in list_panoramas(Path(odi.panorama_root))], odi)
    manifest = StageStore(out, "odi", STAGE).write_manifest([r["panorama"] for r in rows if r["done"]])
    (out / "build.json").write_text(json.dumps({"config": config.model_dump(mode="json")}))
    return out, qa_all(str(out), str(manifest), odi, config.seed)


def smoke(tmp: Path, *extra: str) -> BuildConfig:
    for name in ("room", "yard"):
        write_scene(tmp / "panos", name)
    return load_config("smoke", [f"odi.panorama_root={tmp / 'panos'}", *SETTINGS, *extra])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("hidden")
    return build_odi(tmp, smoke(tmp))


def items(out: Path) -> list[dict]:
    return json.loads((out / "odi" / "ODI-Bench.json").read_text())


def truth(out: Path) -> dict[str, list[dict]]:
    """The truth records of each panorama, read from the files written beside it."""
    return {
        f"{name}.png": json.loads((out.parent / "panos" / f"{name}.json").read_text())["instances"]
        for name in ("room", "yard")
    }


def test_every_task_makes_items_in_both_forms_and_says_how_its_answer_was_obtained(built) -> None:
    out, result = built
    found = items(out)
    assert {(i["task"], i["form"]) for i in found} == {(t, f) for t in CATEGORIES for f in ("closed", "open")}
    for item in found:
        if item["form"] == "closed":
            n = 2 if item["answer"] in ("yes", "no") else 4
            assert len(item["options"]) == len(set(item["options"])) == n and item["answer"] in item["options"]
        assert item["answer_from"] in {"directions", "floor_geometry", "census", "describer", "mask_solid_angles"}
        assert item["source"] == "template" and item["verified"] is False
    assert result["items"] == len(found) == 2 * result["questions"]


def test_the_budget_keeps_every_task_under_30_percent(built) -> None:
    out, result = built
    mix = Counter(i["task"] for i in items(out))
    assert set(mix) == CATEGORIES and max(mix.values()) <= 0.3 * sum(mix.values())
    per_panorama = Counter((i["id"].split(":")[0], i["task"]) for i in items(out) if i["form"] == "closed")
    assert max(per_panorama.values()) <= 3  # odi.qa.budget.per_task of the smoke preset
    assert result["candidates"] > result["questions"] == 40  # 20 questions for each of the two panoramas


def test_agreement_with_the_truth_is_reported_and_recounted_here(built) -> None:
    out, result = built
    chosen = result["agreement"]["chosen"]
    assert set(chosen) == CATEGORIES and all(row["checked"] > 0 for row in chosen.values())
    records = truth(out)
    recount: dict[str, list[bool]] = {"existence": [], "counting": [], "EVO": []}
    manifest = pd.read_parquet(out / "odi" / "instances" / "manifest.parquet").set_index(["panorama", "instance"])
    for item in (i for i in items(out) if i["form"] == "closed" and i["task"] in recount):
        pano = item["id"].split(":")[0]
        census = Counter(r["category"] for r in records[pano])
        if item["task"] == "existence":
            category = item["question"].removeprefix("Is there a ").removesuffix(" around me?")
            expected = "yes" if census[category] else "no"
        elif item["task"] == "counting":
            noun = item["question"].removeprefix("How many ").removesuffix(" are around me?")
            category = next(c for c in census if noun in (c + "s", c + "es", "people" if c == "person" else ""))
            expected = str(census[category])
        else:
            (k,) = item["instance_ids"]
            record = next(r for r in records[pano] if r["id"] == int(manifest.loc[(pano, k), "truth_id"]))
            if abs(record["phi_deg"]) > 60:  # no side of me that far up or down: the truth does not say
                continue
            expected = ["front", "right", "back", "left"][round((record["theta_deg"] % 360) / 90) % 4]
        recount[item["task"]].append(expected == item["answer"])
    for task, agree in recount.items():
        assert chosen[task]["checked"] == len(agree) and chosen[task]["agree"] == sum(agree), task
    page = write_report_page(out, manifest.reset_index(), {}, 0, result).read_text()
    for task in CATEGORIES:
        row = chosen[task]
        assert f"<td>{row['agree']}/{row['checked']} (" in page.split(f"<tr><td>{task}</td>")[1].split("</tr>")[0]


def test_a_wrong_class_is_dropped_by_the_consistency_filter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector calls the room's sofa a bench; the describer, shown the crop, says sofa: the bench is dropped."""
    real = annotate_stage.make_annotator

    def mislabelling(odi):
        annotate = real(odi)

        def run(path, erp, faces):
            found = annotate(path, erp, faces)
            if path.stem == "room":
                found["front"] = [
                    Detection("bench", d.score, d.box, d.mask, d.truth_id) if d.label == "sofa" else d
                    for d in found["front"]
                ]
            return found

        return run

    monkeypatch.setattr(annotate_stage, "make_annotator", mislabelling)
    out, result = build_odi(tmp_path, smoke(tmp_path))
    assert result["dropped_inconsistent_by_class"] == {"bench": 1}
    assert StageStore(out, "odi", "qa").marker("room.png")["qa"]["census"].get("bench", 0) == 0
    room = [i for i in items(out) if i["id"].startswith("room.png:")]
    assert not any("bench" in i["question"] and i["answer"] != "no" for i in room)


def absolute_paths(root: Path, needle: str) -> list[str]:
    """Files under `root` naming `needle`: text files by content, Parquet files by every string cell."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
            text = frame.astype(str).to_csv()
        elif path.suffix in (".json", ".csv", ".xml", ".html", ".txt"):
            text = path.read_text(encoding="utf-8")
        else:
            continue
        if needle in text:
            found.append(str(path.relative_to(root)))
    return found


def test_review_import_rewrites_json_and_parquet_alike_and_no_file_names_an_absolute_path(built, tmp_path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(built[0], out)
    review = out / "odi" / "review" / "review.csv"
    rows = list(csv.DictReader(review.open()))
    assert {r["answer_from"] for r in rows} >= {"census", "describer", "floor_geometry"}
    closed = [r for r in rows if r["form"] == "closed"]
    other = next(o for o in closed[1]["options"].split(" | ") if o != closed[1]["answer"])
    for row in rows:
        row["decision"], row["edited_answer"] = {closed[0]["id"]: ("reject", ""), closed[1]["id"]: ("edit", other)}.get(
            row["id"], ("accept", "")
        )
    with review.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert main(["odi", "verify-import", str(out), str(review)]) == 0  # review-import's old name
    released = items(out)
    assert len(released) == len(rows) - 1 and all(i["verified"] for i in released)
    assert next(i for i in released if i["id"] == closed[1]["id"])["answer"] == other
    table = pd.read_parquet(out / "odi" / "hf" / "ODI-Bench.parquet")
    assert table["id"].tolist() == [i["id"] for i in released]
    for item, row in zip(released, table.to_dict("records")):
        assert {k: (list(v) if k in ("options", "instance_ids") else v) for k, v in row.items()} == item
    for root in (built[0], out):
        assert absolute_paths(root / "odi", str(root.parent)) == []
    assert all(not Path(i["image"]).is_absolute() and (out / "odi" / i["image"]).is_file() for i in released)


def test_the_full_preset_budget_gives_about_two_questions_a_panorama(tmp_path: Path) -> None:
    """With odibench.yaml's mix (about 2 per panorama, 1 per task) the choice spreads over the tasks."""
    out, result = build_odi(tmp_path, smoke(tmp_path, "odi.qa.budget.total=4", "odi.qa.budget.per_task=1"))
    mix = Counter(i["task"] for i in items(out) if i["form"] == "closed")
    assert result["questions"] == 4 and len(mix) == 4 and set(mix.values()) == {1}
    assert math.isclose(result["items"] / 2, 4)
