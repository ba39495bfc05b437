"""The SLURM jobs of a build, watched, so that a build no worker will ever come to stops in one line.

A rejected `sbatch` (a partition, account or QOS the cluster lacks) and a job pending for a reason that never
clears (`PartitionConfig`, `ReqNodeNotAvail`, … for longer than `runner.slurm.pending_timeout_s`) cancel every
job the build submitted and raise `ClusterFailed` in the build's main thread, naming the config field and
SLURM's reason; an sbatch that cannot authenticate (munged down) names munged. A job whose worker never
connects because its node does not respond (its `slurmd` killed: SLURM cannot launch the job, holds it
completing, then requeues it to pend for a node that is down) stops the build the same way, naming the node
and its slurmd. A job killed at its walltime is a lost worker (Dask runs its shards again, adaptive scaling
submits a new job) and a warning that the walltime is short for the shards seen. A stop by a signal cancels
the build's jobs at once (flows/stop_signals.py).
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from benchfoundry.configs.build import SlurmConfig

#: Pending reasons (squeue %r) that no amount of waiting clears, with what to change.
NEVER_CLEARS = {
    "PartitionConfig": "the job asks for more than its partition allows (runner.slurm.cores, memory, gpus_per_job)",
    "PartitionTimeLimit": "runner.slurm.walltime exceeds the partition's time limit",
    "PartitionNodeLimit": "the job asks for more nodes than its partition allows",
    "PartitionDown": "the partition (runner.slurm.queue) is down",
    "PartitionInactive": "the partition (runner.slurm.queue) is inactive",
    "ReqNodeNotAvail": "no node the job can run on is available (down, drained or reserved)",
    "BadConstraints": "no node has the features asked in runner.slurm.job_extra_directives",
    "InvalidAccount": "runner.slurm.account is not valid",
    "InvalidQOS": "the QOS asked in runner.slurm.job_extra_directives is not valid",
    "DependencyNeverSatisfied": "a dependency of the job will never be met",
    # squeue's text for a job requeued off a node that stopped responding, or submitted while none is up
    "Nodes required for job are DOWN": "the nodes the job can run on are down, drained or reserved",
    "launch failed requeued held": "SLURM could not launch the job on its node and holds it",
}
#: The pending reasons that name unusable nodes: their line names the nodes and why (`unusable_nodes`).
NODE_REASONS = frozenset({"ReqNodeNotAvail", "Nodes required for job are DOWN", "launch failed requeued held"})
#: Node states (sinfo %T, without SLURM's `*` for a node that does not respond) in which no job starts.
UNUSABLE_NODE_STATES = frozenset({"down", "drained", "draining", "fail", "failing", "unknown", "future"})
#: The flags sinfo appends to a node's state besides `*` (power saving, maintenance, reboot, planned).
NODE_STATE_FLAGS = "~#!%$@^-"
#: Job states in which a job holds nodes (squeue %N): its worker starts, runs or has ended there.
ON_NODES = frozenset({"CONFIGURING", "RUNNING", "COMPLETING"})
#: Words of sbatch's refusal → the config field that asked for it (first match).
REFUSAL_FIELDS = (
    ("partition", "runner.slurm.queue"),
    ("account", "runner.slurm.account"),
    ("qos", "runner.slurm.job_extra_directives"),
    ("time limit", "runner.slurm.walltime"),
    ("memory", "runner.slurm.memory"),
    ("gres", "runner.slurm.gpus_per_job"),
    ("gpu", "runner.slurm.gpus_per_job"),
    ("node configuration", "runner.slurm (cores, memory, gpus_per_job)"),
)
#: Job states (squeue %T) of a job that may still run; any other, or none, is a job gone.
LIVE_STATES = frozenset({"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"})
#: What slurmstepd writes to a job's stderr when it kills the job at its walltime.
WALLTIME_MARK = "DUE TO TIME LIMIT"
#: The signal the watcher sends the main thread to raise `ClusterFailed` there.
ALARM = signal.SIGUSR2
POLL_S = 2.0


class ClusterFailed(BaseException):
    """No worker will ever come: a one-line reason naming the config field. Not an Exception, so that no
    `except Exception` of a flow swallows it (like core/stopping.BuildInterrupted)."""


def munge_line(stderr: str) -> str | None:
    """sbatch failing to authenticate through munge, as one line naming munged and its socket; None when the
    refusal is another."""
    if "munge" not in stderr.lower():
        return None
    socket = re.search(r'"([^"]*munge[^"]*\.socket[^"]*)"', stderr)
    where = f" (socket {socket.group(1)})" if socket else ""
    return (
        f"runner.slurm: sbatch could not authenticate to SLURM: munged is not running or not reachable{where}; "
        "start munged (scripts/slurm-local up for the local cluster)"
    )


def refusal_line(stderr: str) -> str:
    """sbatch's refusal as one line naming the config field behind it (or munged, when authentication failed)."""
    if (munge := munge_line(stderr)) is not None:
        return munge
    reasons = [line.split("error:", 1)[1].strip() for line in stderr.splitlines() if "error:" in line]
    reason = "; ".join(reasons) or stderr.strip().replace("\n", "; ") or "no reason given"
    lower = reason.lower()
    field = next((f for word, f in REFUSAL_FIELDS if word in lower), "runner.slurm")
    return f"{field}: sbatch refused the build's job: {reason}"


