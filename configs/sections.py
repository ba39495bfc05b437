"""Config sections added at run time: a benchmark registered outside the built-ins (tasks/common/benchmarks.py)
names its section here, and `BuildConfig` then accepts and validates a block of that name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from benchfoundry.configs.base import Section

_SECTIONS: dict[str, type[Section]] = {}


def register_section(name: str, model: type[Section]) -> None:
    """Accept a top-level block `name` in a build config, validated by `model`."""
    if _SECTIONS.get(name, model) is not model:
        raise ValueError(f"config section {name!r} is already registered")
    _SECTIONS[name] = model


def unregister_section(name: str) -> None:
    _SECTIONS.pop(name, None)


def section_model(name: str) -> type[Section] | None:
    """The model of a registered section, or None."""
    return _SECTIONS.get(name)


def validate_sections(blocks: Mapping[str, Any], title: str) -> dict[str, Section]:
    """Each block validated by its registered section's model; an unregistered name is an unknown key, a bad
    value an error at its dotted path, as pydantic reports a field's."""
    errors: list[Any] = []
    valid: dict[str, Section] = {}
    for name, block in blocks.items():
        model = _SECTIONS.get(name)
        if model is None:
            errors.append({"type": "extra_forbidden", "loc": (name,), "input": block})
            continue
        try:
            valid[name] = block if isinstance(block, model) else model.model_validate(block)
        except ValidationError as exc:
            errors += [{**e, "loc": (name, *e["loc"])} for e in exc.errors(include_url=False)]
    if errors:
        raise ValidationError.from_exception_data(title, errors)
    return valid
