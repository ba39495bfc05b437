"""`benchfoundry eval`: every item asked once through a faulty loopback model, read as the authors read it, scores
counted independently; the random and blind baselines; the LLM judge of free-form answers."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from model_server import ScriptedModel
from PIL import Image
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.odi.release.readers import items as odi_items
from benchfoundry.benchmarks.syndor.harnesses.scoring import INVALID as AMBIGUOUS
from benchfoundry.benchmarks.syndor.harnesses.scoring import authors_presence
from benchfoundry.benchmarks.syndor.qa_config import HPC_PROMPT, QaConfig
from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.harnesses.evaluation import viewspatial_letter
from benchfoundry.cli.main import main
from benchfoundry.evaluation import hooks
from benchfoundry.evaluation.baselines import random_rows
from benchfoundry.evaluation.choices import parse_choice
from benchfoundry.evaluation.items import EvalItem, load_items
from benchfoundry.evaluation.protocols import MC_INSTRUCTION
from benchfoundry.evaluation.run import model_dir

LABELS = ["front", "front-left", "left", "back-left", "back", "back-right", "right", "front-right"]
SUFFIX = "\nReply only to the corresponding option.\nAnswer:"


def viewspatial_build(out: Path, n: int = 24) -> list[dict]:
    """A ViewSpatial-Bench.json in the released schema (released task strings and short names mixed), answers
    spread over the letters, and its images."""
    folder = out / "viewspatial"
    (folder / "images").mkdir(parents=True)
    items = []
    for i in range(n):
        labels = [LABELS[(i + k) % 8] for k in range(4)]
        letter = "ABCD"[(i * 7) % 4 if i % 3 else 0]
        answer = f"{letter}. {labels['ABCD'.index(letter)]}"
        Image.new("RGB", (8, 8), (i * 10 % 255, 0, 0)).save(folder / "images" / f"{i}.jpg")
        task = "Cam-Rel. Dir." if i % 2 else "Per-Sce. Sim."
        items.append(
            {
                "question_type": CATEGORIES[task] if i % 4 < 2 else task,
                "image_path": [f"images/{i}.jpg"],
                "question": f"Where is object {i}?",
                "answer": answer,
                "choices": "\n".join(f"{x}. {t}" for x, t in zip("ABCD", labels)),
            }
        )
    (folder / "ViewSpatial-Bench.json").write_text(json.dumps(items))
    return items


def short_task(item: dict) -> str:
    return {v: k for k, v in CATEGORIES.items()}.get(item["question_type"], item["question_type"])


def object_of(prompt: str) -> str:
    """ "Where is object 3?A. front…" → "3"."""
    return prompt.split("object ", 1)[1].split("?", 1)[0]


def lower_a_with_faults(prompt: str, attempt: int) -> tuple:
    """Answers "a" in lower case on its last line; objects 0, 1 and 2 meet a 429, a 500 and a dropped
    connection first."""
    faults = {"0": ("status", 429, {"Retry-After": "0"}), "1": ("status", 500, {}), "2": ("drop",)}
    fault = faults.get(object_of(prompt))
    return fault if fault and attempt == 0 else ("ok", "Looking at both objects.\na")


def run_eval(out: Path, bench: str, url: str | None, *extra: str, model: str = "org/scripted") -> int:
    endpoint = ["--base-url", url] if url else []
    return main(
        [
            "eval",
            bench,
            "--build",
            str(out),
            *endpoint,
            "--model",
            model,
            "--api-key-env",
            "BF_EVAL_KEY",
            "--concurrency",
            "3",
            "--timeout-s",
            "5",
            *extra,
        ]
    )


def results_dir(out: Path, model: str = "org/scripted") -> Path:
    """Where eval writes `model`'s results in build `out`."""
    return model_dir(out, model)


def result(out: Path, name: str, model: str = "org/scripted") -> dict:
    return json.loads((results_dir(out, model) / f"{name}.json").read_text())


def share_a(items: list[dict]) -> float:
    return sum(i["answer"].startswith("A.") for i in items) / len(items)


