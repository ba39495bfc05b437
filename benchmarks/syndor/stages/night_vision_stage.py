"""SynDORBench discernibility stage, first half: night vision and features (docs/design/syndor.md §3–4).

After rendering, for each shard of frames (one task each): the ISP writes a night-vision image beside each
frame of an `isp.apply_to` lighting (the authors' night group, evening and night, by default;
`.../raw_images/x.jpg` → `.../nv_images/x.jpg`), and the four features, the observer cues and, when the
detector observer labels the build (benchmarks/syndor/stages/observer.py), what it saw are computed on the raw and the
night-vision image → `OUT/syndor/discern_features/` (shards, manifest last): columns `raw_*` / `nv_*`,
`nv_path`, `isp_gain`, `isp_sigma`. The labels, the classifier and the labelled index follow
(benchmarks/syndor/stages/label_stage.py).

A frame's row is keyed by its render hash (the render marker's `frame_files`) and the discern settings
(`frame_keys`); a shard's marker records its rows' keys, and a changed shard takes the rows of unchanged frames
from the earlier shard files of the stage (`reusable_rows`), computing (and writing the NV image of) only the others.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import cv2
import numpy as np
import pandas as pd

from benchfoundry.benchmarks.syndor.discern_config import DiscernConfig
from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.scenes import render_plan
from benchfoundry.benchmarks.syndor.scenes.lighting import family
from benchfoundry.benchmarks.syndor.stages import discern_features, isp, observer
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.seeding import item_rng
from benchfoundry.core.store import StageStore, read_parquet, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

FEATURE_STAGE = "discern_features"
NV_DIR = "nv_images"
VALUE_COLUMNS = discern_features.FEATURES + discern_features.CUES
#: What the detector observer (benchmarks/syndor/stages/observer.py) saw, per image, when it is the build's observer.
OBSERVER_COLUMNS = ("detector_seen", "detector_iou")
#: The ISP's figures of a frame with a night-vision image (a frame without one has none).
ISP_COLUMNS = ("isp_gain", "isp_sigma")
#: The columns `frame_values` computes.
COMPUTED_COLUMNS = frozenset(
    {f"{prefix}_{name}" for prefix in ("raw", "nv") for name in (*VALUE_COLUMNS, *OBSERVER_COLUMNS)}
    | {"nv_path", *ISP_COLUMNS}
)
#: The column of a reusable row's key in the rows handed to a shard (`reusable_rows`).
KEY_COLUMN = "_frame_key"


def nv_relpath(img_path: str) -> str:
    """The night-vision image beside a raw one: `raw_images/` → `nv_images/` (else a sibling folder), JPEG."""
    path = PurePosixPath(img_path)
    parts = list(path.parts)
    if "raw_images" in parts[:-1]:
        parts[len(parts) - 2 - parts[-2::-1].index("raw_images")] = NV_DIR
        path = PurePosixPath(*parts)
    else:
        path = path.parent / NV_DIR / path.name
    return str(path.with_suffix(".jpg"))


def dataset_root(out: str | Path) -> Path:
    return Path(out) / BENCHMARK


# ---------------------------------------------------------------- night vision and features


def plan_feature_shards(render: pd.DataFrame, config: DiscernConfig) -> dict[str, list[str]]:
    """Shard id → img_paths: the render shard (or source_dir) cut into chunks of `frames_per_shard`."""
    key = "shard" if "shard" in render.columns else "source_dir"
    plans: dict[str, list[str]] = {}
    for group, frame in render.groupby(render[key].astype(str), sort=True):
        paths = sorted(frame["img_path"].astype(str))
        stem = re.sub(r"[^A-Za-z0-9_.=+-]", "_", group)[:120].lstrip("._-=+") or "shard"
        tag = hashlib.blake2b(group.encode(), digest_size=4).hexdigest()
        for k in range(0, len(paths), config.frames_per_shard):
            plans[f"{stem}-{tag}-{k // config.frames_per_shard:03d}"] = paths[k : k + config.frames_per_shard]
    return plans


def detector_observes(config: BuildConfig) -> bool:
    """Whether the feature shards run the detector observer: simulated labels with `observer: detector`."""
    labels_cfg = config.syndor.discern.labels
    return labels_cfg.source == "simulated" and labels_cfg.observer == "detector"


def _observer_settings(config: BuildConfig) -> dict[str, Any] | None:
    section = config.syndor.discern.labels
    if not detector_observes(config):
        return None
    return {k: v for k, v in section.model_dump().items() if k.startswith("detector_")}


def discern_settings(config: BuildConfig) -> dict[str, Any]:
    """What shapes a frame's features and NV image besides the frame: seed, ISP, features, observer."""
    d = config.syndor.discern
    return {
        "seed": config.seed,
        "isp": isp.effective_settings(d.isp),
        "features": d.features.model_dump(),
        "observer": _observer_settings(config),
    }


