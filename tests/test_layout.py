"""The house layout (DEVELOPING.md): one way down the import graph, no cycles, heavy runtimes behind their gates,
and a benchmark one folder that plugs in.

The graph holds every import of every module of the package, function-level imports included; `from package
import module` is an edge to the module, and so is every "module:attribute" hook of a benchmark's descriptor
(read as the import it is at run time). Which room may import which is read from DEVELOPING.md's table, so the
table and the code cannot drift apart; the benchmarks' rooms are the folders of the registry's descriptors.

The cycle check reads the load graph: every import, the plug-in example's modules (tests/plugin_benchmark/)
included, and every entry point that pyproject.toml and the plug-in example declare, read as an import of the one
module that reads its group.
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
import tomllib
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

import pytest

from benchfoundry.configs.loader import PRESET_DIR, ConfigError, load_config, preset_names
from benchfoundry.core import plugins
from benchfoundry.core.descriptor import Benchmark
from benchfoundry.pipeline.benchmarks import registered

REPO = Path(__file__).resolve().parents[1]
#: Repository folder → the package it installs as (pyproject.toml's package-dir).
PACKAGES = {
    "benchfoundry": "benchfoundry",
    "configs": "benchfoundry.configs",
    "assets": "benchfoundry.assets",
    "person": "benchfoundry.person",
    "render": "benchfoundry.render",
    "pipeline": "benchfoundry.pipeline",
    "flows": "benchfoundry.flows",
    "evaluation": "benchfoundry.evaluation",
    "export": "benchfoundry.export",
    "compare": "benchfoundry.compare",
    "benchmarks": "benchfoundry.benchmarks",
    "cli": "benchfoundry.cli",
}
#: The package of each registered benchmark's descriptor module (its entry point), by benchmark name.
BENCHMARK_PACKAGES = {
    name: value.partition(":")[0].rpartition(".")[0]
    for name, value in plugins.declared(plugins.BENCHMARKS_GROUP).items()
}


def folder_of(package: str) -> str:
    """The repository folder of a project package, with a trailing slash (pyproject's package-dir)."""
    parts = package.split(".")
    top = next(folder for folder, p in PACKAGES.items() if p == ".".join(parts[:2]))
    return "/".join([top, *parts[2:]]) + "/"


#: The benchmarks' rooms: the folders of the registry's descriptors (pipeline/benchmarks.py).
BENCHMARKS = tuple(folder_of(p) for p in BENCHMARK_PACKAGES.values())
#: DEVELOPING.md's one row for every benchmark's room.
BENCHMARK_ROW = "benchmarks/<benchmark>/"
#: The rooms of the house, most specific first: a module belongs to the first room its path starts with.
ROOMS = (
    "benchfoundry/core/",
    "configs/",
    "assets/",
    "person/",
    "render/",
    "pipeline/",
    "flows/",
    "evaluation/",
    "export/",
    "compare/",
    *BENCHMARKS,
    "cli/",
)


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGES[parts[0]], *parts[1:]]) if parts[0] != "benchfoundry" else ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the package: dotted name → file."""
    found = {}
    for folder in PACKAGES:
        for path in sorted((REPO / folder).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imported_names(path: Path) -> list[tuple[str, int]]:
    """(name, line) of every import in the file: `import a.b` names a.b, `from a import b` names a and a.b."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append((node.module, node.lineno))
            names += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
    return names


def hook_modules(descriptor: Benchmark) -> list[str]:
    """The module of every "module:attribute" (or bare module) string of a descriptor."""
    values = []
    for name, value in vars(descriptor).items():
        if name in ("name", "title", "released", "report_page", "categories", "front_counts"):
            continue
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, tuple):
            values += [v for pair in value for v in pair if isinstance(v, str) and "." in v]
    return [v.partition(":")[0] for v in values]


@cache
def descriptor_edges() -> dict[str, set[str]]:
    """Descriptor module → the modules its hooks name: the imports `hook()` makes at run time."""
    return {
        f"{BENCHMARK_PACKAGES[d.name]}.benchmark": set(hook_modules(d))
        for d in registered()
        if d.name in BENCHMARK_PACKAGES
    }


