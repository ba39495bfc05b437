"""`benchfoundry score syndor`: hand-computed accuracy / macro-F1, bad lines reported by number."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_syndor_qa import HPC, RADII, make_labelled_build, nv_label, truth_label
from test_syndor_report import assert_no_broken_links
from test_text_embed import save_tiny_bert

from benchfoundry.configs.model import SHIPPED_EMBEDDING_MODEL
from benchfoundry.configs.syndor_qa import ACTION_PROMPT, QaConfig
from benchfoundry.flows.cli import main
from benchfoundry.tasks.syndor import qa_stage
from benchfoundry.tasks.syndor import report_page as syndor_report


def _rows(out: Path, task: str, split: str) -> list[dict]:
    path = out / "syndor" / "index" / task / f"{split}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _pick(rows: list[dict], radius: float, truth: int, k: int) -> list[dict]:
    found = [r for r in rows if r["radius"] == radius and r["human_discernable"] == truth][:k]
    assert len(found) == k
    return found


@pytest.fixture
def scored_build(tmp_path: Path) -> tuple[Path, Path]:
    """A build, its report, and a predictions file with six presence lines, two action lines, three bad lines.

    Presence, worked by hand:
        item  split  truth  prediction         parsed
        A     day    1      "1"                1
        B     day    1      "0"                0
        C     night  0      "0"                0
        D     night  0      "1"                1
        E     night  1      "1"                1
        F     nv     0      "1 or 0"           invalid
    class 1: tp 2 (A, E), fp 1 (D), fn 1 (B)     → P 2/3, R 2/3, F1 2/3
    class 0: tp 1 (C), fp 1 (B), fn 2 (D, F)     → P 1/2, R 1/3, F1 2/5
    accuracy 3/6, macro F1 (2/3 + 2/5)/2 = 8/15; day: accuracy 1/2; night: 2/3
    """
    out = tmp_path / "build"
    manifest = make_labelled_build(out)
    qa_stage.export_qa(manifest, out, QaConfig())
    syndor_report.write_report(out, QaConfig())
    day, night, nv = (_rows(out, "human_detection", s) for s in ("day", "night", "nv"))
    a, b = _pick(day, RADII[0], 1, 2)
    c, d = _pick(night, RADII[2], 0, 2)
    (e,) = _pick(night, RADII[0], 1, 1)
    (f,) = [r for r in _pick(nv, RADII[2], 0, 4) if r["lighting"] == "night"][:1]
    assert truth_label(e["radius"], e["lighting"]) == 1 and truth_label(c["radius"], c["lighting"]) == 0
    lines = [
        json.dumps({"img_path": r["img_path"], "prompt": HPC, "prediction": p})
        for r, p in ((a, "1"), (b, "0"), (c, "0"), (d, "1"), (e, "1"), (f, "1 or 0"))
    ]
    walking = next(r for r in _rows(out, "action_recognition", "day") if r["action"] == "walking")
    stepping = next(r for r in _rows(out, "action_recognition", "night") if r["action"] == "stepping_over")
    lines.insert(2, "not json at all")  # line 3
    lines.append(json.dumps({"img_path": "images/nope.jpg", "prompt": HPC, "prediction": "1"}))  # line 8
    lines.append(json.dumps({"img_path": walking["img_path"], "prompt": ACTION_PROMPT, "prediction": "walking"}))
    # the reference is the action's released name (DESIGN §2.2), not its slug: this reply scores 1
    lines.append(
        json.dumps({"img_path": stepping["img_path"], "prompt": ACTION_PROMPT, "prediction": "stepping over something"})
    )
    lines.append(json.dumps({"img_path": a["img_path"], "prompt": "Describe the image.", "prediction": "1"}))  # line 11
    predictions = tmp_path / "model-x.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    return out, predictions


def test_score_syndor_hand_computed(scored_build: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, predictions = scored_build
    assert main(["score", "syndor", str(predictions), "--build", str(out)]) == 0
    captured = capsys.readouterr()
    assert [int(line.split(":")[1]) for line in captured.err.splitlines()] == [3, 8, 11]
    score = json.loads((out / "report" / "scores" / "model-x.json").read_text())
    groups = {(g["distance"], g["split"]): g for g in score["presence"]["groups"]}
    overall = groups[("all", "all")]
    assert overall["n"] == 6 and overall["n_invalid"] == 1
    assert overall["accuracy"] == pytest.approx(3 / 6)
    assert overall["macro_precision"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert overall["macro_recall"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert overall["macro_f1"] == pytest.approx(8 / 15)
    assert groups[("all", "day")]["accuracy"] == pytest.approx(1 / 2)
    assert groups[("all", "night")]["accuracy"] == pytest.approx(2 / 3)
    assert groups[(RADII[2], "nv")]["n_invalid"] == 1 and not groups[("all", "all")]["deployable"]
    assert [p["line"] for p in score["problems"]] == [3, 8, 11]
    assert score["embedding_model"]["name"] == SHIPPED_EMBEDDING_MODEL
    assert score["action"]["groups"][-1]["e5score"] == pytest.approx(1.0, abs=1e-5)
    assert score["coverage"]["human_detection"]["day"]["predicted"] == 2
    assert "0.533" in captured.out  # 8/15 in the printed table
    html = (out / "report" / "index.html").read_text()
    assert "model-x" in html
    assert_no_broken_links(out / "report" / "index.html")


def test_console_script_presence_only_and_errors(scored_build: tuple[Path, Path], tmp_path: Path) -> None:
    out, predictions = scored_build
    presence = tmp_path / "presence.jsonl"
    presence.write_text("".join(line + "\n" for line in predictions.read_text().splitlines() if "action" not in line))
    target = tmp_path / "s.json"
    exe = (
        shutil.which("benchfoundry", path=str(Path(__file__).resolve().parents[1] / ".venv" / "bin")) or "benchfoundry"
    )
    run = subprocess.run(
        [exe, "score", "syndor", str(presence), "--build", str(out), "--out", str(target)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr
    score = json.loads(target.read_text())
    assert score["embedding_model"] is None and score["action"]["groups"] == []
    assert score["presence"]["groups"][-1]["macro_f1"] == pytest.approx(8 / 15)
    bad = subprocess.run(
        [exe, "score", "syndor", str(presence), "--build", str(tmp_path / "nothing")],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    assert bad.returncode == 2 and "task file missing" in bad.stderr


def test_echoing_task_file_img_path_scores_each_split_against_its_own_answers(tmp_path: Path) -> None:
    """nv labels differ from night labels at the middle distance, so a nv prediction matched to the
    night answer (or dropped as a duplicate) would lower the nv or night accuracy below 1."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out, nv_column=True, bad_rows=False), out, QaConfig(nv_label="own"))
    expected = {
        "day": lambda r: truth_label(r["radius"], r["lighting"]),
        "night": lambda r: truth_label(r["radius"], r["lighting"]),
        "nv": lambda r: nv_label(r["radius"]),
    }
    assert any(nv_label(r) != truth_label(r, "night") for r in RADII)
    lines = [
        json.dumps({"img_path": r["img_path"], "prompt": r["prompt"], "prediction": str(expected[split](r))})
        for split in ("day", "night", "nv")
        for r in _rows(out, "human_detection", split)
    ]
    predictions = tmp_path / "echo.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    assert main(["score", "syndor", str(predictions), "--build", str(out), "--out", str(tmp_path / "s.json")]) == 0
    score = json.loads((tmp_path / "s.json").read_text())
    assert score["problems"] == []
    for split in ("day", "night", "nv"):
        n = len(_rows(out, "human_detection", split))
        assert score["coverage"]["human_detection"][split] == {"items": n, "predicted": n, "missing": 0}
    groups = {(g["distance"], g["split"]): g for g in score["presence"]["groups"]}
    for split in ("day", "night", "nv"):
        assert groups[("all", split)]["accuracy"] == 1.0 and groups[("all", split)]["n"] == len(
            _rows(out, "human_detection", split)
        )


