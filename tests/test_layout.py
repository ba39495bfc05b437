"""The house layout (DESIGN §1): imports run flows → tasks → configs; heavy runtimes stay behind their gates."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchfoundry.configs.loader import PRESET_DIR, ConfigError, load_config, preset_names

REPO = Path(__file__).resolve().parents[1]
#: Folder of the repository → the package it installs as.
PACKAGES = {"configs": "benchfoundry.configs", "flows": "benchfoundry.flows", "tasks": "benchfoundry.tasks",
            "render": "benchfoundry.render", "assets": "benchfoundry.assets"}
#: Small pure modules the config models may use (each imports nothing of the project itself).
CONFIG_MAY_IMPORT = {"benchfoundry.tasks.syndor.dori", "benchfoundry.assets.actions"}


def source_of(module: str) -> Path | None:
    """The repository file of a `benchfoundry.…` module or package, None for anything else."""
    parts = module.split(".")
    if parts[0] != "benchfoundry" or len(parts) < 2 or parts[1] not in PACKAGES:
        return None
    base = REPO.joinpath(*parts[1:])
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def imports_of(path: Path) -> set[str]:
    """Every module an `import`/`from … import` in the file names (function-level imports included);
    `from package import module` names both."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if source_of(f"{node.module}.{a.name}"))
    return found


def modules(folder: str) -> dict[str, set[str]]:
    return {str(p.relative_to(REPO)): imports_of(p) for p in sorted((REPO / folder).rglob("*.py"))}


def project_imports(found: set[str]) -> set[str]:
    return {m for m in found if m.startswith("benchfoundry.")}


@pytest.mark.parametrize("folder", ["tasks", "render", "assets", "configs"])
def test_nothing_below_flows_imports_flows(folder: str) -> None:
    upward = {path: sorted(m for m in found if m.startswith("benchfoundry.flows"))
              for path, found in modules(folder).items()}
    assert {path: m for path, m in upward.items() if m} == {}


def test_config_models_import_only_small_pure_modules_of_the_project() -> None:
    used = set().union(*(project_imports(found) for found in modules("configs").values()))
    # `from benchfoundry.tasks.syndor import dori` names the package as well as the module.
    parents = {name.rsplit(".", 1)[0] for name in CONFIG_MAY_IMPORT}
    assert {m for m in used if not m.startswith("benchfoundry.configs")} - CONFIG_MAY_IMPORT - parents == set()
    for name in CONFIG_MAY_IMPORT:
        assert project_imports(imports_of(source_of(name))) == set(), name


def test_importing_the_configs_leaves_the_heavy_runtimes_unloaded() -> None:
    names = [f"benchfoundry.configs.{p.stem}" for p in sorted((REPO / "configs").glob("*.py")) if p.stem != "__init__"]
    code = ("import importlib, json, sys\n"
            f"for name in {names!r}: importlib.import_module(name)\n"
            "from benchfoundry.configs.loader import load_config\n"
            "load_config('smoke')\n"
            "print(json.dumps(sorted(m for m in ('prefect', 'bpy', 'cv2', 'pandas', 'torch') if m in sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert len(names) >= 10
    assert json.loads(loaded.stdout) == []


def test_prefect_is_imported_only_by_flows_and_the_shard_task_policy() -> None:
    users = {path for folder in ("configs", "tasks", "render", "assets") for path, found in modules(folder).items()
             if any(m == "prefect" or m.startswith("prefect.") for m in found)}
    assert users == {"tasks/common/policy.py"}


def test_bpy_is_imported_only_under_render() -> None:
    users = {path for folder in ("configs", "flows", "tasks", "assets") for path, found in modules(folder).items()
             if "bpy" in found or any(m.startswith("bpy.") for m in found)}
    assert users == set()


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
