"""What a SynDORBench build does, counted before it runs: items, frames, render shards, frames per shard and
Prefect task runs, with the sample's balance per factor (`benchfoundry build CONFIG --plan`, and build.json);
against an existing build (`--plan --out OUT`) the frames kept, to render and leaving the sample, per factor.

The plan needs only the config: the counts of scenes, textures and poses, not their files. Without the
licensed assets a config's poses are counted as configured (one per built-in action; with AMASS,
`poses.max_frames_per_action` per action: the build uses the poses it finds, at most that many).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.release.release import CATEGORIES
from benchfoundry.benchmarks.syndor.scenes import render_plan
from benchfoundry.benchmarks.syndor.stages import sampling
from benchfoundry.configs.build import BuildConfig

#: Prefect task runs of a build besides the render and feature shards: calibration, labels, QA export, report.
SINGLE_TASKS = ("calibration", "labels", "qa_export", "report")
#: The most rows `--plan --out` reads from a build's render manifest: no build renders more frames than the
#: sampler draws from; a manifest claiming more (a few kilobytes of Parquet can) is refused before it is read.
MAX_MANIFEST_ROWS = sampling.MAX_GRID_FRAMES
#: The longest text of a render manifest's text columns (scene, action, lighting, zone, settings hash).
MAX_MANIFEST_TEXT = 256
#: The render manifest's columns the plan reads: a frame's factors and its render settings.
MANIFEST_TEXT = ("scene", "action", "lighting", "zone", "render_settings_hash")
MANIFEST_COLUMNS = (*MANIFEST_TEXT, "texture_id", "pose", "azimuth", "elevation")


def nominal_pose_counts(config: BuildConfig) -> dict[str, int]:
    """Poses per action as the config asks for them."""
    poses = config.syndor.poses
    return dict.fromkeys(poses.actions, poses.poses_per_action)


def summary(config: BuildConfig, sample: sampling.Sample, levels: sampling.Levels) -> dict[str, Any]:
    """Items, frames, shards, frames per shard and task runs of a build drawing `sample`, and the sample's balance."""
    s = config.syndor
    per_shard = Counter(f.shard_key() for f in sample.frames)
    shard_frames = list(per_shard.values())
    empty_items = 0
    if s.empty_scenes:
        repeats = render_plan.empty_scene_repeats(s.empty_scene_share, render_plan.person_rigs(s, sample))
        for lighting in s.lightings:
            cameras = len(render_plan.rig_frames(s, lighting))
            shard_frames += [cameras] * (len(s.scenes) * repeats)
            if s.qa.empty_scene_negatives:
                presence_rows = config.syndor.items_per_frame(lighting) // len(CATEGORIES)
                empty_items += len(s.scenes) * repeats * cameras * presence_rows
    features = sum(math.ceil(n / s.discern.frames_per_shard) for n in shard_frames)
    runs = {"render": len(shard_frames), "features": features, **dict.fromkeys(SINGLE_TASKS, 1)}
    return {
        **sample.summary(levels),
        "empty_scene_items": empty_items,
        "render_shards": len(shard_frames),
        "person_shards": len(per_shard),
        "frames_per_shard": {
            "min": min(shard_frames, default=0),
            "mean": round(sum(shard_frames) / len(shard_frames), 2) if shard_frames else 0,
            "max": max(shard_frames, default=0),
        },
        "task_runs": {**runs, "total": sum(runs.values())},
    }


def plan_config(config: BuildConfig) -> dict[str, Any]:
    """The plan of a build from its config alone (nominal pose counts; nothing is read or rendered)."""
    levels = sampling.build_levels(config, nominal_pose_counts(config))
    return summary(config, sampling.sample_frames(config, levels), levels)


def planned_items(config: BuildConfig) -> int:
    """The QA items the plan counts, empty-scene presence negatives included."""
    plan = plan_config(config)
    return int(plan["items"] + plan["empty_scene_items"])


def plan_text(config: BuildConfig) -> str:
    """What `build --plan` prints for SynDORBench (its registry descriptor's plan)."""
    return format_plan(plan_config(config))


def format_plan(plan: dict[str, Any]) -> str:
    """The plan as the lines `build --plan` prints."""
    target = plan["target_items"]
    runs = plan["task_runs"]
    per = plan["frames_per_shard"]
    empty = plan["empty_scene_items"]
    lines = [
        f"syndor: {plan['items'] + empty:,} QA items"
        + (f" (target {target:,})" if target is not None else " (full factorial)")
        + (f", {empty:,} of them empty-scene presence negatives" if empty else "")
        + f", from {plan['frames']:,} frames ({'all' if plan['frames'] == plan['full_factorial_frames'] else 'sampled'}"
        + f" of {plan['full_factorial_frames']:,} in the full factorial)",
        f"  render shards: {plan['render_shards']:,} ({plan['person_shards']:,} of scene × texture × action × pose, "
        f"all their lightings and cameras in one worker visit); frames per shard: "
        f"min {per['min']:,}, mean {per['mean']:g}, max {per['max']:,}",
        f"  Prefect task runs: {runs['total']:,} ("
        + ", ".join(f"{name.replace('_', ' ')} {runs[name]:,}" for name in runs if name != "total")
        + ")",
        "  balance (frames per level: least–most; distance × level pairs covered):",
    ]
    for factor, entry in plan["balance"].items():
        pairs = entry.get("distance_pairs")
        covered = f"; {pairs['covered']}/{pairs['of']} pairs, fewest {pairs['min']:,}" if pairs else ""
        lines.append(f"    {factor:<10} {entry['min']:,}–{entry['max']:,} over {len(entry['frames'])} levels{covered}")
    return "\n".join(lines)


