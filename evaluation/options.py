"""A benchmark's own options of `benchfoundry eval`: a way of asking its items that only it offers (its evaluation
hook's `options`, evaluation/hooks.py), its variant chosen by one flag of `eval`, tuned by others and by its section
of the evaluation config (`--eval-config`).

`eval` offers every registered benchmark's options (each one's flags on its parser, each one's section in its
config) and asks a benchmark's items its own way when the benchmark's variant is not the baseline; every result
records each one's variant under its `key`, the evaluation page shows it, and the baseline runs are those with
every variant at its baseline.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, create_model

from benchfoundry.configs.base import Section
from benchfoundry.configs.evaluation import EvaluationConfig
from benchfoundry.core.plugins import PluginError
from benchfoundry.pipeline.benchmarks import hook, names
from benchfoundry.pipeline.commands import Arg, model_from_flags


@dataclass(frozen=True)
class EvalOptions:
    """A benchmark's own way of asking: its variants, the flags that choose and tune them, and its config section."""

    title: str  # its name, in errors and the evaluation page's column
    key: str  # its section of the evaluation config, and the field of a result that records its variant
    config: type[Section]  # its section's model
    variant: Arg  # the flag choosing the variant: its `choices`, the baseline (its `default`) first
    name_part: str  # a variant's results are named `<benchmark>-<name_part>-<variant>`
    flags: tuple[Arg, ...] = ()  # flags each overriding the field of its section that its `dest` names
    blind: str | None = None  # why a variant does not go with `--blind`; None: it does

    @property
    def flag(self) -> str:
        """The flag choosing the variant."""
        return self.variant.names[0]

    @property
    def baseline(self) -> str:
        """The variant that asks the generic way."""
        return str(self.variant.options["default"])

    @property
    def variants(self) -> tuple[str, ...]:
        """Every variant, the baseline first."""
        return tuple(self.variant.options["choices"])

    def chosen(self, args: argparse.Namespace) -> str:
        """The variant `eval`'s arguments choose."""
        return str(getattr(args, self.variant.dest))

    def recorded(self, result: Mapping[str, Any]) -> str:
        """The variant a result ran (the baseline for a result that does not say)."""
        return str(result.get(self.key, self.baseline))

    def run_name(self, variant: str) -> str | None:
        """The part of a run's name that says its variant: None for the baseline."""
        return None if variant == self.baseline else f"{self.name_part}-{variant}"


def offered() -> list[tuple[EvalOptions, tuple[str, ...]]]:
    """Every registered benchmark's own options, once each, with the names of the benchmarks that offer them, in build
    order; PluginError when two different options take one key."""
    found: dict[str, tuple[EvalOptions, tuple[str, ...]]] = {}
    for name in names():
        options = getattr(hook(name, "evaluation"), "options", None)
        if options is None:
            continue
        known, owners = found.get(options.key, (options, ()))
        if known is not options:
            raise PluginError(
                f"benchmarks {owners[0]!r} and {name!r} offer different evaluation options {options.key!r}"
            )
        found[options.key] = (options, (*owners, name))
    return list(found.values())


def config_model() -> type[EvaluationConfig]:
    """The evaluation config's model: EvaluationConfig with each offered options' section under its key."""
    sections: dict[str, Any] = {o.key: (o.config, Field(default_factory=o.config)) for o, _ in offered()}
    return create_model("EvaluationConfig", __base__=EvaluationConfig, **sections) if sections else EvaluationConfig


def with_flags(config: EvaluationConfig, args: argparse.Namespace) -> EvaluationConfig:
    """`config` with each offered section's fields overridden by the flags `args` gives; ValueError naming the flag
    of a bad value."""
    for options, _ in offered():
        given = {a.dest: getattr(args, a.dest) for a in options.flags if getattr(args, a.dest) is not None}
        if given:
            section = getattr(config, options.key)
            flags = {a.dest: a.names[0] for a in options.flags}
            setattr(config, options.key, model_from_flags(options.config, flags, {**section.model_dump(), **given}))
    return config