def test_a_lower_case_a_scores_the_share_of_a_answers_under_the_authors_protocol_once_each(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path)
    with ScriptedModel(lower_a_with_faults) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 0
        sent = sum(server.requests.values())
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 0
        assert sum(server.requests.values()) == sent == len(items) + 3
    assert set(server.answered.values()) == {1} and len(server.answered) == len(items)
    score = result(tmp_path, "viewspatial")
    assert score["protocol"] == "authors" and 0 < share_a(items) < 1
    assert score["overall"] == pytest.approx(share_a(items))
    for task in ("Cam-Rel. Dir.", "Per-Sce. Sim."):
        assert score["per_task"][task] == pytest.approx(share_a([i for i in items if short_task(i) == task]))
    assert score["n"] == score["answered"] == len(items) and score["invalid"] == 0
    # evaluate.py's request: question + choices + the suffix, no separator, the text before the image.
    body = next(b for b in server.bodies if object_of(b["messages"][0]["content"][0]["text"]) == "5")
    text_part, image = body["messages"][0]["content"]
    assert text_part["text"] == items[5]["question"] + items[5]["choices"] + SUFFIX
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/jpeg;base64,")
    predictions = results_dir(tmp_path) / "viewspatial.predictions.jsonl"
    lines = predictions.read_text().splitlines()
    assert len({json.loads(x)["id"] for x in lines}) == len(lines) == len(items)
    # `score` reads eval's predictions file back and scores it as eval did.
    assert (
        main(["score", "viewspatial", str(predictions), "--build", str(tmp_path), "--out", str(tmp_path / "s.json")])
        == 0
    )
    offline = json.loads((tmp_path / "s.json").read_text())
    assert {k: offline[k] for k in ("overall", "per_task", "n", "invalid")} == {
        k: score[k] for k in ("overall", "per_task", "n", "invalid")
    }


def test_the_project_protocol_reads_a_lower_case_a_as_no_option(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path, n=8)
    with ScriptedModel(lambda p, a: ("ok", "Looking at both objects.\na")) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url, "--protocol", "project") == 0
    score = result(tmp_path, "viewspatial-project")
    assert score["protocol"] == "project" and score["invalid"] == len(items) and score["overall"] == 0
    prompt = server.bodies[0]["messages"][0]["content"][-1]["text"]
    assert prompt.endswith("Answer with the option's letter from the given choices directly.")


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
    script = lambda p, a: ("status", 500, {}) if object_of(p) == "3" else ("ok", "A")
    with ScriptedModel(script) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url, "--retries", "1") == 0
    assert "viewspatial-00003" in capsys.readouterr().err
    score = result(tmp_path, "viewspatial")
    expected = sum(i["answer"].startswith("A.") for i in items[:3]) / 4
    assert score["failed_items"] == 1 and score["answered"] == 3 and score["overall"] == pytest.approx(expected)


def test_a_missing_benchmark_is_exit_2_naming_the_file(tmp_path: Path, capsys) -> None:
    assert run_eval(tmp_path, "viewspatial", "http://127.0.0.1:9/v1") == 2
    assert str(tmp_path / "viewspatial" / "ViewSpatial-Bench.json") in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        (["--omni-cot", "full"], "--omni-cot is ODI-Bench's method"),
        (["--blind"], "--base-url is required"),
    ],
)
def test_flags_that_do_not_go_together_are_refused_before_anything_is_read(
    tmp_path: Path, capsys, flags: list[str], why: str
) -> None:
    assert run_eval(tmp_path, "viewspatial", None, *flags) == 2
    assert why in capsys.readouterr().err


def test_the_random_baseline_needs_no_endpoint_and_repeats_itself(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path, n=200)
    assert run_eval(tmp_path, "viewspatial", None, "--seed", "4", model="random") == 0
    path = tmp_path / "report" / "eval" / "random" / "viewspatial.predictions.jsonl"
    first = path.read_bytes()
    replies = [json.loads(x)["prediction"] for x in first.decode().splitlines()]
    assert set(replies) <= set("ABCD") and len(set(replies)) == 4
    right = sum(r == i["answer"][0] for r, i in zip(replies, items)) / len(items)
    score = result(tmp_path, "viewspatial", model="random")
    assert score["overall"] == pytest.approx(right) and 0.15 < right < 0.35 and score["seed"] == 4
    assert run_eval(tmp_path, "viewspatial", None, "--seed", "4", model="random") == 0
    assert path.read_bytes() == first
    assert run_eval(tmp_path, "viewspatial", None, "--seed", "5", model="random") == 0
    assert path.read_bytes() != first


