"""The low findings of issue 48's hostile audit: review and label files whose headers an import would misread, control
characters in a released edit, model names sharing a results folder, an export's stale temporaries, `--plan --out`
on a FIFO, echoed long names, sub-second timeouts, a bad Parquet file without its name."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_eval import viewspatial_build

from benchfoundry.benchmarks.syndor.stages import frame_files, labels
from benchfoundry.cli import main as cli
from benchfoundry.cli.args import model_name_problem
from benchfoundry.configs import sections
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import SCALE_KEY, ConfigError, load_config
from benchfoundry.core import plugins
from benchfoundry.core.store import StageStore
from benchfoundry.export.provenance import provenance
from benchfoundry.pipeline import benchmarks, render_client, review
from benchfoundry.pipeline.commands import MAX_WORD, bounded

REPO = Path(__file__).resolve().parent.parent
ITEMS = [
    {"id": "a1", "answer": "A", "options": ["A", "B"], "form": "closed"},
    {"id": "o1", "answer": "a red car", "options": [], "form": "open"},
]


@pytest.mark.parametrize(
    "header, column",
    [
        ("id,decision,Decision ,edited_answer", "Decision "),
        ("id,Decision,edited_answer", "Decision"),
        ("id, decision,edited_answer", " decision"),
        ("id,decision,edited_answer,Edited_Answer", "Edited_Answer"),
        ("id,decision,edited_answer,notes", "notes"),
    ],
)
def test_a_review_csv_column_the_import_would_misread_is_refused_by_name(
    tmp_path: Path, header: str, column: str
) -> None:
    path = tmp_path / "review.csv"
    cells = {"decision": "", "Decision ": "reject", "Decision": "reject", " decision": "reject"}
    path.write_text(header + "\n" + ",".join(cells.get(c, "a1" if c == "id" else "") for c in header.split(",")) + "\n")
    with pytest.raises(ValueError) as refused:
        review.read_decisions(path, ITEMS)
    assert str(path) in str(refused.value) and repr(column) in str(refused.value)


def test_a_review_csv_without_a_decision_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text("id,edited_answer\na1,\n")
    with pytest.raises(ValueError, match="no column 'decision'"):
        review.read_decisions(path, ITEMS)


def test_the_exported_review_csv_and_a_trailing_empty_column_still_import(tmp_path: Path) -> None:
    review.export_for_review([{**item, "question": "q", "image": "i.png", "task": "t"} for item in ITEMS], tmp_path)
    filled = (
        (tmp_path / "review.csv")
        .read_text()
        .replace("a1,t,closed,q,A | B,A,,i.png,,", "a1,t,closed,q,A | B,A,,i.png,reject,")
    )
    (tmp_path / "review.csv").write_text(filled)
    assert review.read_decisions(tmp_path / "review.csv", ITEMS)[0] == {"a1": {"decision": "reject", "answer": "A"}}
    (tmp_path / "short.csv").write_text("id,decision,\na1,accept,\n")
    assert review.read_decisions(tmp_path / "short.csv", ITEMS)[0] == {"a1": {"decision": "accept", "answer": "A"}}


@pytest.mark.parametrize("header", ["image,label,Label ", "image,Label", "image,label,comment"])
def test_a_label_csv_column_the_import_would_misread_is_refused_by_name(tmp_path: Path, header: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(header + "\nx.png,yes,no\n")
    with pytest.raises(ValueError) as refused:
        labels._csv_rows(path)
    assert str(path) in str(refused.value) and repr(header.split(",")[-1]) in str(refused.value)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x08"])
@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_a_control_character_in_an_edit_is_refused_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str, suffix: str
) -> None:
    path = tmp_path / f"review{suffix}"
    edit = f"a red{char}car"
    if suffix == ".csv":
        path.write_text(f"id,decision,edited_answer\no1,edit,{edit}\na1,accept,\n")
    else:
        results = [
            {"from_name": "decision", "value": {"choices": ["edit"]}},
            {"from_name": "edited_answer", "value": {"text": [edit]}},
        ]
        accept = [{"from_name": "decision", "value": {"choices": ["accept"]}}]
        tasks = [{"data": {"id": "o1"}, "annotations": [{"result": results}]}]
        path.write_text(json.dumps([*tasks, {"data": {"id": "a1"}, "annotations": [{"result": accept}]}]))
    assert review.import_review_file(str(path), ITEMS, tmp_path) == (1, 1)
    err = capsys.readouterr().err
    assert f"{path}:" in err and "edited_answer" in err and f"U+{ord(char):04X}" in err
    assert "o1" not in review.load_decisions(tmp_path)


def test_tabs_and_line_breaks_in_an_edit_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text('id,decision,edited_answer\no1,edit,"a red\ncar\tparked"\n')
    assert review.read_decisions(path, ITEMS)[0]["o1"]["answer"] == "a red\ncar\tparked"


LONG = "x" * 5000


@pytest.mark.parametrize("name", ["~", " ", "", "..", ".hidden", "a b", "a/../b", "org//name", "a\x00b", "é", LONG])
def test_a_model_name_that_is_no_safe_folder_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """`~` and ` ` once shared `report/eval/_`: a name that is not `name` or `org/name` of safe characters is one
    usage error naming --model, and nothing is written."""
    code = cli.main(["eval", "odi", "--build", str(tmp_path), "--model", name, "--base-url", "http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --model") and len(err.splitlines()) == 1 and len(err) < 1000
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("name", ["random", "gpt-4o", "Qwen/Qwen2.5-VL-7B-Instruct", "llava:13b", "org/model@v2"])
def test_model_names_people_use_are_taken(name: str) -> None:
    assert model_name_problem(name) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["build", "smoke", "--plan", "--only", LONG],
        ["build", f"/tmp/{LONG}", "--plan"],
        ["build", "smoke", "--out", f"/tmp/{LONG}"],
        ["eval", LONG, "--build", "/nowhere", "--model", "random"],
        ["export", "hf", "--build", "/nowhere", "--to", "/nowhere2", "--benchmark", LONG],
        ["compare", f"/tmp/{LONG}", "/nowhere"],
    ],
    ids=["only", "config", "out", "eval-benchmark", "export-benchmark", "compare"],
)
def test_a_5000_character_value_is_echoed_cut_short(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "…" in err
    assert max(len(line) for line in err.splitlines()) <= 2 * MAX_WORD + 200


def test_bounded_keeps_a_short_message_and_cuts_a_long_one() -> None:
    assert bounded("/a/b.yaml: invalid config") == "/a/b.yaml: invalid config"
    cut = bounded(f"error in {'y' * 300}.txt: gone")
    assert cut.startswith("error in yyy") and cut.endswith("yyy.txt: gone") and len(cut) < 250
    assert bounded("word " * 1000).endswith("(3000 more characters)")


#: Run an export in a child process killed (os._exit) as it renames its first table into place.
KILLED_EXPORT = """
import os, sys
from benchfoundry.cli.main import main
real = os.replace
def replace(src, dst, *a, **k):
    if str(dst).endswith(".tsv"):
        os._exit(137)
    return real(src, dst, *a, **k)
