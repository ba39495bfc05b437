"""What was left of issue 48's low findings: model names sharing a results folder, SLURM messages rounding a
sub-second wait to 0 s, Parquet reads that did not name their file, control characters in a config's name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from model_server import ScriptedModel
from test_eval import run_eval, viewspatial_build
from test_syndor_qa import HPC, make_labelled_build

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.stages import labels, qa_stage
from benchfoundry.cli import main as cli
from benchfoundry.configs.build import SlurmConfig
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.core.store import read_parquet
from benchfoundry.evaluation.run import eval_dir, model_dir
from benchfoundry.flows import slurm_jobs

REPO = Path(__file__).resolve().parent.parent
#: Names whose made-safe forms met before (`:` and `@` became `_`, `/` became `__`), and eval's own names.
COLLIDING = ["llava:13b", "llava_13b", "llava@13b", "org/name", "org__name", "org_/name", "cache", "index.html"]


def test_model_names_that_once_shared_a_folder_get_one_each(tmp_path: Path) -> None:
    folders = [model_dir(tmp_path, name) for name in COLLIDING]
    assert len(set(folders)) == len(COLLIDING)
    for folder in folders:
        assert folder.parent == eval_dir(tmp_path) and not folder.name.startswith(".")
    assert not {f.name for f in folders} & {"cache", "index.html"}


@pytest.mark.parametrize("name", ["gpt-4o", "llava_13b", "Qwen2.5-VL-7B-Instruct", "m", "a+b"])
def test_a_name_that_is_already_a_safe_folder_keeps_its_folder(tmp_path: Path, name: str) -> None:
    assert model_dir(tmp_path, name) == tmp_path / "report" / "eval" / name


def test_two_models_whose_names_differ_by_a_colon_keep_their_own_results(tmp_path: Path) -> None:
    """`llava:13b` and `llava_13b` asked in turn: each run's predictions and scores stay, each naming its model."""
    viewspatial_build(tmp_path, n=4)
    replies = {"llava:13b": "A", "llava_13b": "B"}
    for model, letter in replies.items():
        with ScriptedModel(lambda prompt, attempt, letter=letter: ("ok", letter)) as server:
            assert run_eval(tmp_path, "viewspatial", server.base_url, model=model) == 0
    folders = [p for p in eval_dir(tmp_path).iterdir() if (p / "viewspatial.json").is_file()]
    assert len(folders) == 2
    for folder in folders:
        score = json.loads((folder / "viewspatial.json").read_text())
        rows = [json.loads(x) for x in (folder / "viewspatial.predictions.jsonl").read_text().splitlines()]
        assert {r["prediction"] for r in rows} == {replies[score["model"]]}
    assert {json.loads((f / "viewspatial.json").read_text())["model"] for f in folders} == set(replies)


def test_a_model_named_as_evals_own_page_keeps_the_page(tmp_path: Path) -> None:
    """`--model index.html` made `report/eval/index.html` a folder, so the evaluation page could not be written."""
    viewspatial_build(tmp_path, n=4)
    with ScriptedModel(lambda prompt, attempt: ("ok", "A")) as server:
        assert run_eval(tmp_path, "viewspatial", server.base_url, model="index.html") == 0
    assert (eval_dir(tmp_path) / "index.html").is_file()


