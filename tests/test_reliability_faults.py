"""Faults and operations (issue 26, classes 9-15): signals stop a build cleanly, its Prefect server dies with
it, a full disk at the marker leaves no trace, commands respect a running build's lock, only transient errors
are retried, concurrent starts are told the root is busy, released files are 0644, build.json records what
shapes the bytes. Every process here is on loopback and bounded in time."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from test_output_root import HOLD_SCRIPT, _mount_tmpfs

from benchfoundry.cli.main import main
from benchfoundry.configs.loader import config_dict, config_hash, load_config
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.buildinfo import CONSTRAINTS
from benchfoundry.core.output_root import (
    LOCK_NAME,
    MARKER_NAME,
    OutputPathError,
    OutputRootBusy,
    check_build_root,
    hold_output_root,
)
from benchfoundry.core.retry import is_transient
from benchfoundry.flows.build import build
from benchfoundry.pipeline.model_client import ModelError
from benchfoundry.pipeline.render_client import RenderError

NOTHING = ["syndor.enabled=false", "odi.enabled=false", "viewspatial.enabled=false"]

# A stand-in for a build: a child process working, the main thread blocked on a lock that a worker thread
# never releases (as on a shard's future), a stop callback that marks a file. With `stubborn`, the main
# thread swallows the interruption and blocks again: only the deadline can end it.
BUILD_SCRIPT = textwrap.dedent(
    """
    import subprocess, sys, threading
    from pathlib import Path
    from benchfoundry.core.stopping import BuildInterrupted
    from benchfoundry.flows.stop_signals import on_stop, stop_on_signals

    mark, stubborn = Path(sys.argv[1]), sys.argv[2] == "stubborn"
    try:
        with stop_on_signals(grace_s=3.0):
            child = subprocess.Popen(["sleep", "600"])
            worker = threading.Thread(target=lambda: subprocess.run(["sleep", "600"]), daemon=True)
            worker.start()
            with on_stop(lambda: mark.write_text("interrupted")):
                print(child.pid, flush=True)
                blocked = threading.Lock()
                blocked.acquire()
                while True:
                    try:
                        blocked.acquire()
                    except BuildInterrupted:
                        if not stubborn:
                            raise
    except BuildInterrupted as exc:
        print("interrupted", file=sys.stderr)
        sys.exit(exc.exit_code)
    """
)


def run_stand_in(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[str], list[psutil.Process]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", BUILD_SCRIPT, str(tmp_path / "mark"), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    int(proc.stdout.readline())
    return proc, psutil.Process(proc.pid).children(recursive=True)


@pytest.mark.parametrize(
    ("sig", "mode"), [(signal.SIGTERM, "polite"), (signal.SIGINT, "polite"), (signal.SIGTERM, "stubborn")]
)
def test_a_signal_stops_the_build_its_children_and_marks_it(tmp_path: Path, sig: int, mode: str) -> None:
    """SIGTERM → 143, SIGINT → 130, within 10 s (the contract: SLURM kills 30 s after SIGTERM), whatever thread the
    signal lands on; the children are gone and the stop callback ran. A build that does not unwind is ended
    by the deadline all the same."""
    proc, children = run_stand_in(tmp_path, mode)
    try:
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 128 + sig
    finally:
        if proc.poll() is None:
            proc.kill()
    _, alive = psutil.wait_procs(children, timeout=5)
    assert not alive and (tmp_path / "mark").read_text() == "interrupted"
    assert "Traceback" not in proc.stderr.read()


def test_the_build_command_blocks_the_signals_before_any_other_thread_exists() -> None:
    """A thread started before `stop_on_signals` (numpy's and OpenCV's native pools start on import) would not
    block SIGTERM: the kernel could hand it the signal and its default action would kill the build."""
    script = (
        "import contextlib, os\n"
        "from benchfoundry.cli import main as cli\nfrom benchfoundry.flows import stop_signals\n"
        "@contextlib.contextmanager\n"
        "def counting():\n"
        "    print(len(os.listdir('/proc/self/task')), flush=True)\n"
        "    raise SystemExit(0)\n"
        "    yield\n"
        "stop_signals.stop_on_signals = counting\n"
        "cli.main(['build', 'smoke'])\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "1", run.stdout + run.stderr


def test_the_builds_prefect_server_dies_with_a_killed_build(prefect_home: Path) -> None:
    """SIGKILL leaves no handler to run: the OS ends the server (flows/prefect_api.py, core/tied_process.py)."""
    script = (
        "import time\n"
        "from benchfoundry.flows.prefect_api import prefect_server\n"
        "with prefect_server() as url:\n"
        "    print(url, flush=True)\n"
        "    time.sleep(600)\n"
    )
    env = {**os.environ, "PREFECT_HOME": str(prefect_home)}
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("http://127.0.0.1:")
        servers = psutil.Process(proc.pid).children(recursive=True)
        assert servers and all("prefect" in " ".join(s.cmdline()) for s in servers)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _, alive = psutil.wait_procs(servers, timeout=10)
        assert not alive
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --- 10. a full disk while the marker is written ------------------------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "small"
    if not _mount_tmpfs(mnt, "size=64k"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(mnt / "filler", "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 1024)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        yield mnt
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)


def test_a_full_disk_at_the_marker_names_it_and_leaves_no_trace(full_disk: Path) -> None:
    root = full_disk / "out"
    with pytest.raises(OSError) as caught:
        with hold_output_root(root):
            pass
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(root / MARKER_NAME)
    assert list(root.iterdir()) == []
    (full_disk / "filler").unlink()
    with hold_output_root(root):
        assert (root / MARKER_NAME).is_file()


# --- 11. commands that write into a build wait for no build: they stop ------------------------------------


@pytest.fixture
def held_build(tmp_path: Path) -> Iterator[Path]:
    """A finished (empty) build whose lock another process holds, as a running build does."""
    root = tmp_path / "build"
    config = load_config(None, NOTHING)
    root.mkdir()
    (root / MARKER_NAME).write_text("{}")
    record = {"config": config_dict(config), "config_hash": config_hash(config), "benchmarks": {}}
    (root / "build.json").write_text(json.dumps(record))
    (tmp_path / "review.csv").write_text("id,decision,edited_answer\nx,accept,\n")
    (tmp_path / "preds.jsonl").write_text('{"img_path": "a.jpg", "prompt": "p", "prediction": "yes"}\n')
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_SCRIPT, str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield root
    holder.kill()
    holder.wait()


@pytest.mark.parametrize(
    "argv",
    [
        ["odi", "review-import", "BUILD", "CSV"],
        ["viewspatial", "review-import", "BUILD", "CSV"],
        ["syndor", "label-import", "BUILD", "CSV"],
        ["syndor", "label-sample", "BUILD"],
        ["eval", "viewspatial", "--build", "BUILD", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
        ["score", "syndor", "PREDS", "--build", "BUILD"],
    ],
)
def test_a_command_that_writes_into_a_running_build_stops_naming_it(
    held_build: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p: p.stat().st_mtime_ns for p in held_build.rglob("*")}
    names = {"BUILD": held_build, "CSV": held_build.parent / "review.csv", "PREDS": held_build.parent / "preds.jsonl"}
    assert main([str(names.get(a, a)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "another build is writing here" in err and "Traceback" not in err
    assert {p: p.stat().st_mtime_ns for p in held_build.rglob("*")} == before


# --- 12. retried: the allow-list of transient errors ------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (IndexError("list index out of range"), False),
        (KeyError("item"), False),
        (AttributeError("no attribute x"), False),
        (RecursionError("maximum recursion depth exceeded"), False),
        (TypeError("unsupported operand"), False),
        (ModelError("http://m/v1/chat/completions: HTTP 500, after 5 retries"), False),
        (RuntimeError("anything else"), False),
        (OSError(errno.ENOSPC, "No space left on device", "/out/x"), False),
        (TimeoutError("timed out"), True),
        (ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"), True),
        (OSError(errno.EIO, "Input/output error", "/out/x"), True),
        (OSError(errno.ESTALE, "Stale file handle", "/nfs/x"), True),
        (RenderError("render worker 12 is gone"), True),
    ],
)
def test_only_transient_errors_are_retried(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient


# --- 13. concurrent starts and foreign records ------------------------------------------------------------

RACE_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from benchfoundry.core.output_root import OutputRootBusy, hold_output_root

    root, go = Path(sys.argv[1]), Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        pass
    try:
        with hold_output_root(root):
            time.sleep(0.3)
        print("held")
    except OutputRootBusy:
        print("busy")
    except Exception as exc:
        print(f"other: {exc}")
    """
)


