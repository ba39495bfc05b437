"""Plug-ins: the objects a package declares in an entry point group of its metadata (`[project.entry-points]`),
each loaded once, and the "package.module:attribute" strings a plug-in uses to name its parts.

The project's own benchmarks and renderers are declared the same way (pyproject.toml), so a fourth benchmark
installed from another package is found exactly as the built-ins are."""

from __future__ import annotations

import importlib
import re
from functools import cache
from importlib.metadata import entry_points
from typing import Any

#: The descriptors of the benchmarks (core/descriptor.Benchmark), read by configs/sections.descriptors alone.
BENCHMARKS_GROUP = "benchfoundry.benchmarks"
#: Render-spec kind → the function that renders a shard of that kind in the render worker (render/worker.py).
RENDERERS_GROUP = "benchfoundry.renderers"
#: An entry's name: a benchmark's folder under the build root, its config section and command, a render kind.
ENTRY_NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")


class PluginError(ImportError):
    """An entry point that cannot be loaded; the message names the group, the entry and what it points at."""


@cache
def declared(group: str) -> dict[str, str]:
    """Entry name → its "module:attribute", for every installed distribution's entry point in `group`; read once."""
    found: dict[str, str] = {}
    for point in entry_points(group=group):
        if not ENTRY_NAME.fullmatch(point.name):
            raise PluginError(
                f"{group}: entry {point.name[:80]!r} = {point.value[:120]!r}: a name is lower-case letters, digits, "
                "_ and - (one folder, config key and command name), at most 64 characters"
            )
        if found.get(point.name, point.value) != point.value:
            raise PluginError(f"{group}: {point.name!r} is declared twice ({found[point.name]} and {point.value})")
        found[point.name] = point.value
    return found


@cache
def distributions(group: str) -> tuple[str, ...]:
    """The names of the installed distributions that declare an entry in `group` (their versions belong in a
    build's record)."""
    return tuple(sorted({point.dist.name for point in entry_points(group=group) if point.dist is not None}))


def resolve(dotted: str) -> Any:
    """The attribute a "package.module:attribute" string names, its module imported now."""
    module, _, attribute = dotted.partition(":")
    if not module or not attribute:
        raise ValueError(f"{dotted!r} is not 'module:attribute'")
    return getattr(importlib.import_module(module), attribute)


@cache
def load(group: str, name: str) -> Any:
    """The object entry `name` of `group` declares, loaded once; a PluginError naming it when that fails."""
    dotted = declared(group).get(name)
    if dotted is None:
        raise PluginError(f"{group}: no entry {name!r}; declared: {', '.join(sorted(declared(group))) or 'none'}")
    try:
        return resolve(dotted)
    except (Exception, SystemExit) as exc:  # an installed package's import may raise anything, exit included
        why = f"{type(exc).__name__}: {exc}"
        raise PluginError(
            f"{group}: entry {name!r} = {dotted!r} of {distribution_of(group, name)} cannot be loaded: {why}"
        ) from exc


def distribution_of(group: str, name: str) -> str:
    """The distribution that declares entry `name` of `group`, as "the distribution NAME VERSION"."""
    point = next((p for p in entry_points(group=group) if p.name == name), None)
    if point is None or point.dist is None:
        return "an unknown distribution"
    return f"the distribution {point.dist.name} {point.dist.version}"


def load_all(group: str) -> dict[str, Any]:
    """Every entry of `group`, loaded: name → object."""
    return {name: load(group, name) for name in declared(group)}
