"""`scripts/slurm-local` run as root: it stops only the daemons it started and writes through no link planted in
its folder. No SLURM needed: its functions are loaded from the script with its folder in a temporary place."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "slurm-local"
pytestmark = pytest.mark.system_programs  # it asks slurmd about the host where SLURM is installed


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("SLURM_LOCAL_DIR", str(tmp_path / "cluster"))
    loader = importlib.machinery.SourceFileLoader("slurm_local_script", str(SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    (tmp_path / "cluster").mkdir()
    return module


@pytest.fixture
def sleepers(tmp_path: Path) -> Iterator[list[subprocess.Popen]]:
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _sleeper(tmp_path: Path, name: str, env: dict[str, str], started: list[subprocess.Popen]) -> int:
    """A process whose program is a copy of `sleep` named `name`, with `env`; its pid."""
    program = tmp_path / "bin" / name
    program.parent.mkdir(exist_ok=True)
    shutil.copy(shutil.which("sleep"), program)
    started.append(subprocess.Popen([str(program), "60"], env=env))
    return started[-1].pid


def test_only_this_folders_daemon_by_its_exact_name_counts_as_running(
    script: ModuleType, tmp_path: Path, sleepers: list[subprocess.Popen]
) -> None:
    ours = {"SLURM_CONF": f"{script.DIR}/slurm.conf"}
    pid_file = script.DIR / script.DAEMONS["munged"]
    cases = [
        ("munged-decoy", ours, None),  # a name that only starts like the daemon's
        ("munged", {}, None),  # the daemon of another user: nothing names this folder
        ("munged", ours, "pid"),  # this folder's
    ]
    for name, env, expected in cases:
        pid = _sleeper(tmp_path, name, env, sleepers)
        pid_file.write_text(f"{pid}\n")
        assert script.running_pid("munged") == (pid if expected else None), name
        shutil.rmtree(tmp_path / "bin")


@pytest.mark.parametrize("planted", ["gres.conf", "slurm.conf", ".gitignore", "log"])
def test_prepare_writes_through_no_link_planted_in_its_folder(script: ModuleType, tmp_path: Path, planted: str) -> None:
    target = tmp_path / "victim"
    target.write_text("root's file")
    (script.DIR / planted).symlink_to(target)
    with pytest.raises(SystemExit, match=rf"{planted} is a symbolic link"):
        script.prepare()
    assert target.read_text() == "root's file"
