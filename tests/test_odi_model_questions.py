"""ODI-Bench questions from a language model: checked proposals, seeded options, malformed replies named."""

from __future__ import annotations

import json

import pytest
from model_server import ScriptedModel

from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.tasks.common.model_client import ModelClient
from benchfoundry.tasks.odi.model_questions import model_items, qa_request

GOOD = {
    "task": "OA",
    "question": "What colour is the sofa in front of me?",
    "answer": "blue",
    "distractors": ["red", "green", "white"],
}


def test_a_reply_through_the_client_becomes_checked_items(tmp_path) -> None:
    proposals = [
        GOOD,
        {**GOOD, "task": "EVO"},
        {**GOOD, "distractors": ["red", "red", "white"]},
        {**GOOD, "distractors": ["light blue", "green", "white"]},
        {"task": "OCR", "question": "?"},
        {"task": "counting", "question": "How many chairs are around me?", "answer": 2, "distractors": [1, 3, 4]},
    ]
    reply = "Here you go:\n```json\n" + json.dumps(proposals) + "\n```"
    with ScriptedModel(lambda p, a: ("ok", reply)) as server:
        endpoint = ModelEndpoint(base_url=server.base_url, model="llm", api_key_env=None)
        with ModelClient(endpoint, tmp_path) as client:
            described = [("sofa", 0.0, "a blue fabric sofa"), ("chair", 95.0, "a red chair")]
            text = client.chat(qa_request(described, 5)).text
    prompt = server.bodies[0]["messages"][0]["content"]
    assert "- sofa (in front of me): a blue fabric sofa" in prompt and "- chair (on my right): a red chair" in prompt
    items, problems = model_items(text, "room", "odi/panoramas/room.png", seed=1)
    closed = [i for i in items if i["form"] == "closed"]
    assert [i["answer"] for i in closed] == ["blue", "2"]
    assert all(
        sorted(i["options"])
        == sorted(
            [
                i["answer"],
                *next([str(d) for d in p["distractors"]] for p in proposals if str(p.get("answer")) == i["answer"]),
            ]
        )
        for i in closed
    )
    assert all(i["source"] == "model" and not i["verified"] for i in items) and len(items) == 4
    assert [p.split(": ", 2)[1] for p in problems] == ["proposal 1", "proposal 2", "proposal 3", "proposal 4"]
    assert "not one of" in problems[0] and "repeat" in problems[1] and "contains the answer" in problems[2]
    again, _ = model_items(text, "room", "odi/panoramas/room.png", seed=1)
    assert again == items


@pytest.mark.parametrize("reply", ["I cannot help with that.", '{"task": "OA"}', "[1, 2"])
def test_a_reply_that_is_not_a_json_list_is_one_problem(reply: str) -> None:
    items, problems = model_items(reply, "room", "x.png", seed=0)
    assert items == [] and len(problems) == 1 and problems[0].startswith("room: the QA reply is not a JSON list")
