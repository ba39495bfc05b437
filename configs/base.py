"""Shared base of every config model: unknown keys are errors, values are validated on assignment, and no
number is infinite or NaN; and the shared validated types the sections use for their fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

#: A list that must hold at least one value (scenes, lightings, azimuths, …): an empty one builds nothing.
NonEmptyList = Annotated[list[T], Field(min_length=1)]
#: A count of things to make or do: at least 1.
Count = Annotated[int, Field(ge=1)]
#: A number of seconds to wait: at most a day.
Seconds = Annotated[float, Field(ge=0, le=86400)]
#: A field of view or an angular size, degrees: above 0, below 180.
FovDegrees = Annotated[float, Field(gt=0, lt=180)]


class Section(BaseModel):
    """A block of a build config."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False, allow_inf_nan=False)


def refuse_renamed(section: str, data: Any, renamed: Mapping[str, str]) -> Any:
    """For a `model_validator(mode="before")`: a key of an older release is refused with its new path
    (`renamed`: old key in `section` → new dotted path)."""
    if isinstance(data, dict):
        old = [k for k in renamed if k in data]
        if old:
            raise ValueError("; ".join(f"{section}.{k} moved to {renamed[k]}" for k in old))
    return data
