"""The benchmarks' config sections, and the one reader of the registry's entry point group.

Each benchmark declares its descriptor (core/descriptor.Benchmark) in the `benchfoundry.benchmarks` entry point
group; `descriptors` reads the group, once, checks every entry (a name no build config key or build root folder
takes, a Benchmark of its entry's name) and orders them for the build. The registry (pipeline/benchmarks.py) reads
its descriptors from here, since configs/ cannot ask pipeline/; a descriptor's module imports only core/, so reading
the group here closes no import circle. Each descriptor names its section's model, and `BuildConfig` accepts and
validates a block of the benchmark's name with it; `register_section` adds one in this process only (tests)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import ValidationError

from benchfoundry.configs.base import Section
from benchfoundry.core import plugins
from benchfoundry.core.descriptor import Benchmark

_ADDED: dict[str, type[Section]] = {}
#: Names a benchmark cannot take: the build config's own top-level keys (configs/build.BuildConfig's fields and
#: the loader's `scale`) and the build root's own folders (the report, the SLURM jobs' output).
RESERVED_NAMES = frozenset({"name", "seed", "output_root", "runner", "person", "export", "scale", "report", "slurm"})


def check_name(name: str, where: str) -> None:
    """A PluginError naming `where` when `name` is one the build config or the build root already uses."""
    if name in RESERVED_NAMES:
        raise plugins.PluginError(
            f"{where}: benchmark name {name!r} is taken by the build config or the build root "
            f"(reserved: {', '.join(sorted(RESERVED_NAMES))})"
        )


def register_section(name: str, model: type[Section]) -> None:
    """Accept a top-level block `name` in a build config, validated by `model`; a reserved name is refused."""
    check_name(name, "register")
    if known_sections().get(name, model) is not model:
        raise ValueError(f"config section {name!r} is already registered")
    _ADDED[name] = model


def unregister_section(name: str) -> None:
    _ADDED.pop(name, None)


@cache
def descriptors() -> tuple[Benchmark, ...]:
    """The descriptor of every declared benchmark, in build order (its `order`, then its name); read once."""
    found = plugins.load_all(plugins.BENCHMARKS_GROUP)
    for entry, descriptor in found.items():
        check_name(entry, f"{plugins.BENCHMARKS_GROUP}: entry {entry!r}")
        if not isinstance(descriptor, Benchmark) or descriptor.name != entry:
            raise plugins.PluginError(
                f"{plugins.BENCHMARKS_GROUP}: entry {entry!r} is not a Benchmark named {entry!r}: {descriptor!r}"
            )
    return tuple(sorted(found.values(), key=lambda d: (d.order, d.name)))


def known_sections() -> dict[str, type[Section]]:
    """Every benchmark's section: name → model, in build order, those added in this process last."""
    return {**{d.name: plugins.resolve(d.config) for d in descriptors()}, **_ADDED}


def section_model(name: str) -> type[Section] | None:
    """The model of a benchmark's section, or None."""
    return known_sections().get(name)


def validate_sections(blocks: Mapping[str, Any], title: str) -> dict[str, Section]:
    """Every known section, in build order: its block validated by its model, or its defaults when absent; an
    unknown name is an unknown key, a bad value an error at its dotted path, as pydantic reports a field's."""
    models = known_sections()
    unknown = [name for name in blocks if name not in models]
    errors: list[Any] = [{"type": "extra_forbidden", "loc": (name,), "input": blocks[name]} for name in unknown]
    valid: dict[str, Section] = {}
    for name, model in models.items():
        block = blocks.get(name, {})
        try:
            valid[name] = block if isinstance(block, model) else model.model_validate(block)
        except ValidationError as exc:
            errors += [{**e, "loc": (name, *e["loc"])} for e in exc.errors(include_url=False)]
    if errors:
        raise ValidationError.from_exception_data(title, errors)
    return valid


def scaled_sections(sections: Mapping[str, Section], fraction: float) -> dict[str, Section]:
    """Each section with its counts times `fraction` (a config's `scale`), by its benchmark's `scale` hook; a
    section whose benchmark has none is kept as it is."""
    hooks = {d.name: d.scale for d in descriptors()}
    return {
        name: plugins.resolve(hooks[name])(section, fraction) if hooks.get(name) else section
        for name, section in sections.items()
    }


def scaled_count(count: int, fraction: float, least: int = 1) -> int:
    """A count of a build times a config's `scale` for a `scale` hook: rounded half up, at least `least`, never
    more than the count itself."""
    return min(count, max(least, math.floor(count * fraction + 0.5)))
