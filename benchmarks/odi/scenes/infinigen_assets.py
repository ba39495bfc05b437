"""Building an asset library with Infinigen (issue 37): `benchfoundry assets infinigen`.

Infinigen lives in its own virtual environment (`make assets-infinigen`: it pins bpy 4.2 and numpy < 2, which
the project's cannot hold), so each asset is one call of that environment's Python on
render/infinigen_asset.py: one factory, one seed, a `.blend` of one mesh object and a JSON of its bounding box,
vertex count, front and Infinigen's version. The calls run in parallel (`workers`); after each the manifest
(assets/asset_library.py) is replaced atomically, so a rerun skips every asset already listed with its file
and hash, and a failed asset is a problem row that the next run tries again.
"""

from __future__ import annotations

import fcntl
import importlib.resources
import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchfoundry.assets.asset_library import (
    MANIFEST_NAME,
    LibraryAsset,
    LibraryError,
    asset_from_row,
    file_sha256,
    read_library,
    stale,
    write_manifest,
)
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.seeding import item_seed
from benchfoundry.core.tied_process import tied_command

GENERATOR = "infinigen"
#: The stage name of problem rows.
STAGE = "assets-infinigen"
#: Class (an ODI / ViewSpatial category) → Infinigen's asset factory (infinigen/assets/objects/*; a bed is
#: render/infinigen_asset.py's frame and mattress, without the cloth-simulated sheets that took minutes a bed; a
#: tree is a palm: Infinigen's broadleaf TreeFactory ran 15 min and 8 GB without finishing one here).
FACTORIES: dict[str, str] = {
    "chair": "ChairFactory",
    "sofa": "SofaFactory",
    "bed": "MattressBedFactory",
    "table": "TableDiningFactory",
    "lamp": "FloorLampFactory",
    "bookshelf": "SimpleBookcaseFactory",
    "potted plant": "LargePlantContainerFactory",
    "television": "TVFactory",
    "rug": "RugFactory",
    "desk": "SimpleDeskFactory",
    "cabinet": "KitchenCabinetFactory",
    "nightstand": "SideTableFactory",
    "tree": "FrondPalmTreeFactory",
}
#: Factories whose front the faces cannot tell (render/infinigen_asset.front_deg finds no side leaning: a desk's top
#: on four legs, a cabinet's doors weigh as its back panel does, a bed's low headboard), declared as Infinigen builds
#: them: the front at +X (a desk's knee side, a cabinet's doors, a bed's foot), front_deg 90. This overrides the
#: measure.
DECLARED_FRONT_DEG: dict[str, float] = {
    "SimpleDeskFactory": 90.0,
    "KitchenCabinetFactory": 90.0,
    "MattressBedFactory": 90.0,
}


class GenerationError(RuntimeError):
    """One asset that Infinigen did not write: the reason, one line."""


#: The most vertices an asset keeps (render/infinigen_asset.py decimates a larger mesh): a library object is a
#: piece of furniture a few hundred pixels wide in a panorama, and one potted plant came out at 2.6 M (366 MB).
MAX_VERTICES = 200_000
#: The most an asset may measure along any axis (m): a piece of furniture is a few metres, a palm tree 14-15 m;
#: one of Infinigen's beds (seed 543191) came out with its frame 3.7 km up and a scrap on the floor, 6.3 km tall,
#: which the layout would have shrunk to a speck.
MAX_EXTENT_M = 25.0


@dataclass(frozen=True)
class AssetJob:
    """One asset to generate: the class, its factory and the seed, the vertex budget, and the file it becomes."""

    category: str
    factory: str
    seed: int
    max_vertices: int = MAX_VERTICES

    @property
    def path(self) -> str:
        slug = self.category.replace(" ", "_")
        return f"{slug}/{slug}_{self.seed:010d}.blend"

    @property
    def item(self) -> str:
        return f"{self.category}/{self.seed}"


