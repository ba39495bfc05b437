"""A render spec's hash does not depend on where the output root lives (issue 31): the same config built into two
folders gives the same hashes."""

from __future__ import annotations

from pathlib import Path

from benchfoundry.benchmarks.odi.scenes import synthetic_panoramas as sp
from benchfoundry.configs.loader import load_config
from benchfoundry.core.seeding import item_seed


def panorama_hashes(root: Path, texture: int = 0) -> dict[str, str]:
    config = load_config(None, [f"person.textures.ids=[{texture}]"])
    people = sp.prepare_people(config.person, root / "odi" / "panoramas" / "_people", config.seed)
    settings = config.odi.synthetic
    hashes = {}
    for name in sp.SCENES:
        work = root / "_render" / name
        spec, truth = sp.render_spec(
            sp.scene_named(name),
            people,
            settings,
            item_seed(config.seed, "odi.synthetic", name),
            work / "panorama.png",
            work / "instances.npy",
        )
        hashes[name] = sp.scene_spec_hash(spec, truth)
    return hashes


def test_synthetic_panoramas_hash_the_same_in_two_folders(tmp_path: Path) -> None:
    first = panorama_hashes(tmp_path / "here")
    assert panorama_hashes(tmp_path / "elsewhere" / "deeper") == first
    other_person = panorama_hashes(tmp_path / "third", texture=1)
    assert any(other_person[name] != first[name] for name in first)  # the content still counts
