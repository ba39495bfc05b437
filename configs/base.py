"""Shared base of every config model: unknown keys are errors, values are validated on assignment."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A block of a build config."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)
