"""Shared base of every config model: unknown keys are errors, values are validated on assignment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A block of a build config."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


def refuse_renamed(section: str, data: Any, renamed: Mapping[str, str]) -> Any:
    """For a `model_validator(mode="before")`: a key of an older release is refused with its new path
    (`renamed`: old key in `section` → new dotted path)."""
    if isinstance(data, dict):
        old = [k for k in renamed if k in data]
        if old:
            raise ValueError("; ".join(f"{section}.{k} moved to {renamed[k]}" for k in old))
    return data
