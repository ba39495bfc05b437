"""How an exported dataset was built, as its card and Croissant metadata tell it: read from the build's build.json
(benchfoundry version, config hash, seed, the export license, the licensed assets its config used), never a path."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchfoundry.configs.export import ExportConfig, LicensedAsset
from benchfoundry.core.output_root import RECORD_NAME, read_build_record

#: What a recorded version may look like to be quoted (a version string, not prose).
VERSION = re.compile(r"[0-9A-Za-z.+!_-]{1,40}")
HASH = re.compile(r"[0-9a-f]{64}")
#: The date of a recorded time (core/buildinfo.utc_now).
DATE = re.compile(r"(\d{4}-\d{2}-\d{2})T")


@dataclass(frozen=True)
class Provenance:
    """The build behind an export; None where build.json records nothing usable."""

    name: str | None
    version: str | None  # the benchfoundry that built it
    config_hash: str | None
    seed: int | None
    finished: str | None  # the day the build finished, YYYY-MM-DD
    license: str
    assets: tuple[LicensedAsset, ...] | None  # the licensed assets its config used; None: no config recorded


def recorded(config: Mapping[str, Any], key: str) -> Any:
    """The value of a dotted key in a recorded config, None where any part is missing."""
    value: Any = config
    for part in key.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _license(config: Mapping[str, Any], source: Path) -> str:
    try:
        return ExportConfig.model_validate(config.get("export") or {}).license
    except ValidationError as exc:
        reason = exc.errors()[0]["msg"] if exc.errors() else "invalid"
        raise ValueError(f"{source}: config export.license: {reason}") from None


def _name(record: Mapping[str, Any]) -> str | None:
    """The build's name as the card prints it: one line of at most 80 characters, no backtick, control or format
    character (NUL, escape, a bidi override)."""
    text = "".join(c if unicodedata.category(c) not in ("Cc", "Cf") else " " for c in str(record.get("name", "")))
    name = " ".join(text.replace("`", "'").split())[:80]
    return name or None


def provenance(build: str | Path, assets: tuple[LicensedAsset, ...]) -> Provenance:
    """What build.json says of the build (an unreadable one says nothing), the export license from its config (the
    default without one; ValueError naming build.json when it is not a license id), and which of `assets` its config
    set."""
    try:
        record = read_build_record(build)
    except ValueError:
        record = {}
    config = record.get("config")
    config = config if isinstance(config, Mapping) else None
    versions = record.get("versions")
    version = versions.get("benchfoundry") if isinstance(versions, Mapping) else None
    digest, seed = record.get("config_hash"), recorded(config or {}, "seed")
    finished = DATE.match(str(record.get("finished", "")))
    return Provenance(
        name=_name(record),
        version=version if isinstance(version, str) and VERSION.fullmatch(version) else None,
        config_hash=digest if isinstance(digest, str) and HASH.fullmatch(digest) else None,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        finished=finished.group(1) if finished else None,
        license=_license(config or {}, Path(build) / RECORD_NAME),
        assets=None
        if config is None
        else tuple(a for a in assets if recorded(config, a.key) not in (None, "", [], {})),
    )