def test_blind_sends_the_question_and_options_without_images(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path, n=6)
    with ScriptedModel(lambda p, a: ("ok", "B")) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url, "--blind") == 0
    assert all(isinstance(b["messages"][0]["content"], str) for b in server.bodies)
    score = result(tmp_path, "viewspatial-blind")
    assert score["blind"] and score["overall"] == pytest.approx(sum(i["answer"][0] == "B" for i in items) / 6)
    page = (tmp_path / "report" / "eval" / "index.html").read_text()
    assert "Blind org/scripted" in page


def _image_key(body: dict) -> str:
    parts = body["messages"][0]["content"]
    return next(p["image_url"]["url"].split(",", 1)[1] for p in parts if p.get("type") == "image_url")


@pytest.mark.parametrize("protocol", ["authors", "project"])
def test_syndor_drops_ambiguous_replies_the_authors_way(tmp_path: Path, protocol: str) -> None:
    """Each image gets "1", "0", "No." or an ambiguous "10" by its bytes; the authors' harness reads "No." as 0
    and drops the ambiguous ones before accuracy, the project's counts both as invalid, and wrong."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())
    rows = {
        split: release.read_jsonl(out / "syndor" / "index" / "human_detection" / f"{split}.jsonl")
        for split in release.SPLITS
    }
    key_of = lambda r: base64.b64encode((out / "syndor" / r["img_path"]).read_bytes()).decode()
    replies = ["1", "0", "No.", "10"]
    reply_of_key = lambda key: replies[sum(map(ord, key)) % 4]  # by bytes: the night-vision frames share theirs
    reply_of = lambda r: reply_of_key(key_of(r))

    def script(prompt: str, attempt: int) -> tuple:
        # One request at a time (--concurrency 1): the last body recorded is this request's.
        if prompt != HPC_PROMPT:
            return ("ok", "")
        return ("ok", reply_of_key(_image_key(server.bodies[-1])))

    with ScriptedModel(script) as server:
        assert run_eval(out, "syndor", server.base_url, "--concurrency", "1", "--protocol", protocol) == 0
    score = result(out, "syndor" if protocol == "authors" else "syndor-project")
    everyone = [r for split_rows in rows.values() for r in split_rows]
    ambiguous = [r for r in everyone if reply_of(r) == "10"]
    kept = everyone if protocol == "project" else [r for r in everyone if reply_of(r) != "10"]
    label = {"1": 1, "0": 0, "No.": 0 if protocol == "authors" else None, "10": None}
    right = sum(label[reply_of(r)] == r["human_discernable"] for r in kept)
    overall = next(g for g in score["presence"]["groups"] if g["distance"] == "all" and g["split"] == "all")
    assert 0 < len(ambiguous) < len(everyone) and overall["n"] == len(kept)
    assert overall["accuracy"] == pytest.approx(right / len(kept))
    if protocol == "authors":
        assert sum(score["ambiguous_dropped"].values()) == len(ambiguous)
        for split, split_rows in rows.items():
            assert score["ambiguous_dropped"].get(split, 0) == sum(reply_of(r) == "10" for r in split_rows)
    # `score syndor` reads eval's predictions file back and scores it with the same code.
    predictions = results_dir(out) / f"{'syndor' if protocol == 'authors' else 'syndor-project'}.predictions.jsonl"
    target = tmp_path / "offline.json"
    assert (
        main(["score", "syndor", str(predictions), "--build", str(out), "--out", str(target), "--protocol", protocol])
        == 0
    )
    offline = json.loads(target.read_text())
    assert offline["presence"] == score["presence"] and offline["ambiguous_dropped"] == score["ambiguous_dropped"]
    assert offline["problems"] == [] and offline["action"]["groups"] == score["action"]["groups"]


def test_the_judge_scores_synd_action_answers_per_distance(tmp_path: Path) -> None:
    """The model says "walking" to every action item; the judge gives 1 when that is the reference action."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())

    def judge(prompt: str, attempt: int) -> tuple:
        assert "names the same action as the reference" in prompt
        return ("ok", "1" if "Reference answer: walking\n" in prompt else "0")

    with ScriptedModel(lambda p, a: ("ok", "walking" if p != HPC_PROMPT else "1")) as server, ScriptedModel(judge) as j:
        assert run_eval(out, "syndor", server.base_url, "--judge-model", "judge", "--judge-base-url", j.base_url) == 0
    rows = [
        r
        for split in release.SPLITS
        for r in release.read_jsonl(out / "syndor" / "index" / "action_recognition" / f"{split}.jsonl")
    ]
    judged = result(out, "syndor")["action_judge"]
    assert judged["judged"] == len(rows) and judged["overall"] == pytest.approx(
        sum(r["action"] == "walking" for r in rows) / len(rows)
    )
    for distance in {r["radius"] for r in rows}:
        mine = [r for r in rows if r["radius"] == distance]
        assert judged["per_group"][f"{distance:.1f}"] == pytest.approx(
            sum(r["action"] == "walking" for r in mine) / len(mine)
        )
    assert "Reference answer: stepping over something\n" in "".join(j.requests)  # the action phrase, not its slug


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("1", 1),
        (" 1 ", 1),
        ("1.", 1),
        ("**1**", 1),
        ("0", 0),
        ("No.", 0),
        ("There is not a person", 0),
        ("Yes, not clearly", 1),
        ("I cannot tell", AMBIGUOUS),
        ("10", AMBIGUOUS),
        ("1 or 0", AMBIGUOUS),
        ("2", AMBIGUOUS),
        (None, AMBIGUOUS),
    ],
)
def test_authors_presence_reads_replies_as_the_synd_harness(reply: str | None, expected: int) -> None:
    """The evaluator and the stand-alone copy the lmms-eval export ships (it imports nothing of the project)
    read every reply alike."""
    from benchfoundry.benchmarks.syndor.harnesses.lmms_eval_utils import presence_label

    assert authors_presence(reply) == expected
    assert presence_label(reply) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("a", "A"),
        ("The answer is B.\nC", "C"),
        ("C\nThe answer is B.", "B"),
        ("A person on the left", "A"),  # the authors' reading: the article counts
        ("(d) back", "D"),
        ("front-left", None),
        ("", None),
        ("E", None),
    ],
)
def test_viewspatial_letter_is_the_first_standalone_letter_of_the_last_line(reply: str, expected: str | None) -> None:
    assert viewspatial_letter(reply) == expected


