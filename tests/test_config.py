"""Config loading: YAML, overrides, and errors that name the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchfoundry.configs.loader import ConfigError, config_hash, load_config
from benchfoundry.pipeline.benchmarks import names

PRESETS = Path(__file__).resolve().parent.parent / "configs"
CONFIGS = sorted(PRESETS.glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_validate(path: Path) -> None:
    load_config(path)


#: Each preset named for one benchmark (its name holds the benchmark's, e.g. `odibench`, `rehearsal-odi`).
NAMED_FOR_ONE = {
    path: next(name for name in names() if name in path.stem)
    for path in CONFIGS
    if sum(name in path.stem for name in names()) == 1
}


def test_every_benchmark_has_presets_named_for_it() -> None:
    assert set(NAMED_FOR_ONE.values()) == set(names())


@pytest.mark.parametrize("path", sorted(NAMED_FOR_ONE), ids=lambda p: p.name)
def test_a_preset_named_for_one_benchmark_builds_that_one_only(path: Path) -> None:
    config = load_config(path)
    assert [name for name in names() if config.section(name).enabled] == [NAMED_FOR_ONE[path]]


def test_unknown_key_names_dotted_path_and_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nsyndor:\n  camera:\n    focal_length: 3\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert "syndor.camera.focal_length" in str(err.value)
    assert str(bad) in str(err.value)


def test_bad_value_names_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("runner:\n  max_workers: zero\n")
    with pytest.raises(ConfigError, match=r"runner\.max_workers"):
        load_config(bad)


def test_override_sets_nested_value_and_changes_hash() -> None:
    base = load_config(None)
    changed = load_config(None, ["seed=7", "syndor.camera.focal_mm=4.0"])
    assert changed.seed == 7
    assert changed.syndor.camera.spec().focal_mm == 4.0
    assert config_hash(changed) != config_hash(base)
    assert config_hash(load_config(None, ["seed=7", "syndor.camera.focal_mm=4.0"])) == config_hash(changed)


def test_override_of_unknown_key_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"syndor\.nope"):
        load_config(None, ["syndor.nope=1"])


def test_override_without_equals_is_rejected() -> None:
    with pytest.raises(ConfigError, match="KEY.PATH=VALUE"):
        load_config(None, ["seed"])


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="missing.yaml"):
        load_config(tmp_path / "missing.yaml")


def test_unknown_camera_preset_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"syndor\.camera"):
        load_config(None, ["syndor.camera.preset=webcam"])


@pytest.mark.parametrize("ppm", ["0", "-25", ".inf"])
def test_zone_pixel_density_must_be_positive_and_finite(ppm: str) -> None:
    with pytest.raises(ConfigError, match=r"syndor\.zones_ppm\.near"):
        load_config(None, [f"syndor.zones_ppm={{near: {ppm}, far: 25}}"])


def test_positive_zone_pixel_density_is_kept() -> None:
    assert load_config(None, ["syndor.zones_ppm={near: 0.5}"]).syndor.zones_ppm == {"near": 0.5}


@pytest.mark.parametrize("field", ["sun_elevation_deg", "exposure"])
def test_daylight_rejects_an_unknown_time_of_day_by_name(field: str) -> None:
    with pytest.raises(ConfigError, match=rf"syndor\.lighting\.day\.{field}.*'nite'"):
        load_config(None, [f"syndor.lighting.day.{field}={{morning: 1, noon: 2, evening: 3, nite: 4}}"])


def test_daylight_still_needs_every_time_of_day() -> None:
    with pytest.raises(ConfigError, match=r"syndor\.lighting\.day\.exposure.*evening"):
        load_config(None, ["syndor.lighting.day.exposure={morning: 1, noon: 2}"])


def test_smplitex_textures_without_an_official_smpl_model_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"person: .*textures\.smplitex_dir needs body\.model_path"):
        load_config(None, ["person.textures.smplitex_dir=/data/smplitex"])
    config = load_config(Path(__file__).parents[1] / "configs" / "syndorbench.yaml")  # official SMPL + UVs + SMPLitex
    assert config.person.textures.smplitex_dir is not None and config.person.body.model_type == "smpl"


def test_a_folder_named_like_a_preset_does_not_shadow_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make demo OUT=smoke` leaves a folder `./smoke`: `build smoke` then read the folder as the config and
    failed with "not a regular file"; a file of that name is still read as the config it is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smoke").mkdir()
    assert config_hash(load_config("smoke")) == config_hash(load_config(PRESETS / "smoke.yaml"))
    (tmp_path / "smoke").rmdir()
    (tmp_path / "smoke").write_text("seed: 7\n")
    assert load_config("smoke").seed == 7