os.replace = replace
main(["export", "vlmevalkit", "--build", sys.argv[1], "--to", sys.argv[2]])
"""


def test_an_export_killed_mid_write_is_rerun_without_force_and_leaves_no_temporary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    viewspatial_build(tmp_path / "b", n=3)
    to = tmp_path / "x"
    killed = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(tmp_path / "b"), str(to)], check=False)
    assert killed.returncode == 137
    folder = to / "vlmevalkit"
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]  # the kill left its temporary
    user = folder / ".draft.abcdefgh.tmp"
    assert cli.main(["export", "vlmevalkit", "--build", str(tmp_path / "b"), "--to", str(to)]) == 0
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    summary = json.loads((folder / "export.json").read_text())
    assert "running" not in summary and "benchfoundry_ViewSpatial.tsv" in summary["files"]
    user.write_text("the user's own temporary-looking file")
    assert cli.main(["export", "vlmevalkit", "--build", str(tmp_path / "b"), "--to", str(to)]) == 2
    assert user.read_text() == "the user's own temporary-looking file"


@pytest.mark.parametrize("kind", ["fifo", "file", "under a file", "device", "broken link"])
def test_plan_against_an_out_that_is_no_folder_fails_in_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """`build --plan --out` on a FIFO printed a plan "against" it, exit 0."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file").write_text("")
    (tmp_path / "broken link").symlink_to(tmp_path / "gone")
    paths = {"fifo": tmp_path / "fifo", "file": tmp_path / "file", "under a file": tmp_path / "file" / "x"}
    out = {**paths, "device": Path("/dev/null")}.get(kind, tmp_path / kind)
    assert cli.main(["build", "smoke", "--plan", "--only", "syndor", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and str(out) in captured.err


def test_plan_against_a_missing_out_plans_from_scratch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["build", "smoke", "--plan", "--only", "syndor", "--out", str(tmp_path / "none")]) == 0
    assert "no SynDORBench build there" in capsys.readouterr().out


#: A render worker that starts, then never answers a request.
SILENT_WORKER = """
import sys, time
print('{"ok": true}', flush=True)
sys.stdin.readline()
time.sleep(60)
"""


@pytest.mark.parametrize("timeout_s, shown", [(0.5, "0.5 s"), (0.25, "0.25 s"), (2, "2 s")])
def test_a_sub_second_render_timeout_is_shown_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, timeout_s: float, shown: str
) -> None:
    """A 0.5 s shard timeout was reported as "timed out after 0 s"."""
    (tmp_path / "silent_worker.py").write_text(SILENT_WORKER)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(render_client, "WORKER_MODULE", "silent_worker")
    worker = render_client.RenderWorker()
    with pytest.raises(render_client.RenderError, match=f"timed out after {shown} while rendering"):
        worker.render(tmp_path / "spec.json", timeout_s)


