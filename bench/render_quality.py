"""Render quality per CPU second: how close each Cycles setting comes to a converged reference, and what it costs.

Run: `nice -n 10 .venv/bin/python bench/render_quality.py [--kinds syndor-day syndor-night panorama coco]
[--syndor-width 320] [--panorama-width 512] [--coco-scale 1] [--reference-samples 256] [--table FILE]`;
`--table` also writes the per-kind summary as the README's table (`make bench` puts it in the README's span
marked `render-quality` with docs/readme_figures.py).

Per kind of render (a SynDORBench frame by day and by night, the ODI living-room panorama, a synthetic COCO image,
each built by the pipeline from the smoke preset, at the widths given: the frame's and the panorama's picture are the
preset's at a lower resolution) it renders a reference (`--reference-samples`, denoised), then the setting before
issue 35 ("before", the anchor), the smoke preset's now ("preset") and a ladder of lower sample counts with and
without OpenImageDenoise (albedo and normal passes) and with adaptive sampling; each is one shard on the pipeline's
render worker, whose CPU seconds (every Blender thread, the scene's build included) the worker reports. Prints per
setting: CPU seconds and their ratio to before's (the anchor, measured in the same run), PSNR (dB) and SSIM against
the reference, and for SynDORBench the largest change of a discernibility feature (tasks/syndor/discern_features.py:
KS lightness, sliced-Wasserstein chroma, edge IoU, Michelson contrast) from the reference's; then per kind the
cheapest setting at least as close as before on every measure (`chosen`).
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

KINDS = ("syndor-day", "syndor-night", "panorama", "coco")
#: Features whose change is reported (the area and height follow the mask, which the render settings do not move).
FEATURES = ("ks_lightness", "sw_chroma", "edge_iou", "michelson_contrast")
#: Adaptive sampling's noise threshold in the ladder (Blender's default).
ADAPTIVE = 0.01


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
    """One kind's render: `make(setting, folder)` writes a spec rendering into `folder` and returns its path and the
    image's path; `before` is the setting before issue 35 (the anchor), `preset` the smoke preset's now; `mask` gives
    the person mask (SynDORBench only)."""

    kind: str
    before: Setting
    preset: Setting
    ladder: tuple[Setting, ...]
    make: Callable[[Setting, Path], tuple[Path, Path]]
    mask: Callable[[], np.ndarray] | None = None


def _engine(engine: Any, s: Setting) -> Any:
    fast = {"denoise_prefilter": "FAST", "denoise_quality": "BALANCED"} if s.fast else {}
    return replace(engine, samples=s.samples, denoise=s.denoise, adaptive_threshold=s.adaptive, **fast)


def syndor_case(work: Path, width: int, light_kind: str) -> Case:
    """A smoke SynDORBench frame (desert, the person at the nearest DORI zone), by day or by night."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core import dori
    from benchfoundry.core.render_spec import NightLight, write_spec
    from benchfoundry.tasks.syndor import render_plan, render_stage

    smoke = load_config("smoke", [])
    scale = width / smoke.syndor.camera.resolution_w
    height = 2 * round(smoke.syndor.camera.resolution_h * scale / 2)
    near = max(dori.ZONE_MIDPOINTS_PPM.values()) * scale
    lighting = "night" if light_kind == "night" else "morning_east"
    config = load_config(
        "smoke",
        [
            f"syndor.camera.resolution_w={width}",
            f"syndor.camera.resolution_h={height}",
            f"syndor.zones_ppm={{near: {near}}}",
            "syndor.rig.azimuths_deg=[0]",
            "syndor.rig.elevations_deg=[0]",
            f"syndor.lightings=[{lighting}]",
            "syndor.poses.actions=[walking]",
            "syndor.sample.items=null",
            "syndor.render.image_format=PNG",
            "person.textures.ids=[0]",
        ],
    )
    plan = next(p for p in render_plan.plan_shards(config) if p.frames)
    base, _, _ = render_stage.shard_frames(config, work / "syndor-build", plan, work / "syndor-tmp")
    frame = next(f for f in base.frames if isinstance(f.light, NightLight) == (light_kind == "night"))
    r = smoke.syndor.render
    masks: dict[str, Path] = {}

    def make(s: Setting, folder: Path) -> tuple[Path, Path]:
        image, mask = folder / "image.png", folder / "mask.png"
        spec = replace(base, engine=_engine(base.engine, s), frames=(replace(frame, rgb=str(image), mask=str(mask)),))
        masks.setdefault("mask", mask)
        return write_spec(folder / "spec.json", spec), image

    def mask() -> np.ndarray:
        from PIL import Image

        return np.asarray(Image.open(masks["mask"])) > 0

    ladder = (Setting(4, False), Setting(4, True), Setting(8, False), Setting(8, True), Setting(8, True, fast=True))
    ladder += (Setting(16, True), Setting(16, True, ADAPTIVE))
    preset = Setting(r.samples, r.denoise, fast=r.denoise and r.denoise_prefilter == "FAST")
    return Case(f"syndor-{light_kind}", Setting(16, False), preset, ladder, make, mask)