def odi_build(out: Path) -> list[dict]:
    """Two closed items (four options, yes/no) and three open ones on one panorama."""
    (out / "odi").mkdir(parents=True)
    Image.new("RGB", (64, 32), (90, 90, 90)).save(out / "odi" / "pano.jpg")
    rows = [
        {"id": "q1", "task": "OA", "form": "closed", "question": "What colour is the chair on my left?"},
        {"id": "q2", "task": "existence", "form": "closed", "question": "Is there a lamp around me?"},
        {"id": "q3", "task": "OA", "form": "open", "question": "What colour is the chair on my left?"},
        {"id": "q4", "task": "counting", "form": "open", "question": "How many chairs are there?"},
        {"id": "q5", "task": "EVO", "form": "open", "question": "Where is the door?"},
    ]
    options = [["blue", "red", "green", "white"], ["no", "yes"], [], [], []]
    answers = ["green", "yes", "green", "3", "behind me"]
    items = [
        {**r, "options": o, "answer": a, "image": "pano.jpg", "instance_ids": [], "source": "template", "verified": 0}
        for r, o, a in zip(rows, options, answers)
    ]
    (out / "odi" / "ODI-Bench.json").write_text(json.dumps(items))
    return items


def test_odi_closed_items_are_lettered_and_a_yes_no_item_is_asked_for_yes_or_no(tmp_path: Path) -> None:
    odi_build(tmp_path)
    closed, yes_no, *open_ = odi_items(tmp_path)
    assert closed.options == ("A. blue", "B. red", "C. green", "D. white") and closed.answer == "C"
    assert yes_no.yes_no and yes_no.answer == "B" and not closed.yes_no
    assert all(not i.options for i in open_) and open_[1].answer == "3"
    with ScriptedModel(lambda p, a: ("ok", "Yes." if "lamp" in p else "C")) as server:
        assert run_eval(tmp_path, "odi", server.base_url) == 0
    prompts = {b["messages"][0]["content"][-1]["text"] for b in server.bodies}
    assert "Is there a lamp around me?\nAnswer yes or no." in prompts
    assert any("C. green" in p for p in prompts)
    score = result(tmp_path, "odi")
    assert score["overall"] == 1.0 and score["n"] == 2 and score["open"] is None and score["open_items"] == 3
    predictions = results_dir(tmp_path) / "odi.predictions.jsonl"
    assert main(["score", "odi", str(predictions), "--build", str(tmp_path), "--out", str(tmp_path / "s.json")]) == 0
    offline = json.loads((tmp_path / "s.json").read_text())
    assert offline["overall"] == 1.0 and offline["n"] == 2 and offline["spatial"] == score["spatial"]


