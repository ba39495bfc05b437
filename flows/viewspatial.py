"""ViewSpatial-Bench flow (DESIGN §4): ScanNet frames → visibility → Cam-Rel.Dir / Per-Sce.Sim QA.

Without `viewspatial.scannet_root` the embedded synthetic scans are rendered first (once: a
store marker records them). One task per scan runs its three stages (frame selection,
visibility, QA: tasks/viewspatial/scan_stages.py), so a rerun skips finished scans and redoes
changed ones. A scan that cannot be read, or whose task fails, is reported in the problems and the
other scans are still built; when no scan is built the benchmark is `failed`. The val split becomes `viewspatial/ViewSpatial-Bench.json`, the train
split the SFT chat files `viewspatial/ViewSpatial-SFT.json` (one image per record) and
`ViewSpatial-SFT-multi.json` (several). Without the label map TSV (`viewspatial.label_map: null`, or
left at its default and not found), objects are excluded by raw category name
(`viewspatial.excluded_labels`); a label map set explicitly in the config that does not exist fails
the benchmark. The COCO person-orientation half (DESIGN §4.2) is not built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger

from benchfoundry.configs.build import BuildConfig
from benchfoundry.flows.collect import collect_shards
from benchfoundry.flows.policy import with_runner_policy
from benchfoundry.tasks.common.buildinfo import benchmark_outcome
from benchfoundry.tasks.common.store import StageStore
from benchfoundry.tasks.viewspatial.release import write_benchmark_files
from benchfoundry.tasks.viewspatial.scan_stages import (
    BENCHMARK,
    STAGES,
    label_map_rule,
    scan_list,
    scan_task,
    synthetic_scan_task,
)
from benchfoundry.tasks.viewspatial.synthetic_scan import SYNTHETIC_SCENES, write_root_files


@flow(name="viewspatial")
def viewspatial_flow(config: BuildConfig, out: str) -> dict[str, Any]:
    """ScanNet (or synthetic) scans → selected frames, visibility, direction QA → benchmark and SFT JSON."""
    vs = config.viewspatial
    extra: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    if vs.scannet_root is None:
        root = Path(out) / BENCHMARK / "synthetic"
        write_root_files(root)
        settings = vs.synthetic.model_dump(exclude={"layout"})
        settings["seed"] = config.seed
        render = with_runner_policy(synthetic_scan_task, config.runner)
        made, problems = collect_shards(
            "synthetic", [(scene, render.submit(out, str(root), split, settings))
                          for split, (scene, _) in SYNTHETIC_SCENES.items()],
            {scene: str(root / "render" / scene) for scene, _ in SYNTHETIC_SCENES.values()})
        extra["synthetic_render_s"] = {r["scene_id"]: r["render_s"] for r in made}
        extra["synthetic_manifest"] = str(StageStore(out, BENCHMARK, "synthetic").write_manifest(
            sorted(extra["synthetic_render_s"])))
        scans_dir = root / ("scans" if vs.synthetic.layout == "raw" else "scans_export")
        layout: str | None = vs.synthetic.layout
        source = f"synthetic scans ({vs.synthetic.layout} layout) in {root}"
    else:
        root = Path(vs.scannet_root)
        scans_dir, layout, source = root / vs.scans_dir, None, f"ScanNet at {root}"
    nyu40_of, label_rule = label_map_rule(root, vs)
    if nyu40_of is None:
        get_run_logger().warning(label_rule)
    extra["label_map"] = None if nyu40_of is None else str(root / str(vs.label_map))
    scans = scan_list(root, vs)
    unmade = {p["item"] for p in problems}
    task = with_runner_policy(scan_task, config.runner)
    results, failed = collect_shards(
        "scan", [(scene, task.submit(out, str(scans_dir / scene), split, layout, nyu40_of, vs, config.seed))
                 for split, scene in scans if scene not in unmade],
        {scene: str(scans_dir / scene) for _, scene in scans})
    done = sorted(r["scene_id"] for r in results if r["done"])
    problems += failed + [p for r in results for p in r["problems"]]
    stages = {}
    for stage in STAGES:
        store = StageStore(out, BENCHMARK, stage)
        stages[stage] = str(store.write_manifest(done))
        problems += store.problems(done)
    files = write_benchmark_files(out, vs)
    stages.update({k: files[k] for k in ("benchmark", "sft", "sft_multi")})
    detail = (
        f"{len(done)}/{len(scans)} scans from {source}; {files['val_items']} benchmark items, "
        f"{files['train_items']} SFT items "
        f"({', '.join(f'{s} {t}: {n}' for (s, t), n in files['counts'].items()) or 'none'}); {label_rule}. "
        "COCO person orientation (Cam-Obj. Ori., Per-Obj. Ori., Per-Rel. Dir.) is not built yet."
    )
    return benchmark_outcome("built" if done else "failed", detail, stages=stages, problems=problems, **extra)