def shown_s(seconds: float) -> str:
    """A measured number of seconds as a message shows it: three digits below 100 s (0.503, 12.5), whole seconds
    above; never a sub-second wait as `0`."""
    return f"{seconds:.0f}" if seconds >= 100 else f"{seconds:.3g}"


def pending_line(job_id: str, reason: str, waited_s: float, timeout_s: float) -> str:
    """A job pending for a reason that never clears past `runner.slurm.pending_timeout_s` (`timeout_s`, shown as
    given), as one line."""
    hint = NEVER_CLEARS[reason.split(",")[0].strip()]
    return (
        f"runner.slurm: SLURM job {job_id} pending for {shown_s(waited_s)} s ({reason}; "
        f"runner.slurm.pending_timeout_s {timeout_s:g} s): {hint}"
    )


def node_line(job_id: str, state: str, nodes: str, waited_s: float, timeout_s: float) -> str:
    """A job of the build whose worker never connected, held `state` (RUNNING, COMPLETING) on unusable `nodes`
    past `runner.slurm.pending_timeout_s`, as one line."""
    return (
        f"runner.slurm: SLURM job {job_id} {state.lower()} for {shown_s(waited_s)} s without a worker "
        f"(runner.slurm.pending_timeout_s {timeout_s:g} s): {nodes}"
    )


def unusable_nodes(nodes: str | None = None) -> str:
    """The nodes (all, or those of the node list `nodes`) where no job starts, as text naming each one's state and
    why, a node that does not respond as its slurmd: '' when every one is usable or sinfo cannot tell."""
    listing = slurm_output(["sinfo", "-h", "-N", "-o", "%N|%T|%E", *(["-n", nodes] if nodes else [])])
    found: dict[str, str] = {}  # a node in two partitions is listed twice
    silent = False
    for line in listing.splitlines():
        name, _, rest = line.partition("|")
        state, _, why = rest.partition("|")
        if state.endswith("*"):
            silent = True
            found[name] = f"node {name} ({state.rstrip('*')}) does not respond"
        elif state.rstrip(NODE_STATE_FLAGS) in UNUSABLE_NODE_STATES:
            found[name] = f"node {name} is {state}" + (f" ({why})" if why not in ("", "none") else "")
    if silent:
        found[""] = "its slurmd is not running or not reachable: start it, then build again to resume"
    return "; ".join(found.values())


def squeue_nodes(job_id: str) -> str:
    """The node list (squeue %N) of a job, '' when SLURM does not tell."""
    return slurm_output(["squeue", "-h", "-j", job_id, "-o", "%N"]).strip()


