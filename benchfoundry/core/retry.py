"""What a retry can fix: the one rule of the build for retrying a failed shard.

Retried are only errors that the same call may not meet again a moment later: a timeout, a dropped or
refused connection, an I/O error of a disk or network file system (EIO, ESTALE, EAGAIN, …), and a crashed
worker process (`TransientError`, e.g. a render worker that died). Everything else fails at once: a bad
input or config (ValueError and its kin), a missing or unwritable file, a full disk, a bug (IndexError,
KeyError, AttributeError, TypeError, RecursionError), and a model request that the model client already
retried itself (its ModelError). HTTP 429 and 5xx are retried inside the model client only.
"""

from __future__ import annotations

import errno
import subprocess

#: OS errors of a moment: I/O on a flaky disk or network file system, a busy or interrupted call, the network.
TRANSIENT_ERRNOS = frozenset(
    {
        errno.EIO,
        errno.EAGAIN,
        errno.EBUSY,
        errno.EINTR,
        errno.ESTALE,
        errno.ETIMEDOUT,
        errno.ECONNRESET,
        errno.ECONNREFUSED,
        errno.ECONNABORTED,
        errno.EPIPE,
        errno.ENETDOWN,
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
    }
)


class TransientError(RuntimeError):
    """A failure that a retry may fix (a crashed worker process); subclasses name what crashed."""


def is_transient(exc: BaseException) -> bool:
    """Whether a retry may fix `exc` (the module's rule): an allow-list, anything else is not retried."""
    if isinstance(exc, (TransientError, TimeoutError, ConnectionError, subprocess.TimeoutExpired)):
        return True
    return isinstance(exc, OSError) and exc.errno in TRANSIENT_ERRNOS
