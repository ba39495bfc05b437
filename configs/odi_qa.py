"""Config of ODI-Bench's descriptions, consistency filter, QA and review (DESIGN §3.2)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from benchfoundry.configs.base import Section, refuse_renamed
from benchfoundry.configs.model import ModelEndpoint


class OdiQaConfig(Section):
    """Who writes descriptions and questions, and which instances and items are kept and released."""

    backend: Literal["template", "openai"] = Field(
        "template", description="template: offline, from known facts; openai: the model endpoints below"
    )
    describer: ModelEndpoint = ModelEndpoint(model="Qwen2.5-VL-72B-Instruct")
    describe_prompt: str = (
        "Describe the {category} in this image in one sentence: its colour, material and any "
        "text on it. Name the object."
    )
    synonyms: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "television": ["tv", "monitor", "screen"],
            "sofa": ["couch", "settee"],
            "potted plant": ["plant", "houseplant"],
            "trash can": ["bin", "dustbin"],
            "person": ["man", "woman", "people", "human", "child", "boy", "girl"],
            "rug": ["carpet", "mat"],
            "sign": ["board", "signboard", "placard"],
        },
        description="words that count as naming a class in a description",
    )
    margin_deg: float = Field(7.5, ge=0, description="no spatial question this close to a label boundary")
    release_unreviewed: bool = Field(False, description="release undecided items too, as verified: false")

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        return refuse_renamed("odi.qa", data, {"release_unverified": "odi.qa.release_unreviewed"})
