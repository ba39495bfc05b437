"""ODI-Bench's paper-scale dress rehearsal (issue 46): the `rehearsal-odi` preset plans the paper's 2,000
panoramas and 4,254 questions (8,508 items) on embedded defaults, its `scale` shrinks both in proportion with the
tasks kept balanced, its 2,000 synthetic panoramas are seeded variants of the scenes, and a build at f = 0.002
releases what it planned."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from stand_in_library import box_asset

from benchfoundry.assets.asset_library import AssetLibrary
from benchfoundry.benchmarks.odi.build_plan import plan_config, planned_items
from benchfoundry.benchmarks.odi.identity import CATEGORIES
from benchfoundry.benchmarks.odi.scale import scaled
from benchfoundry.benchmarks.odi.scenes import synthetic_panoramas as sp
from benchfoundry.benchmarks.odi.stages.questions.budget import choose
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import config_hash, load_config
from benchfoundry.configs.sections import scaled_count

PRESET = "rehearsal-odi"
#: The paper's counts (ODI-Bench: 2,000 panoramas, 4,254 QA, each asked closed and open).
PANORAMAS, QUESTIONS = 2000, 4254


def test_the_preset_plans_the_papers_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["build", PRESET, "--plan"]) == 0
    printed = capsys.readouterr().out
    assert "odi: 2,000 panoramas (synthetic, rendered first), annotator truth" in printed
    assert "QA: 8,508 items (4,254 questions, each closed and open" in printed
    assert "syndor: not built" in printed and "viewspatial: not built" in printed
    config = load_config(PRESET)
    assert not config.syndor.enabled and not config.viewspatial.enabled
    odi = config.odi
    # embedded defaults only: no given panorama, no weights, no model endpoint
    assert odi.panorama_root is None and odi.chosen_annotator == "truth" and not odi.groundedsam.configured
    assert odi.qa.backend == "template" and odi.synthetic.asset_library is None
    assert (odi.synthetic.width, odi.synthetic.width // 2) == (512, 256)


def test_the_2000_panoramas_are_distinct_variants_of_both_scenes_in_turn() -> None:
    names = load_config(PRESET).odi.synthetic.names
    assert len(names) == len(set(names)) == PANORAMAS
    kinds = Counter(sp.split_name(n) for n in names)
    assert kinds == {("living_room", True): 1000, ("courtyard", True): 1000}


def pool(names: list[str]) -> dict[str, list[Candidate]]:
    """Every panorama offers three candidates of every task (two kinds, yes and no answers)."""
    return {
        f"{name}.png": [
            Candidate(task, f"k{k % 2}", f"{task}:{k}", "?", "yes" if k % 2 else "no", ("yes", "no"), (), {}, "x")
            for task in CATEGORIES
            for k in range(3)
        ]
        for name in names
    }


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.5])
def test_a_scaled_plan_is_proportional_and_its_tasks_balanced(fraction: float) -> None:
    config = load_config(PRESET, [f"scale={fraction}"])
    plan = plan_config(config)
    assert abs(plan["panoramas"] - PANORAMAS * fraction) <= 0.5
    assert abs(plan["questions"] - QUESTIONS * fraction) <= 0.5 + QUESTIONS / PANORAMAS / 2
    assert plan["items"] == 2 * plan["questions"] == planned_items(config)
    # the full build's 2 or 3 questions a panorama
    assert 2 <= plan["questions"] / plan["panoramas"] <= 3
    # the budget's choice over panoramas that offer every task: counted here, task by task and panorama by panorama
    chosen = choose(pool(config.odi.synthetic.names), config.odi.qa.budget, config.seed)
    per_task = Counter(c.task for cs in chosen.values() for c in cs)
    assert sum(per_task.values()) == plan["questions"] and set(per_task) == set(CATEGORIES)
    assert max(per_task.values()) - min(per_task.values()) <= 1
    assert {len(cs) for cs in chosen.values()} <= {2, 3}
    assert all(len({c.task for c in cs}) == len(cs) for cs in chosen.values())


def test_the_scaled_config_holds_no_scale_and_reloads_to_itself(tmp_path: Path) -> None:
    config = load_config(PRESET, ["scale=0.01"])
    dumped = config.model_dump(mode="json")
    assert "scale" not in dumped
    assert dumped["odi"]["synthetic"]["count"] == 20 and dumped["odi"]["qa"]["budget"]["total"] == 43
    path = tmp_path / "scaled.yaml"
    path.write_text(yaml.safe_dump(dumped))
    again = load_config(path)
    assert again == config and config_hash(again) == config_hash(config)
    assert plan_config(again) == plan_config(config)


def test_the_hook_rounds_half_up_keeps_one_panorama_and_a_budget_they_can_give() -> None:
    odi = load_config(PRESET).odi
    tiny = scaled(odi, 0.0001)  # 0.2 panoramas: one, with one panorama's share of the questions, 2.127
    assert tiny.synthetic.count == 1 and tiny.qa.budget.total == 2
    assert (scaled_count(5, 0.5), scaled_count(7, 0.5), scaled_count(3, 0.1)) == (3, 4, 1)
    assert scaled(odi, 0.002).synthetic.count == 4 and scaled(odi, 0.002).qa.budget.total == 9  # 8.508
    assert scaled(odi, 1.0) == odi
    # a budget above what the panoramas can give (per_task of each of the ten tasks) is cut to it
    greedy = load_config(PRESET, ["odi.qa.budget.total=100000"]).odi
    assert scaled(greedy, 0.001).qa.budget.total == 2 * len(CATEGORIES)
    # the scenes listed (no count): the first of them; a folder of given panoramas: the budget alone
    smoke = load_config("smoke").odi
    half = scaled(smoke, 0.5)
    assert half.synthetic.scenes == smoke.synthetic.scenes[:1] and half.qa.budget.total == 20
    licensed = load_config("odibench").odi
    tenth = scaled(licensed, 0.1)
    assert tenth.panorama_root == licensed.panorama_root and tenth.qa.budget.total == 425


def centres(scene: sp.PanoramaScene) -> np.ndarray:
    """Where every part, person and piece of structure stands, in one order."""
    points = [p.center for t in scene.things for p in t.parts]
    points += [(t.person[0], t.person[1], 0.0) for t in scene.things if t.person is not None]
    points += [p.center for _, p in scene.structure]
    return np.array(points)


@pytest.mark.parametrize("name", ["living_room-0000", "courtyard-0001", "living_room-1998", "courtyard-1999"])
def test_a_variant_moves_rigidly_about_the_camera(name: str) -> None:
    varied = sp.scene_named(name, seed=0)
    assert varied.name == name and varied.camera_height_m == sp.scene_named(sp.split_name(name)[0]).camera_height_m
    assert {t.text for t in varied.things if t.text} <= set(sp.SIGN_WORDS[sp.split_name(name)[0]])
    posed = sp.posed(varied, seed=0)
    before, after = centres(varied), centres(posed)
    assert np.allclose(after[:, 2], before[:, 2])
    pairs = list(itertools.combinations(range(len(before)), 2))
    for i, j in pairs:
        assert math.isclose(
            np.linalg.norm(after[i] - after[j]), np.linalg.norm(before[i] - before[j]), rel_tol=1e-9, abs_tol=1e-9
        )
    assert np.allclose(np.hypot(after[:, 0], after[:, 1]), np.hypot(before[:, 0], before[:, 1]))
    # every object still faces the camera as its drawn twin did: its yaw turned with it
    for drawn, moved in zip(varied.things, posed.things, strict=True):
        for a, b in zip(drawn.parts, moved.parts, strict=True):
            if math.isclose(a.yaw_deg, sp.facing_yaw(*a.center[:2]), abs_tol=1e-6):
                assert math.isclose(math.cos(math.radians(b.yaw_deg - sp.facing_yaw(*b.center[:2]))), 1.0, abs_tol=1e-9)


def footprints(scene: sp.PanoramaScene) -> tuple[list[np.ndarray], np.ndarray]:
    """The four floor corners of every library object's footprint (off-centre boxes), and where the people stand."""
    rectangles = []
    for t in scene.things:
        if t.asset is not None:
            a = t.asset
            lo, hi = np.array(a.asset.bbox_min[:2]) * a.scale, np.array(a.asset.bbox_max[:2]) * a.scale
            c, s = math.cos(math.radians(a.yaw_deg)), math.sin(math.radians(a.yaw_deg))
            corners = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
            rectangles.append(
                np.array([(a.location[0] + c * x - s * y, a.location[1] + s * x + c * y) for x, y in corners])
            )
    return rectangles, np.array([t.person[:2] for t in scene.things if t.person is not None] + [(0.0, 0.0)])