@cache
def graph() -> dict[str, set[str]]:
    """Module → the project modules it imports, a descriptor's hooks included. Packages are left out: their
    `__init__` holds only a docstring (`test_every_package_init_is_only_a_docstring`), so `from package import
    module` is an edge to the module."""
    known = {name: path for name, path in modules().items() if path.name != "__init__.py"}
    edges = {name: {n for n, _ in imported_names(path) if n in known and n != name} for name, path in known.items()}
    for source, targets in descriptor_edges().items():
        edges[source] |= {t for t in targets if t in known}
    return edges


def room(module: str) -> str:
    rel = str(modules()[module].relative_to(REPO))
    return next((r for r in ROOMS if rel.startswith(r)), rel)


def rel(module: str) -> str:
    return str(modules()[module].relative_to(REPO))


@cache
def may_import() -> dict[str, set[str]]:
    """DEVELOPING.md's table: room → the rooms (folders) and single modules (files) it may import."""
    text = (REPO / "DEVELOPING.md").read_text()
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 3 and re.fullmatch(r"`[^`]+/`", cells[0]):
            allowed = set(re.findall(r"`([^`]+(?:/|\.py))`", cells[2]))  # a file may be a glob: benchmarks/*/x.py
            table[cells[0].strip("`")] = allowed
    return table


def row(room_: str) -> str:
    """The table row of a room: a benchmark's folder reads the benchmarks' one row."""
    return BENCHMARK_ROW if room_ in BENCHMARKS else room_


def allowed(source: str, target: str) -> bool:
    """Whether `source` may import `target`: the same room, or a room or module its row names."""
    if room(source) == room(target):
        return True
    entries = may_import()[row(room(source))]
    return row(room(target)) in entries or any(
        fnmatch(rel(target), entry) for entry in entries if entry.endswith(".py")
    )


def test_the_registry_finds_the_benchmarks_by_their_entry_points() -> None:
    assert {d.name for d in registered()} == set(BENCHMARK_PACKAGES) and len(BENCHMARKS) >= 3
    assert all((REPO / folder / "benchmark.py").is_file() for folder in BENCHMARKS)


def test_the_table_has_a_row_for_every_room_and_names_only_real_places() -> None:
    assert set(may_import()) == {row(r) for r in ROOMS}
    for entries in may_import().values():
        for entry in entries:
            assert entry == BENCHMARK_ROW or any(REPO.glob(entry)), entry
            assert entry in {row(r) for r in ROOMS} or entry.endswith(".py"), entry


def test_the_table_refuses_an_upward_or_sideways_import() -> None:
    assert not allowed("benchfoundry.configs.build", "benchfoundry.pipeline.review")
    assert not allowed("benchfoundry.render.worker", "benchfoundry.person.prepare")
    assert not allowed(
        "benchfoundry.benchmarks.odi.stages.questions.candidates", "benchfoundry.benchmarks.syndor.scenes.render_plan"
    )
    assert not allowed("benchfoundry.evaluation.items", "benchfoundry.benchmarks.syndor.release.release")
    assert not allowed("benchfoundry.cli.main", "benchfoundry.benchmarks.syndor.cli")
    assert allowed("benchfoundry.benchmarks.syndor.release.readers", "benchfoundry.evaluation.items")


def test_every_hook_of_a_descriptor_names_a_module_of_its_own_folder() -> None:
    """A descriptor reaches no room but its own: its hooks are imports, and they go nowhere up or sideways."""
    for descriptor in registered():
        package = BENCHMARK_PACKAGES[descriptor.name]
        outside = [m for m in hook_modules(descriptor) if not m.startswith(package + ".")]
        assert outside == [], descriptor.name
        missing = [m for m in hook_modules(descriptor) if m not in modules()]
        assert missing == [], descriptor.name