@pytest.mark.parametrize("data", [b"", b"PAR1", b"PAR1 not parquet at all PAR1", b"a,b\n1,2\n"])
def test_a_bad_parquet_file_is_reported_by_name(tmp_path: Path, data: bytes) -> None:
    """pyarrow names a bad file `<Buffer>`: the store's shard and manifest reads and `--prune` name it."""
    store = StageStore(tmp_path, "syndor", "render")
    store.write_shard("s1", pd.DataFrame({"shard": ["s1"], "img_path": ["a.jpg"], "mask_path": ["a.png"]}))
    store.write_manifest(["s1"])
    for path in (store.shard_path("s1"), store.manifest_path):
        path.write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(f"{store.shard_path('s1')}: not a readable Parquet file")):
        store.collect_rows(["s1"])
    with pytest.raises(ValueError, match=re.escape(f"{store.manifest_path}: not a readable Parquet file")):
        store.read_manifest()
    with pytest.raises(ValueError, match=re.escape(str(store.manifest_path))):
        frame_files.prune_build(tmp_path / "syndor")


@pytest.mark.parametrize(
    "bad", ["0", "-1", ".nan", "nan", ".inf", "-.inf", "inf", "1e-400", "1e1", "abc", "[0.1]", "null"]
)
def test_a_hostile_scale_is_one_error_naming_it(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"scale: .* is not a fraction in \(0, 1\]"):
        load_config("rehearsal-odi", [f"scale={bad}"])


@pytest.mark.parametrize("written, panoramas", [("1e-3", 2), ("5E-2", 100), ("1.0e-9", 1), ("0.000001", 1)])
def test_a_scale_in_exponent_form_scales(written: str, panoramas: int) -> None:
    """`--set scale=1e-3` was refused as the text '1e-3' (YAML 1.1 reads an exponent without a dot as text); a
    vanishing scale keeps the smallest build that still holds every category."""
    assert load_config("rehearsal-odi", [f"scale={written}"]).odi.synthetic.count == panoramas


@pytest.fixture
def hostile_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, str], None]]:
    """Declare one more entry in the benchmarks group (its modules importable from `tmp_path`); the registry's
    caches are cleared before and after."""
    real = plugins.entry_points
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "hostile_broken.py").write_text("raise RuntimeError('the plug-in blew up on import')\n")
    (tmp_path / "hostile_syntax.py").write_text("def x(:\n")
    (tmp_path / "hostile_plain.py").write_text("DESCRIPTOR = object()\n")
    (tmp_path / "hostile_exit.py").write_text("raise SystemExit(0)\n")
    (tmp_path / "hostile_exit_text.py").write_text("import sys\nsys.exit('bye from the plug-in')\n")

    def declare(name: str, value: str) -> None:
        extra = EntryPoint(name, value, plugins.BENCHMARKS_GROUP)
        monkeypatch.setattr(plugins, "entry_points", lambda group: [*real(group=group), extra])
        _clear_registry()

    yield declare
    monkeypatch.setattr(plugins, "entry_points", real)
    _clear_registry()


def _clear_registry() -> None:
    for cached in (plugins.declared, plugins.load, sections.descriptors):
        cached.cache_clear()


