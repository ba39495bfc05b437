"""`benchfoundry eval`: every item asked once through a faulty loopback model, scores counted independently."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from model_server import ScriptedModel
from PIL import Image
from test_syndor_qa import make_labelled_build

from benchfoundry.configs.syndor_qa import HPC_PROMPT, QaConfig
from benchfoundry.flows.cli import main
from benchfoundry.tasks.evaluation.choices import parse_choice
from benchfoundry.tasks.evaluation.items import odi_items
from benchfoundry.tasks.evaluation.report import write_eval_report
from benchfoundry.tasks.syndor import qa_stage, task_files

LABELS = ["front", "front-left", "left", "back-left", "back", "back-right", "right", "front-right"]


def viewspatial_build(out: Path, n: int = 24) -> list[dict]:
    """A ViewSpatial-Bench.json in the released schema, answers spread over the letters, and its images."""
    folder = out / "viewspatial"
    (folder / "images").mkdir(parents=True)
    items = []
    for i in range(n):
        labels = [LABELS[(i + k) % 8] for k in range(4)]
        letter = "ABCD"[(i * 7) % 4 if i % 3 else 0]
        answer = f"{letter}. {labels['ABCD'.index(letter)]}"
        Image.new("RGB", (8, 8), (i * 10 % 255, 0, 0)).save(folder / "images" / f"{i}.jpg")
        items.append(
            {
                "question_type": "Cam-Rel. Dir." if i % 2 else "Per-Sce. Sim.",
                "image_path": [f"images/{i}.jpg"],
                "question": f"Where is object {i}?",
                "answer": answer,
                "choices": "\n".join(f"{x}. {t}" for x, t in zip("ABCD", labels)),
            }
        )
    (folder / "ViewSpatial-Bench.json").write_text(json.dumps(items))
    return items


def question_of(prompt: str) -> str:
    return prompt.split("\n", 1)[0]


def always_a_with_faults(prompt: str, attempt: int) -> tuple:
    """Answers "A"; the 1st question meets a 429, the 2nd a 500 and the 3rd a dropped connection first."""
    faults = {
        "Where is object 0?": ("status", 429, {"Retry-After": "0"}),
        "Where is object 1?": ("status", 500, {}),
        "Where is object 2?": ("drop",),
    }
    fault = faults.get(question_of(prompt))
    return fault if fault and attempt == 0 else ("ok", "A")


def run_eval(out: Path, bench: str, url: str, *extra: str) -> int:
    return main(
        [
            "eval",
            bench,
            "--build",
            str(out),
            "--base-url",
            url,
            "--model",
            "org/scripted",
            "--api-key-env",
            "BF_EVAL_KEY",
            "--concurrency",
            "3",
            "--timeout-s",
            "5",
            *extra,
        ]
    )


def test_always_a_scores_the_share_of_a_answers_once_each_and_a_rerun_sends_nothing(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path)
    with ScriptedModel(always_a_with_faults) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 0
        sent = sum(server.requests.values())
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 0
        assert sum(server.requests.values()) == sent == len(items) + 3
    assert set(server.answered.values()) == {1} and len(server.answered) == len(items)
    score = json.loads((tmp_path / "report" / "eval" / "org__scripted" / "viewspatial.json").read_text())
    share_a = sum(i["answer"].startswith("A.") for i in items) / len(items)
    assert 0 < share_a < 1 and score["overall"] == pytest.approx(share_a)
    for task in ("Cam-Rel. Dir.", "Per-Sce. Sim."):
        mine = [i for i in items if i["question_type"] == task]
        assert score["per_task"][task] == pytest.approx(sum(i["answer"].startswith("A.") for i in mine) / len(mine))
    assert score["n"] == score["answered"] == len(items) and score["invalid"] == 0
    lines = (tmp_path / "report" / "eval" / "org__scripted" / "viewspatial.predictions.jsonl").read_text().splitlines()
    assert len(lines) == len(items) and len({json.loads(x)["id"] for x in lines}) == len(items)
    page = (tmp_path / "report" / "eval" / "index.html").read_text()
    assert f"<td>{100 * share_a:.2f}</td>" in page and "org/scripted" in page and "GPT-4o (published)" in page


def test_an_unreachable_server_stops_the_run_at_the_first_item_with_one_line(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path, n=2)
    with ScriptedModel(lambda p, a: ("ok", "A")) as server:
        url = server.base_url
    assert run_eval(tmp_path, "viewspatial", url, "--retries", "0") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: {url}/chat/completions: connection failed") and "nothing else sent" in line


def test_a_wrong_model_name_stops_the_run_naming_it(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path, n=3)
    with ScriptedModel(lambda p, a: ("status", 404, {})) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 2
        assert sum(server.requests.values()) == 1
    assert "model 'org/scripted' not found" in capsys.readouterr().err


def test_items_that_fail_are_recorded_and_the_run_goes_on(tmp_path: Path, capsys) -> None:
    items = viewspatial_build(tmp_path, n=4)
    script = lambda p, a: ("status", 500, {}) if question_of(p) == "Where is object 3?" else ("ok", "A")
    with ScriptedModel(script) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url, "--retries", "1") == 0
    assert "viewspatial-00003" in capsys.readouterr().err
    score = json.loads((tmp_path / "report" / "eval" / "org__scripted" / "viewspatial.json").read_text())
    expected = sum(i["answer"].startswith("A.") for i in items[:3]) / 4
    assert score["failed_items"] == 1 and score["answered"] == 3 and score["overall"] == pytest.approx(expected)


def test_a_missing_benchmark_is_exit_2_naming_the_file(tmp_path: Path, capsys) -> None:
    assert run_eval(tmp_path, "viewspatial", "http://127.0.0.1:9/v1") == 2
    assert str(tmp_path / "viewspatial" / "ViewSpatial-Bench.json") in capsys.readouterr().err


def test_syndor_presence_accuracy_of_a_model_that_always_says_1(tmp_path: Path) -> None:
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())
    # Empty action replies: the action scorer (tested in test_cli_score) needs no embedding model then.
    with ScriptedModel(lambda p, a: ("ok", "1" if p == HPC_PROMPT else "")) as server:
        assert run_eval(out, "syndor", server.base_url) == 0
    rows = [
        json.loads(x)
        for split in ("day", "night", "nv")
        for x in (out / "syndor" / "index" / "human_detection" / f"{split}.jsonl").read_text().splitlines()
    ]
    truth = [task_files.answer(r, "human_detection") for r in rows]
    score = json.loads((out / "report" / "eval" / "org__scripted" / "syndor.json").read_text())
    overall = next(g for g in score["presence"]["groups"] if g["distance"] == "all" and g["split"] == "all")
    assert overall["n"] == len(rows) and overall["accuracy"] == pytest.approx(sum(t == 1 for t in truth) / len(rows))


def test_odi_closed_items_become_lettered_choices_and_open_items_are_not_scored(tmp_path: Path) -> None:
    (tmp_path / "odi").mkdir()
    (tmp_path / "odi" / "ODI-Bench.json").write_text(
        json.dumps(
            [
                {
                    "id": "q1",
                    "task": "OA",
                    "form": "closed",
                    "question": "What colour is the chair on my left?",
                    "options": ["blue", "red", "green", "white"],
                    "answer": "green",
                    "image": "p.jpg",
                },
                {
                    "id": "q2",
                    "task": "OA",
                    "form": "open",
                    "question": "Describe the chair.",
                    "options": [],
                    "answer": "a green chair",
                    "image": "p.jpg",
                },
            ]
        )
    )
    closed, open_ = odi_items(tmp_path)
    assert closed.options == ("A. blue", "B. red", "C. green", "D. white") and closed.answer == "C"
    assert "C. green" in closed.prompt and not open_.options and open_.meta["form"] == "open"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("B", 1),
        ("(C)", 2),
        ("The answer is D.", 3),
        ("B: front-left", 1),
        ("front-left", 1),
        ("front", 0),
        ("I think it is back.", 2),
        ("A person stands in front", 0),
        ("B or C", None),
        ("left and back", None),
        ("", None),
        ("a dog", None),
        ("back-left", None),
    ],
)
def test_parse_choice(reply: str, expected: int | None) -> None:
    assert parse_choice(reply, ["A. front", "B. front-left", "C. back", "D. left"]) == expected


def test_the_page_shows_action_z_across_the_models_evaluated(tmp_path: Path) -> None:
    root = tmp_path / "report" / "eval"
    e5 = {"m1": [0.9, 0.7], "m2": [0.5, 0.5]}
    for model, values in e5.items():
        action = {
            "groups": [{"distance": 5.4, "split": "all", "e5score": sum(values) / 2}],
            "items": [{"radius": 5.4, "split": "day", "e5": v} for v in values],
        }
        (root / model).mkdir(parents=True)
        (root / model / "syndor.json").write_text(json.dumps({"model": model, "action": action}))
    page = write_eval_report(tmp_path, root).read_text()
    pooled = [0.9, 0.7, 0.5, 0.5]
    mean = sum(pooled) / 4
    std = (sum((v - mean) ** 2 for v in pooled) / 4) ** 0.5
    assert (
        f"<td>0.800 / {(0.8 - mean) / std:+.2f}</td>" in page and f"<td>0.500 / {(0.5 - mean) / std:+.2f}</td>" in page
    )


def test_omnicot_answers_with_the_crop_of_the_box_the_model_named(tmp_path: Path) -> None:
    """A grey panorama with a red patch; the model names the patch's box for one item and no box for the
    other: the first item's second turn carries a crop that is the patch (red), the other's no image."""
    import base64
    import io

    odi = tmp_path / "odi"
    odi.mkdir()
    erp = np.full((256, 512, 3), 128, np.uint8)
    erp[115:141, 358:410] = (220, 20, 20)  # x 0.70–0.80, y 0.45–0.55 of the panorama
    Image.fromarray(erp).save(odi / "pano.png")
    (odi / "ODI-Bench.json").write_text(
        json.dumps(
            [
                {
                    "id": f"q{i}",
                    "task": "OA",
                    "form": "closed",
                    "question": f"What colour is thing {i}?",
                    "options": ["grey", "blue", "red", "green"],
                    "answer": "red",
                    "image": "pano.png",
                }
                for i in (1, 2)
            ]
        )
    )

    def script(prompt: str, attempt: int) -> tuple:
        if prompt.startswith("To answer the question"):
            return ("ok", "0.7, 0.45, 0.8, 0.55" if "thing 1" in prompt else "I cannot tell")
        return ("ok", "C")

    with ScriptedModel(script) as server:
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "--crop-px", "64") == 0
        sent = sum(server.requests.values())
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "--crop-px", "64") == 0
        assert sum(server.requests.values()) == sent == 4
    answers = {
        b["messages"][0]["content"][-1]["text"].split("thing ")[1][0]: b
        for b in server.bodies
        if len(b["messages"]) == 3
    }
    crop_parts = [p for p in answers["1"]["messages"][2]["content"] if isinstance(p, dict) and p["type"] == "image_url"]
    (url,) = [p["image_url"]["url"] for p in crop_parts]
    crop = np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB"), dtype=float)
    centre = crop[16:48, 16:48].mean(axis=(0, 1))
    assert centre[0] > 180 and centre[1] < 60 and centre[2] < 60
    assert isinstance(answers["2"]["messages"][2]["content"], str)  # no box: no crop
    rows = [
        json.loads(x)
        for x in (tmp_path / "report" / "eval" / "org__scripted" / "odi-omnicot.predictions.jsonl")
        .read_text()
        .splitlines()
    ]
    assert [r["turns"][0]["box"] for r in rows] == [[0.7, 0.45, 0.8, 0.55], None]
    score = json.loads((tmp_path / "report" / "eval" / "org__scripted" / "odi-omnicot.json").read_text())
    assert score["overall"] == 1.0 and score["n"] == 2


def test_an_output_folder_under_a_file_is_refused_before_anything_is_sent(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path, n=2)
    (tmp_path / "report").write_text("not a folder")
    with ScriptedModel(lambda p, a: ("ok", "A")) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 2
        assert sum(server.requests.values()) == 0
    assert str(tmp_path / "report") in capsys.readouterr().err