#: Infinigen's factories derive their own seeds by arithmetic on the one they are given (a potted plant's
#: multiplies it) and numpy refuses a seed past 2**32 - 1: the project's item seeds (about 10**9) are folded below
#: this bound, far from it.
INFINIGEN_SEEDS = 10**6


def plan(classes: list[str], per_class: int, seed: int, max_vertices: int = MAX_VERTICES) -> list[AssetJob]:
    """`per_class` seeded jobs per class, each seed below `INFINIGEN_SEEDS`, each mesh within `max_vertices`
    (0: no budget); an unknown class is a ValueError naming the known ones."""
    unknown = sorted(set(classes) - set(FACTORIES))
    if unknown:
        raise ValueError(f"--classes: no Infinigen factory for {unknown}; known: {sorted(FACTORIES)}")
    return [
        AssetJob(c, FACTORIES[c], item_seed(seed, "assets.infinigen", f"{c}/{k}") % INFINIGEN_SEEDS, max_vertices)
        for c in dict.fromkeys(classes)
        for k in range(per_class)
    ]


def script_path() -> Path:
    """The script Infinigen's Python runs (it imports nothing of the project)."""
    return Path(str(importlib.resources.files("benchfoundry.render").joinpath("infinigen_asset.py")))


def run_infinigen(job: AssetJob, root: Path, python: Path, timeout_s: float) -> LibraryAsset:
    """Generate `job` with Infinigen's Python into `root/job.path`; GenerationError if it wrote nothing usable.

    Infinigen may crash at interpreter exit after writing its files: a complete info file counts, whatever the
    exit status."""
    work = root / "_tmp" / job.path.replace("/", "_").removesuffix(".blend")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    blend, info = work / "asset.blend", work / "asset.json"
    argv = [str(python), str(script_path()), "--factory", job.factory, "--seed", str(job.seed)]
    argv += ["--blend", str(blend), "--info", str(info), "--max-vertices", str(job.max_vertices)]
    try:
        done = subprocess.run(tied_command(argv), capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise GenerationError(f"{job.factory} seed {job.seed}: no asset within {timeout_s:g} s") from None
    if not (info.is_file() and blend.is_file()):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise GenerationError(f"{job.factory} seed {job.seed}: exit {done.returncode}: {tail[0]}")
    facts = json.loads(info.read_text())
    if not isinstance(facts, dict):
        raise GenerationError(f"{job.factory} seed {job.seed}: {info} holds no object")
    if "front_deg" not in facts:
        raise GenerationError(f"{job.factory} seed {job.seed}: {info} has no front_deg (an older script?)")
    vertices = facts.get("vertices")
    if job.max_vertices and isinstance(vertices, int) and vertices > job.max_vertices:
        raise GenerationError(
            f"{job.factory} seed {job.seed}: {vertices:,} vertices after decimation, over the budget of "
            f"{job.max_vertices:,} (--max-vertices)"
        )
    row = {
        "category": job.category,
        "seed": job.seed,
        "path": job.path,
        "object_name": facts.get("object_name"),
        "bbox_min": facts.get("bbox_min"),
        "bbox_max": facts.get("bbox_max"),
        "vertices": facts.get("vertices"),
        "generator": GENERATOR,
        "generator_version": facts.get("generator_version"),
        "factory": job.factory,
        "sha256": file_sha256(blend),
        "front_deg": DECLARED_FRONT_DEG.get(job.factory, facts["front_deg"]),
        "rest_m": facts.get("rest_m"),
    }
    try:
        asset = asset_from_row(row, f"{info}")
    except LibraryError as exc:
        raise GenerationError(str(exc)) from None
    if max(asset.size) > MAX_EXTENT_M:
        raise GenerationError(
            f"{job.factory} seed {job.seed}: {max(asset.size):,.1f} m across, over {MAX_EXTENT_M:g} m (a broken asset)"
        )
    target = root / job.path
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(blend, target)
    shutil.rmtree(work, ignore_errors=True)
    return asset


Runner = Callable[[AssetJob, Path, Path, float], LibraryAsset]
#: The library's lock file (in its root; the manifest lists assets only, so the file is ignored by readers).
LOCK_NAME = ".generating.lock"


def build_library(
    root: Path,
    jobs: list[AssetJob],
    python: Path,
    *,
    wanted: dict[str, int] | None = None,
    workers: int = 2,
    timeout_s: float = 600.0,
    runner: Runner = run_infinigen,
) -> dict[str, Any]:
    """Generate the jobs not yet in `root`'s manifest (with their file and hash) until each class has `wanted` of
    its jobs' assets (None: all its jobs; the later jobs of a class are its spares, tried in order in place of
    those that fail), writing the manifest after each; returns counts, the problem rows (also in the manifest) and
    the classes still `short` of assets. A second run into the same library waits for the first (`library_lock`),
    then finds its assets made."""
    root.mkdir(parents=True, exist_ok=True)
    with library_lock(root):
        return _generate(
            root, jobs, python, wanted or dict(Counter(j.category for j in jobs)), workers, timeout_s, runner
        )


@contextmanager
def library_lock(root: Path) -> Iterator[None]:
    """An exclusive lock on the library `root` (`fcntl.flock` on its lock file, released by the OS if its holder
    dies), held while a run reads, generates and writes the manifest."""
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _generate(
    root: Path,
    jobs: list[AssetJob],
    python: Path,
    wanted: dict[str, int],
    workers: int,
    timeout_s: float,
    runner: Runner,
) -> dict[str, Any]:
    have: list[LibraryAsset] = []
    if (root / MANIFEST_NAME).exists():
        try:
            listed = read_library(root, field=str(root), verify_files=False, allow_empty=True).assets
        except LibraryError:
            if not stale(read_json(root / MANIFEST_NAME)):
                raise
            listed = ()  # an earlier version's assets are all made again
        have = [a for a in listed if (root / a.path).is_file() and file_sha256(root / a.path) == a.sha256]
    # an asset its class's factory no longer makes (the class moved to another factory) is made again
    factories = {(j.category, j.seed): j.factory for j in jobs}
    have = [a for a in have if factories.get((a.category, a.seed), a.factory) == a.factory]
    planned = {(j.category, j.seed) for j in jobs}
    made = {(a.category, a.seed) for a in have}
    untried = [j for j in jobs if (j.category, j.seed) not in made]
    listed_before = len(have)
    problems: list[dict[str, Any]] = []
    while batch := _next_batch(untried, have, planned, wanted):
        untried = [j for j in untried if j not in batch]
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = {pool.submit(runner, job, root, python, timeout_s): job for job in batch}
            for future in as_completed(futures):
                job = futures[future]
                try:
                    have.append(future.result())
                except (GenerationError, OSError, ValueError) as exc:
                    problems.append(problem(STAGE, job.item, str(exc), kind="failed", path=job.path))
                write_manifest(root, have, sorted(problems, key=lambda p: p["item"]))
    generated = len(have) - listed_before  # every runner's asset is a planned job's
    if not generated and not problems:
        write_manifest(root, have, [])
    shutil.rmtree(root / "_tmp", ignore_errors=True)
    return {
        "generated": generated,
        "skipped": len(planned & made),
        "problems": problems,
        "short": _short(have, planned, wanted),
    }


def _short(have: list[LibraryAsset], planned: set[tuple[str, int]], wanted: dict[str, int]) -> dict[str, int]:
    """How many assets each class still lacks of those `wanted` (the classes that lack none left out)."""
    made = Counter(a.category for a in have if (a.category, a.seed) in planned)
    return {c: n - made[c] for c, n in wanted.items() if made[c] < n}


def _next_batch(
    untried: list[AssetJob], have: list[LibraryAsset], planned: set[tuple[str, int]], wanted: dict[str, int]
) -> list[AssetJob]:
    """For each class short of assets, as many of its untried jobs as it lacks, in order."""
    short = _short(have, planned, wanted)
    return [j for c, n in short.items() for j in [j for j in untried if j.category == c][:n]]