def test_a_sub_second_slurm_wait_and_shard_are_shown_as_measured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 0.25 s `pending_timeout_s` was reported as 'pending for 0 s', a 0.4 s shard as 'took 0 s'."""
    monkeypatch.setattr(slurm_jobs, "squeue", lambda jobs: dict.fromkeys(jobs, ("PENDING", "PartitionConfig")))
    monkeypatch.setattr(slurm_jobs.JobWatch, "cancel_all", lambda self: None)
    watch = slurm_jobs.JobWatch(SlurmConfig(pending_timeout_s=0.25), None, lambda: 0.4)
    watch.submitted("7")
    watch.check()
    time.sleep(0.3)
    watch.check()
    assert watch.failure is not None
    waited = re.search(r"pending for (\S+) s", watch.failure)
    assert waited is not None and 0.25 <= float(waited.group(1)) < 60, watch.failure
    assert "pending_timeout_s 0.25 s" in watch.failure
    watch._warn_if_walltime("8", "TIMEOUT")
    assert "the longest shard so far took 0.4 s" in capsys.readouterr().err


#: The installed folders of the project (pyproject.toml's packages).
PACKAGES = ("benchfoundry", "configs", "assets", "person", "render", "pipeline", "flows", "evaluation", "export")
PACKAGES += ("compare", "benchmarks", "cli")


def test_every_parquet_read_goes_through_the_store_which_names_the_file() -> None:
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in PACKAGES
        for path in sorted((REPO / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if "pd.read_parquet(" in line and path != REPO / "benchfoundry" / "core" / "store.py"
    ]
    assert not found, found


@pytest.mark.parametrize("data", [b"", b"PAR1 not parquet PAR1", b"image,label\nx,1\n"])
def test_a_bad_labels_or_labelled_manifest_file_is_reported_by_name(tmp_path: Path, data: bytes) -> None:
    """The imported labels and the discern manifest were read by pandas directly: pyarrow named `<Buffer>`."""
    (tmp_path / labels.IMPORTED).write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / labels.IMPORTED}: not a readable Parquet file")):
        labels.load_imported(tmp_path)
    manifest = tmp_path / "manifest.parquet"
    manifest.write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(f"{manifest}: not a readable Parquet file")):
        qa_stage.read_labelled_manifest(manifest)


def test_the_stores_read_takes_pandas_filters(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    pd.DataFrame({"img_path": ["a", "b", "c"], "n": [1, 2, 3]}).to_parquet(path)
    assert read_parquet(path, filters=[("img_path", "in", ["a", "c"])])["n"].tolist() == [1, 3]


@pytest.mark.parametrize("escaped", [r"\e[31mred", r"a\0b", r"two\nlines", r"tab\there", r"x\u202Ey", r"del\x7F"])
def test_a_config_name_with_a_control_or_format_character_is_refused_naming_the_field(
    tmp_path: Path, escaped: str
) -> None:
    """The name reaches the report's pages, the dataset cards and build.json; YAML's double quotes spell any
    character."""
    path = tmp_path / "build.yaml"
    path.write_text(f'name: "build {escaped}"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert re.search(r"^\s*name: .*control or format characters", str(refused.value), re.M), str(refused.value)


def test_a_plain_config_name_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "build.yaml"
    path.write_text('name: "Rehearsal é 1 – north"\n')
    assert load_config(path).name == "Rehearsal é 1 – north"


@pytest.mark.parametrize("crop", ["0", "-5", "100000"])
def test_a_bad_crop_side_is_one_line_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crop: str
) -> None:
    """`--crop-px 0` printed pydantic's four-line dump with its link; 100000 was taken (a 10^10-pixel crop)."""
    viewspatial_build(tmp_path, n=2)
    argv = ["eval", "viewspatial", "--build", str(tmp_path), "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    assert cli.main([*argv, "--crop-px", crop]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --crop-px: ") and len(err.splitlines()) == 1 and "pydantic" not in err