def _action_predictions(out: Path, tmp_path: Path) -> Path:
    row = _rows(out, "action_recognition", "day")[0]
    path = tmp_path / "actions.jsonl"
    path.write_text(json.dumps({"img_path": row["img_path"], "prompt": ACTION_PROMPT, "prediction": "walking"}) + "\n")
    return path


@pytest.mark.parametrize("remove", ["model.safetensors", "vocab.txt"])
def test_bad_embedding_folder_is_exit_2_naming_the_field(
    scored_build: tuple[Path, Path], tmp_path: Path, remove: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = scored_build
    folder = save_tiny_bert(tmp_path / "e5", name_or_path="intfloat/e5-large-v2")
    (folder / remove).unlink()
    code = main(
        [
            "score",
            "syndor",
            str(_action_predictions(out, tmp_path)),
            "--build",
            str(out),
            "--embed-path",
            str(folder),
            "--out",
            str(tmp_path / "s.json"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "qa.embedding.path" in err and str(folder) in err
    assert "Traceback" not in err and not (tmp_path / "s.json").exists()


def test_embed_path_alone_takes_the_name_from_the_folder(
    scored_build: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = scored_build
    predictions = _action_predictions(out, tmp_path)
    folder = save_tiny_bert(tmp_path / "e5", name_or_path="intfloat/e5-large-v2")
    target = tmp_path / "s.json"
    assert (
        main(
            [
                "score",
                "syndor",
                str(predictions),
                "--build",
                str(out),
                "--embed-path",
                str(folder),
                "--out",
                str(target),
            ]
        )
        == 0
    )
    model = json.loads(target.read_text())["embedding_model"]
    assert model["name"] == "intfloat/e5-large-v2" and model["prefix"] == "query: " and model["path"] == str(folder)
    assert model["dim"] == 16 != 384  # the tiny model, not the configured MiniLM
    unnamed = save_tiny_bert(tmp_path / "unnamed")
    capsys.readouterr()
    assert main(["score", "syndor", str(predictions), "--build", str(out), "--embed-path", str(unnamed)]) == 2
    err = capsys.readouterr().err
    assert "_name_or_path" in err and str(unnamed) in err
    assert (
        main(
            [
                "score",
                "syndor",
                str(predictions),
                "--build",
                str(out),
                "--embed-path",
                str(unnamed),
                "--embed-name",
                "my/encoder",
                "--out",
                str(target),
            ]
        )
        == 0
    )
    model = json.loads(target.read_text())["embedding_model"]
    assert model["name"] == "my/encoder" and model["prefix"] == ""