def test_builds_started_at_once_into_a_new_folder_are_told_it_is_busy(tmp_path: Path) -> None:
    outcomes = []
    for round_ in range(10):
        go = tmp_path / f"go{round_}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", RACE_SCRIPT, str(tmp_path / f"new{round_}"), str(go)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        assert all(p.stdout is not None and p.stdout.readline().strip() == "ready" for p in procs)
        go.write_text("")
        outcomes += [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(o in ("held", "busy") for o in outcomes), [o for o in outcomes if o not in ("held", "busy")]
    assert outcomes.count("held") >= 10


def test_a_foreign_build_json_is_not_taken_for_a_build(tmp_path: Path) -> None:
    (tmp_path / "build.json").write_text(json.dumps({"config_hash": "x", "benchmarks": {}, "mine": True}))
    with pytest.raises(OutputPathError, match="not a benchfoundry build"):
        check_build_root(tmp_path)
    assert json.loads((tmp_path / "build.json").read_text())["mine"] is True


def test_a_lock_held_by_a_command_is_reported_to_a_build(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with hold_output_root(root):
        pass
    script = "import sys, time\nfrom benchfoundry.core.output_root import hold_build_lock\n"
    script += "with hold_build_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(600)\n"
    holder = subprocess.Popen([sys.executable, "-c", script, str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputRootBusy, match=f"pid {holder.pid}"):
            with hold_output_root(root):
                pass
    finally:
        holder.kill()
        holder.wait()


# --- 14. released files are 0644 ---------------------------------------------------------------------------


def test_files_written_atomically_are_0644(tmp_path: Path) -> None:
    paths = [write_json_atomic(tmp_path / "a" / "b.json", {"x": 1}), write_bytes_atomic(tmp_path / "c.html", b"<p>")]
    with hold_output_root(tmp_path / "root"):
        paths.append(tmp_path / "root" / MARKER_NAME)
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in paths), [oct(p.stat().st_mode) for p in paths]


# --- 15. build.json records what shapes the bytes ------------------------------------------------------------


def test_build_json_records_every_byte_shaping_distribution_and_the_constraints(
    tmp_path: Path, prefect_server: None
) -> None:
    build(load_config(None, NOTHING), str(tmp_path))
    record = json.loads((tmp_path / "build.json").read_text())
    versions = record["versions"]
    for name in ("anny", "groundingdino-py", "segment-anything", "pycocotools", "pillow", "bpy", "torch"):
        assert versions[name], name
    assert record["constraints"]["sha256"] == hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    assert (tmp_path / "build.json").stat().st_mode & 0o777 == 0o644
    assert not (tmp_path / LOCK_NAME).read_text()  # released cleanly
