"""Child processes that die with the process (strictly: the thread) that started them, SIGKILL included.

`tied_command(argv)` prefixes a command with a short Python stub that asks Linux to send the child
`signal` when its parent dies (`prctl(PR_SET_PDEATHSIG)`, kept across `exec`), checks that the parent is
still alive, unblocks every signal (a build blocks SIGTERM / SIGINT in its own threads, flows/stop_signals.py,
and a child would inherit that), then `exec`s the command in its own place: same process id, same command
line afterwards.
A render worker or the build's Prefect server then never outlives a build killed with SIGKILL. Linux
sends the signal when the thread that forked the child ends, so start a child from the thread that uses
it. On other systems the command is returned unchanged.

A killed child leaves its files behind, and a process killed with SIGKILL runs no cleanup: `remove_when_done`
starts a small janitor, in a session of its own, that removes a child's folder once the process that started it
has closed it or died (the end of its stdin), and the child is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: PR_SET_PDEATHSIG from <linux/prctl.h>.
PR_SET_PDEATHSIG = 1
_STUB = (
    "import ctypes, os, signal, sys\n"
    "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    f"if libc.prctl({PR_SET_PDEATHSIG}, int(sys.argv[1]), 0, 0, 0) != 0:\n"
    "    sys.exit('prctl(PR_SET_PDEATHSIG) failed: errno %d' % ctypes.get_errno())\n"
    "if os.getppid() != int(sys.argv[2]):\n"
    "    sys.exit(1)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def tied_command(argv: Sequence[str], sig: int = signal.SIGKILL) -> list[str]:
    """`argv` run so that the child gets `sig` when this process dies (Linux); `argv[0]` is a path."""
    if not sys.platform.startswith("linux"):
        return list(argv)
    return [sys.executable, "-c", _STUB, str(int(sig)), str(os.getpid()), *argv]


#: Seconds the janitor waits for the child to be gone before it removes the folder anyway.
JANITOR_WAIT_S = 60.0
_JANITOR = (
    "import os, shutil, sys, time\n"
    "sys.stdin.buffer.read()\n"
    "deadline = time.monotonic() + float(sys.argv[3])\n"
    "while time.monotonic() < deadline:\n"
    "    try:\n"
    "        os.kill(int(sys.argv[2]), 0)\n"
    "    except ProcessLookupError:\n"
    "        break\n"
    "    time.sleep(0.1)\n"
    "shutil.rmtree(sys.argv[1], ignore_errors=True)\n"
)


def remove_when_done(folder: str | os.PathLike[str], pid: int) -> subprocess.Popen[bytes]:
    """A janitor that removes `folder` once this process closes the returned process's stdin or dies
    (SIGKILL included), after the process `pid` has ended (at most `JANITOR_WAIT_S` later); it ignores the
    terminal's signals (a session of its own) and holds nothing else open."""
    return subprocess.Popen(
        [sys.executable, "-c", _JANITOR, str(Path(folder)), str(int(pid)), str(JANITOR_WAIT_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