def render_frame_hashes(out: str | Path, shards: list[str]) -> dict[str, str]:
    """img_path → its frame's render hash, as the markers of the render shards `shards` record them."""
    store = StageStore(out, BENCHMARK, render_plan.STAGE)
    hashes: dict[str, str] = {}
    for shard in shards:
        recorded = (store.marker(shard) or {}).get("frame_files") or {}
        hashes.update({files[0]: h for h, files in recorded.items()})
    return hashes


def frame_keys(config: BuildConfig, render: pd.DataFrame, hashes: dict[str, str]) -> dict[str, str]:
    """img_path → the key of its feature row: the frame's render hash (None where no render marker records
    one), its path, lighting and render settings, and the discern settings."""
    settings = discern_settings(config)
    render_hashes = render.get("render_settings_hash", pd.Series([None] * len(render), index=render.index))
    return {
        path: spec_hash(
            {"frame": hashes.get(path), "path": path, "lighting": lighting, "render": render_hash, **settings}
        )
        for path, lighting, render_hash in zip(
            render["img_path"].astype(str), render["lighting"].astype(str), render_hashes.astype(str), strict=True
        )
    }


def feature_spec_hash(keys: list[str]) -> str:
    """A feature shard's hash: its frames' keys (`frame_keys`), so a re-rendered frame redoes its shard."""
    return spec_hash({"frames": keys})


def reusable_rows(store: StageStore, wanted: set[str]) -> pd.DataFrame:
    """The earlier rows (with their key in `KEY_COLUMN`) of the stage's finished shards whose key is in `wanted`;
    read before any shard of this run rewrites its file."""
    found: list[pd.DataFrame] = []
    seen: set[str] = set()
    for shard in store.done_shards():
        keys = (store.marker(shard) or {}).get("frame_keys") or {}
        paths = {path: key for path, key in keys.items() if key in wanted and key not in seen}
        if not paths:
            continue
        rows = store.shard_rows(shard)
        rows = rows[rows["img_path"].isin(list(paths))].copy()
        rows[KEY_COLUMN] = rows["img_path"].map(paths)
        seen.update(rows[KEY_COLUMN])
        found.append(rows)
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame({KEY_COLUMN: []})


