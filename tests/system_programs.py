"""The system programs some tests need beyond Python and make, found one way: on PATH or in the system's sbin
folders, unless `BENCHFOUNDRY_TEST_WITHOUT` (a comma-separated list) hides them, so that the suite's behaviour on a
machine without them can be tried on one that has them (tests/test_without_system_programs.py). A test that needs one
skips with a line naming what it needs and how to get it; `.ci/run` installs them all."""

from __future__ import annotations

import os
import shutil

#: Folders searched besides PATH: Debian installs slurmctld, slurmd and munged in /usr/sbin.
SYSTEM_FOLDERS = ("/usr/sbin", "/sbin")
#: Each program a test may need → how to get it (Debian's package; .ci/run installs them all).
HOW_TO_GET = {
    "slurmctld": "apt-get install slurm-wlm munge",
    "slurmd": "apt-get install slurm-wlm munge",
    "munged": "apt-get install slurm-wlm munge",
    "chromium": "apt-get install chromium",
    "chromium-browser": "apt-get install chromium",
    "google-chrome": "apt-get install chromium",
    "podman": "apt-get install podman runc mmdebstrap containernetworking-plugins",
    "runc": "apt-get install podman runc mmdebstrap containernetworking-plugins",
    "mmdebstrap": "apt-get install podman runc mmdebstrap containernetworking-plugins",
}


def hidden() -> set[str]:
    return {name.strip() for name in os.environ.get("BENCHFOUNDRY_TEST_WITHOUT", "").split(",") if name.strip()}


def find(program: str) -> str | None:
    """The program's path, or None where it is not installed (or hidden)."""
    if program in hidden():
        return None
    path = os.pathsep.join([os.environ.get("PATH", ""), *SYSTEM_FOLDERS])
    return shutil.which(program, path=path)


def missing(*programs: str) -> list[str]:
    return [p for p in programs if find(p) is None]


def skip_reason(programs: list[str], what: str) -> str:
    """One line: what is missing, what it is for and how to get it."""
    ways = sorted({HOW_TO_GET[p] for p in programs if p in HOW_TO_GET})
    return f"{', '.join(programs)} not installed ({what}); {' or '.join(ways)} (.ci/run does)"