def slurm_output(args: list[str]) -> str:
    """A SLURM command's standard output, '' when it cannot run or fails."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def squeue(job_ids: list[str]) -> dict[str, tuple[str, str]]:
    """job id → (state, reason) of those of `job_ids` SLURM still knows (none known: squeue fails with
    "Invalid job id"); SubprocessError when squeue cannot tell."""
    if not job_ids:
        return {}
    done = subprocess.run(
        ["squeue", "-h", "-j", ",".join(job_ids), "-o", "%i|%T|%r"], capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0 and "invalid job id" not in done.stderr.lower():  # SLURM unreachable: no news
        raise subprocess.SubprocessError(done.stderr.strip())
    rows = (line.split("|", 2) for line in done.stdout.splitlines() if line.count("|") == 2)
    return {job: (state, reason) for job, state, reason in rows}


#: The loggers whose tracebacks a failed build does not show (`JobWatch.filter`).
FILTERED_LOGS = ("tornado.application", "prefect.flow_runs")
#: The loggers (with their children) whose tracebacks the console shows as one line while the cluster runs: Dask's
#: and the event loop's it runs on (adaptive scaling racing the cluster's close, a controller restarting).
ONE_LINE_LOGS = frozenset({"distributed", "dask", "dask_jobqueue", "tornado", "asyncio"})


def one_line_traceback(record: logging.LogRecord) -> bool:
    """A handler's filter: a record of `ONE_LINE_LOGS` carrying a traceback becomes its message and the
    exception's first line (the record is passed on)."""
    if record.exc_info and record.exc_info[1] is not None and record.name.split(".")[0] in ONE_LINE_LOGS:
        exc = record.exc_info[1]
        detail = str(exc).strip().splitlines()
        record.msg = f"{record.getMessage()}: {type(exc).__name__}" + (f": {detail[0]}" if detail else "")
        record.args, record.exc_info, record.exc_text, record.stack_info = None, None, None, None
    return True


