"""pipeline/model_client against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import email.utils
import random
from pathlib import Path

import pytest
from model_server import ScriptedModel

from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.core.retry import retry_after_seconds
from benchfoundry.pipeline.model_client import (
    ModelClient,
    ModelError,
    Reply,
    image_part,
    request_key,
    user_message,
)

SECRET = "sk-test-7f3a9c-do-not-write"

#: The fault each prompt meets on its first request; every prompt is answered on its next one.
FAULTS = {
    "rate limited": ("status", 429, {"Retry-After": "0.7"}),
    "server error": ("status", 500, {}),
    "overloaded": ("status", 503, {}),
    "too slow": ("stall", 3.0),
    "dropped": ("drop",),
    "garbled": ("malformed",),
    "fine": None,
}


def answer_for(prompt: str) -> str:
    return f"answer to {prompt}"


def faulty_once(prompt: str, attempt: int) -> tuple:
    fault = FAULTS.get(prompt)
    return fault if fault is not None and attempt == 0 else ("ok", answer_for(prompt))


def endpoint(server: ScriptedModel, **overrides: object) -> ModelEndpoint:
    settings = {
        "base_url": server.base_url,
        "model": "scripted",
        "api_key_env": "BF_TEST_KEY",
        "timeout_s": 2.0,  # generous: a loaded CI machine must not turn a slow reply into a retry
        "max_retries": 3,
        "backoff_s": 0.01,
        "max_backoff_s": 5.0,
        "concurrency": 3,
    }
    return ModelEndpoint(**{**settings, **overrides})


def test_every_fault_is_retried_and_each_prompt_answered_exactly_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BF_TEST_KEY", SECRET)
    waits: list[float] = []
    with ScriptedModel(faulty_once) as server:
        with ModelClient(endpoint(server), tmp_path / "cache", sleep=waits.append) as client:
            replies = client.chat_many([[user_message(p)] for p in FAULTS])
            usage = client.usage()
    assert [r.text for r in replies] == [answer_for(p) for p in FAULTS]
    assert all(isinstance(r, Reply) and not r.cached for r in replies)
    assert dict(server.answered) == dict.fromkeys(FAULTS, 1)
    faulty = [p for p, f in FAULTS.items() if f is not None]
    assert dict(server.requests) == {p: 2 if p in faulty else 1 for p in FAULTS}
    assert usage["retries"] == len(faulty) and usage["requests"] == len(FAULTS) + len(faulty)
    assert usage["answered"] == len(FAULTS) and usage["failed"] == 0
    assert 0.7 in waits  # the 429's Retry-After, honoured
    assert all(0.005 <= w <= 0.015 for w in waits if w != 0.7)  # first retries: 0.01 s with ±50 % jitter
    assert server.authorization == {f"Bearer {SECRET}"}


def test_a_rerun_is_served_from_the_cache_and_sends_nothing(tmp_path: Path) -> None:
    prompts = [[user_message(f"q{i}")] for i in range(4)]
    with ScriptedModel(lambda p, a: ("ok", answer_for(p))) as server:
        with ModelClient(endpoint(server), tmp_path / "cache") as client:
            first = client.chat_many(prompts)
        sent = sum(server.requests.values())
        with ModelClient(endpoint(server), tmp_path / "cache") as client:
            second = client.chat_many(prompts)
            usage = client.usage()
    assert sum(server.requests.values()) == sent == 4
    assert [r.text for r in second] == [r.text for r in first] and all(r.cached for r in second)
    assert usage["cache_hits"] == 4 and usage["requests"] == 0


def test_the_key_is_written_nowhere(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BF_TEST_KEY", SECRET)
    with ScriptedModel(lambda p, a: ("status", 500, {}) if p == "bad" else ("ok", answer_for(p))) as server:
        with ModelClient(endpoint(server, max_retries=1), tmp_path / "cache", sleep=lambda s: None) as client:
            results = client.chat_many([[user_message("good")], [user_message("bad")]])
    assert server.authorization == {f"Bearer {SECRET}"}
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert files and all(SECRET not in p.read_text() for p in files)
    assert isinstance(results[1], ModelError) and SECRET not in str(results[1])


@pytest.mark.parametrize(
    ("status", "words"),
    [(401, "refused the key in $BF_TEST_KEY"), (404, "model 'scripted' not found"), (400, "HTTP 400: ")],
)
def test_a_refusal_fails_at_once_with_one_line(tmp_path: Path, monkeypatch, status: int, words: str) -> None:
    monkeypatch.setenv("BF_TEST_KEY", SECRET)
    with ScriptedModel(lambda p, a: ("status", status, {})) as server:
        with ModelClient(endpoint(server), None) as client:
            with pytest.raises(ModelError) as caught:
                client.chat([user_message("q")])
    message = str(caught.value)
    assert words in message and "\n" not in message and server.base_url in message
    assert server.requests["q"] == 1


def test_retries_run_out_into_an_error_for_that_request_only(tmp_path: Path) -> None:
    script = lambda p, a: ("status", 502, {}) if p == "doomed" else ("ok", answer_for(p))
    with ScriptedModel(script) as server:
        with ModelClient(endpoint(server, max_retries=2), tmp_path / "cache", sleep=lambda s: None) as client:
            results = client.chat_many([[user_message("a")], [user_message("doomed")], [user_message("b")]])
            usage = client.usage()
    assert [r.text for r in (results[0], results[2])] == [answer_for("a"), answer_for("b")]
    assert isinstance(results[1], ModelError) and "HTTP 502, after 2 retries" in str(results[1])
    assert server.requests["doomed"] == 3 and usage["failed"] == 1
    assert not any("doomed" in p.read_text() for p in (tmp_path / "cache").rglob("*.json"))


def test_an_unreachable_server_is_a_named_connection_error() -> None:
    with ScriptedModel(lambda p, a: ("ok", "")) as server:
        url = server.base_url
    with ModelClient(ModelEndpoint(base_url=url, max_retries=1, backoff_s=0), None) as client:
        with pytest.raises(ModelError, match=r"connection failed \(ConnectError\), after 1 retries"):
            client.chat([user_message("anyone there?")])


def test_no_more_requests_in_flight_than_the_concurrency_limit(tmp_path: Path) -> None:
    with ScriptedModel(lambda p, a: ("sleep", 0.15, answer_for(p))) as server:
        with ModelClient(endpoint(server, concurrency=2, timeout_s=5), None) as client:
            client.chat_many([[user_message(f"q{i}")] for i in range(6)])
    assert server.max_in_flight == 2


def test_images_travel_as_data_urls_before_the_text(tmp_path: Path) -> None:
    with ScriptedModel(lambda p, a: ("ok", answer_for(p))) as server:
        with ModelClient(endpoint(server), None) as client:
            reply = client.chat([user_message("what is this?", [image_part(b"\xff\xd8jpeg-bytes")])])
    content = server.bodies[0]["messages"][0]["content"]
    assert reply.text == answer_for("what is this?")
    assert content[0] == {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9hqcGVnLWJ5dGVz"}}
    assert content[1] == {"type": "text", "text": "what is this?"}
    assert server.bodies[0]["temperature"] == 0.0


def test_the_request_key_follows_the_request_not_the_server_or_the_key() -> None:
    base = ModelEndpoint(base_url="http://a:1/v1", model="m")
    messages = [user_message("q")]
    key = request_key(base, messages)
    assert request_key(base.model_copy(update={"base_url": "http://b:2/v1", "api_key_env": "OTHER"}), messages) == key
    assert request_key(base.model_copy(update={"model": "n"}), messages) != key
    assert request_key(base.model_copy(update={"temperature": 0.5}), messages) != key
    assert request_key(base, [user_message("q2")]) != key


def test_retry_delays() -> None:
    retries = ModelEndpoint(backoff_s=1.0, max_backoff_s=10.0).retries
    rng = random.Random(0)
    delays = [retries.delay(k, None, rng) for k in range(6)]
    assert all(0.5 * 2**k <= d < 1.5 * 2**k for k, d in enumerate(delays[:3]))
    assert max(delays) <= 10.0 and delays[-1] == 10.0
    assert retries.delay(0, 3.0, rng) == 3.0 and retries.delay(0, 99.0, rng) == 10.0
    now = 1_700_000_000.0
    assert retry_after_seconds(email.utils.formatdate(now + 30, usegmt=True), now) == pytest.approx(30.0)
    assert retry_after_seconds("2", now) == 2.0 and retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None


def test_endpoint_config_refuses_a_key_in_place_of_a_variable_name() -> None:
    with pytest.raises(ValueError, match="not an environment variable name"):
        ModelEndpoint(api_key_env="sk-live-123")
    with pytest.raises(ValueError, match="not an http"):
        ModelEndpoint(base_url="localhost:8000")


def _chat_reply(text: str) -> bytes:
    import json

    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


def test_a_small_gzip_reply_that_claims_a_huge_body_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    """100 MB of text in 100 kB of gzip: refused once the decoded bytes pass the cap, not held in memory; an
    ordinary gzip reply is read as any other."""
    import gzip
    import tracemalloc

    from benchfoundry.pipeline import model_client

    bomb = gzip.compress(_chat_reply("a" * 100_000_000), compresslevel=9)
    small = gzip.compress(_chat_reply("a short answer"))
    replies = {"bomb": bomb, "small": small}
    assert len(bomb) < 1_000_000

    def script(prompt: str, attempt: int) -> tuple:
        return ("raw", {"Content-Encoding": "gzip"}, replies[prompt])

    with ScriptedModel(script) as server, ModelClient(endpoint(server, timeout_s=30.0), tmp_path / "cache") as client:
        assert client.chat([user_message("small")]).text == "a short answer"
        tracemalloc.start()
        try:
            with pytest.raises(ModelError, match=rf"over {model_client.MAX_REPLY_BYTES:,} bytes once decoded"):
                client.chat([user_message("bomb")])
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 4 * model_client.MAX_REPLY_BYTES
    assert server.requests["bomb"] == 1  # refused, not retried