def spelled(text: str, names: list[str]) -> list[int]:
    """The lines (from 1) that hold one of `names` as a word (`toy` in `"toy"`, not in `toybench`); a citation of a
    documentation page (`docs/design/odi.md §1`) is a pointer for the reader, not a name the code uses."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    citation = re.compile(r"\bdocs/(?:design/)?[\w-]+\.md\b")
    return [n for n, line in enumerate(text.splitlines(), 1) if pattern.search(citation.sub("", line))]


def test_no_module_outside_the_benchmark_folders_spells_a_benchmark_name() -> None:
    """The generic rooms ask the registry: no comparison with, no import of, no mention of a benchmark's name."""
    names = [d.name for d in registered()]
    hits = [
        f"{rel(module)}:{line}"
        for module, path in sorted(modules().items())
        if room(module) not in BENCHMARKS
        for line in spelled(path.read_text(), names)
    ]
    assert hits == []


def test_the_name_check_sees_a_comparison_but_not_a_longer_word() -> None:
    assert spelled('if benchmark == "toy":\n    pass\nTOYS = "toybench.yaml"\nrun(toy_flow)\n', ["toy"]) == [1]
    assert spelled('"""The bins (docs/toy.md)."""\nROOT = "docs/toy"\n', ["toy"]) == [2]


def test_the_command_line_is_its_own_room_and_flows_parse_no_arguments() -> None:
    assert not list((REPO / "flows").glob("cli*.py"))
    assert _users("argparse") and not {u for u in _users("argparse") if u.startswith("flows/")}


def test_every_import_goes_where_the_table_allows() -> None:
    wrong = sorted(f"{rel(s)} imports {rel(t)}" for s, targets in graph().items() for t in targets if not allowed(s, t))
    assert wrong == []


def test_the_kernel_imports_nothing_of_the_project_and_configs_assets_render_no_stage_or_flow() -> None:
    upper = ("pipeline/", "flows/", "evaluation/", "export/", "cli/", *BENCHMARKS)
    for source, targets in graph().items():
        if room(source) == "benchfoundry/core/":
            assert {room(t) for t in targets} <= {"benchfoundry/core/"}, rel(source)
        if room(source) in ("configs/", "assets/", "render/"):
            assert not {t for t in targets if room(t) in upper}, rel(source)


def test_no_benchmark_imports_another_benchmarks_modules() -> None:
    crossing = sorted(
        f"{rel(s)} imports {rel(t)}"
        for s, targets in graph().items()
        for t in targets
        if room(s) in BENCHMARKS and room(t) in BENCHMARKS and room(s) != room(t)
    )
    assert crossing == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(edges) + 100))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: The plug-in example's source (a package of its own, tests/test_plugin_benchmark.py installs it).
PLUGIN_SOURCE = REPO / "tests" / "plugin_benchmark"
#: The metadata that declares entry points: the project's and the plug-in example's.
ENTRY_POINT_FILES = (REPO / "pyproject.toml", PLUGIN_SOURCE / "pyproject.toml")
#: The functions of core/plugins.py that read the entries of a group (`distributions` reads only which installed
#: packages declare one, for build.json's versions).
GROUP_READERS = ("declared", "load", "load_all")


@cache
def example_modules() -> dict[str, Path]:
    """Every module of the plug-in example: dotted name → file."""
    return {
        ".".join(path.relative_to(PLUGIN_SOURCE).with_suffix("").parts): path
        for path in sorted(PLUGIN_SOURCE.rglob("*.py"))
        if path.name != "__init__.py"
    }


@cache
def entry_modules() -> dict[str, set[str]]:
    """Entry point group → the modules its entries name, as ENTRY_POINT_FILES declare them."""
    found: dict[str, set[str]] = {}
    for path in ENTRY_POINT_FILES:
        for group, entries in tomllib.loads(path.read_text())["project"]["entry-points"].items():
            found.setdefault(group, set()).update(value.partition(":")[0] for value in entries.values())
    return found


