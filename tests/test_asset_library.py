"""The asset library's manifest (assets/asset_library.py) and its generation
(benchmarks/odi/scenes/infinigen_assets.py): a strict reader, an atomic and resumable writer, Infinigen's subprocess
contract (with a stand-in for its Python), and one real Infinigen run when its venv exists (`make test-infinigen`)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets.asset_library import (
    MANIFEST_NAME,
    LibraryAsset,
    LibraryError,
    asset_row,
    read_library,
    write_manifest,
)
from benchfoundry.benchmarks.odi.config import ASSET_LIBRARY_FIELD
from benchfoundry.benchmarks.odi.scenes.infinigen_assets import (
    FACTORIES,
    MAX_EXTENT_M,
    MAX_VERTICES,
    AssetJob,
    GenerationError,
    build_library,
    plan,
    run_infinigen,
)
from benchfoundry.configs.loader import load_config

#: Set by `make test-infinigen` only, so that `make test` never runs Infinigen (minutes) even where its venv exists.
INFINIGEN_PYTHON = Path(os.environ.get("INFINIGEN_PYTHON", "/nonexistent/infinigen/venv/bin/python"))


def _asset(
    root: Path, category: str, seed: int, data: bytes = b"blend", front_deg: float | None = None
) -> LibraryAsset:
    rel = f"{category}/{category}_{seed}.blend"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data + str(seed).encode())
    return LibraryAsset(
        category=category,
        seed=seed,
        path=rel,
        object_name="asset",
        bbox_min=(-0.3, -0.25, 0.0),
        bbox_max=(0.3, 0.25, 0.9),
        vertices=8,
        generator="infinigen",
        generator_version="1.15.5",
        factory="ChairFactory",
        sha256=hashlib.sha256((root / rel).read_bytes()).hexdigest(),
        front_deg=front_deg,
    )


@pytest.fixture
def library(tmp_path: Path) -> Path:
    write_manifest(tmp_path, [_asset(tmp_path, "chair", 3, front_deg=-90.0), _asset(tmp_path, "sofa", 1)], [])
    return tmp_path


def _edit(root: Path, change) -> None:
    data = json.loads((root / MANIFEST_NAME).read_text())
    change(data)
    (root / MANIFEST_NAME).write_text(json.dumps(data))


def test_a_written_manifest_reads_back_the_same_assets(library: Path) -> None:
    read = read_library(library, field=ASSET_LIBRARY_FIELD)
    assert {(a.category, a.seed) for a in read.assets} == {("chair", 3), ("sofa", 1)}
    assert read.categories == {"chair", "sofa"}
    chair = read.of_class("chair")[0]
    assert chair.size == pytest.approx((0.6, 0.5, 0.9))
    assert read.file_of(chair).read_bytes() == b"blend3"
    assert chair.front_deg == -90.0 and read.of_class("sofa")[0].front_deg is None
    assert json.loads((library / MANIFEST_NAME).read_text())["assets"][0] == asset_row(chair)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["assets"][0].pop("sha256"), "missing field(s) ['sha256']"),
        (lambda d: d["assets"][0].update(bbox_min=[0, 0]), "assets[0].bbox_min"),
        (lambda d: d["assets"][0].update(bbox_max=[0.3, 0.25, -1.0]), "assets[0].bbox_max"),
        (lambda d: d["assets"][1].update(vertices=0), "assets[1].vertices"),
        (lambda d: d["assets"][1].update(seed=True), "assets[1].seed"),
        (lambda d: d["assets"][0].update(colour="red"), "unknown field(s) ['colour']"),
        (lambda d: d["assets"][0].update(path="../elsewhere.blend"), "assets[0].path"),
        (lambda d: d["assets"][1].update(path=d["assets"][0]["path"]), "listed twice"),
        (lambda d: d["assets"][0].update(sha256="0" * 64), "assets[0].sha256"),
        (lambda d: d.update(format="something else"), ".format"),
        (lambda d: d.update(version=99), ".version"),
        (lambda d: d.update(version=1), "made before assets recorded their front: make assets-infinigen remakes it"),
        (lambda d: d["assets"][0].pop("front_deg"), "missing field(s) ['front_deg']"),
        (lambda d: d["assets"][0].update(front_deg=-180), "assets[0].front_deg"),
        (lambda d: d["assets"][0].update(front_deg="front"), "assets[0].front_deg"),
        (lambda d: d.update(assets=[]), ".assets"),
        (lambda d: d["assets"][0].update(rest_m="low"), "assets[0].rest_m"),
        (lambda d: d["assets"][0].update(rest_m=-0.1), "assets[0].rest_m"),
        (lambda d: d["assets"][0].update(rest_m=2.5), "assets[0].rest_m: must lie within the box's height"),
    ],
)
def test_a_wrong_or_partial_manifest_is_refused_naming_the_field_and_the_file(library: Path, change, named) -> None:
    _edit(library, change)
    with pytest.raises(LibraryError) as caught:
        read_library(library, field=ASSET_LIBRARY_FIELD)
    message = str(caught.value)
    assert "odi.synthetic.asset_library" in message and str(library / MANIFEST_NAME) in message
    assert named in message and "\n" not in message


def test_where_things_rest_is_read_when_given_and_the_box_top_when_not(library: Path) -> None:
    _edit(library, lambda d: d["assets"][0].update(rest_m=0.45))
    read = read_library(library, field=ASSET_LIBRARY_FIELD)
    chair, sofa = read.of_class("chair")[0], read.of_class("sofa")[0]
    assert (chair.rest_m, chair.rest_height) == (0.45, 0.45)
    assert sofa.rest_m is None and sofa.rest_height == sofa.bbox_max[2]
    # a row without it is written without it, a library made before the field reads as it was
    assert "rest_m" not in asset_row(sofa) and asset_row(chair)["rest_m"] == 0.45


def test_a_missing_file_or_manifest_is_refused(library: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    (library / "sofa" / "sofa_1.blend").unlink()
    with pytest.raises(LibraryError, match="no such file"):
        read_library(library, field=ASSET_LIBRARY_FIELD)
    empty = tmp_path_factory.mktemp("empty")
    with pytest.raises(LibraryError, match=f"odi.synthetic.asset_library: {empty}"):
        read_library(empty, field=ASSET_LIBRARY_FIELD)


def test_the_config_names_a_library_or_none() -> None:
    assert load_config(None, []).odi.synthetic.asset_library is None
    config = load_config(None, ["odi.synthetic.asset_library=/libs/infinigen"])
    assert config.odi.synthetic.asset_library == Path("/libs/infinigen")


def test_the_plan_is_seeded_per_class_and_refuses_unknown_classes() -> None:
    jobs = plan(["chair", "sofa"], 3, seed=5)
    assert [j.category for j in jobs] == ["chair"] * 3 + ["sofa"] * 3
    assert len({j.seed for j in jobs}) == 6 and plan(["chair", "sofa"], 3, seed=5) == jobs
    assert {j.seed for j in plan(["chair"], 3, seed=6)}.isdisjoint({j.seed for j in jobs[:3]})
    # Infinigen multiplies the seed it is given (a potted plant's by a few thousand) and numpy takes at most
    # 2**32 - 1: every planned seed leaves a factor of 4,000 of headroom, over many seeds and classes.
    many = plan(sorted(FACTORIES), 50, seed=123)
    assert all(0 <= j.seed and j.seed * 4000 < 2**32 for j in many)
    with pytest.raises(ValueError, match="--classes: no Infinigen factory for \\['dragon'\\]"):
        plan(["chair", "dragon"], 1, seed=0)


def test_generation_resumes_keeps_the_manifest_valid_and_lists_a_failure_as_a_problem(tmp_path: Path) -> None:
    jobs = plan(["chair", "lamp"], 2, seed=0)
    calls: list[AssetJob] = []
    failing = {jobs[1].seed}

    def fake(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
        calls.append(job)
        if job.seed in failing:
            raise GenerationError(f"{job.factory} seed {job.seed}: exit 1: boom")
        asset = _asset(root, job.category, job.seed)
        (root / job.path).parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / asset.path, root / job.path)
        return LibraryAsset(**{**asset.__dict__, "path": job.path, "factory": job.factory})

    first = build_library(tmp_path, jobs, Path("/none"), workers=2, runner=fake)
    assert first["generated"] == 3 and [p["item"] for p in first["problems"]] == [jobs[1].item]
    assert first["short"] == {"chair": 1}
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert manifest["problems"][0]["kind"] == "failed" and "boom" in manifest["problems"][0]["reason"]
    assert len(read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets) == 3

    failing.clear()
    calls.clear()
    second = build_library(tmp_path, jobs, Path("/none"), workers=2, runner=fake)
    assert calls == [jobs[1]] and second == {"generated": 1, "skipped": 3, "problems": [], "short": {}}
    assert {(a.category, a.seed) for a in read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets} == {
        (j.category, j.seed) for j in jobs
    }
    assert not (tmp_path / "_tmp").exists()


def test_a_failed_asset_is_replaced_by_its_class_spare_seed_and_a_rerun_makes_nothing(tmp_path: Path) -> None:
    """Two beds wanted, four seeds planned: the second seed fails for good (a broken asset), the third takes its
    place; the fourth is never made; a rerun finds the class complete and tries nothing, not even the failed seed."""
    jobs = plan(["bed", "lamp"], 4, seed=0)
    beds = [j for j in jobs if j.category == "bed"]
    calls: list[AssetJob] = []

    def fake(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
        calls.append(job)
        if job == beds[1]:
            raise GenerationError(f"{job.factory} seed {job.seed}: 6,322.4 m across, over 10 m (a broken asset)")
        asset = _asset(root, job.category, job.seed)
        (root / job.path).parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / asset.path, root / job.path)
        return LibraryAsset(**{**asset.__dict__, "path": job.path, "factory": job.factory})

    wanted = {"bed": 2, "lamp": 2}
    first = build_library(tmp_path, jobs, Path("/none"), wanted=wanted, workers=2, runner=fake)
    assert first["short"] == {} and first["generated"] == 4 and [p["item"] for p in first["problems"]] == [beds[1].item]
    listed = {(a.category, a.seed) for a in read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets}
    assert {s for c, s in listed if c == "bed"} == {beds[0].seed, beds[2].seed}
    assert beds[3] not in calls and len([c for c in calls if c.category == "lamp"]) == 2
    calls.clear()
    again = build_library(tmp_path, jobs, Path("/none"), wanted=wanted, workers=2, runner=fake)
    assert calls == [] and again == {"generated": 0, "skipped": 4, "problems": [], "short": {}}
    # with no spare left to try, the class stays short
    fresh = tmp_path / "fresh"
    short = build_library(fresh, beds[:2], Path("/none"), wanted={"bed": 2}, workers=2, runner=fake)
    assert short["short"] == {"bed": 1}


def test_a_library_of_an_earlier_version_is_made_again(tmp_path: Path) -> None:
    """A version-1 library's assets were laid out without their front: a run remakes every one of them."""
    jobs = plan(["chair", "sofa"], 1, seed=0)
    write_manifest(tmp_path, [_asset(tmp_path, j.category, j.seed) for j in jobs], [])
    _edit(tmp_path, lambda d: d.update(version=1))
    calls: list[AssetJob] = []

    def fake(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
        calls.append(job)
        return LibraryAsset(**{**_asset(root, job.category, job.seed).__dict__, "front_deg": 0.0})

    assert build_library(tmp_path, jobs, Path("/none"), runner=fake)["generated"] == 2 and calls == jobs
    assert {a.front_deg for a in read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets} == {0.0}


def test_an_asset_of_a_factory_its_class_no_longer_uses_is_made_again(tmp_path: Path) -> None:
    """A class moved to another factory (the tree from Infinigen's PalmTreeFactory, a bare trunk, to the crowned
    FrondPalmTreeFactory): its assets are made again by the new one, the other classes' kept."""
    jobs = plan(["tree", "lamp"], 1, seed=0)
    old = [
        replace(_asset(tmp_path, j.category, j.seed), factory=f)
        for j, f in zip(jobs, ["PalmTreeFactory", FACTORIES["lamp"]])
    ]
    write_manifest(tmp_path, old, [])
    calls: list[AssetJob] = []

    def fake(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
        calls.append(job)
        return replace(_asset(root, job.category, job.seed, data=b"new"), factory=job.factory)

    done = build_library(tmp_path, jobs, Path("/none"), runner=fake)
    assert calls == [jobs[0]] and done["generated"] == 1 and done["skipped"] == 1
    factories = {a.category: a.factory for a in read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets}
    assert factories == {"tree": FACTORIES["tree"], "lamp": FACTORIES["lamp"]}


def test_two_runs_into_one_library_at_once_make_each_asset_once(tmp_path: Path) -> None:
    """Two `assets infinigen` runs started together on one library: the second waits for the first, then finds
    every asset made; the manifest lists each job once with its file."""
    jobs = plan(["chair", "lamp", "sofa"], 2, seed=4)
    calls: list[int] = []
    started = threading.Barrier(2)

    def slow(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
        calls.append(job.seed)
        time.sleep(0.05)  # long enough for the other run to reach the library meanwhile, were it not locked
        asset = _asset(root, job.category, job.seed)
        (root / job.path).parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / asset.path, root / job.path)
        return LibraryAsset(**{**asset.__dict__, "path": job.path, "factory": job.factory})

    def run() -> dict:
        started.wait()
        return build_library(tmp_path, jobs, Path("/none"), workers=2, runner=slow)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: run(), range(2)))
    assert sorted(calls) == sorted(j.seed for j in jobs)
    assert sorted(r["generated"] for r in results) == [0, len(jobs)]
    listed = read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets
    assert sorted((a.category, a.seed) for a in listed) == sorted((j.category, j.seed) for j in jobs)