def test_open_items_get_the_judges_scores_cached_and_named(tmp_path: Path) -> None:
    """The model answers two of three open items right; the judge gives 1 when the model's answer is the
    reference, and sees each task's rubric."""
    items = odi_build(tmp_path)
    answers = {"What colour is the chair on my left?": "green", "How many chairs are there?": "three"}
    answers["Where is the door?"] = "in front of me"

    def model(prompt: str, attempt: int) -> tuple:
        return ("ok", answers.get(prompt, "C"))

    def judge(prompt: str, attempt: int) -> tuple:
        reference = prompt.split("Reference answer: ")[1].split("\n")[0]
        reply = prompt.split("Model's answer: ")[1].split("\n")[0]
        same = reply == reference or (reference, reply) == ("3", "three")
        return ("ok", "Score: 1" if same else "0")

    with ScriptedModel(model) as server, ScriptedModel(judge) as grader:
        flags = ("--judge-model", "org/judge", "--judge-base-url", grader.base_url)
        assert run_eval(tmp_path, "odi", server.base_url, *flags) == 0
        assert run_eval(tmp_path, "odi", server.base_url, *flags) == 0
        assert sum(grader.requests.values()) == 3  # the rerun asked the judge nothing
    score = result(tmp_path, "odi")
    open_ = [i for i in items if i["form"] == "open"]
    assert score["open"]["overall"] == pytest.approx(2 / len(open_)) and score["open"]["judged"] == 3
    assert score["open"]["per_task"] == {"EVO": 0.0, "OA": 1.0, "counting": 1.0}
    assert score["judge"]["model"] == "org/judge" and score["judge"]["base_url"] == grader.base_url
    assert len(score["judge"]["rubrics_sha256"]) == 64
    assert any("gives the reference's number" in p for p in grader.requests)
    verdicts = (results_dir(tmp_path) / "odi.judge.jsonl").read_text().splitlines()
    assert [json.loads(v)["score"] for v in verdicts] == [1, 1, 0]


def test_the_random_baseline_answers_odi_closed_items_only(tmp_path: Path) -> None:
    odi_build(tmp_path)
    assert run_eval(tmp_path, "odi", None, model="random") == 0
    rows = [
        json.loads(x)
        for x in (tmp_path / "report" / "eval" / "random" / "odi.predictions.jsonl").read_text().splitlines()
    ]
    assert rows[0]["prediction"] in "ABCD" and rows[1]["prediction"] in ("yes", "no")
    assert [r["prediction"] for r in rows[2:]] == [None, None, None]
    score = result(tmp_path, "odi", model="random")
    assert score["failed_items"] == 0 and score["invalid"] == 0 and score["open"] is None


def test_the_random_baseline_runs_on_syndor(tmp_path: Path) -> None:
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())
    # The action replies are action names: the scorer embeds them with the shipped MiniLM.
    assert run_eval(out, "syndor", None, model="random") == 0
    score = result(out, "syndor", model="random")
    truth = [
        release.answer(r, "human_detection")
        for split in release.SPLITS
        for r in release.read_jsonl(out / "syndor" / "index" / "human_detection" / f"{split}.jsonl")
    ]
    overall = next(g for g in score["presence"]["groups"] if g["distance"] == "all" and g["split"] == "all")
    assert overall["n"] == len(truth) and score["ambiguous_dropped"] == {}
    assert score["action"]["groups"] and all(g["n_invalid"] == 0 for g in score["action"]["groups"])
    assert score["action"]["protocol"] == "authors"  # E5 against the released action, no prefix
    assert score["protocol"] == "authors" and score["embedding_model"]["prefix"] == ""


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


def test_an_output_folder_under_a_file_is_refused_before_anything_is_sent(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path, n=2)
    (tmp_path / "report").write_text("not a folder")
    with ScriptedModel(lambda p, a: ("ok", "A")) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url) == 2
        assert sum(server.requests.values()) == 0
    assert str(tmp_path / "report") in capsys.readouterr().err