def test_a_negative_seed_is_a_usage_error_naming_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--seed -1` reached numpy, whose 'expected non-negative integer' named no flag."""
    viewspatial_build(tmp_path, n=2)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["eval", "viewspatial", "--build", str(tmp_path), "--model", "random", "--seed", "-1"])
    assert stopped.value.code == 2 and "argument --seed: '-1': must be at least 0" in capsys.readouterr().err
    assert not eval_dir(tmp_path).exists()


@pytest.mark.parametrize("flag", ["--json", "--html"])
def test_compare_writes_no_output_over_its_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    """`compare --config t.yaml --json t.yaml` replaced the user's thresholds with the record (exit 0)."""
    a, b = tmp_path / "a", tmp_path / "b"
    viewspatial_build(a, n=3)
    viewspatial_build(b, n=3)
    config = tmp_path / "thresholds.yaml"
    config.write_text("tv_max: 0.5\n")
    assert cli.main(["compare", str(a), str(b), "--config", str(config), flag, str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag} ") and "--config" in err and len(err.splitlines()) == 1
    assert config.read_text() == "tv_max: 0.5\n"


def test_a_fifo_named_build_json_hangs_no_build(tmp_path: Path, cli_env: dict[str, str]) -> None:
    """`build --out DIR` read DIR/build.json whole to tell whether DIR is a build: a FIFO there hung it for ever."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "build.json")
    argv = [sys.executable, "-m", "benchfoundry.cli.main", "build", "smoke", "--out", str(out)]
    done = subprocess.run(argv, env=cli_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {out}") and len(done.stderr.splitlines()) == 1
    assert (out / "build.json").is_fifo() and sorted(p.name for p in out.iterdir()) == ["build.json"]


@pytest.mark.parametrize("command", ["export", "eval"])
def test_a_command_given_a_folder_that_is_no_build_leaves_no_lock_file_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """`export --build ~/photos` (or eval's) dropped `.benchfoundry.lock` into a folder no build ever used."""
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(b"x")
    argv = {
        "export": ["export", "hf", "--build", str(folder), "--to", str(tmp_path / "export")],
        "eval": ["eval", "odi", "--build", str(folder), "--model", "random"],
    }[command]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert sorted(p.name for p in folder.iterdir()) == ["a.jpg"]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["export", "vlmevalkit", "--build", "{build}", "--to", ""], "--to"),
        (["export", "vlmevalkit", "--build", "", "--to", "{tmp}/export"], "--build"),
        (["eval", "viewspatial", "--build", "", "--model", "random"], "--build"),
        (["build", "smoke", "--plan", "--out", " "], "--out"),
        (["compare", "{build}", ""], "B"),
        (["compare", "{build}", "{build}", "--json", ""], "--json"),
        (["score", "syndor", "{tmp}/p.jsonl", "--build", ""], "--build"),
    ],
)
def test_an_empty_path_is_a_usage_error_and_writes_nothing_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], flag: str
) -> None:
    """`export --to ""` (an unset `$OUT`) exported into the current folder, `--build ""` left a lock file there."""
    build, here = tmp_path / "build", tmp_path / "here"
    viewspatial_build(build, n=2)
    here.mkdir()
    monkeypatch.chdir(here)
    with pytest.raises(SystemExit) as stopped:
        cli.main([a.format(build=build, tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and f"argument {flag}: an empty path" in err, err
    assert list(here.iterdir()) == []


def test_an_export_benchmark_list_naming_none_is_refused_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    viewspatial_build(tmp_path / "build", n=2)
    argv = ["export", "vlmevalkit", "--build", str(tmp_path / "build"), "--to", str(tmp_path / "x"), "--benchmark", ","]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.startswith("error: --benchmark ',' names no benchmark")


@pytest.fixture
def scorable(tmp_path: Path) -> tuple[Path, Path]:
    """A SynDORBench build with its released files, and a predictions file answering one of its items."""
    out = tmp_path / "build"
    qa_stage.export_qa(make_labelled_build(out, bad_rows=False), out, QaConfig())
    row = json.loads((out / "syndor" / "index" / "human_detection" / "day.jsonl").read_text().splitlines()[0])
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(json.dumps({"img_path": row["img_path"], "prompt": HPC, "prediction": "1"}) + "\n")
    return out, predictions


@pytest.mark.parametrize("target", ["{preds}", "{build}/syndor/index/human_detection/day.jsonl", "{build}/build.json"])
def test_score_writes_no_score_over_its_predictions_or_the_builds_files(
    scorable: tuple[Path, Path], capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """`score syndor P --out P` replaced the model's predictions with the score, `--out` a released file replaced
    it (exit 0 both)."""
    build, predictions = scorable
    path = Path(target.format(preds=predictions, build=build))
    before = path.read_bytes() if path.exists() else None
    assert cli.main(["score", "syndor", str(predictions), "--build", str(build), "--out", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {path}") and len(err.splitlines()) == 1
    assert (path.read_bytes() if path.exists() else None) == before


def test_score_into_the_builds_scores_folder_or_elsewhere_is_written(
    scorable: tuple[Path, Path], tmp_path: Path
) -> None:
    build, predictions = scorable
    for path in (build / "report" / "scores" / "mine.json", tmp_path / "elsewhere.json"):
        assert cli.main(["score", "syndor", str(predictions), "--build", str(build), "--out", str(path)]) == 0
        assert json.loads(path.read_text())["predictions"] == str(predictions)


def test_a_fifo_for_predictions_is_refused_not_waited_on(
    scorable: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`score` read the predictions whole before anything else: a FIFO hung it (and a huge file was read twice)."""
    build, _ = scorable
    fifo = tmp_path / "preds.fifo"
    os.mkfifo(fifo)
    assert cli.main(["score", "syndor", str(fifo), "--build", str(build)]) == 2
    assert f"{fifo}: not a regular file" in capsys.readouterr().err


def test_a_scheduler_address_with_a_line_break_puts_no_shell_line_into_the_job_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`runner job-script --scheduler $'tcp://h:1\\nid > f'` printed a script with a bare `id > f` line."""
    with pytest.raises(SystemExit) as stopped:
        cli.main(["runner", "job-script", "smoke", "--scheduler", "tcp://h:1\nid > /tmp/f"])
    captured = capsys.readouterr()
    assert stopped.value.code == 2 and "argument --scheduler" in captured.err and "id > /tmp/f" not in captured.out


@pytest.mark.parametrize(
    "variable, value",
    [
        ("DASK_JOBQUEUE__SLURM__SHEBANG", "#!/bin/sh\ntouch /tmp/pwned-by-shebang"),
        ("DASK_JOBQUEUE__SLURM__PYTHON", "touch /tmp/pwned-by-python; python3"),
    ],
)
def test_dask_config_puts_no_program_into_the_job_script(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """dask's own config (here a DASK_JOBQUEUE__SLURM__* variable) chose the job script's first line and the
    worker's interpreter: a program of the environment's ran on every node."""
    import dask.config

    monkeypatch.setenv(variable, value)
    dask.config.refresh()
    try:
        assert (
            cli.main(["runner", "job-script", "smoke", "--scheduler", "tcp://h:1", "--set", "runner.backend=slurm"])
            == 0
        )
    finally:
        monkeypatch.delenv(variable)
        dask.config.refresh()
    script = capsys.readouterr().out
    assert script.startswith("#!/usr/bin/env bash\n") and "pwned" not in script
    assert f"{sys.executable} -m distributed.cli.dask_worker" in script


@pytest.mark.parametrize(
    "setting, field",
    [
        ("runner.prefect_host=http://login1", "runner.prefect_host"),
        ("runner.prefect_host='a b'", "runner.prefect_host"),
        ("runner.dask_address=sched:8786", "runner.dask_address"),
        ("runner.dask_address='tcp://h:1 --nthreads 99'", "runner.dask_address"),
    ],
)
def test_a_host_or_scheduler_address_that_is_none_is_refused_naming_it(setting: str, field: str) -> None:
    """A scheme in prefect_host made `http://http://login1:…/api`, a scheduler address without a scheme or with a
    space was taken and failed only when the build connected to it."""
    with pytest.raises(ConfigError, match=rf"{re.escape(field)}: .*(host name|scheduler address)"):
        load_config(None, ["runner.backend=dask", "runner.dask_address=tcp://h:8786", setting])


def test_hosts_and_addresses_people_use_are_taken() -> None:
    settings = ["runner.prefect_host=login1.cluster", "runner.dask_address=tls://10.0.0.1:8786"]
    config = load_config(None, ["runner.backend=dask", *settings])
    assert (config.runner.prefect_host, config.runner.dask_address) == ("login1.cluster", "tls://10.0.0.1:8786")


def test_an_echoed_name_never_drives_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path or name holding an escape sequence or a bidi override reached the terminal as it was in error lines."""
    hostile = tmp_path / "\x1b]0;owned\x07\x1b[2J\u202edlrow"
    assert cli.main(["compare", str(hostile), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert not any(c in err for c in "\x1b\x07\u202e") and "\\x1b]0;owned\\x07\\x1b[2J\\u202edlrow" in err


def test_a_skipped_line_never_drives_the_terminal(
    scorable: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`score` echoed the file and line it skipped as they were: a file named with an escape sequence drove it."""
    build, given = scorable
    predictions = given.with_name("preds\x1b[2J.jsonl")
    bad = json.dumps({"img_path": "images/none.jpg", "prompt": HPC, "prediction": "1"})
    predictions.write_text(given.read_text() + bad + "\n")
    out = given.with_name("score.json")
    assert cli.main(["score", "syndor", str(predictions), "--build", str(build), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "preds\\x1b[2J.jsonl:2: skipped" in err and "\x1b" not in err


def test_a_written_path_on_stdout_never_drives_the_terminal_and_is_not_cut(
    scorable: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`score` printed the score file it wrote as it was: a target named with an escape sequence drove the terminal.
    The path is shown escaped and whole (a script reads it back), however long."""
    build, given = scorable
    folder = given.parent / ("x" * 150) / ("y" * 150)  # one word longer than an error line echoes whole
    folder.mkdir(parents=True)
    out = folder / "score\x1b]0;owned\x07\u202e.json"
    assert cli.main(["score", "syndor", str(given), "--build", str(build), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert not any(c in printed for c in "\x1b\x07\u202e")
    assert f"score file: {folder}/score\\x1b]0;owned\\x07\\u202e.json" in printed


def test_eval_writes_nothing_through_a_report_folder_that_leads_outside_the_build(tmp_path: Path, capsys) -> None:
    build, elsewhere = tmp_path / "b", tmp_path / "elsewhere"
    viewspatial_build(build)
    elsewhere.mkdir()
    (build / "report").symlink_to(elsewhere, target_is_directory=True)
    assert cli.main(["eval", "viewspatial", "--build", str(build), "--model", "random"]) == 2
    err = capsys.readouterr().err
    assert "report" in err and "symbolic link" in err and not any(elsewhere.iterdir())
    (build / "report").unlink()
    assert cli.main(["eval", "viewspatial", "--build", str(build), "--model", "random"]) == 0
    assert any(model_dir(build, "random").iterdir())


def test_sphere_commands_show_hostile_paths_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sphere cubemap` printed the faces it wrote, and its error line the panorama it could not read, as they were:
    a folder or file named with an escape sequence drove the terminal. Each path is shown escaped and whole."""
    hostile = "\x1b]0;owned\x07\u202e"
    erp = sphere_images.write_image(tmp_path / "pano.png", np.zeros((32, 64, 3), np.uint8))
    out = tmp_path / f"cube{hostile}"
    assert cli.main(["sphere", "cubemap", str(erp), str(out), "--face-width", "8"]) == 0
    printed = capsys.readouterr().out.splitlines()
    escaped = f"{tmp_path}/cube\\x1b]0;owned\\x07\\u202e"
    assert sorted(printed) == sorted(f"{escaped}/{face}.png" for face in sm.FACES)
    assert not any(c in line for line in printed for c in "\x1b\x07\u202e")
    corrupt = tmp_path / f"bad{hostile}.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    assert cli.main(["sphere", "cubemap", str(corrupt), str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad\\x1b]0;owned\\x07\\u202e.png" in err and not any(c in err for c in "\x1b\x07\u202e")