@pytest.mark.parametrize(
    "name, value, shown",
    [
        ("broken", "hostile_broken:DESCRIPTOR", "RuntimeError: the plug-in blew up on import"),
        ("syntaxy", "hostile_syntax:DESCRIPTOR", "SyntaxError"),
        # an import that exits (0 or with a message) was every command's silent exit
        ("exits", "hostile_exit:DESCRIPTOR", "SystemExit: 0"),
        ("exits-text", "hostile_exit_text:DESCRIPTOR", "SystemExit: bye from the plug-in"),
        ("../evil", "hostile_broken:DESCRIPTOR", "'../evil'"),
        ("Evil Name", "hostile_broken:DESCRIPTOR", "'Evil Name'"),
        ("syndor", "hostile_broken:DESCRIPTOR", "declared twice"),
        # a config key or a folder of the build root: `runner:` would be read as the section, `report/` shared
        ("runner", "hostile_plain:DESCRIPTOR", "'runner' is taken"),
        ("scale", "hostile_plain:DESCRIPTOR", "'scale' is taken"),
        ("report", "hostile_plain:DESCRIPTOR", "'report' is taken"),
    ],
)
def test_a_broken_or_badly_named_plugin_is_one_error_line_naming_its_entry(
    hostile_plugins: Callable[[str, str], None], capsys: pytest.CaptureFixture[str], name: str, value: str, shown: str
) -> None:
    """A plug-in whose import raised anything but ImportError, or any PluginError, was a traceback on every
    command; a name like `../evil` (the benchmark's folder under the build root) was not checked."""
    hostile_plugins(name, value)
    assert cli.main(["build", "smoke", "--plan"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: benchfoundry.benchmarks") and shown in err and "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_the_reserved_names_cover_every_top_level_key_of_a_build_config() -> None:
    assert {*BuildConfig.model_fields, SCALE_KEY} <= sections.RESERVED_NAMES
    assert not sections.RESERVED_NAMES & set(benchmarks.names())
    with pytest.raises(plugins.PluginError, match="'seed' is taken"):
        benchmarks.register(dataclasses.replace(benchmarks.get("odi"), name="seed"))
    assert "seed" not in benchmarks.names()


@pytest.mark.parametrize(
    "flags, refused",
    [
        (["--html", "{a}/build.json"], "lies in"),
        (["--json", "{a}/viewspatial/ViewSpatial-Bench.json"], "lies in"),
        (["--json", "{b}/viewspatial/ViewSpatial-Bench.json"], "lies in"),
        (["--json", "{tmp}/fifo"], "not a regular file"),
        (["--json", "{tmp}/x.json", "--html", "{tmp}/x.json"], "the same file"),
    ],
)
def test_compare_replaces_no_input_no_other_output_and_no_special_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], refused: str
) -> None:
    """`compare --html A/build.json` replaced the build's record with the page (exit 0), `--json` on a FIFO
    replaced the FIFO, and --json and --html on one path wrote one over the other."""
    a, b = tmp_path / "a", tmp_path / "b"
    viewspatial_build(a, n=3)
    viewspatial_build(b, n=3)
    os.mkfifo(tmp_path / "fifo")
    before = {p: p.read_bytes() for root in (a, b) for p in root.rglob("*") if p.is_file()}
    argv = [flag.format(a=a, b=b, tmp=tmp_path) for flag in flags]
    assert cli.main(["compare", str(a), str(b), *argv]) == 2
    err = capsys.readouterr().err
    assert refused in err and len(err.splitlines()) == 1
    assert {p: p.read_bytes() for root in (a, b) for p in root.rglob("*") if p.is_file()} == before
    assert (tmp_path / "fifo").is_fifo()


def test_compare_still_writes_its_page_into_a(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    viewspatial_build(a, n=3)
    viewspatial_build(b, n=3)
    page = a / "report" / "compare.html"
    assert cli.main(["compare", str(a), str(b), "--html", str(page), "--json", str(tmp_path / "c.json")]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>") and json.loads((tmp_path / "c.json").read_text())


@pytest.mark.parametrize(
    "name, shown",
    [
        ("night\x00shift", "night shift"),
        ("\x1b[31mred\x1b[0m", "[31mred [0m"),
        ("\u202eevil\u202c name", "evil name"),
        ("a`b\n---\nlicense: evil", "a'b --- license: evil"),
        ("x" * 500, "x" * 80),
    ],
)
def test_the_cards_build_name_is_one_plain_line(tmp_path: Path, name: str, shown: str) -> None:
    """A build's name with NUL, an escape sequence or a bidi override reached the dataset card as it was."""
    (tmp_path / "build.json").write_text(json.dumps({"name": name}))
    assert provenance(tmp_path, ()).name == shown


def _docker_requirements() -> Any:
    spec = importlib.util.spec_from_file_location("docker_requirements", REPO / "docker" / "requirements.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "line", ["--index-url=https://elsewhere.example/simple", "-e .", "numpy\n--pre", "pandas\x00", "", 3]
)
def test_docker_requirements_refuse_a_line_that_is_no_requirement(line: Any) -> None:
    """Each line reaches `pip install` as an argument (xargs): an option or a line break would be pip's to obey."""
    project = {"project": {"dependencies": ["numpy>=1.26,<2", line]}, "build-system": {"requires": []}}
    with pytest.raises(ValueError, match="is not a requirement"):
        _docker_requirements().requirements(project, build=False)


def test_docker_requirements_are_the_projects_and_refuse_an_unknown_flag(capsys: pytest.CaptureFixture[str]) -> None:
    module = _docker_requirements()
    assert module.main(["--bulid"]) == 2 and "usage" in capsys.readouterr().err
    assert module.main(["--build"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "setuptools>=68" in printed and any(line.startswith("prefect") for line in printed)
    assert all(module.REQUIREMENT.fullmatch(line) for line in printed)
    extras = {"project": {"dependencies": ['smplx[all]==0.1.28; python_version >= "3.10"']}, "build-system": {}}
    assert module.requirements(extras, build=False) == ['smplx[all]==0.1.28; python_version >= "3.10"']
