"""ODI annotators on the CPU.

(a) groundedsam with random weights (tiny local BERT; GroundingDINO SwinT, SAM ViT-B) at the default
    input size (1024-px faces, GroundingDINO at 800 px): faces per second and the share of each step
    (GroundingDINO, SAM image embedding, SAM masks from boxes). Anchor: the same faces one at a time
    through GroundingDINO (batch_faces=1), measured in the same run.
(b) truth annotator on a 12K panorama (12288 × 6144 uint16 instance map, 1024-px faces): panoramas per
    second. Anchor: py360convert 1.0.4 `e2c(mode="nearest")` plus the same per-face id masks.

Usage: python bench/odi_annotate.py [--faces 2] [--face-width 1024] [--skip-groundedsam]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_table import add_row


def _timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def bench_groundedsam(n_faces: int, face_width: int) -> None:
    import torch

    from benchfoundry.assets.tiny_bert import write_tiny_bert
    from benchfoundry.benchmarks.odi.config import DEFAULT_CLASSES, GroundedSamConfig
    from benchfoundry.benchmarks.odi.stages.annotation.groundedsam import build_dino, build_sam, load_groundedsam

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_tiny_bert(d / "bert", DEFAULT_CLASSES)
        config = GroundedSamConfig(
            dino_checkpoint=d / "dino.pth",
            text_encoder=d / "bert",
            sam_checkpoint=d / "sam.pth",
            sam_model_type="vit_b",
        )
        # whole random-weight checkpoints: the loader refuses a partial one
        torch.save({"model": build_dino(config).state_dict()}, d / "dino.pth")
        torch.save(build_sam(config).state_dict(), d / "sam.pth")
        model, load_s = _timed(load_groundedsam, config)
    rng = np.random.default_rng(0)
    faces = {f"f{k}": rng.integers(0, 256, (face_width, face_width, 3), dtype=np.uint8) for k in range(n_faces)}
    found, dino_s = _timed(model.detect, faces, DEFAULT_CLASSES)
    embed_s = masks_s = 0.0
    for name, face in faces.items():
        boxes = np.array([b for _, _, b in found[name]][:20], dtype=np.float64).reshape(-1, 4)
        if len(boxes) == 0:
            boxes = np.array([[10.0, 10.0, face_width / 2, face_width / 2]])
        _, s = _timed(model.predictor.set_image, face)
        embed_s += s
        start = time.perf_counter()
        with torch.no_grad():
            prompts = model.predictor.transform.apply_boxes_torch(
                torch.as_tensor(boxes, dtype=torch.float32), face.shape[:2]
            )
            model.predictor.predict_torch(None, None, boxes=prompts, multimask_output=False)
        masks_s += time.perf_counter() - start
    total = dino_s + embed_s + masks_s
    model.config = model.config.model_copy(update={"batch_faces": 1})
    _, single_s = _timed(model.detect, faces, DEFAULT_CLASSES)
    print(
        f"groundedsam (random weights, {n_faces} faces of {face_width}², GroundingDINO at 800 px, SAM ViT-B): "
        f"load {load_s:.1f} s; {n_faces / total:.3f} faces/s ({total / n_faces:.1f} s/face)"
    )
    print(
        f"  share: GroundingDINO {dino_s / total:.0%}, SAM embedding {embed_s / total:.0%}, "
        f"SAM masks {masks_s / total:.0%}"
    )
    print(
        f"  GroundingDINO batched ({config.batch_faces} faces/pass) {dino_s:.1f} s vs one face at a time "
        f"{single_s:.1f} s (anchor): ratio {single_s / dino_s:.2f}x"
    )
    add_row(
        "`bench/odi_annotate.py` (a)",
        f"groundedsam on the CPU with random weights, {n_faces} faces of {face_width}²: {total / n_faces:.1f} s per "
        f"face ({n_faces / total:.3f} faces/s; GroundingDINO {dino_s / total:.0%}, SAM image embedding "
        f"{embed_s / total:.0%}, SAM masks {masks_s / total:.0%}), GroundingDINO batched "
        f"{min(config.batch_faces, n_faces)} faces per pass",
        f"GroundingDINO one face per pass: {single_s:.1f} s",
        f"{single_s / dino_s:.2f}×",
    )


def caps_panorama(width: int, n: int = 40, seed: int = 0) -> np.ndarray:
    """A uint16 ERP instance map of `n` spherical caps (row by row, so a 12K map stays in memory)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n, 3))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    cos_r = np.cos(np.radians(rng.uniform(2, 8, n)))
    h = width // 2
    theta = np.radians(-180.0 + (np.arange(width) + 0.5) / width * 360.0)
    ids = np.zeros((h, width), np.uint16)
    for y in range(h):
        phi = math.radians(90.0 - (y + 0.5) / h * 180.0)
        d = np.stack([math.cos(phi) * np.sin(theta), np.full(width, math.sin(phi)), math.cos(phi) * np.cos(theta)], 1)
        dots = d @ centres.T
        hit = dots > cos_r
        any_hit = hit.any(1)
        ids[y, any_hit] = np.argmax(np.where(hit, dots, -2), axis=1)[any_hit] + 1
    return ids


def bench_truth(face_width: int) -> None:
    import py360convert

    from benchfoundry.benchmarks.odi.stages.annotation.truth_annotator import truth_detections

    ids = caps_panorama(12288)
    records = {k: {"id": k, "category": "ball"} for k in range(1, 41)}
    truth_detections(ids, records, face_width, ["ball"])  # grids cached, as in a build's second panorama
    runs = []
    for _ in range(3):
        found, s = _timed(truth_detections, ids, records, face_width, ["ball"])
        runs.append(s)
    ours = min(runs)

    def anchor() -> int:
        faces = py360convert.e2c(ids.astype(np.float64), face_w=face_width, mode="nearest", cube_format="list")
        return sum(int((f == v).sum() > 0) for f in faces for v in np.unique(f) if v)

    counted, anchor_s = _timed(anchor)
    kept = sum(len(v) for v in found.values())
    print(
        f"truth annotator, 12288×6144 instance map → six {face_width}² faces: {ours:.2f} s "
        f"({1 / ours:.2f} panoramas/s, {6 / ours:.1f} faces/s; {kept} instance masks)"
    )
    print(
        f"  anchor py360convert e2c(nearest) + the same masks: {anchor_s:.2f} s ({counted} masks); "
        f"ratio {anchor_s / ours:.1f}x"
    )
    add_row(
        "`bench/odi_annotate.py` (b)",
        f"truth annotator on a 12288×6144 instance map, six {face_width}² faces: {ours:.2f} s a panorama "
        f"({1 / ours:.1f} panoramas/s), {kept} instance masks",
        f'py360convert `e2c(mode="nearest")` + the same masks: {anchor_s:.2f} s ({counted} masks)',
        f"{anchor_s / ours:.1f}× faster",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--faces", type=int, default=2, help="faces for groundedsam (34 s each here)")
    parser.add_argument("--face-width", type=int, default=1024)
    parser.add_argument("--skip-groundedsam", action="store_true")
    args = parser.parse_args(argv)
    bench_truth(args.face_width)
    if not args.skip_groundedsam:
        bench_groundedsam(args.faces, args.face_width)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