def panorama_case(work: Path, width: int) -> Case:
    """The smoke preset's living-room panorama."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import write_spec
    from benchfoundry.core.seeding import item_seed
    from benchfoundry.tasks.odi import synthetic_panoramas as sp

    smoke = load_config("smoke", [])
    settings = smoke.odi.synthetic.model_copy(update={"width": width})
    people = sp.prepare_people(smoke.person, work / "pano-people", smoke.seed)
    seed = item_seed(smoke.seed, "odi.synthetic", "living_room")

    def make(s: Setting, folder: Path) -> tuple[Path, Path]:
        spec, _ = sp.render_spec(
            sp.scene_named("living_room"), people, settings, seed, folder / "image.png", folder / "ids.npy"
        )
        spec = replace(spec, engine=_engine(spec.engine, s))
        return write_spec(folder / "spec.json", spec), folder / "image.png"

    preset = Setting(
        settings.samples, settings.denoise, settings.adaptive_threshold, settings.denoise_prefilter == "FAST"
    )
    ladder = (Setting(1, False), Setting(1, True), Setting(1, True, fast=True), Setting(2, True, fast=True))
    ladder += (Setting(2, True), Setting(4, False), Setting(4, True, fast=True), Setting(8, True, ADAPTIVE, True))
    return Case("panorama", Setting(2, False), preset, ladder, make)


def coco_case(work: Path, scale: float) -> Case:
    """The smoke preset's first synthetic COCO val image."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.render_spec import CocoShard, EngineSettings, write_spec
    from benchfoundry.tasks.viewspatial.coco import synthetic_set as sco

    smoke = load_config("smoke", [])
    full = smoke.viewspatial.coco.synthetic
    cfg = full.model_copy(
        update={"images": {"val": 1}, "width": round(full.width * scale), "height": round(full.height * scale)}
    )
    made = work / "coco-made"
    made.mkdir(parents=True, exist_ok=True)
    plan, rng = sco.split_plans(cfg, smoke.person, smoke.seed, "val")[0]
    entry = sco.pose_image(smoke.person, cfg, smoke.seed, "val", 1, plan, rng, made)["entry"]

    def make(s: Setting, folder: Path) -> tuple[Path, Path]:
        image = folder / "image.png"
        spec = CocoShard(
            width=cfg.width,
            height=cfg.height,
            sensor_height_mm=24.0,
            engine=_engine(EngineSettings(device="CPU", samples=1, denoise=False, max_bounces=3), s),
            images=(replace(entry, image=str(image), index_npy=str(folder / "ids.npy")),),
        )
        return write_spec(folder / "spec.json", spec), image

    preset = Setting(full.samples, full.denoise, full.adaptive_threshold, full.denoise_prefilter == "FAST")
    ladder = (Setting(2, False), Setting(2, True), Setting(2, True, fast=True), Setting(4, False), Setting(4, True))
    ladder += (Setting(4, True, fast=True), Setting(8, True), Setting(8, True, ADAPTIVE, True))
    return Case("coco", Setting(8, False), preset, ladder, make)


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    from skimage.metrics import structural_similarity

    return float(structural_similarity(a, b, channel_axis=2, data_range=255))


