"""One client for every model call: OpenAI-compatible chat completions over HTTP, retried, limited, cached.

A request is keyed by a hash of (model, messages, parameters) and its reply cached on disk under
`cache_dir/<key[:2]>/<key>.json`, so a rerun, or a run that was interrupted, pays for nothing twice.
Every request has an overall deadline of `timeout_s` (a server trickling its reply a byte at a time does not
keep it going). A failed request is asked again as the retry policy says (benchfoundry/core/retry.py: which failures,
how many times, after what wait); one that ends without a usable reply raises ModelError with one line saying why,
which the build does not retry again. The API key is read from the environment variable the endpoint
names, at request time, and written nowhere: every error (a refusal quotes the server's body, which may
echo the Authorization header) and every reply pass through the one redaction
(benchfoundry/core/redact.py), which also hides credentials in the base URL.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import os
import random
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.image_decode import check_image_type, read_image_bytes
from benchfoundry.core.redact import mask_secrets, redact
from benchfoundry.core.retry import retried_status, retry_after_seconds

#: The most bytes a reply's body may hold once decoded: a chat reply is kilobytes; a small gzip body can claim
#: gigabytes.
MAX_REPLY_BYTES = 16 * 2**20
#: Headers of the raw body that no longer describe the decoded one.
DECODED_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class ModelError(RuntimeError):
    """A request that ended without a usable reply (after the client's own retries); the message is one
    redacted line naming the endpoint and why."""


@dataclass(frozen=True)
class Reply:
    text: str
    cached: bool
    usage: dict[str, int]


def image_part(data: bytes, mime: str = "image/jpeg") -> dict[str, Any]:
    """An image as a base64 data-URL content part."""
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}}


def image_file_part(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A JPEG/PNG/… file as a data-URL content part (type from the file name); a special file (FIFO, device)
    or an over-large one (refused before it is opened) or one that is no image is a ValueError naming it."""
    mime = mimetypes.guess_type(str(path))[0] or "application/octet-stream"
    data = read_image_bytes(path)
    check_image_type(data, str(path))  # a text file named like an image is sent nowhere
    return image_part(data, mime)


def user_message(text: str, images: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A user turn: the images (content parts) first, then the text."""
    if not images:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [*images, {"type": "text", "text": text}]}


def request_body(endpoint: ModelEndpoint, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": endpoint.model,
        "messages": list(messages),
        "temperature": endpoint.temperature,
        "max_tokens": endpoint.max_tokens,
    }


def request_key(endpoint: ModelEndpoint, messages: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of the request body (model, messages, parameters): not of the URL, and never of the key."""
    canonical = json.dumps(request_body(endpoint, messages), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def reply_text(payload: Any) -> str:
    """`choices[0].message.content` of a chat-completions reply (text parts joined); ValueError otherwise."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ValueError("no choices[0].message.content") from None
    if isinstance(content, list):
        texts = [p.get("text", "") for p in content if isinstance(p, dict)]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("a content part's text is not a string")
        content = "".join(texts)
    if not isinstance(content, str):
        raise ValueError(f"content is {type(content).__name__}, not text")
    return content


def _refusal(endpoint: ModelEndpoint, response: httpx.Response) -> str:
    """One line for a status that is not retried."""
    status = response.status_code
    if status in (401, 403):
        sent = (
            f"the key in ${endpoint.api_key_env}"
            if endpoint.api_key_env and os.environ.get(endpoint.api_key_env)
            else "no key (set the environment variable named by api_key_env)"
        )
        return f"HTTP {status}: the server refused {sent}"
    if status == 404:
        return f"HTTP 404: model {endpoint.model!r} not found there (or the base URL is wrong)"
    env = endpoint.api_key_env
    # redacted before it is cut short: a key cut in two would no longer be recognised
    secrets = [os.environ.get(env) if env else None, *endpoint.url_secrets]
    detail = redact(" ".join(response.text.split()), secrets)[:200]
    return f"HTTP {status}: {detail or response.reason_phrase}"


class ModelClient:
    """Chat completions against one endpoint, at most `endpoint.concurrency` requests in flight."""

    def __init__(
        self,
        endpoint: ModelEndpoint,
        cache_dir: str | os.PathLike[str] | None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(endpoint.concurrency)
        self._lock = threading.Lock()
        self._usage = {
            "requests": 0,
            "retries": 0,
            "cache_hits": 0,
            "answered": 0,
            "failed": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
        }
        limits = httpx.Limits(max_connections=endpoint.concurrency, max_keepalive_connections=endpoint.concurrency)
        self._http = httpx.Client(timeout=endpoint.timeout_s, limits=limits)

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def usage(self) -> dict[str, int]:
        """Requests sent, retries, cache hits, answered and failed requests, tokens reported by the server."""
        with self._lock:
            return dict(self._usage)

    def chat(self, messages: Sequence[dict[str, Any]]) -> Reply:
        """The model's reply, from the cache when this exact request was answered before."""
        key = request_key(self.endpoint, messages)
        cached = self._cached(key)
        if cached is not None:
            self._count(cache_hits=1)
            return Reply(cached["text"], True, cached["usage"])
        with self._slots:
            try:
                text, usage = self._post(messages, key)
            except ModelError:
                self._count(failed=1)
                raise
        self._count(
            answered=1, prompt_tokens=usage.get("prompt_tokens", 0), completion_tokens=usage.get("completion_tokens", 0)
        )
        if self.cache_dir is not None:
            write_json_atomic(
                self._cache_path(key), {"key": key, "model": self.endpoint.model, "text": text, "usage": usage}
            )
        return Reply(text, False, usage)

    def chat_many(self, requests: Sequence[Sequence[dict[str, Any]]]) -> list[Reply | ModelError]:
        """Every request's reply, or its ModelError, in order; up to `concurrency` at once."""

        def one(messages: Sequence[dict[str, Any]]) -> Reply | ModelError:
            try:
                return self.chat(messages)
            except ModelError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=self.endpoint.concurrency) as pool:
            return list(pool.map(one, requests))

    def _cache_path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cached(self, key: str) -> dict[str, Any] | None:
        if self.cache_dir is None:
            return None
        try:
            found = read_json(self._cache_path(key))  # bounded: the cache lives in a build someone may hand over
        except (OSError, ValueError):
            return None
        return found if isinstance(found, dict) and isinstance(found.get("text"), str) else None

    def _count(self, **amounts: int) -> None:
        with self._lock:
            for name, amount in amounts.items():
                self._usage[name] += int(amount)

    def _key(self) -> str | None:
        env = self.endpoint.api_key_env
        return os.environ.get(env) if env else None

    def _secrets(self) -> list[str | None]:
        """The key and the base URL's credentials: what no reply, error or cache file may hold in any form."""
        return [self._key(), *self.endpoint.url_secrets]

    def _headers(self) -> dict[str, str]:
        key = self._key()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _error(self, text: str) -> ModelError:
        """A ModelError with `text` redacted (the key, credentials in the URL, an echoed header)."""
        return ModelError(redact(text, self._secrets()))

    def _send(self, body: dict[str, Any]) -> httpx.Response:
        """The POST, given `timeout_s` in all: httpx's timeout is per read, which a server trickling a byte at a
        time renews forever. It runs in a daemon thread, told at the deadline that it is abandoned: it stops at the
        next piece of the body (or the next read's timeout) and closes its connection; httpx.TimeoutException
        then."""
        outcome: dict[str, Any] = {}
        abandoned = threading.Event()

        def send() -> None:
            try:
                url = self.endpoint.url_for("/chat/completions")
                with self._http.stream("POST", url, json=body, headers=self._headers()) as streamed:
                    outcome["response"] = bounded_response(streamed, abandoned=abandoned)
            except Exception as exc:  # handed to the caller's thread
                outcome["error"] = exc

        worker = threading.Thread(target=send, name="model-request", daemon=True)
        worker.start()
        worker.join(self.endpoint.timeout_s)
        if worker.is_alive():
            abandoned.set()
            raise httpx.TimeoutException(f"no reply within {self.endpoint.timeout_s:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _post(self, messages: Sequence[dict[str, Any]], key: str) -> tuple[str, dict[str, int]]:
        url = f"{self.endpoint.base_url}/chat/completions"  # as errors name it: without credentials
        body = request_body(self.endpoint, messages)
        retries = self.endpoint.retries
        rng = random.Random(key)
        attempt = 0
        while True:
            retry_after = None
            self._count(requests=1)
            try:
                response = self._send(body)
            except httpx.TimeoutException:
                why = f"no reply within {self.endpoint.timeout_s:g} s"
            except UnreadableReply as exc:
                raise self._error(f"{url}: {exc}") from None
            except httpx.TransportError as exc:
                why = f"connection failed ({type(exc).__name__})"
            else:
                if response.status_code == 200:
                    try:
                        payload = response.json()
                        text = reply_text(payload)
                        return mask_secrets(text, self._secrets()), _token_usage(payload)
                    except (ValueError, RecursionError) as exc:
                        why = f"malformed reply ({type(exc).__name__}: {str(exc)[:200]})"
                elif retried_status(response.status_code):
                    why = f"HTTP {response.status_code}"
                    retry_after = retry_after_seconds(response.headers.get("retry-after"), time.time())
                else:
                    raise self._error(f"{url}: {_refusal(self.endpoint, response)}")
            if attempt == retries.retries:
                raise self._error(f"{url}: {why}, after {attempt} retries")
            self._count(retries=1)
            self._sleep(retries.delay(attempt, retry_after, rng))
            attempt += 1


class UnreadableReply(ValueError):
    """A reply body refused as it is read: over `MAX_REPLY_BYTES` once decoded, or in an encoding (or a corrupt
    one) the client does not read."""


def _decoder(encoding: str) -> Any:
    """A zlib decompressor for a Content-Encoding (None: the body as it is); UnreadableReply for one not read
    here."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise UnreadableReply(f"reply in content encoding {encoding!r}, which the client does not read")


def bounded_response(
    streamed: httpx.Response, limit: int | None = None, abandoned: threading.Event | None = None
) -> httpx.Response:
    """The response read whole, but never more than `limit` decoded bytes (`MAX_REPLY_BYTES`): a small gzip
    body can claim gigabytes, so the raw body is decoded here a bounded piece at a time. UnreadableReply as soon as
    it passes, or once `abandoned` is set (the caller gave up); the response returned holds the decoded body."""
    limit = MAX_REPLY_BYTES if limit is None else limit
    decoder = _decoder(streamed.headers.get("content-encoding", ""))
    chunks, size = [], 0
    for raw in streamed.iter_raw():
        if abandoned is not None and abandoned.is_set():
            raise UnreadableReply("the reply was abandoned at its deadline")
        pending = raw
        while pending:
            if decoder is None:
                piece, pending = pending, b""
            else:
                try:
                    piece = decoder.decompress(pending, limit - size + 1)
                except zlib.error as exc:
                    raise UnreadableReply(f"reply body not decodable ({exc})") from None
                pending = decoder.unconsumed_tail
            size += len(piece)
            if size > limit:
                raise UnreadableReply(f"reply over {limit:,} bytes once decoded; refused")
            chunks.append(piece)
    headers = [(k, v) for k, v in streamed.headers.items() if k.lower() not in DECODED_HEADERS]
    return httpx.Response(streamed.status_code, headers=headers, content=b"".join(chunks), request=streamed.request)


def _token_usage(payload: Any) -> dict[str, int]:
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return {}
    return {k: int(usage[k]) for k in ("prompt_tokens", "completion_tokens") if isinstance(usage.get(k), int)}
