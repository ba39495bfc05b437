"""`benchfoundry export {vlmevalkit,lmms-eval,hf}`: each export read back as its harness reads it (`datasets`,
pandas, the lmms-eval YAML with its utils), every answer among its options, every image decodable and the
released one."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import datasets
import numpy as np
import pandas as pd
import pytest
import yaml
from PIL import Image
from test_eval import odi_build, viewspatial_build
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.cli.main import main

STUB = Path(__file__).parent / "harness_stub"


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All three benchmarks in one build; SynD's day split without a night-vision image (its `nv_path` all
    null, as the authors' day rows), ViewSpatial with a two-image item and an image used twice."""
    out = tmp_path_factory.mktemp("build")
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())
    for task in release.CATEGORIES:
        day = out / "syndor" / "index" / task / "day.jsonl"
        rows = [{**r, "nv_path": None} for r in release.read_jsonl(day)]
        day.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = viewspatial_build(out, n=8)
    items[6]["image_path"] = ["images/6.jpg", "images/2.jpg"]
    items[7]["image_path"] = ["images/3.jpg"]
    (out / "viewspatial" / "ViewSpatial-Bench.json").write_text(json.dumps(items))
    odi_build(out)
    return out


def export(build: Path, to: Path, fmt: str, *extra: str) -> int:
    return main(["export", fmt, "--build", str(build), "--to", str(to), *extra])


def released(build: Path) -> dict[str, Any]:
    return {
        "viewspatial": json.loads((build / "viewspatial" / "ViewSpatial-Bench.json").read_text()),
        "odi": json.loads((build / "odi" / "ODI-Bench.json").read_text()),
        "syndor": {
            f"{task}_{split}": release.read_jsonl(build / "syndor" / "index" / task / f"{split}.jsonl")
            for task in release.CATEGORIES
            for split in release.SPLITS
        },
    }


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def same_image(image: Image.Image, file: Path) -> bool:
    return np.array_equal(np.asarray(image.convert("RGB")), pixels(file.read_bytes()))


