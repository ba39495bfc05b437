"""Render quality per CPU second: how close each Cycles setting comes to a converged reference, and what it costs.

Run: `nice -n 10 .venv/bin/python bench/render_quality.py [--kinds syndor panorama coco] [--syndor-frames 8]
[--syndor-reference-samples 128] [--panorama-width 512] [--coco-scale 1] [--reference-samples 256] [--table FILE]`;
`--table` also writes the per-kind summary as a table (`make bench` puts it in docs/performance.md's span
marked `render-quality` with docs/readme_figures.py).

Per kind of render it renders a reference (denoised, many samples), then the setting before issue 35 ("before", the
anchor), the smoke preset's now ("preset") and a ladder of lower sample counts with and without OpenImageDenoise
(albedo and normal passes) and with adaptive sampling; each is a shard on the pipeline's render worker, whose CPU
seconds (every Blender thread, the scene's build included) the worker reports. The kinds: SynDORBench's frames as
the smoke build releases them (`--syndor-frames` of each lighting, 640×360 JPEG), the ODI living-room panorama and a
synthetic COCO image (the smoke preset's, at the sizes given). Prints per setting: CPU seconds and their ratio to
before's (measured in the same run), PSNR (dB) and SSIM against the reference, averaged over the images, and for
SynDORBench what its labels follow: the discern stage's values on each frame and each night-vision image
(benchmarks/syndor/stages/night_vision_stage.py, the build's seeds), the largest mean change of a feature (KS lightness,
sliced-Wasserstein chroma, edge IoU, Michelson contrast) from the reference's and how many of the observer's
verdicts (detector_seen, the simulated label) differ from the reference's; then per kind the cheapest setting at
least as close as before on every measure (`chosen`).
"""

from __future__ import annotations

import argparse
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import bench_table
import numpy as np

KINDS = ("syndor", "panorama", "coco")
#: Features whose change is reported (the area and height follow the mask, which the render settings do not move).
FEATURES = ("ks_lightness", "sw_chroma", "edge_iou", "michelson_contrast")
#: The images of a SynDORBench frame the discern stage gives values for: the frame, its night-vision image.
IMAGES = ("raw", "nv")
#: Adaptive sampling's noise threshold in the ladder (Blender's default).
ADAPTIVE = 0.01
#: SynDORBench frames of one lighting taken from one shard, at most (the frames spread over people and poses).
FRAMES_PER_SHARD_LIGHTING = 2


@dataclass(frozen=True)
class Setting:
    samples: int
    denoise: bool
    adaptive: float = 0.0
    fast: bool = False  # the denoiser's FAST prefilter and BALANCED network

    @property
    def label(self) -> str:
        oidn = (" +oidn fast" if self.fast else " +oidn") if self.denoise else ""
        return f"{self.samples:>3} spp{oidn}{' +adaptive' if self.adaptive else ''}"


@dataclass(frozen=True)
class Case:
    """One kind's render: `make(setting, folder)` writes the specs rendering into `folder` and returns their paths and
    the images' paths; `before` is the setting before issue 35 (the anchor), `preset` the smoke preset's now; `size`
    what is rendered, `reference_samples` the reference's samples; `values(folder)` gives each image's
    discernibility features and observer verdict (SynDORBench only)."""

    kind: str
    before: Setting
    preset: Setting
    ladder: tuple[Setting, ...]
    make: Callable[[Setting, Path], tuple[list[Path], list[Path]]]
    size: str
    reference_samples: int
    values: Callable[[Path], list[dict[str, float]]] | None = None


def _engine(engine: Any, s: Setting) -> Any:
    fast = {"denoise_prefilter": "FAST", "denoise_quality": "BALANCED"} if s.fast else {}
    return replace(engine, samples=s.samples, denoise=s.denoise, adaptive_threshold=s.adaptive, **fast)


def syndor_frames(config: Any, work: Path, per_lighting: int) -> list[tuple[Any, list[tuple[Any, dict[str, Any]]]]]:
    """`per_lighting` frames of each lighting of `config`'s plan, at most `FRAMES_PER_SHARD_LIGHTING` of a lighting
    from a shard, from its first shards: (the shard's worker spec, [(frame, index row)])."""
    from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage

    picked, taken = [], dict.fromkeys(config.syndor.lightings, 0)
    for plan in render_plan.plan_shards(config):
        if not plan.frames:
            continue
        spec, _, rows = render_stage.shard_frames(config, work / "syndor-build", plan, work / "syndor-tmp")
        chosen: list[tuple[Any, dict[str, Any]]] = []
        for frame, row in zip(spec.frames, rows, strict=True):
            light = row["lighting"]
            if (
                taken[light] < per_lighting
                and sum(r["lighting"] == light for _, r in chosen) < FRAMES_PER_SHARD_LIGHTING
            ):
                taken[light] += 1
                chosen.append((frame, row))
        if chosen:
            picked.append((spec, chosen))
        if min(taken.values()) >= per_lighting:
            return picked
    raise ValueError(f"the smoke plan has fewer than {per_lighting} frames of each lighting ({taken})")


