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

from benchfoundry.benchmarks.syndor.qa_config import ACTION_PROMPT, QaConfig
from benchfoundry.benchmarks.syndor.release import report_page as syndor_report
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.cli.main import main
from benchfoundry.configs.model import SHIPPED_EMBEDDING_MODEL
from benchfoundry.pipeline.benchmarks import get


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
    # under the project's protocol the reference is the action's released name (docs/design/syndor.md §5): this reply
    # scores 1
    lines.append(
        json.dumps({"img_path": stepping["img_path"], "prompt": ACTION_PROMPT, "prediction": "stepping over something"})
    )
    lines.append(json.dumps({"img_path": a["img_path"], "prompt": "Describe the image.", "prediction": "1"}))  # line 11
    predictions = tmp_path / "model-x.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    return out, predictions


def test_score_syndor_hand_computed(scored_build: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, predictions = scored_build
    assert main(["score", "syndor", str(predictions), "--build", str(out), "--protocol", "project"]) == 0
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
    page = out / "report" / get("syndor").report_page
    assert "model-x" in page.read_text()
    assert_no_broken_links(page)


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
    # The authors' reading (the default) drops F's "1 or 0": class 1 P = R = 2/3, class 0 P = R = 1/2.
    assert score["ambiguous_dropped"] == {"nv": 1} and score["presence"]["groups"][-1]["n"] == 5
    assert score["presence"]["groups"][-1]["macro_f1"] == pytest.approx((2 / 3 + 1 / 2) / 2)
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
                "--protocol",
                "project",
            ]
        )
        == 0
    )
    model = json.loads(target.read_text())["embedding_model"]  # the project's protocol: E5's "query: " prefix
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


def _authors_e5(pred_path: Path, ref_path: Path, model_dir: Path, radius: float | None = None) -> float:
    """The authors' compute_e5score / compute_e5score_by_radius (jzyee/SynDORBench eval/metrics/e5_score.py),
    re-implemented: merge on img_path, reference `action`, texts as str, batches of 64, mean-pooled and
    L2-normalised embeddings, cosine, mean."""
    import pandas as pd
    import torch
    import torch.nn.functional as F
    from transformers import AutoModel, AutoTokenizer

    merged = pd.merge(
        pd.read_json(pred_path, lines=True),
        pd.read_json(ref_path, lines=True),
        on="img_path",
        suffixes=("_pred", "_ref"),
    )
    if radius is not None:
        merged = merged[merged["radius"] == radius]
    tokenizer, model = AutoTokenizer.from_pretrained(model_dir), AutoModel.from_pretrained(model_dir).eval()

    def encode(texts: list[str]) -> torch.Tensor:
        with torch.no_grad():
            batch = tokenizer(texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
            last_hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).bool()
            return F.normalize((last_hidden * mask).sum(dim=1) / mask.sum(dim=1).float(), p=2, dim=1)

    preds, refs = merged["prediction"].astype(str).tolist(), merged["action"].astype(str).tolist()
    sims: list[float] = []
    for i in range(0, len(preds), 64):
        sims.extend(F.cosine_similarity(encode(preds[i : i + 64]), encode(refs[i : i + 64]), dim=1).tolist())
    return float(sum(sims) / len(sims))


def test_authors_e5_matches_the_authors_computation_with_empty_replies(tmp_path: Path) -> None:
    from benchfoundry.assets.tiny_bert import write_tiny_bert
    from benchfoundry.benchmarks.syndor.pose_config import ACTION_NAMES

    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out, bad_rows=False), out, QaConfig())
    words = [*ACTION_NAMES, *ACTION_NAMES.values(), "_ a man is"]
    model_dir = write_tiny_bert(tmp_path / "tiny-e5", [w.replace("_", " ") for w in words] + ["_"], hidden=16)
    replies = ["", "stepping over something", "stepping_over", "walking", "a man is kicking", "  ", "waving"]
    lines, per_split = [], {}
    for split in ("day", "night", "nv"):
        rows = _rows(out, "action_recognition", split)
        mine = [
            {"img_path": r["img_path"], "prompt": ACTION_PROMPT, "prediction": replies[k % 7]}
            for k, r in enumerate(rows)
        ]
        per_split[split] = tmp_path / f"{split}-pred.jsonl"
        per_split[split].write_text("".join(json.dumps(m) + "\n" for m in mine))
        lines += mine
    assert any(m["prediction"] == "" for m in lines)
    predictions = tmp_path / "all.jsonl"
    predictions.write_text("".join(json.dumps(m) + "\n" for m in lines))
    target = tmp_path / "s.json"
    args = ["score", "syndor", str(predictions), "--build", str(out), "--out", str(target)]
    assert main([*args, "--embed-path", str(model_dir), "--embed-name", "intfloat/e5-large-v2"]) == 0
    score = json.loads(target.read_text())
    assert score["protocol"] == "authors" and score["embedding_model"]["prefix"] == ""
    groups = {(g["distance"], g["split"]): g for g in score["action"]["groups"]}
    for split, pred_path in per_split.items():
        ref_path = out / "syndor" / "index" / "action_recognition" / f"{split}.jsonl"
        assert groups[("all", split)]["e5score"] == pytest.approx(_authors_e5(pred_path, ref_path, model_dir), abs=1e-5)
        assert groups[(RADII[1], split)]["e5score"] == pytest.approx(
            _authors_e5(pred_path, ref_path, model_dir, RADII[1]), abs=1e-5
        )
    project = tmp_path / "p.json"
    args[-1] = str(project)
    assert (
        main([*args, "--embed-path", str(model_dir), "--embed-name", "intfloat/e5-large-v2", "--protocol", "project"])
        == 0
    )
    assert json.loads(project.read_text())["action"]["groups"][-1]["e5score"] != pytest.approx(
        groups[("all", "all")]["e5score"], abs=1e-3
    )


