"""Child processes that die with the process (strictly: the thread) that started them, SIGKILL included.

`tied_command(argv)` prefixes a command with a short Python stub that asks Linux to send the child
`signal` when its parent dies (`prctl(PR_SET_PDEATHSIG)`, kept across `exec`), checks that the parent is
still alive, unblocks every signal (a build blocks SIGTERM / SIGINT in its own threads, flows/stop_signals.py,
and a child would inherit that), then `exec`s the command in its own place: same process id, same command
line afterwards.
A render worker or the build's Prefect server then never outlives a build killed with SIGKILL. Linux
sends the signal when the thread that forked the child ends, so start a child from the thread that uses
it. On other systems the command is returned unchanged.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

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