def syndor_case(work: Path, per_lighting: int, reference_samples: int) -> Case:
    """The smoke preset's SynDORBench frames, `per_lighting` of each of its lightings, as the build releases them
    (640×360 JPEG); each image's values are the discern stage's: the features and the observer's verdict on the
    frame and, for a night-group frame, on its night-vision image (the build's seeds: the frame's own path)."""
    from benchfoundry.benchmarks.syndor.stages import night_vision_stage
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import write_spec

    config = load_config("smoke", [])
    picked = syndor_frames(config, work, per_lighting)
    rows = [row for _, chosen in picked for _, row in chosen]

    def make(s: Setting, folder: Path) -> tuple[list[Path], list[Path]]:
        specs = []
        for k, (spec, chosen) in enumerate(picked):
            frames = tuple(
                replace(f, rgb=str(folder / row["img_path"]), mask=str(folder / row["mask_path"])) for f, row in chosen
            )
            specs.append(
                write_spec(folder / f"spec{k}.json", replace(spec, engine=_engine(spec.engine, s), frames=frames))
            )
        return specs, [folder / row["img_path"] for row in rows]

    def values(folder: Path) -> list[dict[str, float]]:
        return [night_vision_stage.frame_values(config, folder, row) for row in rows]

    r = config.syndor.render
    ladder = (Setting(2, True, fast=True), Setting(4, True, fast=True), Setting(6, True, fast=True))
    ladder += (Setting(8, False), Setting(8, True, fast=True), Setting(8, True), Setting(16, True, ADAPTIVE))
    preset = Setting(r.samples, r.denoise, fast=r.denoise and r.denoise_prefilter == "FAST")
    size = f"{len(rows)} frames {config.syndor.camera.resolution_w}×{config.syndor.camera.resolution_h}"
    return Case("syndor", Setting(16, False), preset, ladder, make, size, reference_samples, values)


def panorama_case(work: Path, width: int, reference_samples: int) -> Case:
    """The smoke preset's living-room panorama."""
    from benchfoundry.benchmarks.odi.scenes import synthetic_panoramas as sp
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.core.seeding import item_seed

    smoke = load_config("smoke", [])
    settings = smoke.odi.synthetic.model_copy(update={"width": width})
    people = sp.prepare_people(smoke.person, work / "pano-people", smoke.seed)
    seed = item_seed(smoke.seed, "odi.synthetic", "living_room")

    def make(s: Setting, folder: Path) -> tuple[list[Path], list[Path]]:
        spec, _ = sp.render_spec(
            sp.scene_named("living_room"), people, settings, seed, folder / "image.png", folder / "ids.npy"
        )
        spec = replace(spec, engine=_engine(spec.engine, s))
        return [write_spec(folder / "spec.json", spec)], [folder / "image.png"]

    preset = Setting(
        settings.samples, settings.denoise, settings.adaptive_threshold, settings.denoise_prefilter == "FAST"
    )
    ladder = (Setting(1, False), Setting(1, True), Setting(1, True, fast=True), Setting(2, True, fast=True))
    ladder += (Setting(2, True), Setting(4, False), Setting(4, True, fast=True), Setting(8, True, ADAPTIVE, True))
    return Case("panorama", Setting(2, False), preset, ladder, make, f"{width}×{width // 2}", reference_samples)


