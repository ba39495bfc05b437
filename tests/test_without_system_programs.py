"""`make test` on a machine with only Python and make: the tests that use SLURM, munge, Chromium, podman or an
Infinigen venv, run with those programs hidden (tests/system_programs.py, and PATH without them), skip with a line
naming what they need; none fails. `.ci/run` installs the programs, so there the same tests run for real."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from system_programs import HOW_TO_GET, SYSTEM_FOLDERS

TESTS = Path(__file__).resolve().parent
#: The Debian packages of the programs; every executable they install is hidden, not only the ones named.
PACKAGES = ("slurm-wlm", "slurmctld", "slurmd", "slurm-client", "munge", "chromium", "podman", "runc", "mmdebstrap")
#: The test files with tests marked `system_programs` (NEEDS_SLURM carries the mark).
USERS = sorted(
    p.name
    for p in TESTS.glob("test_*.py")
    if p.name != Path(__file__).name and re.search(r"\bmark\.system_programs\b|\bNEEDS_SLURM\b", p.read_text())
)

pytestmark = pytest.mark.long(minutes=1)


def _package_programs() -> set[str]:
    """The executables the packages installed here (none on a machine without them)."""
    listed = subprocess.run(["dpkg", "-L", *PACKAGES], capture_output=True, text=True).stdout.split()
    return {Path(p).name for p in listed if "/bin/" in p or "/sbin/" in p}


def _bare_path(tmp_path: Path, hidden: set[str]) -> str:
    """A PATH of links to every program on this one, the hidden ones left out."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for folder in [*os.environ["PATH"].split(os.pathsep), *SYSTEM_FOLDERS]:
        for program in sorted(Path(folder).glob("*")) if Path(folder).is_dir() else []:
            link = bare / program.name
            if program.name not in hidden and not link.exists() and os.access(program, os.X_OK):
                link.symlink_to(program)
    return str(bare)


def test_the_files_that_need_system_programs_are_found() -> None:
    assert {
        "test_asset_library.py",
        "test_images.py",
        "test_report_pages.py",
        "test_slurm_builds.py",
        "test_slurm_local_script.py",
    } <= set(USERS)


def test_without_the_system_programs_their_tests_skip_and_none_fails(tmp_path: Path) -> None:
    hidden = set(HOW_TO_GET) | _package_programs()
    env = {
        **os.environ,
        "PATH": _bare_path(tmp_path, hidden),
        "BENCHFOUNDRY_TEST_WITHOUT": ",".join(sorted(hidden)),
        "INFINIGEN_PYTHON": str(tmp_path / "no-infinigen" / "python"),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "-n",
            "0",
            "-m",
            "system_programs",
            *USERS,
        ],
        cwd=TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " failed" not in summary and " error" not in summary, summary
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped and all(re.search(r"not installed .*; apt-get install|Infinigen", s) for s in skipped), skipped
