"""The benchmark registry: one descriptor (core/descriptor.Benchmark) per benchmark, read by the build, `--plan`,
evaluation, export, the report's links and the command line, which never name a benchmark themselves.

A benchmark is a package of its own that declares its descriptor in the `benchfoundry.benchmarks` entry point
group of its metadata (DEVELOPING.md, "How to add a benchmark"); the three built-ins are declared so in
pyproject.toml. The group is read once, by configs/sections.py (`descriptors`), where configs/ can use it too: the
config sections and this registry come from one reading. `register` adds one in this process only (tests). What is
heavy (the flow, the readers) is named by a "package.module:attribute" string inside the benchmark's own
package, imported by `hook` when used (a field that names a module to copy, `lmms_eval_utils` and
`vlmevalkit_dataset`, is read as it is), so that reading the registry imports no flow, no Prefect and no stage.
"""

from __future__ import annotations

from typing import Any

from benchfoundry.configs import sections
from benchfoundry.core import plugins
from benchfoundry.core.descriptor import Benchmark

_ADDED: dict[str, Benchmark] = {}


def _declared() -> dict[str, Benchmark]:
    """The declared descriptors by name (configs/sections.descriptors: read and checked once)."""
    return {descriptor.name: descriptor for descriptor in sections.descriptors()}


def register(descriptor: Benchmark) -> None:
    """Add a benchmark in this process, with its config section; its name must be new and not reserved
    (`configs/sections.check_name`, through `register_section`)."""
    known = {**_declared(), **_ADDED}
    if known.get(descriptor.name, descriptor) != descriptor:
        raise ValueError(f"benchmark {descriptor.name!r} is already registered")
    sections.register_section(descriptor.name, plugins.resolve(descriptor.config))
    _ADDED[descriptor.name] = descriptor


def unregister(name: str) -> None:
    """Remove a benchmark added with `register` (a declared one stays)."""
    if name in _declared():
        raise ValueError(f"{name!r} is declared by an installed package")
    if _ADDED.pop(name, None) is not None:
        sections.unregister_section(name)


def registered() -> tuple[Benchmark, ...]:
    """Every benchmark, in build order."""
    return tuple(sorted({**_declared(), **_ADDED}.values(), key=lambda d: (d.order, d.name)))


def names() -> tuple[str, ...]:
    return tuple(d.name for d in registered())


def get(name: str) -> Benchmark:
    for descriptor in registered():
        if descriptor.name == name:
            return descriptor
    raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")


def hook(name: str, field: str) -> Any:
    """The object a benchmark's hook names, or None when it declares none."""
    dotted = getattr(get(name), field)
    return None if dotted is None else plugins.resolve(dotted)
