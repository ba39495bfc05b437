"""Omni-CoT through `benchfoundry eval odi --omni-cot {guide,ground,full}`: every step's request, the crop of the
box the model named, refinement falling back to the full view, each step's requests sent once."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from model_server import ScriptedModel
from PIL import Image
from test_eval import result, results_dir, run_eval

from benchfoundry.benchmarks.odi.harnesses.omnicot import direction_words, parse_box, parse_yes

RED_BOX = "0.7, 0.45, 0.8, 0.55"  # the red patch's box, x 0.70–0.80, y 0.45–0.55 of the panorama


def panorama_build(out: Path) -> None:
    """A grey panorama with a red patch and three closed items whose answer is "red" (option C)."""
    odi = out / "odi"
    odi.mkdir(parents=True)
    erp = np.full((256, 512, 3), 128, np.uint8)
    erp[115:141, 358:410] = (220, 20, 20)
    Image.fromarray(erp).save(odi / "pano.png")
    (odi / "ODI-Bench.json").write_text(
        json.dumps(
            [
                {
                    "id": f"q{i}",
                    "task": "EVO" if i == 1 else "OA",
                    "form": "closed",
                    "question": f"What colour is thing {i}?",
                    "options": ["grey", "blue", "red", "green"],
                    "answer": "red",
                    "image": "pano.png",
                }
                for i in (1, 2, 3)
            ]
        )
    )


def thing(prompt: str) -> str:
    return prompt.split("thing ")[1][0]


def script(prompt: str, attempt: int) -> tuple:
    """Describes each view by its direction; answers B first and C after revision; names the red box for
    thing 1, no box for thing 2, the red box for thing 3 but calls that crop irrelevant."""
    if prompt.startswith("This is the view "):
        return ("ok", "desc:" + prompt.split("This is the view ")[1].split(" in a 360")[0])
    if prompt.startswith("To answer the question"):
        return ("ok", "I cannot tell" if thing(prompt) == "2" else RED_BOX)
    if prompt.startswith("This is a close-up"):
        return ("ok", "Yes, it helps." if thing(prompt) == "1" else "No.")
    if "Your previous answer was: B" in prompt:
        return ("ok", "C")
    if prompt.startswith("The panorama around me"):
        return ("ok", "B")
    return ("ok", "A")


def images_of(body: dict) -> list[np.ndarray]:
    content = body["messages"][-1]["content"]
    parts = (
        [p for p in content if isinstance(p, dict) and p["type"] == "image_url"] if isinstance(content, list) else []
    )
    return [
        np.asarray(
            Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).convert("RGB"), float
        )
        for p in parts
    ]


def text_of(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else content[-1]["text"]


def test_the_three_steps_each_switchable_each_request_sent_once(tmp_path: Path) -> None:
    panorama_build(tmp_path)
    flags = ("--concurrency", "2", "--crop-px", "64")
    with ScriptedModel(script) as server:
        assert run_eval(tmp_path, "odi", server.base_url, *flags) == 0
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "guide", *flags) == 0
        after_guide = sum(server.requests.values())
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "full", *flags) == 0
        after_full = sum(server.requests.values())
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "ground", *flags) == 0
        after_ground = sum(server.requests.values())
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "full", *flags) == 0
        assert sum(server.requests.values()) == after_ground
    # baseline 3 + six views described once for the panorama + 3 guided answers
    assert after_guide == 3 + 6 + 3
    # full: 3 groundings, 2 relevance checks (thing 2 has no box), 3 revisions
    assert after_full - after_guide == 3 + 2 + 3
    # ground: only thing 3's revision differs from full's (its crop is kept without the check)
    assert after_ground - after_full == 1
    assert set(server.answered.values()) == {1}

    assert result(tmp_path, "odi")["overall"] == 0.0
    assert result(tmp_path, "odi-omnicot-guide")["overall"] == 0.0
    full = result(tmp_path, "odi-omnicot-full")
    assert full["overall"] == 1.0 and full["omni_cot"] == "full" and full["spatial"] == 1.0

    guided = [b for b in server.bodies if text_of(b).startswith("The panorama around me")]
    for where in ("in front of me", "on my right", "behind me", "on my left", "above me", "below me"):
        assert all(f"desc:{where}" in text_of(b) for b in guided)
    revisions = {
        (thing(text_of(b)), len(images_of(b))): b for b in server.bodies if "Your previous answer was" in text_of(b)
    }
    # thing 1: the panorama and its kept crop, which is the red patch; thing 2: no box, the panorama alone;
    # thing 3: the crop refused by refinement (full) or kept (ground).
    assert set(revisions) == {("1", 2), ("2", 1), ("3", 1), ("3", 2)}
    crop = images_of(revisions[("1", 2)])[1]
    centre = crop[16:48, 16:48].mean(axis=(0, 1))
    assert centre[0] > 180 and centre[1] < 60 and centre[2] < 60
    assert "on my right" in text_of(revisions[("1", 2)])  # the patch is at θ = 90°, the crop tagged so

    rows = [
        json.loads(x) for x in (results_dir(tmp_path) / "odi-omnicot-full.predictions.jsonl").read_text().splitlines()
    ]
    steps = {r["id"]: [t["step"] for t in r["turns"]] for r in rows}
    assert steps["q1"] == ["views", "guided answer", "grounding", "refinement", "revision"]
    assert steps["q2"] == ["views", "guided answer", "grounding", "revision"]
    kept = {r["id"]: next(t["kept"] for t in r["turns"] if t["step"] == "refinement") for r in rows if r["id"] != "q2"}
    assert kept == {"q1": True, "q3": False}

    page = (tmp_path / "report" / "eval" / "index.html").read_text()
    table4 = page.split("ODI-Bench Table 4")[1].split("</table>")[0]
    assert '<tr class="ours"><td class="l">org/scripted</td><td>0.00</td><td>0.00</td><td>100.00</td>' in table4
    table5 = page.split("ODI-Bench Table 5")[1].split("</table>")[0]
    for label in ("baseline (direct answer)", "+ viewpoint guiding", "+ viewpoint guiding + crop grounding (no"):
        assert f"org/scripted: {label}" in table5


@pytest.mark.parametrize(
    ("reply", "box"),
    [
        ("0.1, 0.2, 0.3, 0.4", (0.1, 0.2, 0.3, 0.4)),
        ("[0.9, 0.2, 0.1, 0.4]", (0.9, 0.2, 0.1, 0.4)),  # wraps across ±180°
        ("0.1 0.5 0.3 0.4", None),  # upside down
        ("0.1, 0.2, 1.3, 0.4", None),
        ("no idea", None),
    ],
)
def test_parse_box(reply: str, box: tuple | None) -> None:
    assert parse_box(reply) == box


def test_relevance_and_direction_words() -> None:
    assert parse_yes("Yes.") and not parse_yes("No") and not parse_yes("yes and no") and not parse_yes("maybe")
    assert direction_words(0, 0).startswith("centred in front of me (")
    assert direction_words(-90, 50).startswith("centred on my left and above")
    assert direction_words(179, -45).startswith("centred behind me and below")


def test_an_unreadable_panorama_fails_its_items_and_the_rest_go_on(tmp_path: Path) -> None:
    panorama_build(tmp_path)
    path = tmp_path / "odi" / "ODI-Bench.json"
    items = json.loads(path.read_text())
    items[1]["image"] = "missing.png"
    path.write_text(json.dumps(items))
    with ScriptedModel(script) as server:
        assert run_eval(tmp_path, "odi", server.base_url, "--omni-cot", "full", "--crop-px", "64") == 0
    rows = [
        json.loads(x) for x in (results_dir(tmp_path) / "odi-omnicot-full.predictions.jsonl").read_text().splitlines()
    ]
    assert [r["prediction"] for r in rows] == ["C", None, "C"]
    assert "missing.png" in rows[1]["error"]
    assert result(tmp_path, "odi-omnicot-full")["failed_items"] == 1
