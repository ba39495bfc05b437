"""Reliability: a key echoed in an encoded form (base64, hex, reversed, URL-, HTML-encoded, full-width) is masked
in every file an evaluation writes, and a `?token=` in a model URL reaches no row of Prefect's database."""

from __future__ import annotations

import base64
import html
import sqlite3
import urllib.parse
from pathlib import Path

import pytest
from model_server import ScriptedModel
from prefect import flow, get_run_logger, task
from test_eval import odi_build

from benchfoundry.cli.main import main
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.core.redact import redact
from benchfoundry.pipeline.model_client import ModelClient, user_message

KEY = "enc-key-5e0c7b2a9d41"
ENCODINGS = {
    "base64": lambda k: base64.b64encode(k.encode()).decode(),
    "base64 of a header": lambda k: base64.b64encode(f"Authorization: Bearer {k}".encode()).decode(),
    "url-safe base64": lambda k: base64.urlsafe_b64encode(("ab" + k).encode()).decode(),
    "hex": lambda k: k.encode().hex(),
    "upper hex": lambda k: k.encode().hex().upper(),
    "reversed": lambda k: k[::-1],
    "url-encoded": lambda k: "".join(f"%{b:02X}" for b in k.encode()),
    "html decimal": lambda k: "".join(f"&#{ord(c)};" for c in k),
    "html hex": lambda k: "".join(f"&#x{ord(c):x};" for c in k),
    "full-width": lambda k: "".join(chr(ord(c) + 0xFEE0) for c in k),
}


def _decodings(text: str) -> str:
    """Every decoding of `text` the encodings above undo, joined: a key still in `text` in any form shows here."""
    found = [text, text[::-1], urllib.parse.unquote(text), html.unescape(text)]
    found.append("".join(chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else c for c in text))
    for word in text.replace('"', " ").replace("\\n", " ").split():
        for prefix in ("", "A", "AA"):
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    found.append(decode(prefix + word + "==").decode("latin-1"))
                except ValueError:
                    pass
        try:
            found.append(bytes.fromhex(word).decode("latin-1"))
        except ValueError:
            pass
    return "\n".join(found)


@pytest.mark.parametrize("name", ENCODINGS)
def test_redaction_masks_every_encoded_form_of_a_known_key(name: str) -> None:
    echo = ENCODINGS[name](KEY)
    masked = redact(f"the server said {echo} back", [KEY])
    assert "***" in masked and KEY not in _decodings(masked)


def test_redaction_leaves_ordinary_encoded_text_alone() -> None:
    text = "base64 aGVsbG8gd29ybGQ=, hex deadbeef, %20 &amp; ｆｕｌｌ words"
    assert redact(text, [KEY]) == text


def test_a_key_echoed_encoded_reaches_no_file_of_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model answers with the key in every encoding: predictions, the cache and every other file written
    hold the answers, masked, and the key in no form."""
    monkeypatch.setenv("ENC_KEY", KEY)
    odi_build(tmp_path)
    echoes = " ".join(encode(KEY) for encode in ENCODINGS.values())
    with ScriptedModel(lambda prompt, attempt: ("ok", f"A because {echoes}")) as model:
        argv = ["eval", "odi", "--build", str(tmp_path), "--model", "m", "--base-url", model.base_url]
        assert main([*argv, "--retries", "0", "--api-key-env", "ENC_KEY"]) == 0
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".md", ".html")]
    assert any("because ***" in p.read_text() for p in written)
    for path in written:
        assert KEY not in _decodings(path.read_text()), path


TOKEN = "qs-token-8b2e6f0a41c7"


@flow(name="reliability-token-writer")
def ask_the_writer(config: BuildConfig, cache: str) -> str:
    """A flow whose task asks the ODI writer model, as a QA stage does; the task fails on the server's refusal."""
    return ask(config, cache)


@task(name="reliability-token-ask", retries=0)
def ask(config: BuildConfig, cache: str) -> str:
    logger = get_run_logger()
    endpoint = config.odi.qa.writer
    logger.info("asking %s", endpoint.base_url)
    with ModelClient(endpoint, Path(cache)) as client:
        return client.chat([user_message("refuse, echoing the token")]).text


def test_a_token_in_a_writer_url_reaches_no_row_of_prefects_database(tmp_path: Path, prefect_home: Path) -> None:
    """A real Prefect server on its own SQLite database runs a flow whose task asks a writer at a URL with
    `?token=…`; the server refuses, echoing the token in every encoding. No table (flow and task runs, their
    states, logs, events) holds the token in any form."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from benchfoundry.flows.prefect_api import prefect_server

    echoes = " ".join(encode(TOKEN) for encode in ENCODINGS.values())
    # a header carries latin-1 only (http.server refuses the full-width form there); the body carries every form
    in_header = " ".join(e for e in echoes.split() if e.isascii())
    with ScriptedModel(lambda prompt, attempt: ("status", 401, {"X-Echo": in_header}, f"refused {echoes}")) as model:
        base = f"{model.base_url}?token={TOKEN}"
        config = load_config(None, [f"odi.qa.writer.base_url={base}", "odi.qa.writer.max_retries=0"])
        with prefect_server(home=str(prefect_home)) as url, temporary_settings({PREFECT_API_URL: url}):
            state = ask_the_writer(config, str(tmp_path / "cache"), return_state=True)
            APILogWorker.drain_all()  # logs and events are sent in the background: all of them, before the check
            EventsWorker.drain_all()
    assert state.is_failed() and model.paths and TOKEN in model.paths[0]
    with sqlite3.connect(prefect_home / "prefect.db") as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        dump = "\n".join(
            str(value) for table in tables for row in db.execute(f'SELECT * FROM "{table}"') for value in row
        )
    assert "reliability-token-ask" in dump and "asking" in dump and "401" in dump
    assert TOKEN not in _decodings(dump)