def _stand_in_python(folder: Path, body: str) -> Path:
    """An executable that takes Infinigen's Python's place: it runs `body` with the script's arguments."""
    path = folder / "python"
    path.write_text(f"#!{sys.executable}\nimport json, sys\nargs = dict(zip(sys.argv[2::2], sys.argv[3::2]))\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _asset_writing_python(folder: Path, info: dict, then: str = "") -> Path:
    """A stand-in Infinigen's Python that writes a stand-in `.blend` and `info` as the asset's facts, then runs
    `then`."""
    return _stand_in_python(
        folder,
        "open(args['--blend'], 'wb').write(b'BLENDER-stand-in')\n"
        f"open(args['--info'], 'w').write(json.dumps({info!r}))\n{then}",
    )


def test_an_asset_counts_when_its_files_are_written_even_if_the_process_crashes_at_exit(tmp_path: Path) -> None:
    info = {"object_name": "asset", "bbox_min": [-0.4, -0.4, 0], "bbox_max": [0.4, 0.4, 1.7]}
    info |= {"vertices": 120, "generator_version": "1.15.5", "front_deg": None}
    python = _asset_writing_python(tmp_path, info, then="import os; os._exit(139)")
    job = plan(["lamp"], 1, seed=2)[0]
    asset = run_infinigen(job, tmp_path / "lib", python, timeout_s=60)
    assert asset.factory == "FloorLampFactory" and asset.size == pytest.approx((0.8, 0.8, 1.7))
    assert (tmp_path / "lib" / job.path).read_bytes() == b"BLENDER-stand-in"
    assert asset.sha256 == hashlib.sha256(b"BLENDER-stand-in").hexdigest()


def test_a_desk_and_a_cabinet_get_their_declared_front_whatever_the_faces_measure(tmp_path: Path) -> None:
    info = {"object_name": "asset", "bbox_min": [-0.3, -0.7, 0], "bbox_max": [0.3, 0.7, 0.75]}
    info |= {"vertices": 120, "generator_version": "1.15.5", "front_deg": None}
    python = _asset_writing_python(tmp_path, info)
    fronts = {c: run_infinigen(plan([c], 1, seed=0)[0], tmp_path / "lib", python, 60).front_deg for c in FACTORIES}
    assert fronts["desk"] == fronts["cabinet"] == fronts["bed"] == 90.0  # knees, doors, foot: +X, as Infinigen builds
    assert fronts["nightstand"] is None and fronts["table"] is None  # the measure's, where nothing is declared


def test_an_asset_without_its_files_is_a_generation_error_with_the_reason(tmp_path: Path) -> None:
    python = _stand_in_python(tmp_path, "sys.stderr.write('ModuleNotFoundError: infinigen\\n'); sys.exit(1)")
    with pytest.raises(GenerationError, match="ChairFactory seed .*: exit 1: ModuleNotFoundError: infinigen"):
        run_infinigen(plan(["chair"], 1, seed=0)[0], tmp_path / "lib", python, timeout_s=60)


def test_an_asset_without_its_front_is_a_generation_error(tmp_path: Path) -> None:
    info = {"object_name": "asset", "bbox_min": [-0.4, -0.4, 0], "bbox_max": [0.4, 0.4, 1.7], "vertices": 120}
    python = _asset_writing_python(tmp_path, info)
    with pytest.raises(GenerationError, match="ChairFactory seed .*asset.json has no front_deg"):
        run_infinigen(plan(["chair"], 1, seed=0)[0], tmp_path / "lib", python, timeout_s=60)


def test_the_vertex_budget_reaches_the_script_and_an_asset_over_it_is_a_generation_error(tmp_path: Path) -> None:
    info = {"object_name": "asset", "bbox_min": [-0.4, -0.4, 0], "bbox_max": [0.4, 0.4, 1.7]}
    python = _stand_in_python(
        tmp_path,
        "open(args['--blend'], 'wb').write(b'BLENDER-stand-in')\n"
        f"info = {info!r}\n"
        "info |= {'vertices': int(args['--max-vertices']) + 1, 'generator_version': '1.15.5', 'front_deg': 0}\n"
        "open(args['--info'], 'w').write(json.dumps(info))",
    )
    job = plan(["sofa"], 1, seed=1, max_vertices=5000)[0]
    with pytest.raises(GenerationError, match=r"SofaFactory seed .*: 5,001 vertices after decimation, over .* 5,000"):
        run_infinigen(job, tmp_path / "lib", python, timeout_s=60)
    assert not (tmp_path / "lib" / job.path).exists()


@pytest.mark.parametrize(("top", "rest"), [(1.3, 0.55), (6322.4, 3739.9)])
def test_a_bed_keeps_where_things_rest_on_it_unless_it_comes_out_kilometres_tall(
    tmp_path: Path, top: float, rest: float
) -> None:
    info = {"object_name": "asset", "bbox_min": [-1.1, -0.9, 0], "bbox_max": [1.1, 0.9, top], "rest_m": rest}
    info |= {"vertices": 120, "generator_version": "1.15.5", "front_deg": None}
    python = _asset_writing_python(tmp_path, info)
    job = plan(["bed"], 1, seed=0)[0]
    if top > MAX_EXTENT_M:
        with pytest.raises(
            GenerationError,
            match=rf"MattressBedFactory seed .*: 6,322.4 m across, over {MAX_EXTENT_M:g} m \(a broken asset\)",
        ):
            run_infinigen(job, tmp_path / "lib", python, timeout_s=60)
        assert not (tmp_path / "lib" / job.path).exists()
    else:
        assert run_infinigen(job, tmp_path / "lib", python, timeout_s=60).rest_m == rest


def test_decimation_brings_a_dense_mesh_within_the_budget_and_keeps_its_shape() -> None:
    bpy = pytest.importorskip("bpy")
    from benchfoundry.render.infinigen_asset import decimate

    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_uv_sphere_add(segments=256, ring_count=128, radius=0.5)
    obj = bpy.context.active_object
    had = len(obj.data.vertices)
    extent = lambda: np.ptp([v.co[:] for v in obj.data.vertices], axis=0)
    before = extent()
    assert decimate(obj, had + 1) == had and len(obj.data.vertices) == had
    assert decimate(obj, 0) == had and len(obj.data.vertices) == had
    assert decimate(obj, 4000) == had
    assert 2000 < len(obj.data.vertices) <= 4000
    assert extent() == pytest.approx(before, rel=0.03)


@pytest.mark.system_programs
@pytest.mark.skipif(not INFINIGEN_PYTHON.exists(), reason="run by make test-infinigen, with Infinigen's venv")
def test_infinigen_venv_generates_two_small_assets(tmp_path: Path) -> None:
    """`make test-infinigen`: a floor lamp and a dining table through Infinigen itself (about 1 s each after a
    few seconds of start-up per process)."""
    jobs = plan(["lamp", "table"], 1, seed=0)
    outcome = build_library(tmp_path, jobs, INFINIGEN_PYTHON.absolute(), workers=2, timeout_s=900)
    assert outcome["problems"] == []
    library = read_library(tmp_path, field=ASSET_LIBRARY_FIELD)
    assert library.categories == {"lamp", "table"}
    for asset in library.assets:
        assert asset.generator_version == "1.15.5" and asset.vertices > 100
        assert abs(asset.bbox_min[2]) < 1e-4 and 0.3 < asset.size[2] < 2.5
        assert asset.front_deg is None  # a floor lamp and a dining table have no front


@pytest.mark.system_programs
@pytest.mark.skipif(not INFINIGEN_PYTHON.exists(), reason="run by make test-infinigen, with Infinigen's venv")
def test_infinigen_venv_chair_and_sofa_have_their_backs_behind_their_fronts(tmp_path: Path) -> None:
    """`make test-infinigen`: the top 30 % of a chair's and a sofa's vertices (their backs) lie on the side opposite
    the front the manifest records (Infinigen's face +X: front_deg 90)."""
    bpy = pytest.importorskip("bpy")
    outcome = build_library(tmp_path, plan(["chair", "sofa"], 1, seed=0), INFINIGEN_PYTHON.absolute(), timeout_s=900)
    assert outcome["problems"] == []
    for asset in read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets:
        assert asset.front_deg is not None
        with bpy.data.libraries.load(str(tmp_path / asset.path)) as (_, loaded):
            loaded.objects = [asset.object_name]
        co = np.array([v.co[:] for v in loaded.objects[0].data.vertices])
        back = co[co[:, 2] > 0.7 * co[:, 2].max(), :2].mean(axis=0)
        t = np.radians(asset.front_deg)
        front = np.array([np.sin(t), -np.cos(t)])
        assert back @ front < -0.25 * np.abs(front) @ (co[:, :2].max(axis=0) - co[:, :2].min(axis=0)) / 2


def test_the_command_builds_a_library_and_a_rerun_generates_nothing(tmp_path: Path, capsys) -> None:
    from benchfoundry.cli.main import main

    info = {"object_name": "asset", "bbox_min": [-0.3, -0.3, 0], "bbox_max": [0.3, 0.3, 0.9], "vertices": 8}
    info |= {"generator_version": "1.15.5", "front_deg": 90.0}
    python = _stand_in_python(
        tmp_path,
        "open(args['--blend'], 'wb').write(args['--seed'].encode())\n"
        f"open(args['--info'], 'w').write(json.dumps({info!r}))",
    )
    argv = ["assets", "infinigen", "--classes", "chair,potted plant", "--per-class", "2", "--seed", "1"]
    argv += ["--library", str(tmp_path / "lib"), "--python", str(python)]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (first["generated"], first["skipped"]) == (4, 0)
    library = read_library(tmp_path / "lib", field=ASSET_LIBRARY_FIELD)
    assert sorted(a.category for a in library.assets) == ["chair", "chair", "potted plant", "potted plant"]
    assert {a.front_deg for a in library.assets} == {90.0}
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (second["generated"], second["skipped"]) == (0, 4)
    assert main([*argv[:-1], str(tmp_path / "missing")]) == 2
    assert "--python" in capsys.readouterr().err


@pytest.mark.system_programs
@pytest.mark.skipif(not INFINIGEN_PYTHON.exists(), reason="run by make test-infinigen, with Infinigen's venv")
def test_infinigen_venv_palm_has_its_crown(tmp_path: Path) -> None:
    """`make test-infinigen`: a palm through Infinigen itself (about 2 min, 3 GB) has its crown of fronds: far wider
    at its top than a trunk (Infinigen's own PalmTreeFactory gave a bare trunk 1–2 m across, its curve's width)."""
    bpy = pytest.importorskip("bpy")
    outcome = build_library(tmp_path, plan(["tree"], 1, seed=0), INFINIGEN_PYTHON.absolute(), timeout_s=900)
    assert outcome["problems"] == []
    (asset,) = read_library(tmp_path, field=ASSET_LIBRARY_FIELD).assets
    assert asset.factory == "FrondPalmTreeFactory" and asset.vertices <= MAX_VERTICES
    with bpy.data.libraries.load(str(tmp_path / asset.path)) as (_, loaded):
        loaded.objects = [asset.object_name]
    co = np.array([v.co[:] for v in loaded.objects[0].data.vertices])
    top = co[co[:, 2] > 0.6 * co[:, 2].max(), :2]
    trunk = co[co[:, 2] < 0.3 * co[:, 2].max(), :2]
    assert np.ptp(top, axis=0).min() > 4.0 and np.ptp(trunk, axis=0).max() < 3.0
    assert len(top) > 0.2 * len(co)  # the fronds are a good part of the mesh, not a speck
