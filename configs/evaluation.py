"""`benchfoundry eval`'s own settings (`--eval-config FILE`): the LLM judge's rubrics and scale; a benchmark's own
evaluation options add their section (evaluation/options.py).

Not part of a build config: evaluating a build changes nothing it built.
"""

from __future__ import annotations

from pydantic import Field

from benchfoundry.configs.base import Section

_CLOSE = "Score 1 when the model's answer {what}; score 0 otherwise."

#: One rubric per task the judge scores: each benchmark names the rubric task of its free-form items.
DEFAULT_RUBRICS: dict[str, str] = {
    "OA": _CLOSE.format(what="names the same attribute (colour, material, …) of the same object as the reference"),
    "HA": _CLOSE.format(what="describes the person's attribute or action as the reference does"),
    "existence": _CLOSE.format(what="agrees with the reference on whether the thing is present"),
    "counting": _CLOSE.format(what="gives the reference's number (in digits or words)"),
    "OCR": _CLOSE.format(what="reads the same text as the reference, ignoring case and punctuation"),
    "EVO": _CLOSE.format(what="gives the reference's direction relative to the viewer (front, right, back, left, …)"),
    "AVO": _CLOSE.format(what="gives the reference's direction from the named agent's or viewpoint's perspective"),
    "SS": _CLOSE.format(what="gives the reference's direction from the imagined position and facing"),
    "RD": _CLOSE.format(what="gives the reference's direction of one object relative to the other"),
    "OR": _CLOSE.format(what="reaches the reference's conclusion about the panorama"),
    "action": _CLOSE.format(what="names the same action as the reference, in any wording"),
}
DEFAULT_RUBRIC = _CLOSE.format(what="means the same as the reference answer for this question")


class JudgeConfig(Section):
    """The LLM judge of free-form answers: a rubric per task and the score scale (0 … `scale`)."""

    rubrics: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_RUBRICS))
    default_rubric: str = Field(DEFAULT_RUBRIC, description="for a task without its own rubric")
    scale: int = Field(1, ge=1, description="the judge scores 0 … scale; results are reported as a share of it")
    max_tokens: int = Field(16, ge=1, description="the judge's reply is one number")


class EvaluationConfig(Section):
    """`eval`'s settings: the judge's; `evaluation/options.config_model` adds each benchmark's own section."""

    judge: JudgeConfig = Field(default_factory=JudgeConfig)