def features_of(rgb: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    from benchfoundry.configs.discern import FeatureConfig
    from benchfoundry.tasks.syndor import discern_features as df

    cfg = FeatureConfig()
    values = df.image_features(rgb, mask, cfg, df.sw_directions(cfg.sw_projections, 0), np.random.default_rng(0))
    return {k: values[k] for k in FEATURES}


def _read(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB"))


def render(spec: Path) -> float:
    """CPU seconds of the render worker on `spec` (one worker for the whole bench, started beforehand)."""
    from benchfoundry.tasks.common import render_client

    return float(render_client.render_spec(spec, timeout_s=7200, shards_per_worker=10_000)["cpu_seconds"])


def run_case(case: Case, work: Path, reference_samples: int) -> tuple[list[dict[str, Any]], str]:
    """Render the reference, the setting before, the preset's and the ladder; one row per setting, and the
    images' size (W×H)."""
    folder = work / case.kind
    spec, ref_path = case.make(Setting(reference_samples, True), _mkdir(folder / "reference"))
    render(spec)
    reference = _read(ref_path)
    mask = case.mask() if case.mask else None
    ref_features = features_of(reference, mask) if mask is not None else None
    rows = []
    for i, s in enumerate(dict.fromkeys((case.before, case.preset, *case.ladder))):
        spec, image_path = case.make(s, _mkdir(folder / f"s{i}"))
        cpu = render(spec)
        image = _read(image_path)
        row: dict[str, Any] = {
            "setting": s,
            "cpu_s": cpu,
            "psnr": psnr(image, reference),
            "ssim": ssim(image, reference),
        }
        if ref_features is not None:
            got = features_of(image, mask)
            row["feature_change"] = max(abs(got[k] - ref_features[k]) for k in FEATURES)
        rows.append(row)
    return rows, f"{reference.shape[1]}×{reference.shape[0]}"


def choose(rows: list[dict[str, Any]], before: Setting) -> dict[str, Any]:
    """The cheapest setting at least as close to the reference as `before` on every measure."""
    anchor = next(r for r in rows if r["setting"] == before)

    def as_close(r: dict[str, Any]) -> bool:
        return (
            r["psnr"] >= anchor["psnr"]
            and r["ssim"] >= anchor["ssim"]
            and r.get("feature_change", 0.0) <= anchor.get("feature_change", 0.0)
        )

    return min((r for r in rows if as_close(r)), key=lambda r: r["cpu_s"])


#: The README's render-quality table: per kind, the setting before, the chosen one and how they compare.
TABLE_COLUMNS = ("kind (bench size)", "before", "chosen", "CPU", "PSNR", "SSIM", "largest feature change")


def table_row(
    case: Case, size: str, reference_samples: int, anchor: dict[str, Any], best: dict[str, Any]
) -> dict[str, str]:
    """The README's row of a kind: before (`anchor`), chosen (`best`), chosen's CPU against before's, PSNR, SSIM,
    feature change."""
    same = best["setting"] == case.before
    psnr_ = f"{best['psnr']:.1f} dB" + ("" if same else f" ({best['psnr'] - anchor['psnr']:+.1f})")
    change = f"{anchor['feature_change']:.3f} → {best['feature_change']:.3f}" if "feature_change" in best else "—"
    cells = (
        f"{case.kind} ({size}, ref. {reference_samples} spp)",
        f"{case.before.label.strip()}: {anchor['psnr']:.1f} dB, SSIM {anchor['ssim']:.3f}",
        f"{best['setting'].label.strip()}{' (kept)' if same else ''}",
        f"{best['cpu_s'] / anchor['cpu_s']:.2f}×",
        psnr_,
        f"{best['ssim']:.3f}",
        change,
    )
    return dict(zip(TABLE_COLUMNS, cells, strict=True))


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--syndor-width", type=int, default=320, help="SynDORBench frame width, px (smoke: 640)")
    parser.add_argument("--panorama-width", type=int, default=512, help="panorama width, px, even (smoke: 2048)")
    parser.add_argument("--coco-scale", type=float, default=1.0, help="COCO image size, share of smoke's 240×320")
    parser.add_argument("--reference-samples", type=int, default=256)
    parser.add_argument("--table", type=Path, help="also write the per-kind summary table (markdown) here")
    args = parser.parse_args()
    from benchfoundry.tasks.common import render_client

    with tempfile.TemporaryDirectory(prefix="render-quality-") as tmp:
        work = Path(tmp)
        builders = {
            "syndor-day": lambda: syndor_case(work, args.syndor_width, "day"),
            "syndor-night": lambda: syndor_case(work, args.syndor_width, "night"),
            "panorama": lambda: panorama_case(work, args.panorama_width),
            "coco": lambda: coco_case(work, args.coco_scale),
        }
        table = []
        for kind in args.kinds:
            case = builders[kind]()
            rows, size = run_case(case, work, args.reference_samples)
            anchor = next(r for r in rows if r["setting"] == case.before)
            print(f"== {kind} (reference {args.reference_samples} spp +oidn)")
            for r in rows:
                mark = " (before)" if r["setting"] == case.before else ""
                mark += " (preset)" if r["setting"] == case.preset else ""
                change = f"  feature change {r['feature_change']:.4f}" if "feature_change" in r else ""
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
            table.append(table_row(case, size, args.reference_samples, anchor, best))
    render_client.close_all()
    if args.table:
        args.table.write_text(bench_table.table(table, TABLE_COLUMNS), encoding="utf-8")


if __name__ == "__main__":
    main()
