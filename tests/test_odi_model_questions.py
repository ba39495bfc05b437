"""The `openai` backend end to end on loopback: a describer that sees the crop and is never told the class, a
writer that gets the panorama with its question request and with every distractor request, checked proposals,
model distractors in the chosen items, and the consistency filter dropping what the describer does not name."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from model_server import ScriptedModel
from odi_scenes import RGB, write_scene

from benchfoundry.benchmarks.odi.config import OdiConfig
from benchfoundry.benchmarks.odi.stages.annotate_stage import STAGE, annotate_batch
from benchfoundry.benchmarks.odi.stages.qa_stage import qa_all
from benchfoundry.benchmarks.odi.stages.questions.model_questions import (
    DISTRACTOR_PROMPT,
    model_candidates,
    model_distractors,
)
from benchfoundry.core.store import StageStore

#: What the scripted describer calls an object of each colour of the room (tests/odi_scenes.py); other colours
#: it calls "a wooden crate", which names no class of the room.
SEEN = {
    "blue": {"object": "couch", "description": "a blue couch", "colour": "blue", "material": "fabric"},
    "orange": {"object": "ball", "description": "an orange ball", "colour": "orange", "material": "rubber"},
    "yellow": {"object": "lamp", "description": "a yellow lamp", "colour": "yellow", "material": "metal"},
    "white": {"object": "sign", "description": "a white sign", "colour": "white", "text": "EXIT"},
}
PROPOSALS = [
    {"task": "OA", "question": "What colour is the couch in front of me?", "answer": "blue",
     "distractors": ["red", "green", "white"]},
    {"task": "EVO", "question": "?", "answer": "front", "distractors": ["left", "right", "back"]},
]  # fmt: skip
WRONG = ["violet", "teal", "beige"]


def centre_colour(url: str) -> str:
    data = base64.b64decode(url.split(",", 1)[1])
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    h, w = bgr.shape[:2]
    rgb = bgr[h // 2, w // 2, ::-1].astype(float)
    return min(RGB, key=lambda name: float(np.linalg.norm(rgb - np.array(RGB[name]))))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, ScriptedModel]:
    tmp = tmp_path_factory.mktemp("model")
    path = write_scene(tmp / "panos", "room", width=1024)
    out = tmp / "out"
    prompt = OdiConfig().qa.describe_prompt
    server_box: list[ScriptedModel] = []

    def script(text: str, attempt: int) -> tuple:
        body = server_box[0].bodies[-1]  # one request at a time (concurrency 1)
        if text == prompt:
            url = body["messages"][0]["content"][0]["image_url"]["url"]
            seen = SEEN.get(centre_colour(url), {"object": "crate", "description": "a wooden crate"})
            return ("ok", json.dumps({**seen, "person": None}))
        if text.startswith("You write questions"):
            return ("ok", "```json\n" + json.dumps(PROPOSALS) + "\n```")
        return ("ok", json.dumps(WRONG))

    with ScriptedModel(script) as server:
        server_box.append(server)
        endpoint = {"base_url": server.base_url, "api_key_env": None, "concurrency": 1, "max_retries": 0}
        odi = OdiConfig(
            panorama_root=tmp / "panos",
            sphere={"face_width": 256, "crop_size": 64},
            qa={
                "backend": "openai",
                "describer": {**endpoint, "model": "vlm"},
                "writer": {**endpoint, "model": "llm"},
                "release_unreviewed": True,
                "budget": {"per_panorama": 30, "per_task": 4},
            },
        )
        (row,) = annotate_batch(str(out), [str(path)], odi)
        manifest = StageStore(out, "odi", STAGE).write_manifest([row["panorama"]])
        result = qa_all(str(out), str(manifest), odi, seed=0)
    return out, result, server


def room_counts(out) -> dict:
    """The QA stage's counts of the one panorama, from its marker."""
    return StageStore(out, "odi", "qa").marker("room.png")["qa"]


def test_the_describer_is_shown_crops_and_never_told_the_class(built) -> None:
    out, result, server = built
    described = [b for b in server.bodies if b["model"] == "vlm"]
    assert len(described) == room_counts(out)["instances"] == result["panorama_totals"]["instances"]
    prompts = {b["messages"][0]["content"][-1]["text"] for b in described}
    assert prompts == {OdiConfig().qa.describe_prompt}  # one text for every crop: no class put in


def test_the_filter_keeps_what_the_describer_names(built) -> None:
    out, result, _ = built
    counts = room_counts(out)
    # The crate-callers are dropped by class; the couch counts as a sofa (a synonym); the ball, lamp, sign stay.
    assert counts["kept"] == 4 and result["dropped_inconsistent_by_class"] == {
        "bookshelf": 1,
        "chair": 1,
        "person": 1,
        "rug": 1,
    }


def test_the_writer_gets_the_panorama_and_its_items_use_model_distractors(built) -> None:
    out, result, server = built
    written = [b for b in server.bodies if b["model"] == "llm"]
    assert all(b["messages"][0]["content"][0]["type"] == "image_url" for b in written)
    items = json.loads((out / "odi" / "ODI-Bench.json").read_text())
    from_model = [i for i in items if i["form"] == "closed" and i["distractors_from"] == "model"]
    assert from_model
    distractor_prompts = [b for b in written if "Correct answer:" in b["messages"][0]["content"][-1]["text"]]
    for item in from_model:
        if item["source"] == "template":
            assert sorted(item["options"]) == sorted([item["answer"], *WRONG])
            asked = DISTRACTOR_PROMPT.format(question=item["question"], answer=item["answer"])
            assert any(b["messages"][0]["content"][-1]["text"] == asked for b in distractor_prompts)
    model_written = [i for i in items if i["source"] == "model"]
    assert {i["task"] for i in model_written} <= {"OA"} and all(i["answer_from"] == "model" for i in model_written)
    assert any("EVO" in p["reason"] and "proposal 1" in p["reason"] for p in result["problems"])
    assert result["usage"]["writer"]["answered"] == len(written)


def test_a_bad_distractor_reply_is_a_reason() -> None:
    assert model_distractors('["a", "b", "c"]', "d") == ("a", "b", "c")
    assert "repeat" in model_distractors('["a", "a", "c"]', "d")
    assert "contains the answer" in model_distractors('["light blue", "b", "c"]', "blue")
    assert "not a JSON list" in model_distractors("no idea", "blue")
    found, problems = model_candidates("[]", "room")
    assert found == [] and problems == []
