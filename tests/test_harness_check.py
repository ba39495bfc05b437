"""The exports scored by the real harnesses equal `benchfoundry eval`'s scoring under the authors' protocol on the
same fake model's replies, for all three benchmarks: lmms-eval (its TaskManager, the tasks' process_results and
aggregations) and VLMEvalKit (its build_dataset with the export's dataset classes, their prompts and evaluate).
Both live in throwaway venvs (tests/harness_check/make_venvs.sh), never the project's: each test runs when
BENCHFOUNDRY_LMMS_PYTHON / BENCHFOUNDRY_VLMEVAL_PYTHON names that venv's python, and is skipped otherwise."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_export import build, export  # noqa: F401  (the module-scoped three-benchmark build)

from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.benchmarks.syndor.stages.text_embed import shipped_minilm_path
from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.evaluation.hooks import evaluation_of
from benchfoundry.evaluation.items import load_items

LMMS_PYTHON = os.environ.get("BENCHFOUNDRY_LMMS_PYTHON")
VLMEVAL_PYTHON = os.environ.get("BENCHFOUNDRY_VLMEVAL_PYTHON")
RUNNER = Path(__file__).parent / "harness_check" / "lmms_eval_run.py"
VLMEVAL_RUNNER = Path(__file__).parent / "harness_check" / "vlmeval_run.py"
needs_lmms = pytest.mark.skipif(
    not LMMS_PYTHON or not Path(LMMS_PYTHON).is_file(),
    reason="BENCHFOUNDRY_LMMS_PYTHON: a python with the real lmms-eval (tests/harness_check/make_venvs.sh)",
)
needs_vlmeval = pytest.mark.skipif(
    not VLMEVAL_PYTHON or not Path(VLMEVAL_PYTHON).is_file(),
    reason="BENCHFOUNDRY_VLMEVAL_PYTHON: a python with VLMEvalKit (tests/harness_check/make_venvs.sh)",
)

VIEWSPATIAL_REPLIES = ("A", "B", "C", "D", "A")
ODI_REPLIES = ("A", "B", "yes", "no", "C")
PRESENCE_REPLIES = ("1", "0", "10", "yes", "0", "1")
ACTION_REPLIES = ("", "walking", "stepping over something", "a man is kicking", "stepping_over")


def replies(root: Path) -> tuple[dict[str, str], dict[str, list[dict[str, str]]]]:
    """The fake model's reply to each item: by the lmms runner's document key, and as `eval`'s reply rows."""
    keyed: dict[str, str] = {}
    rows: dict[str, list[dict[str, str]]] = {}
    for k, item in enumerate(load_items("viewspatial", root)):
        reply = VIEWSPATIAL_REPLIES[k % len(VIEWSPATIAL_REPLIES)]
        keyed[item.question + "|" + json.dumps(item.meta["image_path"])] = reply
        rows.setdefault("viewspatial", []).append({"id": item.id, "prediction": reply})
    for k, item in enumerate(load_items("odi", root)):
        reply = ODI_REPLIES[k % len(ODI_REPLIES)]
        keyed[item.id] = reply
        rows.setdefault("odi", []).append({"id": item.id, "prediction": reply})
    for k, item in enumerate(load_items("syndor", root)):
        choices = PRESENCE_REPLIES if item.task == "human_detection" else ACTION_REPLIES
        keyed[item.id] = choices[k % len(choices)]
        rows.setdefault("syndor", []).append({"id": item.id, "task": item.task, "prediction": keyed[item.id]})
    return keyed, rows