def _named(node: ast.expr) -> str | None:
    """The name `x` or `module.x` ends with."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


@cache
def group_readers() -> dict[str, set[str]]:
    """Entry point group → the modules of the package that read its entries: a call of a GROUP_READERS function
    with the group's constant of core/plugins.py."""
    constants = {name: value for name, value in vars(plugins).items() if name.endswith("_GROUP")}
    found: dict[str, set[str]] = {}
    for module, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and _named(node.func) in GROUP_READERS and node.args:
                group = constants.get(_named(node.args[0]) or "")
                if group is not None:
                    found.setdefault(group, set()).add(module)
    return found


@cache
def load_graph() -> dict[str, set[str]]:
    """Module → the modules it imports (as `graph` reads them, the plug-in example's modules included) and, for the
    module that reads an entry point group, every entry's module. A descriptor's hooks are not followed here:
    reading the registry imports each descriptor's module only, and a hook is a call into its benchmark, resolved
    when a room needs it (`hook()`, a section's model or scale), by a benchmark that builds on those rooms (its flow
    and stages take a BuildConfig): read as an edge of the descriptor, every benchmark would be a circle."""
    known = {**{name: path for name, path in modules().items() if path.name != "__init__.py"}, **example_modules()}
    edges = {name: {n for n, _ in imported_names(path) if n in known and n != name} for name, path in known.items()}
    for group, readers in group_readers().items():
        for reader in readers:
            edges[reader] |= entry_modules().get(group, set())
    return edges


def shown(module: str) -> str:
    """A module of the package or of the plug-in example, as its file relative to the repository."""
    return str((modules().get(module) or example_modules()[module]).relative_to(REPO))


def test_one_module_reads_each_entry_point_group_and_every_entry_names_a_module() -> None:
    """The registry's descriptors are read once, by one module that configs/ and pipeline/ alike use; the
    renderers by the render worker."""
    assert group_readers() == {
        plugins.BENCHMARKS_GROUP: {"benchfoundry.configs.sections"},
        plugins.RENDERERS_GROUP: {"benchfoundry.render.worker"},
    }
    assert set(entry_modules()) == set(group_readers())
    assert all(m in load_graph() for group in entry_modules().values() for m in group)


def test_no_import_cycle_anywhere() -> None:
    assert [[shown(m) for m in component] for component in cycles(load_graph())] == []


def test_no_half_of_a_benchmark_imports_what_imports_the_half() -> None:
    """A benchmark in halves (a folder of its own with its own config.py) builds on its parent's shared modules,
    never on one that imports the half back: the parent's config holds the halves' configs, so a half's stage
    takes its half's own."""
    halves = [path.parent for folder in BENCHMARKS for path in (REPO / folder).glob("*/config.py")]
    circles = []
    for half in halves:
        inside = {m for m in graph() if modules()[m].is_relative_to(half)}
        for source in sorted(inside):
            for target in sorted(graph()[source] - inside):
                back = sorted(rel(m) for m in _loaded_by({target}) & inside)
                circles += [f"{rel(source)} imports {rel(target)}, which imports {back[0]}"] if back else []
    assert halves and circles == []


def test_every_project_import_uses_the_full_package_name() -> None:
    """`import pipeline.store` would load the file a second time as another module."""
    bare = sorted(
        f"{path.relative_to(REPO)}:{line} {name}"
        for path in [
            *modules().values(),
            *sorted((REPO / "tests").glob("*.py")),
            *sorted((REPO / "bench").glob("*.py")),
        ]
        for name, line in imported_names(path)
        if name.split(".")[0] in set(PACKAGES) - {"benchfoundry"}
    )
    assert bare == []


