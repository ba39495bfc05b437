"""Static pages opened in headless Chromium over its DevTools pipe (no dependency beyond the browser): a screenshot of
each and the errors it logged (console errors, uncaught exceptions, resources that failed to load)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from system_programs import find

#: The names Chromium is installed under (Debian's package, Ubuntu's, Google's).
EXECUTABLES = ("chromium", "chromium-browser", "google-chrome")
#: How long one reply may take before the browser is taken for hung (a guard, not a speed limit).
PATIENCE_S = 120.0


def find_chromium() -> str | None:
    """The first Chromium installed, or None (tests/system_programs.py)."""
    return next((path for path in map(find, EXECUTABLES) if path), None)


@dataclass(frozen=True)
class Opened:
    """A page as the browser showed it: its screenshot (PNG) and the errors it logged."""

    png: bytes
    errors: tuple[str, ...]


class Chromium:
    """One headless browser (a context manager); `open` loads a page in a new tab of `width`×`height` pixels."""

    def __init__(self, executable: str, profile: Path, width: int = 1200, height: int = 900) -> None:
        self.executable, self.profile, self.width, self.height = executable, profile, width, height
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    def __enter__(self) -> Chromium:
        # fds 10 and up, so that bash moving them to 3 and 4 overwrites neither (sh takes one digit only)
        to_browser, self._commands = map(_high, os.pipe())
        self._replies, from_browser = map(_high, os.pipe())
        self.log = self.profile / "chromium.log"
        self.profile.mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as log:
            # the browser reads commands on fd 3 and writes replies on fd 4 (--remote-debugging-pipe)
            self.proc = subprocess.Popen(
                [
                    "bash",
                    "-c",
                    f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}',
                    self.executable,
                    "--headless",
                    "--no-sandbox",  # root in a container has no user namespace to sandbox with
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--hide-scrollbars",
                    "--no-first-run",
                    "--remote-debugging-pipe",
                    f"--user-data-dir={self.profile / 'profile'}",
                    "about:blank",
                ],
                pass_fds=(to_browser, from_browser),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        os.close(to_browser)
        os.close(from_browser)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._call("Browser.close")
        except (OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._commands)
        os.close(self._replies)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + PATIENCE_S
        while b"\0" not in self._buffer:
            if not select.select([self._replies], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise RuntimeError(f"Chromium sent nothing for {PATIENCE_S:g} s; its log: {self.log}")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed its pipe; its log: {self.log}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            command["sessionId"] = session
        os.write(self._commands, json.dumps(command).encode("utf-8") + b"\0")
        while True:
            message = self._read()
            if message.get("id") != self._next_id:
                self._events.append(message)
            elif "error" in message:
                raise RuntimeError(f"{method}: {message['error']}")
            else:
                return message.get("result", {})

    def _wait_for(self, event: str, session: str) -> None:
        while not any(e.get("method") == event and e.get("sessionId") == session for e in self._events):
            self._events.append(self._read())

    def open(self, url: str) -> Opened:
        """Load `url` in a new tab, wait for its load event, take a screenshot and close the tab."""
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self._call(f"{domain}.enable", session=session)
        size = {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False}
        self._call("Emulation.setDeviceMetricsOverride", size, session)
        navigated = self._call("Page.navigate", {"url": url}, session)
        errors = [f"navigation: {navigated['errorText']}"] if navigated.get("errorText") else []
        self._wait_for("Page.loadEventFired", session)
        self._call("Runtime.evaluate", {"expression": "0"}, session)  # what the page logged on load has arrived
        png = base64.b64decode(self._call("Page.captureScreenshot", {"format": "png"}, session)["data"])
        self._call("Target.closeTarget", {"targetId": target})
        errors += [_error(e["method"], e["params"]) for e in self._events if e.get("sessionId") == session]
        self._events = [e for e in self._events if e.get("sessionId") != session]
        return Opened(png, tuple(e for e in errors if e))


def _high(fd: int) -> int:
    """`fd` moved to a number of 10 or more (close-on-exec: `pass_fds` hands it on)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def _error(method: str, params: dict[str, Any]) -> str:
    """An event's error line ("" for what is not an error)."""
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return "console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return f"exception: {details.get('text', '')} {details.get('exception', {}).get('description', '')}"
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return f"log: {entry.get('text', '')} {entry.get('url', '')}"
    return ""
