"""Anny posing: ms per posed body (person/anny_body.py, torch LBS) against the SMPL-layout fixture through smplx.

Both pose the same built-in actions in the same run (the anchor: `body_models.posed_body` of the procedural
SMPL body, 6,890-ish vertices through `smplx.SMPL`); the ratio is Anny time / anchor time. Also timed:
the first build of anny's model data in an empty cache (what a fresh machine pays once, the analogue of
Warp's first-run kernel compile), the load from a warm cache, and, when `warp-lang` is importable,
anny's Warp skinning: its first call (kernels compiled) and its per-pose time.

    nice -n 10 .venv/bin/python bench/anny_posing.py [--repeats 5] [--cold]
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_table import add_row

from benchfoundry.assets import poses as builtin_poses
from benchfoundry.assets.actions import ACTIONS
from benchfoundry.configs.person import BodyConfig
from benchfoundry.person import anny_body, body_models

PERSON = {"gender": 1.0, "age": 0.7, "muscle": 0.5, "weight": 0.5, "height": 0.5, "proportions": 0.5}


def timed(fn, repeats: int) -> float:
    """Best-of-`repeats` seconds of one call."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def cold_build() -> float:
    """Seconds to build anny's model data into an empty cache."""
    import anny
    import anny.paths

    before = anny.paths.get_anny_cache_path()
    with tempfile.TemporaryDirectory() as tmp:
        anny.paths.set_anny_cache_path(tmp)
        try:
            start = time.perf_counter()
            anny.Anny(skinning_method="lbs")
            return time.perf_counter() - start
        finally:
            anny.paths.set_anny_cache_path(before)


def warp_times(repeats: int) -> tuple[float, float] | None:
    """(first call with kernel compile, best later call) of anny's Warp skinning, or None without warp-lang."""
    if importlib.util.find_spec("warp") is None:
        return None
    import anny
    import torch

    model = anny.Anny(skinning_method="warp_lbs")
    params = anny_body.phenotype_tensor(PERSON).to(model.dtype)
    start = time.perf_counter()
    with torch.no_grad():
        model(phenotype_kwargs=params)
    first = time.perf_counter() - start
    with torch.no_grad():
        return first, timed(lambda: model(phenotype_kwargs=params), repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="also time a first model build in an empty cache")
    args = parser.parse_args()

    start = time.perf_counter()
    anny_body.load_model()
    load_s = time.perf_counter() - start
    print(f"anny model load (warm cache, incl. import): {load_s:.2f} s")
    rest = anny_body.rest_body(PERSON)
    smpl_cfg = BodyConfig(model_type="smpl")
    with tempfile.TemporaryDirectory() as cache:
        body_models.posed_body(smpl_cfg, builtin_poses.upright_pose(), cache_dir=Path(cache))  # model file written once
        anny_ms, anchor_ms = [], []
        for action in ACTIONS:
            pose = builtin_poses.action_pose(action, rest.tpose_joints)
            anny_ms.append(1e3 * timed(lambda: anny_body.pose_anny(pose, rest, PERSON), args.repeats))
            anchor_ms.append(
                1e3 * timed(lambda: body_models.posed_body(smpl_cfg, pose, cache_dir=Path(cache)), args.repeats)
            )
    verts = len(anny_body.pose_anny(builtin_poses.upright_pose(rest.tpose_joints), rest, PERSON).vertices)
    a, b = float(np.median(anny_ms)), float(np.median(anchor_ms))
    print(
        f"Anny posing ({verts} vertices, 104 bones, torch LBS): median {a:.1f} ms/body "
        f"({min(anny_ms):.1f}–{max(anny_ms):.1f}); {1e3 / a:.0f} bodies/s"
    )
    print(f"anchor: SMPL-layout fixture through smplx: median {b:.1f} ms/body; ratio Anny/anchor {a / b:.2f}")
    start = time.perf_counter()
    anny_body.rest_body(dict(PERSON, height=0.4))
    rest_ms = 1e3 * (time.perf_counter() - start)
    print(f"a new phenotype's rest body and alignment: {rest_ms:.0f} ms")
    warp = warp_times(args.repeats)
    if warp is None:
        print("warp-lang not installed: anny's Warp skinning not timed (the project uses torch LBS)")
    else:
        print(f"anny Warp skinning: first call (kernel compile) {warp[0]:.1f} s, then {1e3 * warp[1]:.1f} ms/body")
    cold = cold_build() if args.cold else None
    if cold is not None:
        print(f"anny model data, first build in an empty cache: {cold:.0f} s")
    add_row(
        "`bench/anny_posing.py`",
        f"Anny posing, torch LBS ({verts:,} vertices, 104 bones): {a:.1f} ms/body ({1e3 / a:.0f} bodies/s) for the "
        f"built-in actions; a new phenotype's rest body {rest_ms:.0f} ms; model load from a warm anny cache "
        f"{load_s:.1f} s (incl. import)"
        + (f"; the first model build into an empty cache {cold:.0f} s" if cold is not None else "")
        + (
            f"; anny's Warp skinning: first call {warp[0]:.1f} s (kernel compile), then {1e3 * warp[1]:.1f} ms/body"
            if warp is not None
            else ""
        ),
        f"the SMPL-layout fixture through smplx: {b:.1f} ms/body",
        f"{a / b:.2f}× slower",
    )


if __name__ == "__main__":
    main()
