"""The render worker's protocol with its client, without bpy: the environment it reads and the pure helpers.

`BENCHFOUNDRY_RENDER_IDLE_S` (default 600; 0: never): a worker quits after that many seconds without a
request. `BENCHFOUNDRY_GPU_INDEX=i`: a GPU render enables only the i-th device of the configured type
(modulo their count) instead of all of them. pipeline/render_client.py sets both for its workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

GPU_INDEX_ENV = "BENCHFOUNDRY_GPU_INDEX"
IDLE_ENV = "BENCHFOUNDRY_RENDER_IDLE_S"
DEFAULT_IDLE_S = 600.0
WORKER_MODULE = "benchfoundry.render.worker"


def devices_to_use(types: Sequence[str], device_type: str, index: int | None) -> list[bool]:
    """Which of Blender's devices (by type) to enable: all of `device_type`, or only the `index`-th of them."""
    matching = [i for i, t in enumerate(types) if t == device_type]
    if not matching:
        raise RuntimeError(f"render.device {device_type}: Blender finds no such device")
    chosen = set(matching) if index is None else {matching[index % len(matching)]}
    return [i in chosen for i in range(len(types))]


def gpu_index(environ: Mapping[str, str]) -> int | None:
    """The device slot this worker is pinned to (`BENCHFOUNDRY_GPU_INDEX`), or None for every device."""
    value = environ.get(GPU_INDEX_ENV, "").strip()
    return int(value) if value else None


def idle_seconds(environ: Mapping[str, str]) -> float | None:
    """Seconds without a request after which the worker quits (`BENCHFOUNDRY_RENDER_IDLE_S`); None: never."""
    value = environ.get(IDLE_ENV, "").strip()
    seconds = float(value) if value else DEFAULT_IDLE_S
    return seconds if seconds > 0 else None
