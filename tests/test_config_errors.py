"""Config errors name the field, and the `--set` that gave a bad value."""

from __future__ import annotations

import pytest

from benchfoundry.configs.loader import ConfigError, load_config


def test_a_bad_override_is_named_as_the_source_of_the_error(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: 3\n")
    with pytest.raises(ConfigError) as err:
        load_config(path, ["runner.max_workers=0"])
    line = next(x for x in str(err.value).splitlines() if "runner.max_workers" in x)
    assert "[from --set runner.max_workers]" in line
    assert str(err.value).startswith(f"{path}: invalid config")


def test_a_bad_value_from_the_file_is_not_blamed_on_an_override(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("runner:\n  max_workers: 0\n")
    with pytest.raises(ConfigError) as err:
        load_config(path, ["seed=5"])
    assert "runner.max_workers" in str(err.value) and "--set" not in str(err.value)


def test_a_section_level_error_names_the_overrides_below_it_and_stays_short():
    with pytest.raises(ConfigError) as err:
        load_config(None, ["syndor.rig.zones=[bogus]", "seed=1"])
    bad = [x for x in str(err.value).splitlines()[1:] if "syndor" in x]
    assert bad and all("syndor.rig.zones" in x and "seed" not in x.split("[from")[-1] for x in bad)
    assert all(len(x) < 400 for x in bad)


def test_a_config_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=rf"^{path}: not UTF-8 text \(byte 0xe9 at offset 9\)"):
        load_config(path)
