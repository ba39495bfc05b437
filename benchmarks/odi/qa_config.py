"""Config of ODI-Bench's descriptions, consistency filter, QA, budget and review (docs/design/odi.md §2)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from benchfoundry.configs.base import Section
from benchfoundry.configs.model import ModelEndpoint

#: Categories of the synthetic scenes, asked for when `odi.classes` is not set.
DEFAULT_CLASSES = [
    "person",
    "sofa",
    "chair",
    "table",
    "lamp",
    "television",
    "bookshelf",
    "potted plant",
    "vase",
    "ball",
    "sign",
    "car",
    "bench",
    "trash can",
    "tree",
    "fire hydrant",
    "street lamp",
    "box",
    "rug",
    "manhole cover",
]
#: Those that stand on the floor (the default of `odi.qa.floor_classes`): their floor contact point gives a position.
FLOOR_CLASSES = [c for c in DEFAULT_CLASSES if c not in ("television", "vase", "sign")]


class BudgetConfig(Section):
    """How many questions a panorama gives (each asked closed and open), chosen among the candidates."""

    per_panorama: int = Field(2, ge=1, description="questions per panorama when `total` is null")
    per_task: int = Field(1, ge=1, description="questions of one task per panorama, at most")
    total: int | None = Field(
        None,
        ge=1,
        description="questions of the whole build, spread over the panoramas (the paper: 4,254 QA over 2,000: "
        "254 panoramas give 3, the rest 2); a panorama short of candidates passes its share on; null: per_panorama "
        "each",
    )

    def planned(self, panoramas: int) -> int:
        """The questions the budget asks of `panoramas` panoramas (fewer when candidates run short)."""
        return self.total if self.total is not None else self.per_panorama * panoramas


class OdiQaConfig(Section):
    """Who writes descriptions, questions and distractors, how answers are measured, which items are kept."""

    renamed_keys = ("odi.qa", {"release_unverified": "odi.qa.release_unreviewed"})

    backend: Literal["template", "openai"] = Field(
        "template", description="template: offline, from known facts; openai: the model endpoints below"
    )
    describer: ModelEndpoint = ModelEndpoint(model="Qwen2.5-VL-72B-Instruct")
    writer: ModelEndpoint = Field(
        ModelEndpoint(model="gpt-4o"), description="writes questions and distractors from the QA and the panorama"
    )
    describe_prompt: str = (
        "Look at the object in the centre of this image. Reply with JSON only: "
        '{"object": "what it is, in one or two words", "description": "one sentence", '
        '"colour": "its main colour or null", "material": "its material or null", '
        '"text": "the text written on it, exactly, or null", '
        '"person": null, or for a person {"clothing": "what they wear", "action": "what they are doing, one or two '
        'words", "holding": "what they hold, or null"}}'
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
    camera_height_m: float = Field(
        1.6, gt=0, description="the camera above a flat floor (hand-held or tripod); scales every distance"
    )
    floor_classes: list[str] = Field(
        default_factory=lambda: list(FLOOR_CLASSES),
        description="classes whose lowest point touches the floor: only they get a position",
    )
    min_depression_deg: float = Field(
        5.0, gt=0, lt=90, description="a floor contact point must lie this far below the horizon (else no position)"
    )
    margin_deg: float = Field(7.5, ge=0, description="no direction question this close to a label boundary")
    near_margin: float = Field(
        0.25, ge=0, description="a nearest/farthest answer is this much (relative) nearer/farther than the others"
    )
    size_margin: float = Field(0.25, ge=0, description="an apparent-size answer differs by this ratio at least")
    model_image_width: int = Field(
        1024, ge=64, le=8192, description="width of the panorama sent with question and distractor requests, px"
    )
    budget: BudgetConfig = BudgetConfig()
    release_unreviewed: bool = Field(False, description="release undecided items too, as verified: false")

    @field_validator("describe_prompt")
    @classmethod
    def _class_not_told(cls, value: str) -> str:
        if "{category}" in value:
            raise ValueError("the describer is not told the detector's class: remove {category} from the prompt")
        return value