def built_frames(manifest: Path, settings_hash: str) -> tuple[set[sampling.Frame], set[sampling.Frame]]:
    """The person frames of an existing build's render manifest, and those of them rendered with other render
    settings than `settings_hash` (they render again); both empty without a manifest."""
    if not manifest.is_file():
        return set(), set()
    rows = read_render_manifest(manifest)
    if not len(rows):
        return set(), set()
    rows = rows[~render_plan.empty_scene_rows(rows)]
    frames = [
        sampling.Frame(
            str(r.scene),
            int(r.texture_id),
            str(r.action),
            int(r.pose),
            str(r.lighting),
            str(r.zone),
            float(r.azimuth),
            float(r.elevation),
        )
        for r in rows.itertuples()
    ]
    stale = rows["render_settings_hash"].astype(str) != settings_hash
    return set(frames), {f for f, old in zip(frames, stale, strict=True) if old}


def read_render_manifest(manifest: Path) -> pd.DataFrame:
    """The plan's columns of a build's render manifest, bounded before its rows are decoded: at most
    `MAX_MANIFEST_ROWS` rows and texts of at most `MAX_MANIFEST_TEXT` characters (kept as dictionaries while
    checked), else a ValueError naming the file and the limit."""
    wanted = (*MANIFEST_COLUMNS, render_plan.EMPTY_SCENE_COLUMN)
    try:
        parquet = pq.ParquetFile(manifest, read_dictionary=list(MANIFEST_TEXT))
        rows = parquet.metadata.num_rows
        if rows > MAX_MANIFEST_ROWS:
            raise ValueError(
                f"{manifest}: the render manifest claims {rows:,} rows, over the {MAX_MANIFEST_ROWS:,} frames a "
                "build can render; refused before reading it"
            )
        names = set(parquet.schema_arrow.names)
        missing = [c for c in MANIFEST_COLUMNS if c not in names]
        if missing:
            raise ValueError(f"{manifest}: not a SynDORBench render manifest (no column {', '.join(missing)})")
        table = parquet.read(columns=[c for c in wanted if c in names])
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{manifest}: cannot read the render manifest as Parquet ({str(exc)[:200]})") from None
    for name in MANIFEST_TEXT:
        column = table.column(name)
        if not pa.types.is_dictionary(column.type) or not pa.types.is_string(column.type.value_type):
            raise ValueError(f"{manifest}: column {name} of the render manifest is {column.type}, not text")
        longest = max((pc.max(pc.utf8_length(chunk.dictionary)).as_py() or 0 for chunk in column.chunks), default=0)
        if longest > MAX_MANIFEST_TEXT:
            raise ValueError(
                f"{manifest}: column {name} of the render manifest holds a text of {longest:,} characters, over "
                f"the limit of {MAX_MANIFEST_TEXT}"
            )
    return table.to_pandas()


def frame_changes(
    before: set[sampling.Frame], stale: set[sampling.Frame], after: Iterable[sampling.Frame]
) -> dict[str, Any]:
    """Frames kept (built, same settings, still sampled), to render (new, or built with other settings) and leaving
    the sample (built, no longer sampled): in all and per factor and level."""
    after = set(after)
    kept, render, leaving = after & (before - stale), after - (before - stale), before - after
    per_factor: dict[str, dict[str, dict[str, int]]] = {}
    for factor in sampling.FACTORS:
        counts: dict[str, dict[str, int]] = {}
        for name, frames in (("kept", kept), ("render", render), ("leaving", leaving)):
            for level, n in Counter(str(sampling.frame_value(f, factor)) for f in frames).items():
                counts.setdefault(level, dict.fromkeys(("kept", "render", "leaving"), 0))[name] = n
        per_factor[factor] = counts
    return {"kept": len(kept), "render": len(render), "leaving": len(leaving), "per_factor": per_factor}


def plan_against(config: BuildConfig, out: Path) -> str:
    """What `build --plan --out OUT` prints for SynDORBench: the plan, then what changes against the build in
    OUT (read from its render manifest; nothing else is read)."""
    levels = sampling.build_levels(config, nominal_pose_counts(config))
    sample = sampling.sample_frames(config, levels)
    manifest = Path(out) / BENCHMARK / render_plan.STAGE / "manifest.parquet"
    before, stale = built_frames(manifest, render_plan.render_settings_hash(config.syndor))
    text = format_plan(summary(config, sample, levels))
    if not before:
        return text + f"\n  against {out}: no SynDORBench build there; every frame renders"
    return text + "\n" + format_changes(frame_changes(before, stale, sample.frames), str(out))


def format_changes(changes: dict[str, Any], out: str) -> str:
    """The changes as lines: the totals, then per factor its levels that gain or lose frames."""
    lines = [
        f"  against {out}: {changes['kept']:,} frames kept, {changes['render']:,} to render, "
        f"{changes['leaving']:,} leaving the sample",
        "    per factor (level: kept / to render / leaving; levels only kept not listed):",
    ]
    for factor, levels in changes["per_factor"].items():
        moved = {level: c for level, c in levels.items() if c["render"] or c["leaving"]}
        shown = ", ".join(f"{level}: {c['kept']:,}/{c['render']:,}/{c['leaving']:,}" for level, c in moved.items())
        lines.append(f"    {factor:<10} {shown or 'unchanged'}")
    return "\n".join(lines)
