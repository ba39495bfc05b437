"""A stop asked of this process (SIGTERM from SLURM or `kill`, SIGINT from Ctrl-C): recorded once, so that
nothing new starts (no retry, no new render worker), and raised in the main thread as `BuildInterrupted`."""

from __future__ import annotations

import signal
import threading

_requested: list[int] = []
_guard = threading.Lock()


class BuildInterrupted(BaseException):
    """The build was asked to stop by a signal; not an Exception, so that no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by {signal.Signals(signum).name}")

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum


def request_stop(signum: int) -> bool:
    """Record a stop asked by `signum`; True the first time."""
    with _guard:
        _requested.append(signum)
        return len(_requested) == 1


def stop_requested() -> int | None:
    """The signal that first asked this process to stop, or None."""
    return _requested[0] if _requested else None


def clear() -> None:
    """Forget a stop (a test that raised one, a long-lived process that goes on)."""
    with _guard:
        _requested.clear()