@pytest.mark.parametrize("front", [None, 90.0])
@pytest.mark.parametrize("name", ["living_room-0002", "living_room-0004", "courtyard-0003"])
def test_a_furnished_variant_moves_its_library_objects_rigidly(name: str, front: float | None) -> None:
    """Each footprint keeps its distances (corner by corner, as a set: a mirror reorders them) to the people, the
    camera and every other footprint's corners."""
    library = AssetLibrary(
        Path("/lib"),
        (
            box_asset("chair", 0, (0.6, 0.5, 0.9), 0.2, front),
            box_asset("sofa", 0, (2.0, 0.9, 0.85), -0.1, front),
            box_asset("bench", 0, (1.6, 0.5, 0.5), 0.3, front),
        ),
    )
    furnished = sp.furnish(sp.scene_named(name, seed=0), library, seed=0)
    (before, fixed), (after, moved) = footprints(furnished), footprints(sp.posed(furnished, seed=0))
    assert before and len(after) == len(before)
    assert np.allclose(
        np.linalg.norm(fixed[:, None] - fixed[None], axis=2), np.linalg.norm(moved[:, None] - moved[None], axis=2)
    )

    def seen(rectangles: list[np.ndarray], points: np.ndarray) -> list[np.ndarray]:
        """Each corner's distances to the people, the camera and every footprint's centre, corners in row order."""
        refs = np.concatenate([points, [r.mean(axis=0) for r in rectangles]])
        rows = [np.linalg.norm(r[:, None] - refs[None], axis=2) for r in rectangles]
        return [m[np.lexsort(np.round(m, 6).T[::-1])] for m in rows]

    for a, b in zip(seen(before, fixed), seen(after, moved), strict=True):
        assert np.allclose(a, b, atol=1e-9)


