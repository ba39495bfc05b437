"""Config of SynDORBench's actions and their poses (docs/design/syndor.md §2): built-in joint rotations, or AMASS
sequences chosen by BABEL labels."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.assets.actions import ACTIONS
from benchfoundry.configs.base import Section
from benchfoundry.configs.model import EmbeddingConfig, ModelEndpoint

#: The released action names (docs/design/syndor.md §2): the action-recognition references, as a person would say them.
ACTION_NAMES: dict[str, str] = {
    "kicking": "kicking",
    "sneak": "sneak",
    "stepping_over": "stepping over something",
    "walking": "walking",
    "cover_face": "cover face with hands",
    "choking": "choking",
    "dodging": "dodging",
    "guard_up": "guard up",
}

#: BABEL words per action (matched case-insensitively on proc_label and act_cat).
DEFAULT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "kicking": ("kick", "kicking", "kicks"),
    "sneak": ("sneak", "sneaking", "tiptoe", "tip toe", "creep", "creeping"),
    "stepping_over": ("step over", "stepping over", "steps over", "step over obstacle"),
    "walking": ("walk", "walking", "walks"),
    "cover_face": ("cover face", "covering face", "covers face", "hands on face", "touching face", "face palm"),
    "choking": ("choke", "choking", "chokes", "grab throat", "hands on throat", "strangle"),
    "dodging": ("dodge", "dodging", "dodges", "evade", "duck", "ducking"),
    "guard_up": ("guard", "guard up", "fighting stance", "boxing stance", "defensive stance", "fight"),
}

#: What each action's BABEL labels are compared with (the wording of docs/design/syndor.md §2): its released name, but
#: dodging is "dodge or duck": all-MiniLM-L6-v2 scores BABEL's category "dodge" 0.47 against "dodging" (under the 0.5
#: floor), 0.79 against it.
DEFAULT_PHRASES: dict[str, str] = {**ACTION_NAMES, "dodging": "dodge or duck"}
#: The LLM rating of one candidate (the second stage of docs/design/syndor.md §2); `{action}` and `{label}` are filled
#: in.
DEFAULT_RATING_PROMPT = (
    "Rate from 0 to 10 how well this motion-capture label matches the action. Reply with the number only.\n"
    "Action: {action}\nLabel: {label}"
)


def _normalise(action: str) -> str:
    return action.strip().lower().replace(" ", "_").replace("-", "_")


class PoseConfig(Section):
    """Actions: built-in joint rotations, or AMASS sequences selected by BABEL labels.

    Action slugs: kicking, sneak, stepping_over, walking, cover_face, choking, dodging, guard_up.
    With `amass_root` and `babel_root` set, BABEL-labelled stretches of AMASS sequences are chosen per action
    (docs/design/syndor.md §2): `selection: embedding` ranks them by the cosine similarity of their label texts to the
    action's `phrases` (the `embedding` model), keeps the `top_k` at or above `min_similarity` and, with
    `rerank` set, re-orders those by the model's rating (`rating_prompt`); `selection: synonyms` (also the
    fallback when the embedding model cannot be loaded) keeps the labels that match an action's synonyms
    (case-insensitive, whole words, on `proc_label` or an `act_cat` entry).
    """

    actions: list[str] = Field(default_factory=lambda: list(ACTIONS))
    amass_root: Path | None = None
    babel_root: Path | None = None
    selection: Literal["embedding", "synonyms"] = "embedding"
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig, description="the shipped MiniLM by default")
    phrases: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_PHRASES), description="the text each action's labels are compared with"
    )
    min_similarity: float = Field(0.5, ge=-1, le=1, description="cosine floor of a candidate label")
    top_k: int = Field(20, ge=1, description="candidate stretches kept per action, best first")
    rerank: ModelEndpoint | None = Field(None, description="a model that rates the candidates; None: similarity only")
    rating_prompt: str = DEFAULT_RATING_PROMPT
    synonyms: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in DEFAULT_SYNONYMS.items()})
    max_frames_per_action: int = Field(4, ge=1, description="AMASS frames kept per action, evenly spread")
    builtin_variants: int = Field(
        1, ge=1, le=64, description="poses per action without AMASS: the built-in pose and fixed variations of it"
    )

    @field_validator("actions")
    @classmethod
    def _known_actions(cls, actions: list[str]) -> list[str]:
        names = [_normalise(a) for a in actions]
        unknown = [a for a in names if a not in ACTIONS]
        if unknown:
            raise ValueError(f"unknown action(s) {unknown}; known: {list(ACTIONS)}")
        if not names:
            raise ValueError(f"poses.actions is empty; known: {list(ACTIONS)}")
        if len(set(names)) != len(names):
            raise ValueError(f"poses.actions lists an action twice: {names}")
        return names

    @field_validator("synonyms")
    @classmethod
    def _known_synonym_keys(cls, synonyms: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = [a for a in synonyms if a not in ACTIONS]
        if unknown:
            raise ValueError(f"poses.synonyms: unknown action(s) {unknown}; known: {list(ACTIONS)}")
        return {a: [s.strip().lower() for s in words if s.strip()] for a, words in synonyms.items()}

    @field_validator("phrases")
    @classmethod
    def _known_phrase_keys(cls, phrases: dict[str, str]) -> dict[str, str]:
        unknown = [a for a in phrases if a not in ACTIONS]
        if unknown:
            raise ValueError(f"poses.phrases: unknown action(s) {unknown}; known: {list(ACTIONS)}")
        return {a: " ".join(p.split()) for a, p in phrases.items()}

    @field_validator("rating_prompt")
    @classmethod
    def _prompt_fields(cls, prompt: str) -> str:
        try:
            filled = prompt.format(action="\0a", label="\0l")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"poses.rating_prompt must format with {{action}} and {{label}} only: {exc}") from None
        if "\0a" not in filled or "\0l" not in filled:
            raise ValueError("poses.rating_prompt must contain {action} and {label}")
        return prompt

    @model_validator(mode="after")
    def _amass_pair(self) -> PoseConfig:
        if (self.amass_root is None) != (self.babel_root is None):
            raise ValueError("poses.amass_root and poses.babel_root go together: set both or neither")
        if self.amass_root is not None:
            missing = [a for a in self.actions if not self.synonyms.get(a)]
            if missing:
                raise ValueError(f"poses.synonyms has no words for action(s) {missing}")
            unphrased = [a for a in self.actions if not self.phrases.get(a)]
            if self.selection == "embedding" and unphrased:
                raise ValueError(f"poses.phrases has no text for action(s) {unphrased}")
        return self

    @property
    def uses_amass(self) -> bool:
        return self.amass_root is not None

    @property
    def poses_per_action(self) -> int:
        """The poses each action is asked for: `max_frames_per_action` AMASS frames, else `builtin_variants`."""
        return self.max_frames_per_action if self.uses_amass else self.builtin_variants