def _authors_label(value: object) -> int:
    """The authors' `normalize_to_label` (jzyee/SynDORBench eval/metrics/classification.py), re-implemented."""
    import re

    import pandas as pd

    if value is None or (isinstance(value, float) and pd.isna(value)):
        return -1
    try:
        number = int(value)  # type: ignore[call-overload]
        return number if number in (0, 1) else -1
    except (ValueError, TypeError):
        text = str(value).lower().strip()
        if re.search("1", text) and re.search("0", text):
            return -1
        if re.search(r"\b(yes|affirmative|true|correct|positive|1)\b", text):
            return 1
        if re.search(r"\b(no|none|not|absent|empty|0)\b", text):
            return 0
        return -1


def _authors_classification(pred_path: Path, ref_path: Path, radius: float | None = None) -> dict[str, float]:
    """The authors' compute_classification_metrics(_by_radius), re-implemented: labels read from the replies,
    merged on img_path with the task file, ambiguous ones dropped, sklearn's classification_report (fractions)."""
    import pandas as pd
    from sklearn.metrics import classification_report

    pred = pd.read_json(pred_path, lines=True)
    pred["prediction"] = pred["prediction"].apply(_authors_label)
    merged = pd.merge(pred, pd.read_json(ref_path, lines=True), on="img_path", suffixes=("_pred", "_ref"))
    merged = merged[merged["prediction"] != -1]
    if radius is not None:
        merged = merged[merged["radius"] == radius]
    report = classification_report(
        merged["human_discernable"].tolist(), merged["prediction"].tolist(), output_dict=True, zero_division=0
    )
    return {"accuracy": report["accuracy"], "macro_f1": report["macro avg"]["f1-score"]}