def test_importing_the_configs_leaves_the_heavy_runtimes_unloaded() -> None:
    names = [f"benchfoundry.configs.{p.stem}" for p in sorted((REPO / "configs").glob("*.py")) if p.stem != "__init__"]
    names += [f"{package}.config" for package in BENCHMARK_PACKAGES.values()]
    code = (
        "import importlib, json, sys\n"
        f"for name in {names!r}: importlib.import_module(name)\n"
        "from benchfoundry.configs.loader import load_config\n"
        "load_config('smoke')\n"
        "print(json.dumps(sorted(m for m in ('prefect', 'bpy', 'cv2', 'pandas', 'torch') if m in sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert len(names) >= 9
    assert json.loads(loaded.stdout) == []


def _users(runtime: str) -> set[str]:
    return {
        rel(m)
        for m, path in modules().items()
        if any(n == runtime or n.startswith(runtime + ".") for n, _ in imported_names(path))
    }


def test_prefect_is_imported_only_by_flows_and_the_shard_task_policy() -> None:
    """The orchestration: flows/, the shard-task policy and each benchmark's own flow module (`flow.py`)."""
    users = {u for u in _users("prefect") if not u.startswith("flows/")}
    assert users == {"pipeline/shard_task.py", *(f"{folder}flow.py" for folder in BENCHMARKS)}


def _loaded_by(starts: set[str]) -> set[str]:
    """The project modules that importing `starts` loads (the graph's closure)."""
    seen, todo = set(), list(starts)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph().get(module, ())
    return seen


def test_bpy_is_imported_only_by_what_the_render_worker_loads() -> None:
    """bpy lives in render/ (the worker and the shared scene kit) and in the benchmarks' renderers (each
    `scenes/renderer.py`, declared in `benchfoundry.renderers`, and what only they import); nothing else imports a
    module that imports bpy, and the worker's bpy-free side stays so."""
    bpy_files = _users("bpy") | _users("mathutils")
    users = {m for m in graph() if rel(m) in bpy_files}
    renderers = {v.partition(":")[0] for v in plugins.declared(plugins.RENDERERS_GROUP).values()} & set(graph())
    worker = _loaded_by({"benchfoundry.render.worker", *renderers})
    assert users and renderers
    assert all(rel(u).startswith("render/") or u in worker for u in users)
    assert all(rel(r).endswith("/scenes/renderer.py") for r in renderers if room(r) in BENCHMARKS)
    outside = {m for m in graph() if m not in worker and not rel(m).startswith("render/")}
    assert not {f"{rel(s)} imports {rel(t)}" for s in outside for t in graph()[s] if t in users}
    assert "render/worker_env.py" not in _users("bpy")


def test_every_package_init_is_only_a_docstring() -> None:
    """No code and no re-exports in a package's `__init__`: a name is imported from the module that defines it."""
    for path in modules().values():
        if path.name == "__init__.py":
            body = ast.parse(path.read_text()).body
            assert len(body) <= 1 and all(
                isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body
            ), path


def test_every_folder_with_modules_is_an_installed_package() -> None:
    text = (REPO / "pyproject.toml").read_text()
    for folder, package in PACKAGES.items():
        for init in (REPO / folder).rglob("__init__.py"):
            sub = init.parent.relative_to(REPO / folder).parts
            assert f'"{".".join([package, *sub])}"' in text, init


def test_a_preset_loads_by_name_as_by_path() -> None:
    assert {"smoke", "syndorbench", "odibench", "viewspatial"} <= set(preset_names())
    for name in preset_names():
        assert load_config(name) == load_config(REPO / "configs" / f"{name}.yaml")
    assert PRESET_DIR == REPO / "configs"


def test_an_unknown_preset_name_lists_the_presets(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no-such-preset: no such config file, nor a preset name \(.*smoke"):
        load_config("no-such-preset")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    "old, new",
    [
        ("syndor.body.model_type=smpl", "person.body"),
        ("syndor.textures.ids=[1]", "person.textures"),
        ("runner.kind=slurm", "runner.backend"),
    ],
)
def test_the_person_keys_that_moved_name_their_new_path(old: str, new: str) -> None:
    with pytest.raises(ConfigError, match=rf"{re.escape(old.split('.')[0])}\.\w+ moved to {re.escape(new)}"):
        load_config("smoke", [old])


#: The modules of person/ that other rooms may import: the body model interface, its registry, the posed mesh,
#: the outfits and prepare_person. The body models themselves (Anny, smplx, the procedural body) stay behind them.
PERSON_INTERFACE = (
    "person/body_model.py",
    "person/body_models.py",
    "person/body_mesh.py",
    "person/textures.py",
    "person/prepare.py",
)


def test_only_person_names_a_concrete_body_model() -> None:
    assert all((REPO / path).is_file() for path in PERSON_INTERFACE)
    wrong = sorted(
        f"{rel(s)} imports {rel(t)}"
        for s, targets in graph().items()
        for t in targets
        if room(t) == "person/" and room(s) != "person/" and rel(t) not in PERSON_INTERFACE
    )
    assert wrong == []


#: The sub-folders every benchmark has, by role (DEVELOPING.md, "A benchmark's folder"); a benchmark in halves has
#: `scenes/` and `stages/` in each half.
ROLES = ("scenes", "stages", "release", "harnesses")
PLUGIN_EXAMPLE = REPO / "tests" / "plugin_benchmark" / "toybench"


@pytest.mark.parametrize("folder", [*BENCHMARKS, str(PLUGIN_EXAMPLE.relative_to(REPO)) + "/"])
def test_a_benchmark_folder_has_the_same_inside_and_a_readme(folder: str) -> None:
    root = REPO / folder
    subfolders = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    halves = {name for name in subfolders - set(ROLES) if {"scenes", "stages"} <= _subfolders(root / name)}
    assert {"release", "harnesses"} <= subfolders
    assert {"scenes", "stages"} <= subfolders or halves
    assert all({"scenes", "stages"} <= _subfolders(root / half) for half in halves)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert all(f"`{role}/`" in readme for role in ROLES if role in subfolders)


def _subfolders(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def test_no_benchmark_folder_holds_more_than_fifteen_modules_at_its_top() -> None:
    crowded = {
        str(folder.relative_to(REPO)): n
        for benchmark in BENCHMARKS
        for folder in [REPO / benchmark, *(p.parent for p in (REPO / benchmark).rglob("*/__init__.py"))]
        if (n := len([p for p in folder.glob("*.py") if p.name != "__init__.py"])) > 15
    }
    assert crowded == {}


#: Names that DEVELOPING.md's vocabulary retired, with the word that took their place.
RETIRED_NAMES = {
    "cfg": "config (or section)",
    "bench_dir": "benchmark_dir",
    "odi_root": "benchmark_dir",
    "TASKS": "CATEGORIES",
    "RELEASED_TYPES": "CATEGORIES",
    "ShardKind": "ShardResource",
    "SHARD_KINDS": "SHARD_RESOURCES",
}


def retired_names(text: str) -> list[tuple[int, str]]:
    """(line, name) of every identifier of `RETIRED_NAMES` in Python source, and of a shard task declared with a
    `kind` (its word is `resource`) or a runner's `kind` (its word is `backend`)."""
    found = []
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for k, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and tok.string in RETIRED_NAMES:
            found.append((tok.start[0], tok.string))
        after = [t.string for t in tokens[k + 1 : k + 4]]
        if tok.string == "shard_task" and after[:3] == ["(", "kind", "="]:
            found.append((tok.start[0], "shard_task(kind=)"))
        if tok.string == "runner" and after[:2] == [".", "kind"]:
            found.append((tok.start[0], "runner.kind"))
    return found


def test_the_retired_words_are_found() -> None:
    source = "cfg = 1\n@shard_task(kind='render', name='x')\ndef f(): return runner.kind\nTASKS_X = TASKS\n"
    assert retired_names(source) == [(1, "cfg"), (2, "shard_task(kind=)"), (3, "runner.kind"), (4, "TASKS")]


def test_one_word_per_concept_in_the_code() -> None:
    """The vocabulary's retired names appear nowhere in the package, its tests, benches or the plug-in example."""
    files = [*modules().values(), *(REPO / "tests").rglob("*.py"), *(REPO / "bench").glob("*.py")]
    hits = [f"{p.relative_to(REPO)}:{line}: {name}" for p in files for line, name in retired_names(p.read_text())]
    assert hits == [], f"retired words (DEVELOPING.md, 'One vocabulary'): {RETIRED_NAMES}"