def coco_case(work: Path, scale: float, reference_samples: int) -> Case:
    """The smoke preset's first synthetic COCO val image."""
    from benchfoundry.benchmarks.viewspatial.coco.scenes import synthetic_set as sco
    from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoShard
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import EngineSettings, write_spec

    smoke = load_config("smoke", [])
    full = smoke.viewspatial.coco.synthetic
    config = full.model_copy(
        update={"images": {"val": 1}, "width": round(full.width * scale), "height": round(full.height * scale)}
    )
    made = work / "coco-made"
    made.mkdir(parents=True, exist_ok=True)
    plan, rng = sco.split_plans(config, smoke.person, smoke.seed, "val")[0]
    entry = sco.pose_image(smoke.person, config, smoke.seed, "val", 1, plan, rng, made)["entry"]

    def make(s: Setting, folder: Path) -> tuple[list[Path], list[Path]]:
        image = folder / "image.png"
        spec = CocoShard(
            width=config.width,
            height=config.height,
            sensor_height_mm=24.0,
            engine=_engine(EngineSettings(device="CPU", samples=1, denoise=False, max_bounces=3), s),
            images=(replace(entry, image=str(image), index_npy=str(folder / "ids.npy")),),
        )
        return [write_spec(folder / "spec.json", spec)], [image]

    preset = Setting(full.samples, full.denoise, full.adaptive_threshold, full.denoise_prefilter == "FAST")
    ladder = (Setting(2, False), Setting(2, True), Setting(2, True, fast=True), Setting(4, False), Setting(4, True))
    ladder += (Setting(4, True, fast=True), Setting(8, True), Setting(8, True, ADAPTIVE, True))
    return Case("coco", Setting(8, False), preset, ladder, make, f"{config.width}×{config.height}", reference_samples)


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    from skimage.metrics import structural_similarity

    return float(structural_similarity(a, b, channel_axis=2, data_range=255))


