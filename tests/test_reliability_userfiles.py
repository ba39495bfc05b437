"""Reliability, fourth round, no user file is touched: an adopted folder keeps what the build did not write
(syndor/hf is written file by file), and an export refuses a target inside the build and files it did not
write, and holds the build's lock (issue 36, point 5; point 7: syndor/hf's mode)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_eval import viewspatial_build
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.cli.main import main
from benchfoundry.core.output_root import hold_output_root


def test_syndor_hf_keeps_the_users_files_and_only_its_own_stale_ones_go(tmp_path: Path) -> None:
    manifest = make_labelled_build(tmp_path)
    mine = tmp_path / "syndor" / "hf" / "README_user.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my notes")
    qa_stage.export_qa(manifest, tmp_path, QaConfig())
    hf = tmp_path / "syndor" / "hf"
    written = {p for p in hf.rglob("*") if p.is_file()} - {mine}
    assert mine.read_text() == "my notes" and written
    (tmp_path / "plain").mkdir()  # a folder made the ordinary way: what the umask gives (not 0700 of a temp folder)
    ordinary = (tmp_path / "plain").stat().st_mode & 0o777
    assert all(p.stat().st_mode & 0o777 == ordinary for p in [hf, *(d for d in hf.rglob("*") if d.is_dir())])
    stale = next(p for p in written if p.suffix != ".jsonl" and p.name != qa_stage.WRITTEN)
    files = {("human_detection", "day"): []}  # a rebuild that releases nothing: every image of the last is stale
    qa_stage.write_imagefolder(tmp_path / "syndor", files)
    assert not stale.exists() and mine.read_text() == "my notes"


def export(build: Path, to: Path, *extra: str) -> int:
    return main(["export", "vlmevalkit", "--build", str(build), "--to", str(to), *extra])


def test_an_export_into_its_build_is_refused(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path / "b", n=3)
    assert export(tmp_path / "b", tmp_path / "b" / "exports") == 2
    assert "inside the build" in capsys.readouterr().err
    assert not (tmp_path / "b" / "exports").exists()


def test_an_export_overwrites_no_file_it_did_not_write_unless_forced(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path / "b", n=3)
    to = tmp_path / "x"
    theirs = to / "vlmevalkit" / "benchfoundry_ViewSpatial.tsv"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("the user's own table")
    assert export(tmp_path / "b", to) == 2
    assert "benchfoundry_ViewSpatial.tsv" in capsys.readouterr().err and theirs.read_text() == "the user's own table"
    theirs.unlink()
    assert export(tmp_path / "b", to) == 0 and export(tmp_path / "b", to) == 0  # its own files: rewritten freely
    recorded = json.loads((to / "vlmevalkit" / "export.json").read_text())["files"]
    written = sorted(p.name for p in (to / "vlmevalkit").iterdir() if p.name != "export.json")
    assert "benchfoundry_ViewSpatial.tsv" in recorded and sorted(recorded) == written
    (to / "vlmevalkit" / "notes.txt").write_text("mine")
    assert export(tmp_path / "b", to) == 2
    assert export(tmp_path / "b", to, "--force") == 0 and (to / "vlmevalkit" / "notes.txt").read_text() == "mine"


def test_an_export_waits_for_no_build_it_is_told_of_a_running_one(tmp_path: Path, capsys) -> None:
    build = tmp_path / "b"
    with hold_output_root(build):
        pass
    viewspatial_build(build, n=3)
    script = "import sys, time\nfrom benchfoundry.core.output_root import hold_output_root\n"
    script += "with hold_output_root(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(600)\n"
    holder = subprocess.Popen([sys.executable, "-c", script, str(build)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert export(build, tmp_path / "x") != 0
        assert str(holder.pid) in capsys.readouterr().err
        assert not (tmp_path / "x" / "vlmevalkit" / "benchfoundry_ViewSpatial.tsv").exists()
    finally:
        holder.kill()
        holder.wait()


def test_an_export_json_another_tool_wrote_makes_no_file_an_exports(tmp_path: Path, capsys) -> None:
    viewspatial_build(tmp_path / "b", n=3)
    folder = tmp_path / "x" / "vlmevalkit"
    folder.mkdir(parents=True)
    theirs = folder / "benchfoundry_ViewSpatial.tsv"
    theirs.write_text("the user's own table")
    other_tool = {"files": ["benchfoundry_ViewSpatial.tsv"], "tool": "some-uploader"}
    (folder / "export.json").write_text(json.dumps(other_tool))
    assert export(tmp_path / "b", tmp_path / "x") == 2
    err = capsys.readouterr().err
    assert "benchfoundry_ViewSpatial.tsv" in err and "export.json" in err
    assert theirs.read_text() == "the user's own table"
    assert json.loads((folder / "export.json").read_text()) == other_tool
    legacy = {"build": str(tmp_path / "b"), "benchmarks": {}, "files": ["benchfoundry_ViewSpatial.tsv"]}
    (folder / "export.json").write_text(json.dumps(legacy))  # an export's summary from before it named its writer
    assert export(tmp_path / "b", tmp_path / "x") == 0 and theirs.read_text() != "the user's own table"
    assert json.loads((folder / "export.json").read_text())["writer"] == "benchfoundry export"
