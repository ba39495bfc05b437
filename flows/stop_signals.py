"""A build stopped by SIGTERM (SLURM at walltime or `scancel`, `kill`) or SIGINT (Ctrl-C) stops cleanly.

`stop_on_signals()` is entered by `benchfoundry build` before any other thread exists. It blocks both
signals in every thread of the process (threads inherit the mask) and waits for them in a thread of its
own, so that a signal is seen at once whichever thread the kernel hands it to. On the first one it:

1. records the stop (benchfoundry/core/stopping.py): no shard is retried, no render worker started;
2. runs the `on_stop` callbacks (the build flow's: build.json `interrupted`);
3. interrupts the main thread (a SIGUSR1 sent to it alone, whose handler raises `BuildInterrupted`): the
   flows stop submitting, their task runners drop queued shards, the build flow marks build.json
   `interrupted` with what it knows by then, closes its cluster and releases the output root's lock, and
   the command exits 128 + the signal number (130 for SIGINT, 143 for SIGTERM);
4. kills this process's child processes (render workers and their Blender, Dask workers), but the build's
   Prefect server, so that running shards fail at once instead of finishing (after the main thread is
   interrupted: no later stage may start on a failed shard's behalf).

Should the process still be alive `GRACE_S` seconds after the signal (a shard busy in a C extension, a
cluster slow to close, an exit handler that hangs), or should a second signal come, it runs the callbacks
again, kills every child process, the Prefect server included, releases the output roots it holds and
exits at once (`os._exit`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

import psutil

from benchfoundry.core import stopping
from benchfoundry.core.output_root import release_held
from benchfoundry.core.stopping import BuildInterrupted

#: Seconds after the signal by which the process is gone, whatever it is doing (SLURM kills after 30).
GRACE_S = 7.0
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})
#: The signal the watcher sends the main thread to interrupt it.
DOORBELL = signal.SIGUSR1

_callbacks: list[Callable[[], None]] = []
_spared: set[int] = set()
_guard = threading.Lock()


@contextlib.contextmanager
def on_stop(callback: Callable[[], None]) -> Iterator[None]:
    """Run `callback` (from the watcher thread, possibly twice) if the process is stopped meanwhile."""
    with _guard:
        _callbacks.append(callback)
    try:
        yield
    finally:
        with _guard:
            _callbacks.remove(callback)


@contextlib.contextmanager
def spared(pid: int) -> Iterator[None]:
    """Keep child process `pid` (the build's Prefect server) alive until the stopping build has reported."""
    with _guard:
        _spared.add(pid)
    try:
        yield
    finally:
        with _guard:
            _spared.discard(pid)


def _run_callbacks() -> None:
    with _guard:
        callbacks = list(_callbacks)
    for callback in callbacks:
        with contextlib.suppress(Exception):
            callback()


def kill_children(spare: frozenset[int] = frozenset()) -> list[int]:
    """SIGKILL every descendant of this process but `spare` and theirs (repeated, so that a child started
    meanwhile goes too); the pids killed."""
    me = psutil.Process()
    killed: list[int] = []
    for _ in range(3):
        try:
            below = me.children(recursive=True)
        except psutil.Error:
            return killed
        keep = set(spare)
        for proc in below:
            with contextlib.suppress(psutil.Error):
                if proc.pid in spare:
                    keep.update(p.pid for p in proc.children(recursive=True))
        targets = [p for p in below if p.pid not in keep]
        if not targets:
            break
        for proc in targets:
            with contextlib.suppress(psutil.Error):
                proc.kill()
                killed.append(proc.pid)
        psutil.wait_procs(targets, timeout=2)
    return killed


def _say(text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(sys.stderr.fileno(), f"benchfoundry: {text}\n".encode())


def _emergency(signum: int) -> None:
    """The hard stop: callbacks, every child killed, the roots' locks released, exit now."""
    _run_callbacks()
    kill_children()
    release_held()
    _say(f"{signal.Signals(signum).name}: stopped")
    os._exit(128 + signum)


def _watch(main: int, done: threading.Event, stopped: threading.Event, grace_s: float) -> None:
    signum = None
    while not done.is_set() and signum is None:
        signum = signal.sigtimedwait(STOP_SIGNALS, 0.2)
    if signum is None:
        return
    signum = signum.si_signo
    stopping.request_stop(signum)
    _say(f"{signal.Signals(signum).name}: stopping (no new shard; workers terminated; build.json: interrupted)")
    _run_callbacks()
    signal.pthread_kill(main, DOORBELL)
    with _guard:
        spare = frozenset(_spared)
    kill_children(spare)
    stopped.set()
    deadline = time.monotonic() + grace_s
    while not done.is_set():
        left = deadline - time.monotonic()
        if left <= 0 or signal.sigtimedwait(STOP_SIGNALS, min(left, 0.2)) is not None:
            _emergency(signum)
            return


def _ring(_signum: int, _frame: FrameType | None) -> None:
    signum = stopping.stop_requested()
    if signum is not None:
        raise BuildInterrupted(signum)


@contextlib.contextmanager
def stop_on_signals(grace_s: float = GRACE_S) -> Iterator[None]:
    """SIGTERM / SIGINT handling for the block (the module's docstring); enter it in the main thread before
    any other thread starts."""
    main = threading.main_thread()
    if threading.current_thread() is not main:
        raise RuntimeError("stop_on_signals must be entered in the main thread")
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    previous_handler = signal.signal(DOORBELL, _ring)
    done, stopped = threading.Event(), threading.Event()
    watcher = threading.Thread(
        target=_watch, args=(main.ident, done, stopped, grace_s), name="stop-signals", daemon=True
    )
    watcher.start()
    try:
        yield
    finally:
        if stopping.stop_requested() is None:
            done.set()
            watcher.join()
            signal.signal(DOORBELL, previous_handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        else:
            # The process is leaving: once the children are gone, the watcher keeps its deadline (an exit
            # handler that hangs, e.g. one sending logs to a Prefect server that is gone, is cut short) and
            # the signals stay blocked.
            stopped.wait(grace_s)
