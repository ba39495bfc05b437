"""Loading a build config: a YAML file or a preset by name, `--set a.b.c=value` overrides, validation with clear
errors, and a top-level `scale` (0 < f <= 1) that shrinks every benchmark's counts by its `scale` hook."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.sections import known_sections, scaled_sections
from benchfoundry.core.bounded_read import loads_yaml, read_text

M = TypeVar("M", bound=BaseModel)

#: The top-level key of a fraction of a preset's counts (`--set scale=0.1`).
SCALE_KEY = "scale"
#: A number in exponent form that YAML 1.1 reads as text (`1e-3`, `5E-2`).
_EXPONENT = re.compile(r"[+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")
#: The presets (`smoke.yaml`, `syndorbench.yaml`, …): package data beside this module.
PRESET_DIR = Path(__file__).resolve().parent


class ConfigError(ValueError):
    """A config that cannot be used; the message names the file and the dotted field path."""


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def config_path(name_or_path: str | Path) -> Path:
    """A config file by path, or a preset by bare name (`smoke` → the shipped `smoke.yaml`); a bare name that is a
    folder here (a build's `--out smoke`) still names the preset, since a config is a file."""
    path = Path(name_or_path)
    if path.is_file() or path.suffix or len(path.parts) != 1:
        return path
    preset = PRESET_DIR / f"{path.name}.yaml"
    if preset.is_file():
        return preset
    if path.exists():
        return path
    raise ConfigError(f"{name_or_path}: no such config file, nor a preset name ({', '.join(preset_names())})")


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "<root>"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short_text(text: str, limit: int = 80) -> str:
    """`text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _overrides_for(where: str, overridden: Iterable[str]) -> list[str]:
    """The `--set` keys that touched this field: the field itself, a section above it or keys below it."""
    return [
        key
        for key in overridden
        if key == where or where.startswith(key + ".") or key.startswith(where + ".") or where == "<root>"
    ]


#: The bad fields an invalid config's error lists (a file that is not a config at all, e.g. a system file read
#: as YAML, would be quoted a line per key); the rest are counted.
MAX_ERROR_FIELDS = 10


def format_validation_error(err: ValidationError, source: str, overridden: Iterable[str] = ()) -> str:
    """One line per bad field, at most `MAX_ERROR_FIELDS` (then how many more): its dotted path (cut short), the
    reason, the value, and the `--set` that gave it, if any."""
    overridden = list(overridden)
    lines = [f"{source}: invalid config"]
    errors = err.errors()
    for item in errors[:MAX_ERROR_FIELDS]:
        where = _short_text(_dotted(item["loc"]))
        reason = (
            "unknown key" if item["type"] == "extra_forbidden" else f"{item['msg']} (got {_short(item.get('input'))})"
        )
        keys = _overrides_for(where, overridden)
        lines.append(f"  {where}: {reason}" + (f" [from --set {', '.join(keys)}]" if keys else ""))
    if len(errors) > MAX_ERROR_FIELDS:
        lines.append(f"  … and {len(errors) - MAX_ERROR_FIELDS} more")
    return "\n".join(lines)


def parse_override(text: str) -> tuple[list[str], Any]:
    """`a.b.c=value` → (["a", "b", "c"], value), the value read as a YAML scalar or list."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {text[:80]!r}: expected KEY.PATH=VALUE")
    value = loads_yaml(raw, f"--set {key.strip()}", error=ConfigError) if raw.strip() else ""
    return key.strip().split("."), value


def apply_override(data: dict[str, Any], path: list[str], value: Any) -> None:
    node = data
    for depth, part in enumerate(path[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"--set {'.'.join(path)}: {'.'.join(path[: depth + 1])} is not a section")
        node = child
    node[path[-1]] = value


def load_config(path: str | Path | None, overrides: Iterable[str] = ()) -> BuildConfig:
    """Read YAML, a file or a preset by name (or start from the defaults when `path` is None), apply
    overrides, validate."""
    if path is not None:
        path = config_path(path)
    source = str(path) if path is not None else "<defaults>"
    data: dict[str, Any] = {}
    if path is not None:
        try:
            text = read_text(path, what="config", error=ConfigError)
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read config: {exc.strerror}") from exc
        loaded = loads_yaml(text, source, error=ConfigError)
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"{source}: the top level must be a mapping")
        data = loaded or {}
    overridden = []
    for text in overrides:
        path_parts, value = parse_override(text)
        apply_override(data, path_parts, value)
        overridden.append(".".join(path_parts))
    fraction = scale_of(data.pop(SCALE_KEY, 1), source)
    try:
        config = BuildConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err, source, overridden)) from None
    return config if fraction == 1 else scaled(config, fraction, source)


def load_model(model: type[M], path: str | None, what: str) -> M:
    """`model` from a YAML file of its fields (bounded in size and depth: a deep one is one line, not a
    RecursionError), else its defaults; ValueError naming the file (and `what` it holds when it is unreadable)."""
    if path is None:
        return model()
    try:
        data = loads_yaml(read_text(path), str(path)) or {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValueError(
            f"{path}: " + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        ) from None


def scale_of(value: Any, source: str) -> float:
    """A config's `scale`: a number in (0, 1], an exponent without a dot included (`1e-3`, which YAML 1.1 reads
    as text); a ConfigError naming it otherwise."""
    if isinstance(value, str) and _EXPONENT.fullmatch(value.strip()):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ConfigError(f"{source}: {SCALE_KEY}: {_short(value)} is not a fraction in (0, 1]")
    return float(value)


def scaled(config: BuildConfig, fraction: float, source: str) -> BuildConfig:
    """The config with every benchmark's counts times `fraction` (its `scale` hook, configs/sections.py). The
    result holds the scaled counts and no `scale`, so that the config a build records loads to itself."""
    data = config_dict(config)
    blocks = {name: config.section(name) for name in known_sections()}
    try:
        for name, section in scaled_sections(blocks, fraction).items():
            data[name] = section.model_dump(mode="json")
        return BuildConfig.model_validate(data)
    except (ValidationError, ValueError) as err:
        text = format_validation_error(err, source) if isinstance(err, ValidationError) else str(err)
        raise ConfigError(f"{SCALE_KEY} {fraction:g}: {text}") from None


def config_dict(config: BuildConfig) -> dict[str, Any]:
    return config.model_dump(mode="json")


def config_hash(config: BuildConfig) -> str:
    """SHA-256 of the resolved config, canonical JSON (sorted keys)."""
    canonical = json.dumps(config_dict(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