def drift(values: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict[str, Any]:
    """How far each image's values are from the reference's: the largest mean absolute change of a feature over the
    images that have it (frames, night-vision images), which feature, and how many observer verdicts changed."""

    def pairs(name: str) -> list[tuple[float, float]]:
        """(value, reference value) of `name` for each image that has it (NaN in the reference: no such image)."""
        return [(v[name], r[name]) for v, r in zip(values, reference, strict=True) if not math.isnan(r[name])]

    changes = {
        name: float(np.mean([abs(v - r) for v, r in pairs(name)]))
        for name in (f"{image}_{f}" for image in IMAGES for f in FEATURES)
    }
    verdicts = [pair for image in IMAGES for pair in pairs(f"{image}_detector_seen")]
    largest = max(changes, key=lambda k: changes[k])
    return {
        "feature_change": changes[largest],
        "largest_feature": largest,
        "verdicts_changed": sum(v != r for v, r in verdicts),
        "verdicts": len(verdicts),
    }


def _read(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB"))


def render(spec: Path) -> float:
    """CPU seconds of the render worker on `spec` (one worker for the whole bench, started beforehand)."""
    from benchfoundry.pipeline import render_client

    return float(render_client.render_spec(spec, timeout_s=7200, shards_per_worker=10_000)["cpu_seconds"])


def run_case(case: Case, work: Path) -> list[dict[str, Any]]:
    """Render the reference, the setting before, the preset's and the ladder; one row per setting: CPU seconds,
    PSNR and SSIM averaged over the images, and the values' drift (`drift`) where the case has values."""
    folder = work / case.kind
    specs, ref_paths = case.make(Setting(case.reference_samples, True), _mkdir(folder / "reference"))
    for spec in specs:
        render(spec)
    reference = [_read(p) for p in ref_paths]
    ref_values = case.values(folder / "reference") if case.values else None
    rows = []
    for i, s in enumerate(dict.fromkeys((case.before, case.preset, *case.ladder))):
        specs, paths = case.make(s, _mkdir(folder / f"s{i}"))
        cpu = sum(render(spec) for spec in specs)
        images = [_read(p) for p in paths]
        row: dict[str, Any] = {
            "setting": s,
            "cpu_s": cpu,
            "psnr": float(np.mean([psnr(a, b) for a, b in zip(images, reference, strict=True)])),
            "ssim": float(np.mean([ssim(a, b) for a, b in zip(images, reference, strict=True)])),
        }
        if case.values is not None and ref_values is not None:
            row.update(drift(case.values(folder / f"s{i}"), ref_values))
        rows.append(row)
    return rows


def choose(rows: list[dict[str, Any]], before: Setting) -> dict[str, Any]:
    """The cheapest setting at least as close to the reference as `before` on every measure: PSNR, SSIM, the largest
    feature change and the observer verdicts changed."""
    anchor = next(r for r in rows if r["setting"] == before)

    def as_close(r: dict[str, Any]) -> bool:
        return (
            r["psnr"] >= anchor["psnr"]
            and r["ssim"] >= anchor["ssim"]
            and r.get("feature_change", 0.0) <= anchor.get("feature_change", 0.0)
            and r.get("verdicts_changed", 0) <= anchor.get("verdicts_changed", 0)
        )

    return min((r for r in rows if as_close(r)), key=lambda r: r["cpu_s"])


#: The render-quality table of docs/performance.md: per kind, the setting before, the chosen one and how they compare.
TABLE_COLUMNS = (
    "kind (bench size)",
    "before",
    "chosen",
    "CPU",
    "PSNR",
    "SSIM",
    "largest feature change",
    "observer verdicts changed",
)


def table_row(case: Case, anchor: dict[str, Any], best: dict[str, Any]) -> dict[str, str]:
    """The table's row of a kind: before (`anchor`), chosen (`best`), chosen's CPU against before's, PSNR, SSIM,
    feature change and observer verdicts (before → chosen)."""
    same = best["setting"] == case.before
    psnr_ = f"{best['psnr']:.1f} dB" + ("" if same else f" ({best['psnr'] - anchor['psnr']:+.1f})")
    valued = "feature_change" in best
    change = f"{anchor['feature_change']:.3f} → {best['feature_change']:.3f}" if valued else "—"
    verdicts = f"{anchor['verdicts_changed']} → {best['verdicts_changed']} of {best['verdicts']}" if valued else "—"
    cells = (
        f"{case.kind} ({case.size}, ref. {case.reference_samples} spp)",
        f"{case.before.label.strip()}: {anchor['psnr']:.1f} dB, SSIM {anchor['ssim']:.3f}",
        f"{best['setting'].label.strip()}{' (kept)' if same else ''}",
        f"{best['cpu_s'] / anchor['cpu_s']:.2f}×",
        psnr_,
        f"{best['ssim']:.3f}",
        change,
        verdicts,
    )
    return dict(zip(TABLE_COLUMNS, cells, strict=True))


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--syndor-frames", type=int, default=8, help="SynDORBench frames of each smoke lighting")
    parser.add_argument("--panorama-width", type=int, default=512, help="panorama width, px, even (smoke: 2048)")
    parser.add_argument("--coco-scale", type=float, default=1.0, help="COCO image size, share of smoke's 240×320")
    parser.add_argument("--reference-samples", type=int, default=256, help="the panorama's and the COCO image's")
    parser.add_argument("--syndor-reference-samples", type=int, default=128)
    parser.add_argument("--table", type=Path, help="also write the per-kind summary table (markdown) here")
    args = parser.parse_args()
    from benchfoundry.pipeline import render_client

    with tempfile.TemporaryDirectory(prefix="render-quality-") as tmp:
        work = Path(tmp)
        builders = {
            "syndor": lambda: syndor_case(work, args.syndor_frames, args.syndor_reference_samples),
            "panorama": lambda: panorama_case(work, args.panorama_width, args.reference_samples),
            "coco": lambda: coco_case(work, args.coco_scale, args.reference_samples),
        }
        table = []
        for kind in args.kinds:
            case = builders[kind]()
            rows = run_case(case, work)
            anchor = next(r for r in rows if r["setting"] == case.before)
            print(f"== {kind}, {case.size} (reference {case.reference_samples} spp +oidn)")
            for r in rows:
                mark = " (before)" if r["setting"] == case.before else ""
                mark += " (preset)" if r["setting"] == case.preset else ""
                change = (
                    f"  feature change {r['feature_change']:.4f} ({r['largest_feature']}),"
                    f" verdicts changed {r['verdicts_changed']}/{r['verdicts']}"
                    if "feature_change" in r
                    else ""
                )
                print(
                    f"  {r['setting'].label:<22} CPU {r['cpu_s']:7.2f} s  ratio {r['cpu_s'] / anchor['cpu_s']:5.2f}"
                    f"  PSNR {r['psnr']:6.2f} dB  SSIM {r['ssim']:.4f}{change}{mark}"
                )
            best = choose(rows, case.before)
            print(
                f"  chosen: {best['setting'].label.strip()}, CPU {best['cpu_s'] / anchor['cpu_s']:.2f}x before's, "
                f"PSNR {best['psnr'] - anchor['psnr']:+.2f} dB, SSIM {best['ssim'] - anchor['ssim']:+.4f}",
                flush=True,
            )
            table.append(table_row(case, anchor, best))
    render_client.close_all()
    if args.table:
        args.table.write_text(bench_table.table(table, TABLE_COLUMNS), encoding="utf-8")


if __name__ == "__main__":
    main()
