"""A scripted OpenAI-compatible chat server on loopback, for tests: it plays a model and injects faults.

`script(prompt, attempt)` decides each response from the last user text and how many times that prompt
was asked before: `("ok", text)`, `("status", code, headers[, error message])`, `("sleep", seconds, text)`,
`("stall", seconds)` (answer nothing for that long, then close: past a client's timeout),
`("drop",)` (close the connection without a response), `("malformed",)` or `("raw", headers, body)` (a
200 with that body as it is, e.g. gzip-encoded). The server counts
requests and successful answers per prompt, the largest number of requests in flight at once, and
the Authorization headers it saw.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Action = tuple[Any, ...]


def last_user_text(body: dict[str, Any]) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


class ScriptedModel:
    def __init__(self, script: Callable[[str, int], Action]) -> None:
        self.script = script
        self.requests: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.authorization: set[str] = set()
        self.paths: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = last_user_text(body)
                with model._lock:
                    attempt = model.requests[prompt]
                    model.requests[prompt] += 1
                    model.bodies.append(body)
                    model.authorization.add(self.headers.get("Authorization", ""))
                    model.paths.append(self.path)
                    model.in_flight += 1
                    model.max_in_flight = max(model.max_in_flight, model.in_flight)
                self._in_flight = True
                try:
                    self._act(model.script(prompt, attempt), prompt, body)
                finally:
                    self._done()

            def _done(self) -> None:
                """The request leaves the in-flight count once, before its reply is written (the client may
                send its next request as soon as it has read the reply)."""
                if self._in_flight:
                    self._in_flight = False
                    with model._lock:
                        model.in_flight -= 1

            def _act(self, action: Action, prompt: str, body: dict[str, Any]) -> None:
                kind = action[0]
                if kind == "stall":
                    time.sleep(action[1])
                if kind in ("drop", "stall"):
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if kind == "status":
                    message = action[3] if len(action) > 3 else f"scripted {action[1]}"
                    self._send(action[1], {"error": {"message": message}}, action[2])
                    return
                if kind == "malformed":
                    self._send(200, None, {}, raw=b"{not json")
                    return
                if kind == "raw":
                    self._send(200, None, action[1], raw=action[2])
                    return
                if kind == "sleep":
                    time.sleep(action[1])
                text = action[-1]
                reply = {
                    "id": "x",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())},
                }
                try:
                    self._send(200, reply, {})
                except (BrokenPipeError, ConnectionResetError):
                    return
                with model._lock:
                    model.answered[prompt] += 1

            def _send(self, status: int, obj: Any, headers: dict[str, str], raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(obj).encode()
                self._done()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