def _read_rgb(path: Path) -> np.ndarray:
    """The frame as RGB; a missing, truncated or corrupt file is a ValueError naming it."""
    return cv2.cvtColor(decode_file(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _read_mask(path: Path) -> np.ndarray:
    """The person mask as booleans (any channel above 0); a missing, truncated or corrupt file is a ValueError
    naming it."""
    mask = decode_file(path, cv2.IMREAD_UNCHANGED)
    return (mask.max(axis=2) if mask.ndim == 3 else mask) > 0


def _features(rgb: np.ndarray, mask: np.ndarray, config: BuildConfig, item: str, prefix: str) -> dict[str, float]:
    """The features and cues of one image, and what the detector observer saw when it is the build's observer."""
    section = config.syndor.discern.features
    directions = discern_features.sw_directions(section.sw_projections, config.seed)
    rng = item_rng(config.seed, "discern-features", f"{item}|{prefix}")
    values = discern_features.image_features(rgb, mask, section, directions, rng)
    if detector_observes(config):
        values.update(observer.look(rgb, mask, config.syndor.discern.labels))
    return {f"{prefix}_{name}": value for name, value in values.items()}


def frame_values(config: BuildConfig, root: Path, row: dict[str, Any]) -> dict[str, Any]:
    """What the stage computes for one frame: its features, and its night-vision image (written) when its lighting
    asks for one.

    Raises ValueError naming the file when the image or the mask cannot be used.
    """
    d = config.syndor.discern
    img_path = str(row["img_path"])
    rgb = _read_rgb(root / img_path)
    mask = _read_mask(root / str(row["mask_path"]))
    if mask.shape != rgb.shape[:2]:
        raise ValueError(f"{root / str(row['mask_path'])}: mask {mask.shape} differs from image {rgb.shape[:2]}")
    out = _features(rgb, mask, config, img_path, "raw")
    observed = OBSERVER_COLUMNS if detector_observes(config) else ()
    out.update({f"nv_{name}": np.nan for name in (*VALUE_COLUMNS, *observed)})
    out["nv_path"] = None
    if family(row["lighting"]) in d.isp.apply_to:
        result = isp.run_chain(rgb, d.isp, item_rng(config.seed, "isp", img_path))
        nv_rel = nv_relpath(img_path)
        ok, encoded = cv2.imencode(
            ".jpg", cv2.cvtColor(result.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, d.isp.jpeg_quality]
        )
        if not ok:
            raise ValueError(f"{root / nv_rel}: JPEG encoding failed")
        write_bytes_atomic(root / nv_rel, encoded.tobytes())
        out.update(_features(result.image, mask, config, img_path, "nv"))
        out.update({"nv_path": nv_rel, "isp_gain": result.gain, "isp_sigma": result.sigma})
    return out


def process_frame(config: BuildConfig, root: Path, row: dict[str, Any]) -> dict[str, Any]:
    """The render row of one frame with what the stage computes for it (`frame_values`)."""
    return {**row, **frame_values(config, root, row)}


def earlier_values(earlier: dict[str, Any]) -> dict[str, Any]:
    """What the stage computed for a frame (`frame_values`), from its earlier feature row, in the row's order; the
    ISP's figures only with a night-vision image."""
    values = {k: v for k, v in earlier.items() if k in COMPUTED_COLUMNS}
    values["nv_path"] = None if pd.isna(values["nv_path"]) else str(values["nv_path"])
    if values["nv_path"] is None:
        values = {k: v for k, v in values.items() if k not in ISP_COLUMNS}
    return values


def _reusable(shard: FeatureShard, root: Path) -> dict[str, dict[str, Any]]:
    """Key → earlier row of this shard's frames handed to it, those whose night-vision image is still in place."""
    if shard.reuse is None:
        return {}
    rows = read_parquet(shard.reuse).to_dict("records")
    return {str(r[KEY_COLUMN]): r for r in rows if pd.isna(r["nv_path"]) or (root / str(r["nv_path"])).is_file()}


def feature_shard(config: BuildConfig, out: str, shard: FeatureShard) -> str:
    """Night vision and features of one shard of frames, computed only for the frames without a reusable earlier row;
    a bad frame is reported and skipped."""
    store = StageStore(out, BENCHMARK, FEATURE_STAGE)
    if store.is_done(shard.shard_id, shard.spec_hash):
        return str(store.shard_path(shard.shard_id))
    rows = read_parquet(shard.render_manifest, filters=[("img_path", "in", list(shard.paths))]).sort_values("img_path")
    root = dataset_root(out)
    key_of = dict(zip(shard.paths, shard.keys, strict=True))
    earlier = _reusable(shard, root)
    done, problems, keys = [], [], {}
    reused = 0
    for row in rows.to_dict("records"):
        path = str(row["img_path"])
        key = key_of[path]
        if key in earlier:
            done.append({**row, **earlier_values(earlier[key])})
            reused += 1
        else:
            try:
                done.append(process_frame(config, root, row))
            except ValueError as exc:
                problems.append(problem(FEATURE_STAGE, path, str(exc), path=str(root / path)))
                continue
        keys[path] = key
    frame = pd.DataFrame(done)
    if len(frame):
        frame["nv_path"] = frame["nv_path"].astype("string")
    info = {"frames_reused": reused, "frames_computed": len(done) - reused, "frame_keys": keys}
    store.write_shard(shard.shard_id, frame, spec_hash=shard.spec_hash, problems=problems, info=info)
    return str(store.shard_path(shard.shard_id))


@dataclass(frozen=True)
class FeatureShard:
    """A shard of the render manifest's frames, by path, with each frame's row key (`frame_keys`), the hash of its
    spec and, when some frames have earlier rows, the file holding them (`reusable_rows`)."""

    shard_id: str
    render_manifest: str
    paths: tuple[str, ...]
    keys: tuple[str, ...]
    spec_hash: str
    reuse: str | None = None


@shard_task(resource="compute", name="syndor-discern")
def discern_task(out: str, shard: FeatureShard, config: BuildConfig) -> str:
    """Night vision and features of one shard (`feature_shard`)."""
    return feature_shard(config, out, shard)
