"""Config of SynDORBench's QA export, scoring and report (docs/design/syndor.md §5).

The prompts are fixed by the benchmark and live here as constants, not as config.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from benchfoundry.configs.base import Section, Share
from benchfoundry.configs.model import EmbeddingConfig

#: Human-presence classification prompt, verbatim from docs/design/syndor.md §5.
HPC_PROMPT = (
    "Respond only with 1 or 0. Respond with 1 if a person is visible in the image, and 0 if not. "
    "Is there a person visible in the image?"
)
#: Action recognition prompt, verbatim from docs/design/syndor.md §5.
ACTION_PROMPT = "Respond only with the name of the action. What action is the person performing in the image?"

#: Task name (the folder under `index/`) → its prompt.
TASK_PROMPTS: dict[str, str] = {
    "human_detection": HPC_PROMPT,
    "action_recognition": ACTION_PROMPT,
}


class QaConfig(Section):
    """QA task files, scoring and the build report."""

    evening_group: Literal["day", "night"] = Field(
        "night",
        description="which raw-image split the evening frames join: night, as the authors' task index has it "
        "(their NV images always go to nv)",
    )
    nv_label: Literal["raw", "own"] = Field(
        "raw",
        description="the presence answer of an nv row: raw, the raw frame's label, as the authors' task index "
        "copies it; own, the night-vision image's own label",
    )
    empty_scene_negatives: bool | None = Field(
        None,
        description="add empty-scene renders (rows with empty_scene true) to human_detection as 0 answers; "
        "None follows syndor.empty_scenes (off for a QaConfig on its own), false keeps them out",
    )
    embedding: EmbeddingConfig = EmbeddingConfig()
    deployable_accuracy: Share = Field(0.8, description="the paper's deployability threshold")
    thumb_px: int = Field(160, ge=16, description="long side of a report thumbnail")
    thumbs_per_cell: int = Field(4, ge=1, description="thumbnails per distance × lighting cell")
    nv_pairs: int = Field(6, ge=0, description="night / night-vision pairs shown in the report")
