"""A benchmark is one folder that plugs in (issue 45): Toy-Bench (tests/plugin_benchmark/), a fourth benchmark
written as a package of its own, is installed the real way, from a temporary copy with pip into a folder of its
own, and every command runs in a subprocess with that folder on PYTHONPATH (the venv is not touched). Through its
two entry points alone, its config section, plan, Prefect flow, render-spec kind and Blender renderer (run by the
real render worker), released file, report page, command, evaluation and exports all work, and no file of the
project changes.

Also the registry itself, in this process: the built-ins in build order, a clash refused, an unknown name listing
the known ones, a benchmark registered and unregistered at run time with its config section, and `build --plan`
planning every built-in.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import importlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from model_server import ScriptedModel
from PIL import Image

from benchfoundry.configs.base import Section
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.core import plugins
from benchfoundry.core.descriptor import Benchmark
from benchfoundry.pipeline import benchmarks

pytestmark = pytest.mark.long(minutes=1)

REPO = Path(__file__).resolve().parents[1]
#: The toy benchmark's source: a package with its own pyproject.toml, outside every project package.
TOY_SOURCE = Path(__file__).resolve().parent / "plugin_benchmark"
TOY = "toybench"
BUILT_INS = ("syndor", "odi", "viewspatial")
#: The toy's config section in the test build (tiny renders: 32 px, 2 samples).
ITEMS, SIZE_PX, SAMPLES = 5, 32, 2
#: The colours the toy's cubes have, in the order of an RGB pixel's channels.
CHANNELS = ("red", "green", "blue")
#: The first line the toy's evaluation hook puts before every prompt (toybench/harnesses/evaluation.py).
PREAMBLE = "Toy-Bench: look at the cube."
#: The scripted model's one reply: right where an item's correct option is the first.
REPLY = "A"
#: The descriptor's fields that name no hook.
NOT_HOOKS = ("name", "title", "released", "report_page", "order", "categories", "submits_tasks", "front_counts")


def _git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`benchfoundry ARGS…` in a subprocess with the toy's site folder on PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-m", "benchfoundry.cli.main", *args], capture_output=True, text=True, env=env, timeout=600
    )


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


# --- in this process: the registry --------------------------------------------------------------------------


def test_the_registry_lists_the_built_ins_in_build_order_and_refuses_a_clash() -> None:
    """The venv declares the three built-ins only (the toy is installed elsewhere), each from its own folder."""
    assert benchmarks.names() == BUILT_INS
    assert TOY not in plugins.declared(plugins.BENCHMARKS_GROUP)
    assert [d.order for d in benchmarks.registered()] == sorted(d.order for d in benchmarks.registered())
    for descriptor in benchmarks.registered():
        module = importlib.import_module(f"benchfoundry.benchmarks.{descriptor.name}.benchmark")
        assert module.DESCRIPTOR is benchmarks.get(descriptor.name)
        assert (REPO / "benchmarks" / descriptor.name / "benchmark.py").is_file()
        assert issubclass(plugins.resolve(descriptor.config), Section)
        assert (REPO / "benchmarks" / descriptor.name / "identity.py").is_file()
        for field in dataclasses.fields(descriptor):  # every hook's module is in the benchmark's own folder
            value = getattr(descriptor, field.name)
            hooks = [d for _, d in value] if field.name == "vlmevalkit" else [value]
            for hook in hooks if field.name not in NOT_HOOKS else []:
                if isinstance(hook, str):
                    module = hook.partition(":")[0]
                    assert module.startswith(f"benchfoundry.benchmarks.{descriptor.name}."), (field.name, hook)
                    assert find_spec(module) is not None, f"{descriptor.name}.{field.name}: {hook}"
    with pytest.raises(ValueError, match="already registered"):
        benchmarks.register(dataclasses.replace(benchmarks.get("odi"), title="other"))
    with pytest.raises(KeyError, match="unknown benchmark 'imagenet'; known: syndor, odi, viewspatial"):
        benchmarks.get("imagenet")
    with pytest.raises(ValueError, match="declared by an installed package"):
        benchmarks.unregister("odi")
    assert benchmarks.names() == BUILT_INS


@pytest.fixture
def toy_in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[Benchmark]:
    """The toy's package importable from its source folder (not installed) and its descriptor registered in this
    process with `register`; unregistered and forgotten afterwards."""
    monkeypatch.syspath_prepend(str(TOY_SOURCE))
    importlib.invalidate_caches()
    descriptor = importlib.import_module(f"{TOY}.benchmark").DESCRIPTOR
    try:
        yield descriptor
    finally:
        benchmarks.unregister(TOY)
        for module in [m for m in sys.modules if m == TOY or m.startswith(f"{TOY}.")]:
            del sys.modules[module]


def test_the_render_worker_finds_each_kinds_renderer_by_its_entry_point_and_names_an_unknown_one() -> None:
    from benchfoundry.benchmarks.odi.scenes.spec import PanoramaShard
    from benchfoundry.benchmarks.syndor.scenes.spec import RigShard
    from benchfoundry.core import plugins
    from benchfoundry.render import worker

    declared = plugins.declared(plugins.RENDERERS_GROUP)
    assert {RigShard.kind, PanoramaShard.kind} <= set(declared)
    assert worker.renderer(RigShard.kind) is plugins.resolve(declared[RigShard.kind])
    with pytest.raises(plugins.PluginError, match=r"no entry 'hologram'; declared: .*rig"):
        worker.renderer("hologram")
    with pytest.raises(ValueError, match="without a kind"):
        worker.renderer(None)


def test_a_benchmark_registered_in_process_brings_its_section_and_goes_again(
    toy_in_process: Benchmark, tmp_path: Path
) -> None:
    config_path = tmp_path / "toy.yaml"
    config_path.write_text(f"{TOY}: {{items: 3}}\n")
    with pytest.raises(ConfigError, match=f"{TOY}: unknown key"):
        load_config(config_path)

    benchmarks.register(toy_in_process)
    assert benchmarks.names() == (*BUILT_INS, TOY)
    benchmarks.register(toy_in_process)  # the same descriptor again: no clash
    with pytest.raises(ValueError, match="already registered"):
        benchmarks.register(dataclasses.replace(toy_in_process, title="Other-Bench"))
    config = load_config(config_path)
    assert config.section(TOY).items == 3 and config.section(TOY).enabled
    assert benchmarks.hook(TOY, "plan")(config).startswith(f"{TOY}: 3 items, 3 render shards")
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"{TOY}: {{items: 0}}\n")
    with pytest.raises(ConfigError, match=f"{TOY}.items"):
        load_config(bad)

    benchmarks.unregister(TOY)
    assert benchmarks.names() == BUILT_INS
    with pytest.raises(ConfigError, match=f"{TOY}: unknown key"):
        load_config(config_path)


def test_plan_prints_a_section_for_every_built_in_benchmark(cli_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchfoundry.cli.main", "build", str(REPO / "configs" / "smoke.yaml"), "--plan"],
        capture_output=True,
        text=True,
        env=cli_env,
    )
    assert result.returncode == 0, result.stderr
    heads = [line.split(":")[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert heads == list(BUILT_INS)
    assert all("not built" not in line for line in result.stdout.splitlines())
    odi = load_config(REPO / "configs" / "smoke.yaml").odi
    batches = math.ceil(len(odi.synthetic.scenes) / odi.batch_size)
    assert f"annotate shards: {batches} " in result.stdout
    assert result.stdout.count("Prefect task runs:") == 3


# --- the toy installed from a temporary folder, driven through the command line -----------------------------


@pytest.fixture(scope="module")
def repo_status() -> str:
    """The repository's `git status` before anything of the toy's tests ran."""
    return _git_status()


@pytest.fixture(scope="module")
def toy_root(tmp_path_factory: pytest.TempPathFactory, repo_status: str) -> Path:
    """A temporary folder holding a copy of the toy's source and `site/`, where pip installed it."""
    root = tmp_path_factory.mktemp("toybench")
    source = shutil.copytree(TOY_SOURCE, root / "toybench_src", ignore=shutil.ignore_patterns("__pycache__"))
    install = [
        *(sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"),
        *("--no-cache-dir", "--disable-pip-version-check", "--quiet", "--target", str(root / "site"), str(source)),
    ]
    result = subprocess.run(install, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.fixture(scope="module")
def toy_env(toy_root: Path, prefect_server: None) -> dict[str, str]:
    """The command line's environment (conftest's `cli_env`, for the whole module) with the toy's site folder on
    PYTHONPATH."""
    from prefect.settings import PREFECT_API_URL

    path = os.pathsep.join(p for p in (str(toy_root / "site"), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()), "PYTHONPATH": path}


@pytest.fixture(scope="module")
def toy_config(toy_root: Path) -> Path:
    """A build of the toy alone: the built-ins disabled, one runner thread (one Blender worker)."""
    path = toy_root / "toy.yaml"
    path.write_text(
        "name: toy-build\nseed: 0\n"
        + "".join(f"{b}: {{enabled: false}}\n" for b in BUILT_INS)
        + "runner: {backend: local, max_workers: 1}\n"
        + f"{TOY}: {{items: {ITEMS}, size_px: {SIZE_PX}, samples: {SAMPLES}}}\n"
    )
    return path


@pytest.fixture(scope="module")
def built(toy_root: Path, toy_env: dict[str, str], toy_config: Path) -> tuple[Path, str]:
    """`benchfoundry build CONFIG --out OUT --only toybench`: the build root and what the command printed."""
    out = toy_root / "out"
    printed = _ok(_run(toy_env, "build", str(toy_config), "--out", str(out), "--only", TOY))
    return out, printed


def _released(out: Path) -> list[dict[str, Any]]:
    return json.loads((out / TOY / "Toy-Bench.json").read_text())


def test_the_toy_is_installed_in_its_own_folder_only(toy_root: Path) -> None:
    points = (toy_root / "site" / "toybench-0.1.0.dist-info" / "entry_points.txt").read_text()
    assert "[benchfoundry.benchmarks]\ntoybench = toybench.benchmark:DESCRIPTOR" in points
    assert "[benchfoundry.renderers]\ntoy_scene = toybench.scenes.renderer:render_toy" in points
    assert (toy_root / "site" / TOY / "scenes" / "renderer.py").is_file()
    assert TOY not in {p.name for p in entry_points(group=plugins.BENCHMARKS_GROUP)}  # not in this venv
    assert "toy_scene" not in {p.name for p in entry_points(group=plugins.RENDERERS_GROUP)}


def test_plan_shows_the_toys_line_from_its_config_section(toy_env: dict[str, str], toy_config: Path) -> None:
    printed = _ok(_run(toy_env, "build", str(toy_config), "--plan", "--set", f"{TOY}.items=7"))
    assert printed.splitlines() == [
        *(f"{b}: not built (nothing to plan)" for b in BUILT_INS),
        f"{TOY}: 7 items, 7 render shards ({SIZE_PX}x{SIZE_PX} px, {SAMPLES} Cycles samples), Prefect task runs: 7",
    ]
    refused = _run(toy_env, "build", str(toy_config), "--plan", "--set", f"{TOY}.samples=0")
    assert refused.returncode == 2 and f"{TOY}.samples" in refused.stderr


@pytest.mark.blender
def test_build_renders_the_toys_cubes_through_the_worker_and_releases_them(built: tuple[Path, str]) -> None:
    out, printed = built
    record = json.loads((out / "build.json").read_text())
    assert record["status"] == "finished", record.get("error")
    assert {b: record["benchmarks"][b]["status"] for b in BUILT_INS} == dict.fromkeys(BUILT_INS, "not built")
    toy = record["benchmarks"][TOY]
    assert toy["status"] == "built" and toy["items"] == ITEMS and toy["problems"] == []
    assert toy["detail"] == f"{ITEMS}/{ITEMS} cubes rendered and released"
    assert record["config"][TOY] == {
        "enabled": True,
        "items": ITEMS,
        "size_px": SIZE_PX,
        "samples": SAMPLES,
        "render_timeout_s": 300.0,
    }
    assert f"{TOY}: built ({toy['detail']})" in printed
    # the plug-in's own distribution is recorded beside the project's, so the build names the code that made it
    assert record["versions"][TOY] == "0.1.0" and record["versions"]["benchfoundry"]
    render = record["timings"]["benchmarks"][TOY]["stages"]["render"]
    assert render["tasks"] == ITEMS and render["render_frames"] == ITEMS  # the render worker's replies

    released = _released(out)
    assert [row["id"] for row in released] == [f"cube{k:04d}" for k in range(ITEMS)]
    assert len({row["answer"] for row in released}) == len(CHANNELS)  # every colour: the pixel check can fail
    for row in released:
        assert row["question"] == "What colour is the cube?" and row["task"] == "colour"
        assert sorted(row["options"]) == sorted(CHANNELS) and row["answer"] in row["options"]
        path = out / TOY / row["image"]
        with Image.open(path) as image:
            assert image.format == "PNG" and image.size == (SIZE_PX, SIZE_PX)
            pixels = np.asarray(image.convert("RGB")).astype(int)
        background = pixels[0, 0]
        assert background.max() - background.min() <= 3 and background.max() < 80, background  # a dark grey
        cube = np.abs(pixels - background).max(axis=2) > 40
        assert 0.1 < cube.mean() < 0.9, f"{path}: {cube.mean():.2f} of the pixels are the cube's"
        centre = pixels[SIZE_PX // 2, SIZE_PX // 2]
        assert CHANNELS[int(np.argmax(centre))] == row["answer"], f"{path}: centre {centre}, answer {row['answer']}"


@pytest.mark.blender
def test_the_report_links_the_toys_page(built: tuple[Path, str]) -> None:
    out, _ = built
    report = out / "report"
    page = (report / "toybench.html").read_text()
    links = (
        '<a href="index.html">Overview</a>',
        "<b>Toy-Bench</b>",
        '<a href="build.html">Build time</a>',
        '<a href="contact.html">Contact sheet</a>',
    )
    assert f'<nav id="pages">{" · ".join(links)}</nav>' in page
    assert page.count("<tr>") == ITEMS
    assert '<a href="toybench.html">Toy-Bench</a>' in (report / "build.html").read_text()
    front = (report / "index.html").read_text()  # the front page: the toy's status, items and a released image
    assert '<a href="toybench.html">Toy-Bench</a>' in front and f'data-key="items">{ITEMS}</td>' in front
    assert f'<img src="../{TOY}/' in front


@pytest.mark.blender
def test_the_toys_own_command_counts_its_released_items(built: tuple[Path, str], toy_env: dict[str, str]) -> None:
    out, _ = built
    colours = Counter(row["answer"] for row in _released(out))
    counts = ", ".join(f"{c} {n}" for c, n in sorted(colours.items()))
    assert _ok(_run(toy_env, TOY, "count", str(out))) == f"Toy-Bench: {ITEMS} items; {counts}\n"
    assert re.search(rf"^\s+{TOY}\s+Toy-Bench's own commands$", _ok(_run(toy_env, "--help")), re.M)


@pytest.mark.blender
def test_eval_asks_and_scores_through_the_toys_evaluation(built: tuple[Path, str], toy_env: dict[str, str]) -> None:
    out, _ = built
    released = _released(out)
    right = [row["options"][0] == row["answer"] for row in released]  # the reply "A" names the first option
    assert 0 < sum(right) < len(right)
    with ScriptedModel(lambda prompt, attempt: ("ok", REPLY)) as model:
        printed = _ok(_run(toy_env, "eval", TOY, "--build", str(out), "--model", "m", "--base-url", model.base_url))
    assert len(model.bodies) == ITEMS
    for body in model.bodies:
        [message] = body["messages"]
        parts = {part["type"]: part for part in message["content"]}
        assert parts["text"]["text"].startswith(f"{PREAMBLE}\nWhat colour is the cube?\nA. ")
        assert parts["image_url"]["image_url"]["url"].startswith("data:image/png;base64,")
    score = json.loads((out / "report" / "eval" / "m" / f"{TOY}.json").read_text())
    assert score["n"] == ITEMS and score["failed_items"] == 0 and score["invalid"] == 0
    assert score["overall"] == pytest.approx(sum(right) / len(right))
    assert score["per_task"] == {"colour": pytest.approx(sum(right) / len(right))}
    per_colour: dict[str, list[bool]] = {}
    for row, ok in zip(released, right):
        per_colour.setdefault(row["answer"], []).append(ok)
    assert score["per_colour"] == {c: pytest.approx(sum(v) / len(v)) for c, v in per_colour.items()}
    assert f"{TOY}: overall {sum(right) / len(right):.3f} over {ITEMS} closed items" in printed
    index = (out / "report" / "eval" / "index.html").read_text()
    assert '<a href="../toybench.html">Toy-Bench</a>' in index


def _export(out: Path, env: dict[str, str], fmt: str, to: Path) -> str:
    return _ok(_run(env, "export", fmt, "--build", str(out), "--to", str(to), "--benchmark", TOY))


@pytest.mark.blender
def test_export_hf_writes_the_toys_rows(built: tuple[Path, str], toy_env: dict[str, str], tmp_path: Path) -> None:
    out, _ = built
    _export(out, toy_env, "hf", tmp_path)
    folder = tmp_path / "hf" / TOY
    table = pq.read_table(folder / "data" / "test.parquet").to_pylist()
    released = _released(out)
    assert [r["id"] for r in table] == [r["id"] for r in released]
    for row, item in zip(table, released):
        assert row["question"] == item["question"] and row["answer_text"] == item["answer"]
        assert row["options"] == [f"{letter}. {t}" for letter, t in zip("ABC", item["options"])]
        assert row["answer"] == "ABC"[item["options"].index(item["answer"])]
        assert row["image"] == {"bytes": (out / TOY / item["image"]).read_bytes(), "path": item["image"]}
    assert "# Toy-Bench" in (folder / "README.md").read_text()


@pytest.mark.blender
def test_export_lmms_eval_writes_the_toys_task(
    built: tuple[Path, str], toy_env: dict[str, str], tmp_path: Path
) -> None:
    out, _ = built
    _export(out, toy_env, "lmms-eval", tmp_path)
    folder = tmp_path / "lmms-eval" / "benchfoundry_toybench"
    yaml = (folder / "benchfoundry_toybench.yaml").read_text()
    data = (folder / "data" / "test.parquet").absolute()
    assert 'task: "benchfoundry_toybench"\n' in yaml and f'test: "{data}"' in yaml  # quoted scalars
    assert "aggregation: !function utils.toy_aggregate" in yaml
    utils_source = TOY_SOURCE / TOY / "harnesses" / "lmms_eval_utils.py"
    assert (folder / "utils.py").read_bytes() == utils_source.read_bytes()
    spec = importlib.util.spec_from_file_location("toy_lmms_utils", folder / "utils.py")
    assert spec is not None and spec.loader is not None
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)  # imports nothing of benchfoundry, nor lmms-eval
    docs = pq.read_table(data).to_pylist()
    released = _released(out)
    assert len(docs) == ITEMS
    for doc, item in zip(docs, released):
        assert utils.toy_doc_to_text(doc).startswith(f"{item['question']}\nA. {item['options'][0]}\n")
        wrong = next(letter for letter in "ABC" if letter != doc["answer"])
        assert utils.toy_process_results(doc, [doc["answer"]]) == {"accuracy": 1.0}
        assert utils.toy_process_results(doc, [wrong]) == {"accuracy": 0.0}
        doc_image = Image.open(io.BytesIO(doc["image"]["bytes"]))
        assert utils.toy_doc_to_visual({"image": doc_image})[0].size == (SIZE_PX, SIZE_PX)


@pytest.mark.blender
def test_export_vlmevalkit_writes_the_toys_tsv(
    built: tuple[Path, str], toy_env: dict[str, str], tmp_path: Path
) -> None:
    out, _ = built
    printed = _export(out, toy_env, "vlmevalkit", tmp_path)
    assert f"{TOY}: benchfoundry_Toy {ITEMS} rows" in printed
    folder = tmp_path / "vlmevalkit"
    dataset = TOY_SOURCE / TOY / "harnesses" / "vlmevalkit_dataset.py"
    assert (folder / "benchfoundry_vlmeval_toybench.py").read_bytes() == dataset.read_bytes()
    assert (folder / "benchfoundry_vlmeval.py").is_file()
    limit = csv.field_size_limit(sys.maxsize)  # process-wide: given back, other tests in this worker rely on it
    try:
        with (folder / "benchfoundry_Toy.tsv").open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
    finally:
        csv.field_size_limit(limit)
    released = _released(out)
    assert [r["index"] for r in rows] == [str(k) for k in range(ITEMS)]
    for row, item in zip(rows, released):
        assert row["question"] == item["question"] and row["category"] == "colour"
        assert [row["A"], row["B"], row["C"], row["D"]] == [*item["options"], ""]
        assert row[row["answer"]] == item["answer"]
        assert row["image_path"] == item["image"]
        assert base64.b64decode(row["image"]) == (out / TOY / item["image"]).read_bytes()


@pytest.mark.blender
def test_no_file_of_the_project_changed(built: tuple[Path, str], repo_status: str) -> None:
    """Installing, building, evaluating and exporting the toy wrote nothing into the repository."""
    assert _git_status() == repo_status
