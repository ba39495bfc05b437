"""Reliability: what a deployment's parameters can do. A `config_path` naming a file that is no config (a system
file) fails the run quoting a bounded excerpt of it, never the file; `overrides` reach config keys only."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchfoundry.configs.loader import MAX_ERROR_FIELDS, ConfigError, load_config
from benchfoundry.flows.build import build_from_config


def _not_a_config(tmp_path: Path) -> Path:
    """A readable file of 400 `name: value` lines, as a system file can be: YAML, a mapping, no config key."""
    path = tmp_path / "system.conf"
    path.write_text("".join(f"setting_{i:03d}: private-value-{i:03d}\n" for i in range(400)))
    return path


def test_a_file_that_is_no_config_is_refused_quoting_a_bounded_excerpt(tmp_path: Path) -> None:
    path = _not_a_config(tmp_path)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    quoted = [i for i in range(400) if f"setting_{i:03d}" in message]
    assert str(path) in message and len(quoted) == MAX_ERROR_FIELDS and "private-value" not in message
    assert f"{400 - MAX_ERROR_FIELDS} more" in message.splitlines()[-1]


@pytest.mark.parametrize(
    "text",
    ["key: [" + "x, " * 50_000, "a: b\n\tc: " + "y" * 100_000, "scale: " + "'" + "z" * 100_000 + "'"],
    ids=["open-list", "tab", "scale"],
)
def test_an_invalid_config_is_quoted_in_one_short_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    (line,) = str(refused.value).splitlines()
    assert line.startswith(str(path)) and len(line) < len(str(path)) + 400


def test_a_deployment_run_on_a_system_file_fails_without_dumping_it(tmp_path: Path, prefect_server: None) -> None:
    """The run's state message (what Prefect's UI and database keep) names the file and quotes at most
    `MAX_ERROR_FIELDS` of its lines."""
    path = _not_a_config(tmp_path)
    state = build_from_config(config_path=str(path), out=str(tmp_path / "out"), return_state=True)
    assert state.is_failed()
    quoted = [i for i in range(400) if f"setting_{i:03d}" in (state.message or "")]
    assert str(path) in state.message and len(quoted) <= MAX_ERROR_FIELDS
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("override", ["out=/etc", "adopt=true", "runner.backend.x=1", "no_such_section.key=1"])
def test_overrides_name_config_keys_only(tmp_path: Path, prefect_server: None, override: str) -> None:
    """`out` and `adopt` are the flow's own parameters, not config keys: an override naming them (or no key of
    the config) fails the run naming the key, before anything is written."""
    state = build_from_config(config_path="smoke", out=str(tmp_path / "out"), overrides=[override], return_state=True)
    assert state.is_failed() and override.split("=")[0].split(".")[0] in (state.message or "")
    assert not (tmp_path / "out").exists()
