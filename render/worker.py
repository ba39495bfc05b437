"""The render worker process: `python -m benchfoundry.render.worker`.

Protocol: one JSON request per line on stdin — `{"op": "render", "spec": PATH}` or
`{"op": "quit"}` — and one JSON reply per line on the process's original stdout
(`{"ok": true, "frames": N, "seconds": …, "cpu_seconds": …}` or `{"ok": false, "error": …}`; `cpu_seconds`:
the process's CPU time, every Blender thread, since its previous reply, start-up included). Blender's own output
goes to stderr. A spec file holds one shard of a kind of benchfoundry/core/render_spec.py (or of a plug-in's),
and the worker dispatches on its kind to the renderer declared for it in the `benchfoundry.renderers` entry
point group (pyproject.toml: the rig, panorama, COCO-image and scan-room renderers of render/). A renderer gets
the `Worker`, which keeps what it built between shards (`built`), so that one can rebuild only what differs
from the previous shard's, or `reset` to an empty file.

The worker quits after `BENCHFOUNDRY_RENDER_IDLE_S` idle seconds (render/worker_env.py), so a worker left
behind on a long-lived process (a Dask worker) does not hold Blender and its GPU memory (the client,
pipeline/render_client.py, stops sending to a worker shortly before that).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from benchfoundry.core import plugins
from benchfoundry.core.render_spec import from_json
from benchfoundry.render.session import Renderer, Worker
from benchfoundry.render.worker_env import idle_seconds


def _protocol_stream() -> TextIO:
    """Keep the real stdout for replies; send everything else written to fd 1 to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def render_file(worker: Worker, path: Path) -> dict[str, Any]:
    """The reply to the shard in a spec file, rendered by its kind's renderer (`renderer`)."""
    data = json.loads(path.read_text())
    render = renderer(data.get("kind") if isinstance(data, dict) else None)
    worker.spec_dir = path.absolute().parent
    return render(worker, from_json(data))


def renderer(kind: Any) -> Renderer:
    """The render function of a shard kind, declared in the `benchfoundry.renderers` entry point group (loading it
    imports the module that registers the kind's spec type); a PluginError naming the kind and the declared ones
    when none is declared for it."""
    if not isinstance(kind, str):
        raise ValueError(f"a render spec without a kind: {kind!r}")
    return plugins.load(plugins.RENDERERS_GROUP, kind)


def main() -> int:
    proto = _protocol_stream()
    worker = Worker()
    proto.write(json.dumps({"ok": True, "ready": True, "pid": os.getpid()}) + "\n")
    try:
        _serve(worker, proto)
    finally:
        shutil.rmtree(worker.scratch, ignore_errors=True)
    return 0


def requests(fd: int, idle_s: float | None) -> Iterator[str]:
    """Request lines read from `fd`, until end of file or `idle_s` seconds without input."""
    pending = b""
    while True:
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            yield line.decode()
        ready, _, _ = select.select([fd], [], [], idle_s)
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:
            return
        pending += chunk


def _serve(worker: Worker, proto: TextIO) -> None:
    cpu_mark = 0.0
    for line in requests(sys.stdin.fileno(), idle_seconds(os.environ)):
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        try:
            reply = render_file(worker, Path(request["spec"]))
        except Exception as exc:
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        cpu = time.process_time()
        reply["cpu_seconds"], cpu_mark = round(cpu - cpu_mark, 3), cpu
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    sys.exit(main())
