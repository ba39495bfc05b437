"""ODI-Bench descriptions: colour naming, template wording, the class/description rule, a VLM on loopback that is
never told the class, its JSON replies."""

from __future__ import annotations

import numpy as np
import pytest
from model_server import ScriptedModel

from benchfoundry.benchmarks.odi.qa_config import OdiQaConfig
from benchfoundry.benchmarks.odi.stages.questions.descriptions import (
    Description,
    colour_name,
    describe_crops,
    names_class,
    parse_description,
    template_description,
)
from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.pipeline.model_client import ModelClient, ModelError

SYNONYMS = OdiQaConfig().synonyms


@pytest.mark.parametrize(
    ("rgb", "name"),
    [
        ((210, 25, 20), "red"),
        ((20, 60, 180), "blue"),
        ((35, 140, 45), "green"),
        ((250, 250, 245), "white"),
        ((10, 12, 10), "black"),
        ((125, 130, 128), "grey"),
        ((235, 150, 30), "orange"),
    ],
)
def test_colour_name_of_a_noisy_patch(rgb: tuple[int, int, int], name: str) -> None:
    rng = np.random.default_rng(0)
    pixels = np.clip(np.array(rgb) + rng.normal(0, 8, (500, 3)), 0, 255).astype(np.uint8)
    pixels[:40] = 255 - pixels[:40]  # a few outliers (a highlight, the background) do not move the median
    assert colour_name(pixels) == name


def test_template_descriptions() -> None:
    assert template_description("sofa", "blue", "fabric") == "a blue fabric sofa"
    assert template_description("umbrella") == "an umbrella"
    assert template_description("sign", "white", "paper", "EXIT") == 'a white paper sign that reads "EXIT"'


@pytest.mark.parametrize(
    ("category", "description", "agrees"),
    [
        ("sofa", "A blue couch with two cushions.", True),
        ("chair", "Two red chairs by the window", True),
        ("television", "a black TV on a stand", True),
        ("person", "A man in a grey coat", True),
        ("chair", "an armchair-like stool", False),  # "chair" only inside a longer word
        ("lamp", "A yellow vase on the floor", False),
        ("potted plant", "a green potted plant in a pot", True),
    ],
)
def test_a_description_must_name_the_class(category: str, description: str, agrees: bool) -> None:
    assert names_class(category, description, SYNONYMS) is agrees


def test_a_description_object_counts_as_naming_it() -> None:
    assert names_class("sofa", Description(object="couch", sentence="blue, with cushions"), SYNONYMS)
    assert not names_class("bench", Description(object="sofa", sentence="a blue fabric sofa"), SYNONYMS)


def test_crops_are_described_without_the_class_and_a_failure_stays_with_its_crop(tmp_path) -> None:
    replies = iter(
        [
            '```json\n{"object": "couch", "description": "a blue couch", "colour": "blue", "material": "fabric", '
            '"text": null, "person": null}\n```',
            'Sure: {"object": "man", "description": "a man walking", "colour": null, "material": null, "text": "none", '
            '"person": {"clothing": "a red coat", "action": "walking", "holding": "an umbrella"}}',
        ]
    )
    seen = []

    def script(prompt: str, attempt: int) -> tuple:
        seen.append(prompt)
        if len(seen) == 2:
            return ("status", 500, {})
        return ("ok", next(replies))

    crops = [np.full((32, 32, 3), v, np.uint8) for v in (10, 120, 250)]
    endpoint_kw = {"model": "vlm", "api_key_env": None, "max_retries": 0, "backoff_s": 0, "concurrency": 1}
    with ScriptedModel(script) as server:
        endpoint = ModelEndpoint(base_url=server.base_url, **endpoint_kw)
        with ModelClient(endpoint, tmp_path / "cache") as client:
            found = describe_crops(client, crops, OdiQaConfig().describe_prompt)
    assert found[0] == Description("couch", "a blue couch", colour="blue", material="fabric")
    assert isinstance(found[1], ModelError)
    assert found[2] == Description(
        "man", "a man walking", clothing="a red coat", action="walking", holding="an umbrella"
    )
    assert set(seen) == {OdiQaConfig().describe_prompt}  # one prompt for every crop: no class in it
    images = [b["messages"][0]["content"][0]["image_url"]["url"] for b in server.bodies]
    assert all(url.startswith("data:image/jpeg;base64,") for url in images) and len(set(images)) == 3


def test_a_reply_that_is_not_json_is_the_sentence() -> None:
    assert parse_description("A green potted plant.") == Description("", "A green potted plant.")
    assert names_class("potted plant", parse_description("A green potted plant."), SYNONYMS)


def test_a_prompt_that_tells_the_class_is_refused() -> None:
    with pytest.raises(ValueError, match="not told the detector's class"):
        OdiQaConfig(describe_prompt="Describe the {category}.")