@pytest.fixture(scope="module")
def hf_folder(build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    to = tmp_path_factory.mktemp("export")
    assert export(build, to, "hf") == 0
    return to / "hf"


@pytest.fixture(scope="module")
def hf(hf_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, datasets.DatasetDict]:
    cache = tmp_path_factory.mktemp("hf-cache")
    return {
        b: datasets.load_dataset(str(hf_folder / b), cache_dir=str(cache)) for b in ("syndor", "viewspatial", "odi")
    }


def test_hf_synd_loads_as_one_datasetdict_with_typed_nv_path(build: Path, hf: dict) -> None:
    synd, expected = hf["syndor"], released(build)["syndor"]
    assert isinstance(synd, datasets.DatasetDict) and set(synd) == set(expected)
    assert len({json.dumps(synd[s].features.to_dict(), sort_keys=True) for s in synd}) == 1
    features = synd["human_detection_day"].features
    assert features["nv_path"].dtype == "string" and isinstance(features["image"], datasets.Image)
    assert all(v is None for v in synd["human_detection_day"]["nv_path"])
    assert all(isinstance(v, str) for v in synd["human_detection_night"]["nv_path"])
    for split, rows in expected.items():
        got = synd[split]
        assert got["img_path"] == [r["img_path"] for r in rows]
        assert got["human_discernable"] == [r["human_discernable"] for r in rows]
        first = got[0]
        assert same_image(first["image"], build / "syndor" / rows[0]["img_path"])


def test_hf_viewspatial_and_odi_hold_their_answers_among_their_options(build: Path, hf: dict, hf_folder: Path) -> None:
    vs, odi = hf["viewspatial"]["test"], hf["odi"]["test"]
    items = released(build)["viewspatial"]
    assert vs["question"] == [i["question"] for i in items]
    assert set(vs["question_type"]) <= set(CATEGORIES.values())
    for row, item in zip(vs, items):
        assert row["answer"] in row["choices"].split("\n")
        assert row["image_path"] == item["image_path"] and len(row["images"]) == len(item["image_path"])
        for image, path in zip(row["images"], item["image_path"]):
            assert same_image(image, build / "viewspatial" / path)
    assert isinstance(hf["odi"]["test"].features["image"], datasets.Image)
    for row in odi:
        assert row["form"] == "open" or row["answer"] in row["options"]
        assert same_image(row["image"], build / "odi" / row["image_path"])
    frame = pd.read_parquet(hf_folder / "odi" / "data" / "test.parquet")
    assert list(frame["id"]) == [i["id"] for i in released(build)["odi"]]
    assert pixels(frame["image"][0]["bytes"]).shape == (32, 64, 3) and frame["image"][0]["path"] == "pano.jpg"


def resolve_images(frame: pd.DataFrame) -> list[list[bytes]]:
    """VLMEvalKit's reading of the image column: a cell of 64 characters or fewer is the index of the row
    holding the image; a cell starting with "[" is a list; each base64 string is one image."""
    cells = {str(i): str(c) for i, c in zip(frame["index"], frame["image"])}
    out = []
    for index in frame["index"]:
        cell = cells[str(index)]
        if len(cell) <= 64:
            assert len(cells[cell]) > 64
            cell = cells[cell]
        strings = json.loads(cell) if cell.startswith("[") else [cell]
        out.append([base64.b64decode(s) for s in strings])
    return out


def test_vlmevalkit_tsv_embeds_each_image_once_with_letter_answers(build: Path, tmp_path: Path) -> None:
    assert export(build, tmp_path, "vlmevalkit") == 0
    folder = tmp_path / "vlmevalkit"
    vs = pd.read_csv(folder / "benchfoundry_ViewSpatial.tsv", sep="\t", keep_default_na=False)
    items = released(build)["viewspatial"]
    assert list(vs.columns[:4]) == ["index", "image", "image_path", "question"]
    images = resolve_images(vs)
    for row, item, found in zip(vs.to_dict("records"), items, images):
        options = [row[x] for x in "ABCD" if row[x] != ""]
        assert row["answer"] in "ABCD"[: len(options)]
        assert f"{row['answer']}. {options['ABCD'.index(row['answer'])]}" == item["answer"]
        assert row["category"] in CATEGORIES.values() and row["question"] == item["question"]
        assert [pixels(b).tobytes() for b in found] == [
            pixels((build / "viewspatial" / p).read_bytes()).tobytes() for p in item["image_path"]
        ]
    assert vs["image"][7] == "3" and vs["image"][6].startswith("[")  # image 3 held by row 3; row 6 has two
    odi = pd.read_csv(folder / "benchfoundry_ODI.tsv", sep="\t", keep_default_na=False)
    for row in odi.to_dict("records"):
        assert row["answer"] in [x for x in "ABCD" if row[x] != ""]
    assert list(odi["B"][:2]) == ["red", "yes"] and odi["answer"][1] == "B"
    assert list(odi["image"][1:]) == ["0"]  # one panorama, embedded once
    open_ = pd.read_csv(folder / "benchfoundry_ODI_open.tsv", sep="\t", keep_default_na=False, dtype=str)
    assert "A" not in open_.columns and list(open_["answer"]) == ["green", "3", "behind me"]
    synd = pd.read_csv(folder / "benchfoundry_SynDOR.tsv", sep="\t", keep_default_na=False, dtype=str)
    expected = released(build)["syndor"]
    assert len(synd) == sum(map(len, expected.values()))
    assert set(synd["category"]) == set(expected)
    presence = synd[synd["l2-category"] == "human_detection"]
    assert set(presence["answer"]) == {"0", "1"}
    assert all(len(b) == 1 for b in resolve_images(synd))


class FunctionLoader(yaml.SafeLoader):
    """lmms-eval's reading of `!function utils.name`: that function of the `utils.py` beside the YAML."""


def load_task(path: Path) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location(f"utils_{path.parent.name}", path.parent / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    FunctionLoader.add_constructor(
        "!function", lambda loader, node: getattr(module, loader.construct_scalar(node).split(".", 1)[1])
    )
    config = yaml.load(path.read_text(), Loader=FunctionLoader)
    config["module"] = module
    return config


def task_docs(config: dict[str, Any], cache: Path) -> datasets.Dataset:
    """The task's documents as lmms-eval loads them: `load_dataset(dataset_path, **dataset_kwargs)`, then
    `process_docs` on the test split."""
    data = datasets.load_dataset(config["dataset_path"], cache_dir=str(cache), **config["dataset_kwargs"])
    docs = data[config["test_split"]]
    return config["process_docs"](docs) if "process_docs" in config else docs


def aggregate(config: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, float]:
    """Each metric of `metric_list` aggregated over the values the documents gave it."""
    out = {}
    for entry in config["metric_list"]:
        values = [r[entry["metric"]] for r in results if entry["metric"] in r]
        out[entry["metric"]] = entry["aggregation"](values)
    return out


@pytest.fixture(scope="module")
def lmms(build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    to = tmp_path_factory.mktemp("lmms")
    assert export(build, to, "lmms-eval") == 0
    return to / "lmms-eval"


def test_lmms_eval_viewspatial_runs_the_harness_functions_on_every_row(
    lmms: Path, build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(STUB))
    for name in [m for m in sys.modules if m.startswith("lmms_eval")]:
        monkeypatch.delitem(sys.modules, name)
    config = load_task(lmms / "benchfoundry_viewspatial" / "benchfoundry_viewspatial.yaml")
    assert config["task"] == "benchfoundry_viewspatial" and config["dataset_path"] == "parquet"
    docs = task_docs(config, tmp_path)
    items = released(build)["viewspatial"]
    assert len(docs) == len(items)
    first = docs[0]
    assert config["doc_to_text"](first).startswith(f"Question: {items[0]['question']}\nChoices: ")
    assert len(config["doc_to_visual"](docs[6])) == 2
    harness = sys.modules["lmms_eval.tasks.viewspatial.utils"]
    assert config["process_results"] is harness.viewspatial_process_results
    assert config["module"].CATEGORIES == CATEGORIES
    # a perfect model scores 1 on every task the build holds (short names in the build are mapped)
    perfect = [config["process_results"](d, [f"Let me see.\n{d['answer'][0]}"]) for d in docs]
    scores = aggregate(config, perfect)
    assert scores["overall_accuracy"] == 1.0
    for short in {i["question_type"] for i in items}:
        assert scores[f"{harness.TYPES[CATEGORIES.get(short, short)]}_accuracy"] == 1.0
    lower_a = aggregate(config, [config["process_results"](d, ["a"]) for d in docs])
    assert lower_a["overall_accuracy"] == pytest.approx(sum(i["answer"].startswith("A.") for i in items) / len(items))


def test_lmms_eval_odi_asks_the_closed_items_with_lettered_options(lmms: Path, build: Path, tmp_path: Path) -> None:
    config = load_task(lmms / "benchfoundry_odi" / "benchfoundry_odi.yaml")
    docs = task_docs(config, tmp_path)
    assert list(docs["id"]) == ["q1", "q2"]
    text = config["doc_to_text"](docs[0])
    assert "A. blue\nB. red\nC. green\nD. white" in text and config["doc_to_target"](docs[0]) == "C"
    assert config["doc_to_text"](docs[1]).endswith("Answer yes or no.") and config["doc_to_target"](docs[1]) == "B"
    assert config["doc_to_visual"](docs[0])[0].size == (64, 32)
    right = [config["process_results"](docs[0], ["The answer is C."]), config["process_results"](docs[1], ["Yes."])]
    assert aggregate(config, right) == {"accuracy": 1.0, "accuracy_OA": 1.0, "accuracy_existence": 1.0}
    wrong = [config["process_results"](docs[0], ["B or C"]), config["process_results"](docs[1], ["no"])]
    assert aggregate(config, wrong)["accuracy"] == 0.0


def test_lmms_eval_synd_drops_ambiguous_replies_and_scores_e5(
    lmms: Path, build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = lmms / "benchfoundry_syndor"
    assert len(list(folder.glob("benchfoundry_syndor_*.yaml"))) == 6
    config = load_task(folder / "benchfoundry_syndor_human_detection_night.yaml")
    docs = task_docs(config, tmp_path)
    rows = released(build)["syndor"]["human_detection_night"]
    assert [d["img_path"] for d in docs] == [r["img_path"] for r in rows]
    assert config["doc_to_text"](docs[0]) == rows[0]["prompt"]
    # right on every other item, ambiguous ("10") on the rest: the kept replies are all right
    results = [
        config["process_results"](d, [str(d["human_discernable"]) if k % 2 else "10"]) for k, d in enumerate(docs)
    ]
    scores = aggregate(config, results)
    assert scores["accuracy"] == 1.0 and all(v == 1.0 for m, v in scores.items() if m.startswith("accuracy"))
    distances = {f"accuracy_{float(r['radius']):.1f}m" for r in rows}
    assert distances <= set(scores)

    action = load_task(folder / "benchfoundry_syndor_action_recognition_day.yaml")
    docs = task_docs(action, tmp_path)
    vectors = {"walking": [1.0, 0.0], "walk": [0.6, 0.8], "kicking": [0.0, 1.0]}
    monkeypatch.setattr(action["module"], "embed", lambda texts: [vectors.get(t, [0.0, 1.0]) for t in texts])
    results = [action["process_results"](d, ["walk"]) for d in docs]
    truth = [d["action"] for d in docs]
    expected = sum(0.6 if t == "walking" else 0.8 for t in truth) / len(truth)
    assert aggregate(action, results)["e5_score"] == pytest.approx(expected)


def test_a_broken_image_is_left_out_and_the_rest_exported(tmp_path: Path) -> None:
    items = viewspatial_build(tmp_path / "b", n=4)
    (tmp_path / "b" / "viewspatial" / "images" / "2.jpg").write_bytes(b"\xff\xd8\xff\xe0 truncated")
    assert export(tmp_path / "b", tmp_path / "x", "vlmevalkit") == 0
    tsv = pd.read_csv(tmp_path / "x" / "vlmevalkit" / "benchfoundry_ViewSpatial.tsv", sep="\t")
    assert list(tsv["question"]) == [i["question"] for k, i in enumerate(items) if k != 2]
    summary = json.loads((tmp_path / "x" / "vlmevalkit" / "export.json").read_text())
    (bad,) = summary["benchmarks"]["viewspatial"]["problems"]
    assert "2.jpg" in bad["reason"]


def test_an_empty_build_or_an_unknown_benchmark_is_refused(tmp_path: Path, capsys) -> None:
    assert export(tmp_path, tmp_path / "x", "hf") == 2
    assert "holds no built benchmark" in capsys.readouterr().err
    assert export(tmp_path, tmp_path / "x", "hf", "--benchmark", "odi,nope") == 2
    assert "unknown benchmark(s) ['nope']" in capsys.readouterr().err
    assert export(tmp_path, tmp_path / "x", "hf", "--bench", "nope") == 2  # the flag's former name still works
    assert "unknown benchmark(s) ['nope']" in capsys.readouterr().err


def copied_modules(folder: Path) -> dict[str, Any]:
    """The export's `benchfoundry_vlmeval.py` loaded from its folder, and the benchmarks' dataset modules it finds
    beside itself, by file stem (each module is dropped from sys.modules again by the caller's monkeypatch)."""
    spec = importlib.util.spec_from_file_location("bf_vlmeval", folder / "benchfoundry_vlmeval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {"": module, **{m.__name__: m for m in module.benchmark_modules()}}


def test_vlmevalkit_dataset_module_scores_as_eval_does_without_vlmevalkit(
    build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scoring of the copied dataset modules on read-back TSVs (the VLMEvalKit run itself: test_harness_check)."""
    from benchfoundry.evaluation.hooks import evaluation_of
    from benchfoundry.evaluation.items import load_items

    assert export(build, tmp_path, "vlmevalkit") == 0
    stems = {f"benchfoundry_vlmeval_{b}" for b in ("syndor", "odi", "viewspatial")}
    for stem in stems:
        monkeypatch.delitem(sys.modules, stem, raising=False)
    modules = copied_modules(tmp_path / "vlmevalkit")
    assert set(modules) == {"", *stems}
    replies = ["A", "b", "the answer is C", "Reply: D\nA", "yes"]
    for stem, items, bench in (
        ("benchfoundry_ViewSpatial", load_items("viewspatial", build), "viewspatial"),
        ("benchfoundry_ODI", [i for i in load_items("odi", build) if i.options], "odi"),
    ):
        data = pd.read_csv(tmp_path / "vlmevalkit" / f"{stem}.tsv", sep="\t")
        data["prediction"] = [replies[k % len(replies)] for k in range(len(data))]
        rows = [{"id": item.id, "prediction": replies[k % len(replies)]} for k, item in enumerate(items)]
        score = modules[f"benchfoundry_vlmeval_{bench}"].scores
        expected = evaluation_of(bench).score_choices(items, rows, "authors")["overall"]
        assert score(data)["overall"] == pytest.approx(expected)


def test_vlmevalkit_register_adds_every_exported_benchmarks_classes(
    build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`benchfoundry_vlmeval.register()` on a stand-in of `vlmeval.dataset` (tests/harness_stub/vlmeval): each
    exported benchmark's classes, named by its TSV files' stems; only the benchmarks exported into the folder."""
    monkeypatch.syspath_prepend(str(STUB))
    stems = {f"benchfoundry_vlmeval_{b}" for b in ("syndor", "odi", "viewspatial")}
    stub_modules = (
        "vlmeval",
        "vlmeval.dataset",
        "vlmeval.dataset.image_mcq",
        "vlmeval.dataset.image_vqa",
        "vlmeval.smp",
    )
    for name in [*stems, *stub_modules]:  # none stays imported after the test
        monkeypatch.delitem(sys.modules, name, raising=False)
    import vlmeval.dataset as stub

    monkeypatch.setattr(stub, "DATASET_CLASSES", [])
    monkeypatch.setattr(stub, "SUPPORTED_DATASETS", [])
    assert export(build, tmp_path / "one", "vlmevalkit", "--benchmark", "viewspatial") == 0
    assert sorted(p.name for p in (tmp_path / "one" / "vlmevalkit").glob("*.py")) == [
        "benchfoundry_vlmeval.py",
        "benchfoundry_vlmeval_viewspatial.py",
    ]
    (viewspatial,) = copied_modules(tmp_path / "one" / "vlmevalkit")[""].register()
    assert viewspatial.supported_datasets() == ["benchfoundry_ViewSpatial"]
    for stem in stems:
        monkeypatch.delitem(sys.modules, stem, raising=False)
    monkeypatch.setattr(stub, "DATASET_CLASSES", [])
    monkeypatch.setattr(stub, "SUPPORTED_DATASETS", [])

    assert export(build, tmp_path, "vlmevalkit") == 0
    classes = copied_modules(tmp_path / "vlmevalkit")[""].register()
    tsvs = {p.stem for p in (tmp_path / "vlmevalkit").glob("*.tsv")}
    assert sorted(stub.SUPPORTED_DATASETS) == sorted(tsvs - {"benchfoundry_ODI_open"})  # the open items: generic
    assert stub.DATASET_CLASSES[: len(classes)] == classes[::-1]  # before VLMEvalKit's own
    assert {cls.__name__ for cls in classes} == {"BenchfoundryViewSpatial", "BenchfoundryODI", "BenchfoundrySynDOR"}
    assert all(getattr(stub, cls.__name__) is cls for cls in classes)
    by_name = {n: cls for cls in classes for n in cls.supported_datasets()}
    monkeypatch.setenv("LMUData", str(tmp_path / "vlmevalkit"))
    odi = by_name["benchfoundry_ODI"](dataset="benchfoundry_ODI")
    prompt = odi.build_prompt(0)
    assert prompt[0]["type"] == "image" and prompt[-1]["value"].endswith(
        "A. blue\nB. red\nC. green\nD. white\nAnswer with the option's letter from the given choices directly."
    )
    vs = by_name["benchfoundry_ViewSpatial"](dataset="benchfoundry_ViewSpatial")
    text, *images = vs.build_prompt(6)
    assert text["value"].endswith("\nReply only to the corresponding option.\nAnswer:") and len(images) == 2


def test_the_copied_modules_import_nothing_of_the_project_and_the_export_names_no_benchmark() -> None:
    """What runs inside a harness (each benchmark's VLMEvalKit dataset module and lmms-eval utils, the generic
    `benchfoundry_vlmeval.py`) imports nothing of benchfoundry; the generic export (export/, `benchfoundry export`)
    imports no benchmark's folder and spells no benchmark's name: it asks the descriptors."""
    import ast
    from importlib.util import find_spec

    from benchfoundry.pipeline.benchmarks import get, names

    def imported(path: Path) -> set[str]:
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                found.add(node.module or "")
        return found

    from benchfoundry.cli import export as command
    from benchfoundry.export import vlmevalkit

    room = Path(vlmevalkit.__file__).parent
    copied = [room / "vlmevalkit_datasets.py"]
    for name in names():
        for dotted in (get(name).vlmevalkit_dataset, get(name).lmms_eval_utils):
            if dotted is not None:
                copied.append(Path(find_spec(dotted).origin))
    assert len(copied) == 1 + 2 * 3
    for path in copied:
        assert not {m for m in imported(path) if m.split(".")[0] == "benchfoundry"}, path
    for path in [*sorted(room.glob("*.py")), Path(command.__file__)]:
        assert not {m for m in imported(path) if m.startswith("benchfoundry.benchmarks")}, path
        strings = {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)}
        assert not strings & set(names()), path


def _vlmevalkit_toliststr(cell: str) -> list[str]:
    """VLMEvalKit's `vlmeval.smp.toliststr` as it reads an `image_path` cell: a cell shaped like a list is
    evaluated as Python (its `eval`, kept here on purpose: the export must make that harmless)."""
    if cell[0] == "[" and cell[-1] == "]":
        return [str(x) for x in eval(cell)]
    return [cell]


@pytest.mark.parametrize(
    "name",
    [
        "[__import__('os').system('touch PWNED')]",
        "[1, 2]",
        "images/[odd].jpg]",
        "plain/name.jpg",
        "façade 🏠.png",
    ],
)
def test_an_image_name_shaped_like_python_is_read_back_by_vlmevalkit_as_that_name(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchfoundry.export.vlmevalkit import path_cell

    monkeypatch.chdir(tmp_path)
    for names in ([name], [name, "b.jpg"]):
        assert _vlmevalkit_toliststr(path_cell(names)) == names
    assert not (tmp_path / "PWNED").exists()


class RecordingLoader(yaml.SafeLoader):
    """A YAML loader that, as lmms-eval's does, constructs `!function X` (here: records X instead of importing)."""

    functions: list[str] = []


RecordingLoader.add_constructor(
    "!function", lambda loader, node: RecordingLoader.functions.append(node.value) or node.value
)


def test_a_released_value_written_into_an_lmms_eval_task_stays_one_string(tmp_path: Path) -> None:
    """A released category holding a newline and `!function` (and a build path holding one) must not become a
    YAML tag or key: lmms-eval would import and run the named file when the task loads."""
    from benchfoundry.benchmarks.odi.harnesses.harness import lmms_eval_tasks

    evil = "OA\n  - metric: x\n    aggregation: !function /tmp/evil.run\ndataset_path: /etc"
    rows = [{"form": "closed", "task": t} for t in ("OA", evil)]
    source = "/builds/b\ntask: hijacked"
    _, yamls = lmms_eval_tasks({"test": rows}, tmp_path / "data\n!function /tmp/evil.run", source)
    (text,) = yamls.values()
    RecordingLoader.functions = []
    config = yaml.load(text, Loader=RecordingLoader)
    assert all(f.startswith("utils.") and f.split(".", 1)[1].isidentifier() for f in RecordingLoader.functions)
    assert config["task"] == "benchfoundry_odi" and config["dataset_path"] == "parquet"
    assert [m["metric"] for m in config["metric_list"]] == ["accuracy", "accuracy_OA", f"accuracy_{evil}"]
    assert config["dataset_kwargs"]["data_files"]["test"] == str(
        tmp_path / "data\n!function /tmp/evil.run" / "test.parquet"
    )
    assert set(config) <= {
        "task",
        "dataset_path",
        "dataset_kwargs",
        "test_split",
        "output_type",
        "process_docs",
        "doc_to_visual",
        "doc_to_text",
        "doc_to_target",
        "process_results",
        "generation_kwargs",
        "metric_list",
        "metadata",
    }
    assert config["metadata"] == {"source": source}


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\ufeff", "\x9f"])
def test_a_line_break_of_any_kind_in_an_exported_path_or_value_adds_no_yaml(brk: str, tmp_path: Path) -> None:
    """`export lmms-eval --to` a folder whose name held U+2028: the path was written into a YAML comment, the
    separator ended it, and a top-level `x: !function …/pwn.run` was read by lmms-eval's loader."""
    from benchfoundry.benchmarks.odi.harnesses.harness import lmms_eval_tasks

    hostile = f"dir{brk}x: !function /tmp/pwn.run{brk}#"
    rows = [{"form": "closed", "task": t} for t in ("OA", f"OA{brk}y: !function /tmp/pwn.run")]
    _, yamls = lmms_eval_tasks({"test": rows}, tmp_path / hostile / "data", f"/builds/{hostile}")
    (text,) = yamls.values()
    RecordingLoader.functions = []
    config = yaml.load(text, Loader=RecordingLoader)
    assert "x" not in config and "y" not in config
    assert all(f.startswith("utils.") and f.split(".", 1)[1].isidentifier() for f in RecordingLoader.functions)
    assert config["metadata"]["source"] == f"/builds/{hostile}"
    assert config["dataset_kwargs"]["data_files"]["test"] == str(tmp_path / hostile / "data" / "test.parquet")


#: Released values a hostile or careless source may hold: line and cell breaks of every reader, quotes, list- and
#: formula-shaped text, pandas' missing-value words, blanks.
HOSTILE_VALUES = (
    "a\rb",
    "\r",
    "a\nb",
    "a\r\nb",
    'say "x"',
    '"',
    "a\tb",
    "a\u2028b",
    "a\u2029b",
    "a\x85b",
    "a\x0bb\x0cc",
    "a\x1cb\x1dc\x1ed",
    "[__import__('os').system('touch PWNED')]",
    "['a.jpg']",
    "=cmd|' /C calc'!A0",
    "NA",
    " lead and trail ",
    "#not a comment",
    "façade 🏠",
)


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=lambda v: repr(v)[:30])
def test_every_cell_of_a_vlmevalkit_tsv_reads_back_exactly_with_vlmevalkits_reader(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one TSV writer (export/vlmevalkit.write_tsv) round-trips any released text through pandas' `read_csv`
    as VLMEvalKit calls it and its `toliststr` on the list columns: same rows, same columns, same text, and
    nothing evaluated. A bare `\\r` used to end the row for pandas and push the options into `image_path`."""
    from benchfoundry.export.hf import ImageRef
    from benchfoundry.export.vlmevalkit import write_tsv

    monkeypatch.chdir(tmp_path)
    image = tmp_path / "x.png"
    image.write_bytes(cv2.imencode(".png", np.zeros((2, 2, 3), np.uint8))[1].tobytes())
    ref = ImageRef(file=image, name="x.png")
    rows = [
        ({"image_path": value, "question": value, "A": value, "B": "b", "answer": "A"}, [ref]),
        ({"image_path": [value, "b.jpg"], "question": "q", "A": "a", "B": value, "answer": value}, [ref]),
    ]
    path = tmp_path / "t.tsv"
    assert write_tsv(path, rows, "t") == (2, [])
    read = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    assert list(read.columns) == ["index", "image", "image_path", "question", "A", "B", "answer"]
    assert len(read) == 2 and list(read["index"]) == ["0", "1"] and read["image"][1] == "0"
    assert _vlmevalkit_toliststr(read["image_path"][0]) == [value]
    assert _vlmevalkit_toliststr(read["image_path"][1]) == [value, "b.jpg"]
    assert [read[c][0] for c in ("question", "A", "B", "answer")] == [value, value, "b", "A"]
    assert [read[c][1] for c in ("question", "A", "B", "answer")] == ["q", "a", value, value]
    assert len(pd.read_csv(path, sep="\t")) == 2  # as VLMEvalKit reads it, with pandas' defaults
    assert not (tmp_path / "PWNED").exists()


def test_a_nul_in_a_released_value_is_a_problem_row_naming_its_column(tmp_path: Path) -> None:
    from benchfoundry.export.hf import ImageRef
    from benchfoundry.export.vlmevalkit import write_tsv

    image = tmp_path / "x.png"
    image.write_bytes(cv2.imencode(".png", np.zeros((2, 2, 3), np.uint8))[1].tobytes())
    ref = ImageRef(file=image, name="x.png")
    written, problems = write_tsv(tmp_path / "t.tsv", [({"question": "a\0b"}, [ref]), ({"question": "ok"}, [ref])], "t")
    assert written == 1 and len(problems) == 1 and "column 'question': a NUL character" in problems[0]["reason"]
    assert pd.read_csv(tmp_path / "t.tsv", sep="\t")["question"].tolist() == ["ok"]
