"""The build report: every href/src points at an existing file; sections follow the build's files."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pandas as pd
import pytest
from PIL import Image
from test_syndor_qa import RADII, make_labelled_build

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.benchmarks.syndor.release import report_page as syndor_report
from benchfoundry.benchmarks.syndor.stages import qa_stage


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links.extend(v for k, v in attrs if k in ("href", "src") and v)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def assert_no_broken_links(page: Path) -> list[str]:
    links = parse(page).links
    for link in links:
        assert "://" not in link and not link.startswith("/"), f"{link}: the report must be relative and static"
        assert (page.parent / unquote(link)).is_file(), f"{page}: broken link {link}"
    return links


def _build(tmp_path: Path, qa: QaConfig) -> Path:
    manifest = make_labelled_build(tmp_path)
    qa_stage.export_qa(manifest, tmp_path, qa)
    return tmp_path


def test_report_without_optional_inputs_has_no_broken_links(tmp_path: Path) -> None:
    qa = QaConfig(thumbs_per_cell=2, nv_pairs=3, thumb_px=20)
    out = _build(tmp_path, qa)
    page = syndor_report.write_report(out, qa, seed=0)
    links = assert_no_broken_links(page)
    thumbs = [link for link in links if link.startswith("thumbs/")]
    # 3 distances × 3 splits × 2 thumbnails + 3 pairs × 2 images
    assert len(thumbs) == 3 * 3 * 2 + 3 * 2
    with Image.open(page.parent / thumbs[0]) as im:
        assert max(im.size) == 20 and im.format == "JPEG"
    assert not any("calibration" in link for link in links)
    # full-size links: day and night grids show raw frames, nv grid night-vision images, each pair one of each
    assert sum("/raw_images/" in link and link.startswith("../") for link in links) == 2 * 3 * 2 + 3
    assert sum("/nv_images/" in link and link.startswith("../") for link in links) == 3 * 2 + 3
    text = " ".join(parse(page).text)
    assert "No calibration plot" in text and "No discernibility report" in text and "No predictions scored" in text
    assert "coverage.png" in links and "balance.png" in links


def test_report_links_calibration_discern_and_scores_when_present(tmp_path: Path) -> None:
    qa = QaConfig(thumbs_per_cell=1, nv_pairs=1)
    out = _build(tmp_path, qa)
    report = out / "report"
    report.mkdir(parents=True, exist_ok=True)
    (out / "syndor" / "report").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(out / "syndor" / "report" / "calibration.png")
    (out / "syndor" / "report" / "discern_cv.json").write_text(
        json.dumps({"ensemble": {"macro_f1": 0.81, "accuracy": 0.9, "fold_macro_f1": [0.8, 0.82]}, "folds": 5})
    )
    Image.new("RGB", (8, 8)).save(out / "syndor" / "report" / "discern_cv_confusion.png")
    scores = report / "scores"
    scores.mkdir()
    group = {
        "distance": RADII[0],
        "split": "day",
        "n": 2,
        "n_invalid": 0,
        "accuracy": 1.0,
        "macro_precision": 1.0,
        "macro_recall": 1.0,
        "macro_f1": 1.0,
        "deployable": True,
    }
    action = {"distance": "all", "split": "all", "n": 2, "n_invalid": 0, "e5score": 0.75, "z": 0.0}
    (scores / "model a.json").write_text(
        json.dumps(
            {
                "predictions": "p.jsonl",
                "problems": [],
                "embedding_model": {"name": "m"},
                "presence": {"deployable_accuracy": 0.8, "groups": [group]},
                "action": {"groups": [action]},
            }
        )
    )
    (scores / "broken.json").write_text("{")
    page = syndor_report.write_report(
        out,
        qa,
        seed=0,
        calibration={
            "passed": True,
            "tolerance": "±2%",
            "plot": "syndor/report/calibration.png",
            "distances": [{"zone": "R-I", "distance_m": 5.376, "target_ppm": 187.5, "measured_ppm": 186.0}],
        },
    )
    links = assert_no_broken_links(page)
    assert "../syndor/report/calibration.png" in links and "score_model_a.png" in links
    text = " ".join(parse(page).text)
    assert "ensemble.macro_f1" in text and "0.81" in text and "0.8, 0.82" in text and "target_ppm" in text
    assert "../syndor/report/discern_cv_confusion.png" in links
    assert "broken.json is not a score file" in text and "0.75" in text


def _tables(page: Path) -> list[list[list[str]]]:
    """Every table of the page as rows of cell texts."""
    text = page.read_text(encoding="utf-8")
    return [
        [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", t)]
        for t in re.findall(r"<table>(.*?)</table>", text)
    ]


def test_discern_confusion_matrices_are_tables(tmp_path: Path) -> None:
    qa = QaConfig(thumbs_per_cell=1, nv_pairs=1)
    out = _build(tmp_path, qa)
    (out / "report").mkdir(exist_ok=True)
    ensemble, tree = [[17, 3], [5, 29]], [[15, 5], [8, 26]]
    (out / "report" / "discern_cv.json").write_text(
        json.dumps(
            {"ensemble": {"macro_f1": 0.8, "confusion_matrix": ensemble}, "decision_tree": {"confusion_matrix": tree}}
        )
    )
    page = syndor_report.write_report(out, qa, seed=0)
    found = {t[0][0]: t[1:] for t in _tables(page) if t and t[0] and "confusion_matrix" in t[0][0]}
    for name, matrix in (("ensemble", ensemble), ("decision_tree", tree)):
        (rows,) = [v for k, v in found.items() if k.startswith(f"{name}.confusion_matrix")]
        assert rows == [[str(i), *(str(v) for v in row)] for i, row in enumerate(matrix)]
    assert "ensemble.macro_f1" in " ".join(parse(page).text)


def test_rerender_prunes_unused_thumbnails(tmp_path: Path) -> None:
    out = _build(tmp_path, QaConfig())
    syndor_report.write_report(out, QaConfig(thumbs_per_cell=3), seed=0)
    syndor_report.write_report(out, QaConfig(thumbs_per_cell=1, nv_pairs=0), seed=0)
    on_disk = {p.name for p in (out / "report" / "thumbs").iterdir()}
    linked = {
        Path(link).name for link in assert_no_broken_links(out / "report" / "syndor.html") if link.startswith("thumbs/")
    }
    assert on_disk == linked and len(linked) == 9


def test_empty_build_still_renders(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path, bad_rows=False)
    pd.read_parquet(manifest).iloc[:0].to_parquet(manifest, index=False)
    summary = qa_stage.export_qa(manifest, tmp_path, QaConfig())
    assert summary["rows"] == 0
    page = syndor_report.write_report(tmp_path, QaConfig())
    assert not [link for link in assert_no_broken_links(page) if link.startswith("thumbs/")]


def test_unreadable_thumbnail_images_become_build_problems(tmp_path: Path) -> None:
    qa = QaConfig(thumbs_per_cell=1000, nv_pairs=0, thumb_px=20)
    out = _build(tmp_path, qa)
    shown = release.read_jsonl(out / "syndor" / "index" / "human_detection" / "day.jsonl")[0]["img_path"]
    (out / "syndor" / shown).write_bytes(b"\xff\xd8 cut")
    page = syndor_report.write_report(out, qa, seed=0)
    assert f"[{shown} unreadable]" in page.read_text(encoding="utf-8")
    found = syndor_report.report_problems(out)
    assert [(p["stage"], p["item"], p["path"]) for p in found] == [("report", shown, str(out / "syndor" / shown))]
    (out / "syndor" / shown).unlink()
    (out / "syndor" / shown).symlink_to(
        out / "syndor" / release.read_jsonl(out / "syndor" / "index" / "human_detection" / "day.jsonl")[1]["img_path"]
    )
    syndor_report.write_report(out, qa, seed=0)
    assert syndor_report.report_problems(out) == []


def test_read_jsonl_names_the_file_and_line_of_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2\n')
    with pytest.raises(ValueError) as caught:
        release.read_jsonl(path)
    assert str(caught.value).startswith(f"{path}:3: not valid JSON")


def test_report_shows_how_often_raw_and_nv_labels_disagree(tmp_path: Path) -> None:
    from test_syndor_qa import nv_label, truth_label

    qa = QaConfig(thumbs_per_cell=1, nv_pairs=0)
    qa_stage.export_qa(make_labelled_build(tmp_path, nv_column=True, bad_rows=False), tmp_path, qa)
    nv = [json.loads(line) for line in (tmp_path / "syndor" / "index" / "human_detection" / "nv.jsonl").open()]
    disagree = sum(truth_label(r["radius"], r["lighting"]) != nv_label(r["radius"]) for r in nv)
    text = " ".join(parse(syndor_report.write_report(tmp_path, qa, seed=0)).text)
    assert f"disagree on {disagree} of {len(nv)} person frames" in text and "nv_label: raw" in text
