"""What the commands share for their flags: config sections built from flags, with a bad value named by its
flag in one line, and argparse types for counts."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def validation_line(exc: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """A ValidationError in one line: `name: reason (got value)` per bad field, the field's flag as its
    name when `names` maps it (pydantic's own dump, with its links, never reaches the user)."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "value"
        name = (names or {}).get(field, field)
        parts.append(f"{name}: {error['msg']} (got {str(error.get('input'))[:60]!r})")
    return "; ".join(parts)


def model_from_flags(model: type[M], flags: Mapping[str, str], values: Mapping[str, Any]) -> M:
    """`model(**values)`, leaving the values that are None to the model's defaults; ValueError naming the
    flag (`flags`: field → flag) of every bad value."""
    try:
        return model(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise ValueError(validation_line(exc, flags)) from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value