class JobWatch:
    """The build's job ids, and a thread that turns what SLURM says of them into an error or a warning.

    `connected()` tells the jobs whose Dask workers are connected (None when it cannot tell now): such a job is
    working whatever SLURM says of its node, and is not waited for."""

    def __init__(
        self,
        slurm: SlurmConfig,
        log_directory: Path | None,
        longest_shard_s: Callable[[], float] = lambda: -1.0,
        connected: Callable[[], set[str] | None] = set,
    ) -> None:
        self.slurm = slurm
        self.log_directory = log_directory
        self.longest_shard_s = longest_shard_s
        self.connected = connected
        self.jobs: list[str] = []
        self.failure: str | None = None
        self._gone: set[str] = set()
        self._closed: set[str] = set()
        self._pending_since: dict[str, float] = {}
        self._guard = threading.Lock()
        self._done = threading.Event()
        self._main: int | None = None

    def submitted(self, job_id: str) -> None:
        with self._guard:
            self.jobs.append(job_id)

    def closed(self, job_id: str) -> None:
        """The build let the job go (scaled down, closed): no longer waited for, wherever it lingers."""
        with self._guard:
            self._closed.add(job_id)

    def cancel_all(self) -> None:
        """scancel every job the build submitted (those already gone are ignored)."""
        with self._guard:
            jobs = list(self.jobs)
        if jobs:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(["scancel", *jobs], capture_output=True, timeout=30)

    def fail(self, message: str) -> None:
        """The build cannot go on: cancel its jobs and raise `ClusterFailed(message)` in its main thread."""
        with self._guard:
            if self.failure is not None:
                return
            self.failure = message
        self.cancel_all()
        if self._main is not None:
            signal.pthread_kill(self._main, ALARM)

    def _raise(self, _signum: int, _frame: object) -> None:
        if self.failure is not None and not self._done.is_set():
            raise ClusterFailed(self.failure)

    def check(self) -> None:
        """One look at the build's jobs: pending for a reason that never clears, or without a worker on nodes that
        do not respond, past `pending_timeout_s`; killed at walltime."""
        with self._guard:
            jobs = [j for j in self.jobs if j not in self._gone]
            closed = set(self._closed)
        known = squeue(jobs)
        connected = self._connected()
        now = time.monotonic()
        timeout_s = self.slurm.pending_timeout_s
        for job in jobs:
            state, reason = known.get(job, ("", ""))
            head = reason.split(",")[0].strip()
            if state not in LIVE_STATES:
                self._gone.add(job)
                self._pending_since.pop(job, None)
                self._warn_if_walltime(job, state)
            elif job in closed or (connected is not None and job in connected):
                self._pending_since.pop(job, None)
            elif state == "PENDING" and head in NEVER_CLEARS:
                since = self._pending_since.setdefault(job, now)
                if now - since >= timeout_s:
                    nodes = unusable_nodes() if head in NODE_REASONS else ""
                    line = pending_line(job, reason, now - since, timeout_s)
                    self.fail(f"{line}; {nodes}" if nodes else line)
            elif state in ON_NODES and connected is None:
                continue  # whether its worker is there cannot be told now: its wait neither starts nor ends
            elif state in ON_NODES and (where := squeue_nodes(job)) and (nodes := unusable_nodes(where)):
                since = self._pending_since.setdefault(job, now)
                if now - since >= timeout_s:
                    self.fail(node_line(job, state, nodes, now - since, timeout_s))
            else:
                self._pending_since.pop(job, None)

    def _connected(self) -> set[str] | None:
        """`connected()`, None when it cannot tell (the scheduler's tables changing under this thread)."""
        try:
            return self.connected()
        except RuntimeError:
            return None

    def _warn_if_walltime(self, job: str, state: str) -> None:
        """A job gone (or ended as `state`): a warning when SLURM killed it at its walltime."""
        if state != "TIMEOUT":
            log = self.log_directory / f"{job}.err" if self.log_directory is not None else None
            try:
                if log is None or WALLTIME_MARK not in log.read_text(errors="replace"):
                    return
            except OSError:
                return
        longest = self.longest_shard_s()
        seen = f"; the longest shard so far took {shown_s(longest)} s" if longest > 0 else ""
        print(
            f"warning: runner.slurm.walltime {self.slurm.walltime} is short for the shards: SLURM job {job} "
            f"was killed at its walltime, its shards run again on a new job{seen}",
            file=sys.stderr,
        )

    def _loop(self) -> None:
        while not self._done.wait(POLL_S):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.check()

    def filter(self, record: logging.LogRecord) -> bool:
        """A logging filter: once the build has failed, no traceback is shown (the failure is one line): not
        tornado's for the refused sbatch, nor Prefect's for the flow when the failure, raised in the main thread,
        lands inside a C extension that wraps it in an Exception (pydantic-core serialising a task's context)."""
        return self.failure is None or record.exc_info is None

    @contextlib.contextmanager
    def watching(self) -> Iterator[JobWatch]:
        """The watcher thread for the block; from the main thread, a failure is raised there."""
        logs = [logging.getLogger(name) for name in FILTERED_LOGS]
        for log in logs:
            log.addFilter(self)
        handlers = list(logging.getLogger().handlers)  # Prefect's console: every logger above propagates to it
        for handler in handlers:
            handler.addFilter(one_line_traceback)
        previous = None
        if threading.current_thread() is threading.main_thread():
            self._main = threading.main_thread().ident
            previous = signal.signal(ALARM, self._raise)
        thread = threading.Thread(target=self._loop, name="slurm-jobs", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._done.set()
            thread.join()
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.check()  # a last look: what ended since the thread's
            if previous is not None:
                signal.signal(ALARM, previous)
            self.cancel_all()
            for log in logs:
                log.removeFilter(self)
            for handler in handlers:
                handler.removeFilter(one_line_traceback)
        if self.failure is not None:
            raise ClusterFailed(self.failure)
