"""The benchmark registry (tasks/common/benchmarks.py): a fourth benchmark written outside the project, registered
at run time with its config section, is built by the real `build` flow, planned by `build --plan`, exported and
linked in the report, without any module of the project naming it; and `build --plan` plans every built-in."""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchfoundry.configs import sections
from benchfoundry.configs.loader import load_config
from benchfoundry.flows import cli
from benchfoundry.flows.build import build
from benchfoundry.tasks.common import benchmarks

REPO = Path(__file__).resolve().parents[1]
TOY = "toybench"
#: The toy benchmark, a package of its own: its config section, a one-task flow, its plan, reader, rows and page.
TOY_FILES = {
    "__init__.py": '"""A toy benchmark."""\n',
    "section.py": """
        from benchfoundry.configs.base import Count, Section


        class ToyConfig(Section):
            enabled: bool = True
            items: Count = 2
        """,
    "benchmark.py": """
        from benchfoundry.tasks.common.benchmarks import Benchmark

        DESCRIPTOR = Benchmark(
            name="toybench",
            title="Toy-Bench",
            section="toybench",
            flow="toybench.flow:toy_flow",
            plan="toybench.plan:plan_text",
            released="toybench/Toy-Bench.json",
            items="toybench.reader:items",
            export_rows="toybench.reader:splits",
            report_page="toybench.html",
            task_codes=("count",),
            submits_tasks=True,
        )
        """,
    "flow.py": """
        from pathlib import Path

        from prefect import flow

        from benchfoundry.core.buildinfo import benchmark_outcome
        from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
        from benchfoundry.flows.task_runner import submit_shards
        from benchfoundry.tasks.common.shard_task import shard_task


        @shard_task(kind="compute", name="toybench-release")
        def release_task(out: str, shard: str, config) -> str:
            n = config.section("toybench").items
            rows = [{"id": k, "task": "count", "question": f"{k} + 1?", "answer": str(k + 1)} for k in range(n)]
            return str(write_json_atomic(Path(out) / "toybench" / "Toy-Bench.json", rows))


        @flow(name="toybench")
        def toy_flow(config, out):
            [(_, future)] = submit_shards(release_task, out, [("all", "all")], config)
            released = future.result()
            page = Path(out) / "report" / "toybench.html"
            write_bytes_atomic(page, b"<html><head><title>toy</title></head><body>toy</body></html>")
            return benchmark_outcome("built", "toy items", stages={"release": released, "report": str(page)})
        """,
    "plan.py": """
        def plan_text(config):
            n = config.section("toybench").items
            return f"toybench: {n} items, 1 shard, Prefect task runs: 1"
        """,
    "reader.py": """
        import json


        def items(build):
            return json.loads((build / "toybench" / "Toy-Bench.json").read_text())


        def splits(build):
            return {"test": items(build)}
        """,
}


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[benchmarks.Benchmark]:
    """The toy package on sys.path, its section and descriptor registered; all undone afterwards."""
    package = tmp_path / "toy_src" / TOY
    package.mkdir(parents=True)
    for name, text in TOY_FILES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(package.parent))
    importlib.invalidate_caches()
    sections.register_section(TOY, importlib.import_module(f"{TOY}.section").ToyConfig)
    descriptor = importlib.import_module(f"{TOY}.benchmark").DESCRIPTOR
    benchmarks.register(descriptor)
    yield descriptor
    benchmarks.unregister(TOY)
    sections.unregister_section(TOY)
    for module in [m for m in sys.modules if m == TOY or m.startswith(f"{TOY}.")]:
        del sys.modules[module]


def _toy_config(tmp_path: Path, items: int) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(
        "syndor: {enabled: false}\nodi: {enabled: false}\nviewspatial: {enabled: false}\n"
        f"{TOY}: {{items: {items}}}\n"
    )
    return path


def test_the_registry_lists_the_built_ins_in_build_order_and_refuses_a_clash() -> None:
    assert benchmarks.names()[:3] == ("syndor", "odi", "viewspatial")
    for benchmark in benchmarks.registered()[:3]:
        module = importlib.import_module(f"benchfoundry.tasks.{benchmark.name}.benchmark")
        assert module.BENCHMARK == benchmark.name == benchmark.section
        assert (REPO / "tasks" / benchmark.name / "benchmark.py").is_file()
    with pytest.raises(ValueError, match="already registered"):
        benchmarks.register(replace(benchmarks.get("odi"), title="other"))
    with pytest.raises(KeyError, match="unknown benchmark"):
        benchmarks.get("imagenet")


def test_a_registered_toy_benchmark_is_built_planned_exported_and_linked(
    toy: benchmarks.Benchmark, tmp_path: Path, prefect_server: None, capsys: pytest.CaptureFixture[str]
) -> None:
    config_path = _toy_config(tmp_path, items=3)
    config = load_config(config_path)
    assert config.section(TOY).items == 3
    out = tmp_path / "out"
    record = build(config, str(out))
    assert record["status"] == "finished", record
    assert record["benchmarks"][TOY]["status"] == "built"
    assert record["config"][TOY] == {"enabled": True, "items": 3}
    assert all(record["benchmarks"][b]["status"] == "not built" for b in ("syndor", "odi", "viewspatial"))
    released = json.loads((out / toy.released).read_text())
    assert [row["answer"] for row in released] == ["1", "2", "3"]

    assert cli.main(["build", str(config_path), "--plan"]) == 0
    printed = capsys.readouterr().out
    assert "toybench: 3 items" in printed
    assert all(f"{b}: not built" in printed for b in ("syndor", "odi", "viewspatial"))

    assert cli.main(["export", "hf", "--build", str(out), "--to", str(tmp_path / "export")]) == 0
    table = pq.read_table(tmp_path / "export" / "hf" / TOY / "data" / "test.parquet").to_pylist()
    assert [row["question"] for row in table] == [row["question"] for row in released]
    assert "Toy-Bench" in (tmp_path / "export" / "hf" / TOY / "README.md").read_text()

    page = (out / "report" / toy.report_page).read_text()
    assert '<nav id="pages">' in page and "<b>Toy-Bench</b>" in page
    assert f'href="{toy.report_page}"' in (out / "report" / "build.html").read_text()


def test_an_unregistered_section_is_an_unknown_key(tmp_path: Path) -> None:
    from benchfoundry.configs.loader import ConfigError

    with pytest.raises(ConfigError, match=f"{TOY}: unknown key"):
        load_config(_toy_config(tmp_path, items=1))


def test_plan_prints_a_section_for_every_built_in_benchmark(cli_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchfoundry.flows.cli", "build", str(REPO / "configs" / "smoke.yaml"), "--plan"],
        capture_output=True,
        text=True,
        env=cli_env,
    )
    assert result.returncode == 0, result.stderr
    heads = [line.split(":")[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert heads == ["syndor", "odi", "viewspatial"]
    assert all("not built" not in line for line in result.stdout.splitlines())
    odi = load_config(REPO / "configs" / "smoke.yaml").odi
    batches = math.ceil(len(odi.synthetic.scenes) / odi.batch_size)
    assert f"annotate shards: {batches} " in result.stdout
    assert result.stdout.count("Prefect task runs:") == 3
