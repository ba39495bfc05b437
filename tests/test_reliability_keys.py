"""Reliability, fourth round, keys: a key goes only to the endpoint it was given for, URL credentials never reach
Prefect, and redaction catches a key's case-folded, split and JSON-escaped echoes (issue 36, point 2); a model
request has an overall deadline (point 4), and a request given up at it holds no connection (issue 48)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from model_server import ScriptedModel
from prefect import flow
from test_eval import odi_build

from benchfoundry.cli.main import main
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import load_config
from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.core.redact import redact
from benchfoundry.pipeline.model_client import ModelClient, ModelError, user_message

MODEL_KEY = "model-key-7f3a9c1e5b"
AMBIENT_KEY = "ambient-openai-key-2d8e4f"
JUDGE_KEY = "judge-key-93b1c7a0e4"


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", MODEL_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", AMBIENT_KEY)
    monkeypatch.setenv("JUDGE_KEY", JUDGE_KEY)


def eval_odi(build: Path, model: ScriptedModel, *extra: str) -> int:
    argv = ["eval", "odi", "--build", str(build), "--model", "m", "--base-url", model.base_url, "--retries", "0"]
    return main([*argv, "--api-key-env", "MY_KEY", "--judge-model", "j", *extra])


def test_a_judge_on_the_model_endpoint_sends_the_model_key_not_an_ambient_one(tmp_path: Path, keys: None) -> None:
    odi_build(tmp_path)
    with ScriptedModel(lambda prompt, attempt: ("ok", "A 1")) as model:
        assert eval_odi(tmp_path, model) == 0
    assert model.authorization == {f"Bearer {MODEL_KEY}"}


def test_a_judge_elsewhere_sends_no_key_unless_given_its_own(tmp_path: Path, keys: None) -> None:
    odi_build(tmp_path / "a")
    odi_build(tmp_path / "b")  # a build of its own: the first one's reply cache would answer the judge
    with ScriptedModel(lambda p, a: ("ok", "A")) as model, ScriptedModel(lambda p, a: ("ok", "1")) as judge:
        assert eval_odi(tmp_path / "a", model, "--judge-base-url", judge.base_url) == 0
        assert judge.authorization == {""} and model.authorization == {f"Bearer {MODEL_KEY}"}
        judge.authorization.clear()
        argv = ("--judge-base-url", judge.base_url, "--judge-api-key-env", "JUDGE_KEY")
        assert eval_odi(tmp_path / "b", model, *argv) == 0
        assert judge.authorization == {f"Bearer {JUDGE_KEY}"}


def test_url_credentials_never_reach_a_dump_of_the_config_but_reach_the_server(tmp_path: Path) -> None:
    endpoint = ModelEndpoint(base_url="http://alice:pa55word-xyz@127.0.0.1:9/v1")
    assert "pa55word" not in json.dumps(endpoint.model_dump(mode="json"))
    assert endpoint.request_url == "http://alice:pa55word-xyz@127.0.0.1:9/v1"
    config = load_config(None, [f"odi.qa.writer.base_url={endpoint.request_url}"])
    assert "pa55word" not in json.dumps(config.model_dump(mode="json"))
    import pickle

    assert pickle.loads(pickle.dumps(config)).odi.qa.writer.request_url == endpoint.request_url


def test_a_query_string_key_reaches_the_server_after_the_path_and_no_dump_or_error(tmp_path: Path) -> None:
    """`?api-key=…` in a base URL (Azure-style, with `api-version`) is kept out of every dump of the config, sent
    after the request's path (not before it), and masked in an error that echoes it."""
    from model_server import ScriptedModel

    from benchfoundry.pipeline.model_client import ModelClient, ModelError, user_message

    secret = "qs-key-4c1d9e-do-not-write"

    def script(prompt: str, attempt: int) -> tuple:
        return ("ok", "fine") if prompt == "hello" else ("status", 401, {"X-Echo": secret})

    with ScriptedModel(script) as server:
        base = f"{server.base_url}?api-key={secret}&api-version=2024-06-01"
        config = load_config(None, [f"odi.qa.writer.base_url={base}", "odi.qa.writer.max_retries=0"])
        assert secret not in json.dumps(config.model_dump(mode="json"))
        endpoint = config.odi.qa.writer
        with ModelClient(endpoint, tmp_path / "cache") as client:
            assert client.chat([user_message("hello")]).text == "fine"
            with pytest.raises(ModelError) as refused:
                client.chat([user_message("refuse, echoing the key")])
        assert server.paths[0] == f"/v1/chat/completions?api-key={secret}&api-version=2024-06-01"
    assert secret not in str(refused.value)
    assert not any(secret in p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file())


@flow(name="reliability-keys-params")
def writer_url(config: BuildConfig) -> str:
    """What a flow given the config reaches: the writer's URL with its credentials."""
    return config.odi.qa.writer.request_url