@pytest.mark.parametrize("name", ["living_room-0002", "living_room-0010", "courtyard-0001", "courtyard-0003"])
def test_a_furnished_variant_turned_or_mirrored_keeps_each_front_towards_the_camera(name: str) -> None:
    """Objects whose fronts are off −Y (as Infinigen's, +X) and that no arrangement rule turns (a plant, a box, a
    bench) face the camera in the furnished scene and still do once the variant is turned and, for some, mirrored."""
    library = AssetLibrary(
        Path("/lib"),
        (
            box_asset("potted plant", 0, (0.6, 0.5, 0.9), 0.2, front_deg=90.0),
            box_asset("box", 0, (0.5, 0.7, 0.5), -0.1, front_deg=-90.0),
            box_asset("bench", 0, (1.6, 0.5, 0.5), 0.3, front_deg=180.0),
        ),
    )
    furnished = sp.furnish(sp.scene_named(name, seed=0), library, seed=0)
    posed = sp.posed(furnished, seed=0)
    for scene in (furnished, posed):
        placed = [t.asset for t in scene.things if t.asset is not None]
        assert placed
        for a in placed:
            t = math.radians(a.yaw_deg + a.asset.front_deg)
            x, y = a.footprint_center
            assert np.array([math.sin(t), -math.cos(t)]) @ -np.array([x, y]) / math.hypot(x, y) == pytest.approx(1.0)


def test_variants_differ_by_name_and_seed_and_the_drawn_scenes_stay() -> None:
    def look(scene: sp.PanoramaScene) -> tuple:
        scene = sp.posed(scene, seed=0)
        return tuple((t.category, t.colour, t.text, t.person, tuple(p.center for p in t.parts)) for t in scene.things)

    looks = {look(sp.scene_named(f"courtyard-{k:04d}", seed=0)) for k in range(1, 40, 2)}
    assert len(looks) == 20
    assert look(sp.scene_named("courtyard-0001", seed=0)) != look(sp.scene_named("courtyard-0001", seed=1))
    assert sp.scene_named("courtyard-0001", seed=3) == sp.scene_named("courtyard-0001", seed=3)
    for drawn in sp.SCENES:
        assert sp.posed(sp.scene_named(drawn), seed=0) == sp.scene_named(drawn) == sp.SCENES[drawn]()


@pytest.mark.blender
def test_a_build_at_a_fifth_of_a_percent_releases_what_it_planned(prefect_server: None, tmp_path: Path) -> None:
    from benchfoundry.flows.build import build

    config = load_config(PRESET, ["scale=0.002"])
    assert plan_config(config)["panoramas"] == 4
    out = tmp_path / "out"
    build(config, str(out), ["odi"])
    record = json.loads((out / "build.json").read_text())["benchmarks"]["odi"]
    assert record["status"] == "built", record["detail"]
    odi = out / "odi"
    released = json.loads((odi / "ODI-Bench.json").read_text())
    assert len(released) == planned_items(config) == 18
    assert all((odi / item["image"]).is_file() for item in released)
    assert len(pd.read_parquet(odi / "hf" / "ODI-Bench.parquet")) == len(released)
    assert (odi / "review" / "review.csv").is_file()
    assert Counter(item["form"] for item in released) == {"closed": 9, "open": 9}


def test_a_room_variant_is_laid_with_one_of_the_floors_and_nothing_else_of_its_structure_changes() -> None:
    drawn = sp.scene_named("living_room")
    drawn_floor = dict(drawn.structure)["floor"]
    floors = []
    for k in range(0, 60, 2):
        variant = sp.scene_named(f"living_room-{k:04d}", seed=0)
        changed = [n for (n, p), (_, q) in zip(variant.structure, drawn.structure, strict=True) if p != q]
        floor = dict(variant.structure)["floor"]
        assert changed in ([], ["floor"])
        assert (floor.center, floor.size) == (drawn_floor.center, drawn_floor.size)
        floors.append((floor.surface, *floor.look))
    # every finish is laid, each in a fair share of 30 rooms (a fixed draw: seed 0)
    assert set(floors) == set(sp.FLOOR_FINISHES)
    assert min(floors.count(f) for f in sp.FLOOR_FINISHES) >= 5
    courtyard = sp.scene_named("courtyard")
    assert sp.scene_named("courtyard-0001", seed=0).structure == courtyard.structure
