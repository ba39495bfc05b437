"""The one retry policy of the project: what is retried, how many times and after what delay, for a build's shard
tasks (per resource) and for the model client. The others only read it: pipeline/shard_task.py (Prefect's retry
condition), flows/task_runner.py (each task's retries), pipeline/model_client.py (its loop), and the settings that
override it take their defaults here (configs/build.RunnerConfig's `task_retries` / `retry_delay_s`,
configs/model.ModelEndpoint's `max_retries` / `backoff_s` / `max_backoff_s`, `benchfoundry eval --retries`).

A shard task is retried only on errors that the same call may not meet again a moment later: a timeout, a dropped or
refused connection, an I/O error of a disk or network file system (EIO, ESTALE, EAGAIN, …), and a crashed worker
process (`TransientError`, e.g. a render worker that died); and nothing once the build is asked to stop. Everything
else fails at once: a bad input or config (ValueError and its kin), a missing or unwritable file, a full disk, a bug
(IndexError, KeyError, AttributeError, TypeError, RecursionError), and a model request that the model client already
retried itself (its ModelError).

The model client asks again after no reply within its deadline, a dropped connection, a malformed reply, HTTP 429 or
a 5xx (`retried_status`); any other status, and a reply refused as it is read (too large, an unknown encoding), fail
at once. It waits `ModelRetries.delay`: the server's Retry-After when given, else an exponential backoff with jitter.
"""

from __future__ import annotations

import email.utils
import errno
import random
import subprocess
from dataclasses import dataclass
from typing import Literal, get_args

from benchfoundry.core.stopping import stop_requested

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


def retries_shard(exc: BaseException) -> bool:
    """Whether a shard task that raised `exc` is tried again: a transient error, and the build not asked to stop."""
    return stop_requested() is None and is_transient(exc)


#: A shard task's resource (what it runs on), declared where it is defined (pipeline/shard_task.py): `render`: Blender
#: through the render
#: worker; `compute`: CPU work on files; `model`: a model server asked over HTTP; `gpu`: a model run in the task's
#: own process, on its configured torch device.
ShardResource = Literal["render", "compute", "model", "gpu"]
SHARD_RESOURCES: tuple[ShardResource, ...] = get_args(ShardResource)


@dataclass(frozen=True)
class ShardRetries:
    """How many times a failed shard task is tried again, and the seconds it waits before each retry."""

    retries: int
    delay_s: float


#: Each resource's retries: for every resource two, five seconds apart (one that needs others gets its own entry).
SHARD_RETRIES: dict[ShardResource, ShardRetries] = dict.fromkeys(SHARD_RESOURCES, ShardRetries(retries=2, delay_s=5.0))


def shard_retries(resource: ShardResource, retries: int | None = None, delay_s: float | None = None) -> ShardRetries:
    """A resource's retries, with the count and delay the runner config sets (`runner.task_retries`, `retry_delay_s`;
    None: the resource's own) over them."""
    own = SHARD_RETRIES[resource]
    return ShardRetries(
        retries=own.retries if retries is None else retries, delay_s=own.delay_s if delay_s is None else delay_s
    )


@dataclass(frozen=True)
class ModelRetries:
    """How the model client asks again: up to `retries` times, the first after about `backoff_s`, each next wait
    twice as long, none longer than `max_backoff_s`."""

    retries: int
    backoff_s: float
    max_backoff_s: float

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """The wait before retry `attempt` (0-based): the server's Retry-After when given, else
        `backoff_s · 2^attempt` scaled by a jitter in [0.5, 1.5); both capped at `max_backoff_s`."""
        if retry_after is not None:
            return min(retry_after, self.max_backoff_s)
        return min(self.max_backoff_s, self.backoff_s * 2**attempt * (0.5 + rng.random()))


#: The model client's defaults (configs/model.ModelEndpoint, `benchfoundry eval --retries`).
MODEL_RETRIES = ModelRetries(retries=5, backoff_s=1.0, max_backoff_s=60.0)


def retried_status(status: int) -> bool:
    """Whether the model client asks again after an HTTP status: 429 (too many requests) and any 5xx."""
    return status == 429 or status >= 500


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """A Retry-After header (seconds, or an HTTP date) as seconds from `now`; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)