@needs_lmms
def test_lmms_eval_scores_every_export_as_eval_does(build: Path, tmp_path: Path) -> None:  # noqa: F811
    assert export(build, tmp_path, "lmms-eval") == 0
    keyed, rows = replies(build)
    (tmp_path / "replies.json").write_text(json.dumps(keyed))
    syndor_tasks = [f"benchfoundry_syndor_{t}_{s}" for t in release.CATEGORIES for s in release.SPLITS]
    done = subprocess.run(
        [LMMS_PYTHON, str(RUNNER), str(tmp_path / "lmms-eval"), str(tmp_path / "replies.json")]
        + ["benchfoundry_viewspatial", "benchfoundry_odi", *syndor_tasks],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHFOUNDRY_E5_MODEL": str(shipped_minilm_path())},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lmms = json.loads(done.stdout.strip().splitlines()[-1])

    viewspatial = evaluation_of("viewspatial").score_choices(
        load_items("viewspatial", build), rows["viewspatial"], "authors"
    )
    assert lmms["benchfoundry_viewspatial"]["overall_accuracy"] == pytest.approx(viewspatial["overall"])
    odi = evaluation_of("odi").score_choices(load_items("odi", build), rows["odi"], "authors")
    assert lmms["benchfoundry_odi"]["accuracy"] == pytest.approx(odi["overall"])
    for task, accuracy in odi["per_task"].items():
        assert lmms["benchfoundry_odi"][f"accuracy_{task}"] == pytest.approx(accuracy)

    syndor = evaluation_of("syndor").score(
        build, load_items("syndor", build), rows["syndor"], "authors", tmp_path / "eval", "fake"
    )
    presence = {(g["distance"], g["split"]): g for g in syndor["presence"]["groups"]}
    action = {(g["distance"], g["split"]): g for g in syndor["action"]["groups"]}
    compared = 0
    for split in release.SPLITS:
        detection = lmms[f"benchfoundry_syndor_human_detection_{split}"]
        assert detection["accuracy"] == pytest.approx(presence[("all", split)]["accuracy"])
        assert detection["macro_f1"] == pytest.approx(presence[("all", split)]["macro_f1"])
        for (distance, group_split), group in presence.items():
            if group_split == split and distance != "all":
                assert detection[f"accuracy_{float(distance):.1f}m"] == pytest.approx(group["accuracy"])
                compared += 1
        e5 = lmms[f"benchfoundry_syndor_action_recognition_{split}"]["e5_score"]
        assert e5 == pytest.approx(action[("all", split)]["e5score"], abs=1e-5)
    assert compared >= 3 and syndor["ambiguous_dropped"]
    assert 0 < viewspatial["overall"] < 1 and 0 < odi["overall"] < 1


@needs_vlmeval
def test_vlmevalkit_asks_and_scores_every_export_as_eval_does(build: Path, tmp_path: Path) -> None:  # noqa: F811
    assert export(build, tmp_path, "vlmevalkit") == 0
    keyed, rows = replies(build)
    (tmp_path / "replies.json").write_text(json.dumps(keyed))
    names = ["benchfoundry_ViewSpatial", "benchfoundry_ODI", "benchfoundry_SynDOR"]
    done = subprocess.run(
        [VLMEVAL_PYTHON, str(VLMEVAL_RUNNER), str(tmp_path / "vlmevalkit"), str(tmp_path / "replies.json")]
        + [*names, "ViewSpatialBench"],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHFOUNDRY_E5_MODEL": str(shipped_minilm_path())},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    vlm = json.loads(done.stdout.strip().splitlines()[-1])
    assert [vlm[n]["type"] for n in names] == ["BenchfoundryViewSpatial", "BenchfoundryODI", "BenchfoundrySynDOR"]

    items = load_items("viewspatial", build)
    first = vlm["benchfoundry_ViewSpatial"]["prompt"]
    assert first[0] == {"type": "text", "value": evaluation_of("viewspatial").prompt_text(items[0], "authors")}
    assert all(m["type"] == "image" for m in first[1:])
    viewspatial = evaluation_of("viewspatial").score_choices(items, rows["viewspatial"], "authors")
    assert vlm["benchfoundry_ViewSpatial"]["scores"]["overall"] == pytest.approx(viewspatial["overall"])
    # VLMEvalKit's own class, reading the TSV by its own column names: its prompt (the harnesses' form of the
    # paper's, not the authors' evaluate.py's) from our question and released choices, our images' paths.
    builtin = vlm["ViewSpatialBench"]
    asked = f"Question: {items[0].question}\nChoices: {items[0].meta['choices']}\n"
    assert builtin["prompt"][-1]["value"] == asked + "Reply only to the corresponding option.\nAnswer:"
    assert [m["value"] for m in builtin["prompt"][:-1]] == [str(p) for p in items[0].meta["image_path"]]
    assert builtin["scores"]["overall"] == pytest.approx(100 * viewspatial["overall"])
    for task, accuracy in viewspatial["per_task"].items():
        assert builtin["scores"][f"{CATEGORIES[task]}_accuracy"] == pytest.approx(100 * accuracy)

    odi_all = load_items("odi", build)
    closed = [i for i in odi_all if i.options]
    assert vlm["benchfoundry_ODI"]["prompt"][-1]["value"] == evaluation_of("odi").prompt_text(closed[0], "authors")
    odi = evaluation_of("odi").score_choices(odi_all, rows["odi"], "authors")
    assert vlm["benchfoundry_ODI"]["scores"]["overall"] == pytest.approx(odi["overall"])
    for task, accuracy in odi["per_task"].items():
        assert vlm["benchfoundry_ODI"]["scores"][task] == pytest.approx(accuracy)

    syndor = evaluation_of("syndor").score(
        build, load_items("syndor", build), rows["syndor"], "authors", tmp_path / "eval", "fake"
    )
    presence = {(g["distance"], g["split"]): g for g in syndor["presence"]["groups"]}
    action = {(g["distance"], g["split"]): g for g in syndor["action"]["groups"]}
    scores = vlm["benchfoundry_SynDOR"]["scores"]
    for split in release.SPLITS:
        assert scores[f"human_detection_{split}_accuracy"] == pytest.approx(presence[("all", split)]["accuracy"])
        assert scores[f"human_detection_{split}_macro_f1"] == pytest.approx(presence[("all", split)]["macro_f1"])
        assert scores[f"action_recognition_{split}_e5_score"] == pytest.approx(
            action[("all", split)]["e5score"], abs=1e-5
        )