def test_a_benchmark_without_an_evaluation_hook_is_evaluated_the_generic_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default `Evaluation`: the generic prompt and reading, accuracy over the closed items, every free-form
    item judged under `open`, the random baseline silent on free-form items, a per-task table on the page."""
    monkeypatch.setattr(hooks, "hook", lambda name, field: None)
    evaluation = hooks.evaluation_of("viewspatial")
    assert type(evaluation) is hooks.Evaluation and evaluation.options is None and evaluation.score_flags == ()
    closed = EvalItem("c1", "count", "How many?", (), ("A. one", "B. two"), "B")
    free = EvalItem("o1", "why", "Why?", (), answer="because")
    items = [closed, free]
    assert evaluation.prompt_text(closed, "authors") == "How many?\nA. one\nB. two\n" + MC_INSTRUCTION
    assert evaluation.request(free, "authors") == [{"role": "user", "content": "Why?"}]
    assert evaluation.judged(items) == [free] and evaluation.judge_groups([free]) is None
    assert evaluation.judge_scores(None, items) == {} and evaluation.judge_scores({"n": 1}, items) == {"open": {"n": 1}}
    rows = [{"id": "c1", "prediction": "B"}, {"id": "o1", "prediction": "because"}]
    score = evaluation.score(tmp_path, items, rows, "authors", tmp_path, "toy")
    assert score["overall"] == 1.0 and score["n"] == 1 and score["per_task"] == {"count": 1.0}
    assert not any(tmp_path.iterdir())
    replies = [r["prediction"] for r in random_rows(items, evaluation.random_answerer(items, "authors"), 0)]
    assert replies[0] in ("A", "B") and replies[1] is None
    with pytest.raises(ValueError, match="no way of asking of its own"):
        evaluation.ask_variant(None, items, "full", None, "authors")  # type: ignore[arg-type]
    result = {"model": "m", "bench": "toy", "protocol": "authors", "per_task": {"count": 0.5}, "overall": 0.5}
    assert "<td>50.00</td><td>50.00</td>" in evaluation.report_section([result])


@pytest.mark.parametrize(
    "record",
    [
        {
            "status": "failed",
            "benchmarks": {"viewspatial": {"status": "failed", "detail": "coco: 2 of 2 splits failed"}},
        },
        {"status": "interrupted", "benchmarks": {}},
    ],
)
def test_a_release_the_build_recorded_as_failed_is_neither_evaluated_nor_exported(
    tmp_path_factory: pytest.TempPathFactory, record: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a failed or stopped benchmark left on disk looks like a release; eval and export refuse it, naming
    the build record; once the record says built, both read it."""
    import json

    from benchfoundry.cli.main import main

    tmp_dir = tmp_path_factory.mktemp("failed")
    build = tmp_dir / "build"
    viewspatial_build(build)
    (build / "build.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"build\.json: .*(failed \(coco|interrupted before viewspatial)"):
        load_items("viewspatial", build)
    assert main(["eval", "viewspatial", "--build", str(build), "--model", "random"]) == 2
    assert main(["export", "hf", "--build", str(build), "--to", str(tmp_dir / "x"), "--benchmark", "viewspatial"]) == 2
    assert capsys.readouterr().err.count("build.json") >= 2
    (build / "build.json").write_text(
        json.dumps({"status": "finished", "benchmarks": {"viewspatial": {"status": "built"}}})
    )
    assert len(load_items("viewspatial", build)) == 24


def test_the_hf_card_names_the_build_not_its_folder(tmp_path: Path) -> None:
    """The same build exported from two roots gives the same dataset card: its name and config hash, never the
    build's absolute path."""
    import json
    import shutil

    from benchfoundry.export.formats import export

    first = tmp_path / "one" / "build"
    viewspatial_build(first)
    record = {"name": "regen-2026", "config_hash": "ab" * 32, "status": "finished", "benchmarks": {}}
    (first / "build.json").write_text(json.dumps(record))
    second = tmp_path / "two" / "elsewhere"
    shutil.copytree(first, second)
    cards = []
    for build in (first, second):
        export("hf", "viewspatial", build, build.parent / "export")
        cards.append((build.parent / "export" / "hf" / "viewspatial" / "README.md").read_text())
    assert cards[0] == cards[1]
    assert "regen-2026" in cards[0] and record["config_hash"][:12] in cards[0] and str(tmp_path) not in cards[0]