def test_mixed_replies_in_the_authors_format_score_as_their_classification(tmp_path: Path) -> None:
    """The authors' harness writes one file per task and split, `{img_path, prompt, prediction}`, `null` for a failed
    request; `score syndor` on those files, one by one or together, gives their classification.py's accuracy and
    macro-F1 per split and per distance, the ambiguous and failed replies dropped and counted."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out, bad_rows=False), out, QaConfig())
    replies = ["1", "0", "Yes, there is a person.", "No", "1 or 0", "", None, "I cannot tell", "2"]
    everything = []
    for split in ("day", "night", "nv"):
        rows = _rows(out, "human_detection", split)
        mine = [
            {"img_path": r["img_path"], "prompt": r["prompt"], "prediction": replies[(k * 5 + len(split)) % 9]}
            for k, r in enumerate(rows)
        ]
        path = tmp_path / f"{split}.jsonl"
        path.write_text("".join(json.dumps(m) + "\n" for m in mine))
        everything += mine
        ref = out / "syndor" / "index" / "human_detection" / f"{split}.jsonl"
        target = tmp_path / f"{split}-score.json"
        assert main(["score", "syndor", str(path), "--build", str(out), "--out", str(target)]) == 0
        score = json.loads(target.read_text())
        groups = {(g["distance"], g["split"]): g for g in score["presence"]["groups"]}
        theirs = _authors_classification(path, ref)
        assert groups[("all", split)]["accuracy"] == pytest.approx(theirs["accuracy"])
        assert groups[("all", split)]["macro_f1"] == pytest.approx(theirs["macro_f1"])
        for radius in RADII:
            theirs = _authors_classification(path, ref, radius)
            assert groups[(radius, split)]["accuracy"] == pytest.approx(theirs["accuracy"])
            assert groups[(radius, split)]["macro_f1"] == pytest.approx(theirs["macro_f1"])
        dropped = sum(_authors_label(m["prediction"]) == -1 for m in mine)
        assert 0 < dropped < len(mine) and score["ambiguous_dropped"] == {split: dropped}
        assert groups[("all", split)]["n"] == len(mine) - dropped and groups[("all", split)]["n_invalid"] == 0
    # One file of every split scores each split as its own file does.
    together = tmp_path / "together.jsonl"
    together.write_text("".join(json.dumps(m) + "\n" for m in everything))
    assert main(["score", "syndor", str(together), "--build", str(out), "--out", str(tmp_path / "t.json")]) == 0
    groups = {
        (g["distance"], g["split"]): g for g in json.loads((tmp_path / "t.json").read_text())["presence"]["groups"]
    }
    for split in ("day", "night", "nv"):
        alone = json.loads((tmp_path / f"{split}-score.json").read_text())["presence"]["groups"]
        assert groups[("all", split)] == next(g for g in alone if g["distance"] == "all" and g["split"] == split)


def test_the_issue_replies_score_as_the_authors_do_and_the_project_way_differs(tmp_path: Path) -> None:
    """Six day items a person is visible in, answered "1", "0", "Yes, there is a person.", "No", "1 or 0", "": the
    authors read four (1, 0, 1, 0) and drop two: accuracy 1/2, macro-F1 (2/3 + 0) / 2 = 1/3 (class 0 never true);
    the project's reading counts the six, "1" alone right: accuracy 1/6."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out, bad_rows=False), out, QaConfig())
    day = [r for r in _rows(out, "human_detection", "day") if r["human_discernable"] == 1][:6]
    replies = ["1", "0", "Yes, there is a person.", "No", "1 or 0", ""]
    path = tmp_path / "six.jsonl"
    path.write_text(
        "".join(
            json.dumps({"img_path": r["img_path"], "prompt": HPC, "prediction": p}) + "\n" for r, p in zip(day, replies)
        )
    )
    for protocol, accuracy, f1 in (("authors", 1 / 2, 1 / 3), ("project", 1 / 6, None)):
        target = tmp_path / f"{protocol}.json"
        args = ["score", "syndor", str(path), "--build", str(out), "--out", str(target), "--protocol", protocol]
        assert main(args) == 0
        groups = json.loads(target.read_text())["presence"]["groups"]
        day_all = next(g for g in groups if g["distance"] == "all" and g["split"] == "day")
        assert day_all["accuracy"] == pytest.approx(accuracy)
        if f1 is not None:
            assert day_all["macro_f1"] == pytest.approx(f1)


def test_viewspatial_authors_result_csv_scores_as_evaluate_py(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`evaluate.py`'s result CSV (ID, Question, Question_Type, Predicted Answer, Correct Answer, IsCorrect; an item
    that raised is missing and counted wrong): `score viewspatial` gives its accuracy per question type and
    overall; a row whose Correct Answer is not the build's is reported by line and skipped."""
    import csv
    import io
    import re

    from test_eval import short_task, viewspatial_build

    items = viewspatial_build(tmp_path)
    replies = ["The answer is B", "A", "a", "Looking closely.\nC", "(D)", "none of them", "B and C", "a\nA dog. D"]

    def extract_option(text: str) -> str | None:  # theirs, verbatim
        match = re.search(r"\b([A-D])\b", text, re.IGNORECASE)
        return match.group(1).upper() if match else None

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["ID", "Question", "Question_Type", "Predicted Answer", "Correct Answer", "IsCorrect"])
    correct: dict[str, list[bool]] = {}
    for i, item in enumerate(items):
        task = short_task(item)
        correct.setdefault(task, [])
        if i == 3:  # raised in evaluate.py: no row, counted in its total
            correct[task].append(False)
            continue
        reply = replies[i % len(replies)]
        right = extract_option(reply.split("\n")[-1]) == extract_option(item["answer"])
        correct[task].append(right)
        writer.writerow([i, item["question"], item["question_type"], reply, item["answer"], right])
    writer.writerow([7, "?", "?", "A", "Z. nowhere", False])  # not this build's item 7: skipped
    path = tmp_path / "result_gpt-4o.csv"
    path.write_text(buffer.getvalue())
    target = tmp_path / "s.json"
    assert main(["score", "viewspatial", str(path), "--build", str(tmp_path), "--out", str(target)]) == 0
    score = json.loads(target.read_text())
    last = len(path.read_text().splitlines())  # the file's last line (replies span lines)
    assert [p["line"] for p in score["problems"]] == [last]
    assert f"{path}:{last}: skipped" in capsys.readouterr().err
    everyone = [x for v in correct.values() for x in v]
    assert 0 < sum(everyone) < len(everyone)
    assert score["overall"] == pytest.approx(sum(everyone) / len(everyone)) and score["n"] == len(items)
    for task, values in correct.items():
        assert score["per_task"][task] == pytest.approx(sum(values) / len(values))