def test_prefect_flow_run_parameters_hold_no_url_password(tmp_path: Path, prefect_server: None) -> None:
    from prefect.client.orchestration import get_client

    config = load_config(None, ["odi.qa.writer.base_url=http://alice:pa55word-xyz@127.0.0.1:9/v1"])
    state = writer_url(config, return_state=True)
    assert state.result() == "http://alice:pa55word-xyz@127.0.0.1:9/v1"  # the flow still reaches the server
    with get_client(sync_client=True) as client:
        parameters = client.read_flow_run(state.state_details.flow_run_id).parameters
    assert "127.0.0.1:9" in json.dumps(parameters) and "pa55word" not in json.dumps(parameters)


@pytest.mark.parametrize(
    "echo",
    [
        MODEL_KEY.upper(),
        MODEL_KEY[:9] + "\n" + MODEL_KEY[9:],
        MODEL_KEY[:6] + '" + "' + MODEL_KEY[6:],
        json.dumps(MODEL_KEY).replace("k", "\\u006b"),
    ],
)
def test_redaction_catches_case_folded_split_and_json_escaped_echoes(echo: str) -> None:
    assert "***" in redact(f"the server said {echo} back", [MODEL_KEY])
    assert redact("an ordinary reply, with no key", [MODEL_KEY]) == "an ordinary reply, with no key"


def test_a_lower_cased_echo_of_the_key_reaches_neither_predictions_nor_the_cache(tmp_path: Path, keys: None) -> None:
    odi_build(tmp_path)
    with ScriptedModel(lambda prompt, attempt: ("ok", f"A because {MODEL_KEY.lower()}")) as model:
        eval_odi(tmp_path, model)
    written = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))
    assert "because ***" in written and MODEL_KEY.lower() not in written


@pytest.fixture
def trickling_server() -> Iterator[tuple[str, threading.Event, threading.Event]]:
    """A server that answers 200 and then one byte of its body every 0.2 s for a minute; the first event is set
    once it has sent it all, the second once the client has dropped the connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    finished, dropped, stop = threading.Event(), threading.Event(), threading.Event()

    def serve() -> None:
        connection, _ = server.accept()
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n")
        for _ in range(300):
            if stop.wait(0.2):
                return
            try:
                connection.sendall(b" ")
            except OSError:
                dropped.set()
                return
        finished.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1", finished, dropped
    stop.set()
    server.close()


def test_a_trickling_server_does_not_outlast_the_request_deadline(trickling_server: tuple) -> None:
    """The request ends at its deadline, and its connection soon after, while the client stays open (an eval
    goes on with other items): an abandoned request holds no connection to the end of the run."""
    url, finished, dropped = trickling_server
    endpoint = ModelEndpoint(base_url=url, timeout_s=1.0, max_retries=0)
    with ModelClient(endpoint, None) as client:
        with pytest.raises(ModelError, match="no reply within 1 s"):
            client.chat([user_message("hello")])
        assert dropped.wait(10), "the abandoned request still holds its connection"
    assert not finished.is_set()  # the reply was given up while the server was still trickling it


@pytest.fixture
def trickling_to_all() -> Iterator[tuple[int, Callable[[], int]]]:
    """A server whose every connection gets 200 and then a byte of its body every 0.05 s for a minute: its port,
    and how many of its connections the client has not dropped yet."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    server.settimeout(0.2)
    stop = threading.Event()
    open_ones: set[int] = set()
    guard = threading.Lock()

    def trickle(connection: socket.socket) -> None:
        with guard:
            open_ones.add(id(connection))
        try:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1200\r\n\r\n")
            for _ in range(1200):
                if stop.wait(0.05):
                    return
                connection.sendall(b" ")
        except OSError:
            pass
        finally:
            with guard:
                open_ones.discard(id(connection))
            connection.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=trickle, args=(connection,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()

    def still_open() -> int:
        with guard:
            return len(open_ones)

    yield server.getsockname()[1], still_open
    stop.set()
    server.close()


def test_a_hundred_abandoned_requests_leave_no_socket_open(trickling_to_all: tuple[int, Callable[[], int]]) -> None:
    """Issue 48: after 100 requests given up at their deadline, with the client still open (an eval goes on),
    no connection to the server is left: neither in this process nor on the server's side."""
    port, still_open = trickling_to_all
    endpoint = ModelEndpoint(base_url=f"http://127.0.0.1:{port}/v1", timeout_s=0.1, max_retries=0, concurrency=8)

    def ours() -> list:
        return [c for c in psutil.Process().net_connections("tcp") if c.raddr and c.raddr.port == port]

    with ModelClient(endpoint, None) as client:
        for _ in range(100):
            with pytest.raises(ModelError, match="no reply within 0.1 s"):
                client.chat([user_message("hello")])
        deadline = time.monotonic() + 30  # a guard against waiting for ever, not a speed limit
        while (ours() or still_open()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not ours() and not still_open(), (len(ours()), still_open())
