"""A terminal progress bar per stage: shards done out of the stage's total, and failures."""

from __future__ import annotations

import sys
from typing import TextIO

WIDTH = 24


class StageProgress:
    """Redraws one line on a terminal; elsewhere (a log file) writes a line at each tenth and at the end."""

    def __init__(self, stage: str, total: int, stream: TextIO | None = None) -> None:
        self.stage, self.total, self.done, self.failed = stage, total, 0, 0
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._tenth = 0

    def line(self) -> str:
        filled = WIDTH * self.done // self.total if self.total else WIDTH
        return f"{self.stage:<12} [{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} shards" + (
            f", {self.failed} failed" if self.failed else ""
        )

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        tenth = 10 * self.done // self.total
        if self.tty:
            self.stream.write("\r" + self.line() + ("\n" if self.done == self.total else ""))
        elif tenth > self._tenth or self.done == self.total:
            self.stream.write(self.line() + "\n")
        self._tenth = tenth
        self.stream.flush()
