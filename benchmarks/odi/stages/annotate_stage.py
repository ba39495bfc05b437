"""ODI-Bench annotation (docs/design/odi.md §2.1): panorama → cube faces → annotator → kept instances, crops, COCO JSON,
and the detector's census of the whole sphere.

One task annotates a batch of panoramas; each panorama is its own store shard (`odi/instances/`), so a
rerun skips finished panoramas and a changed file or setting redoes only its panorama. Per panorama
it writes `odi/faces/<id>/<face>.jpg`, `odi/instances/crops/<id>/<k>_<face>.jpg` and
`odi/instances/coco/<id>.json`; the shard's marker holds the objects across face edges and the census
(benchmarks/odi/stages/annotation/census.py). Every path it records is relative to the release root `odi/`: a panorama
from
outside the build is linked (or copied) into `odi/panoramas/`. A panorama that cannot be read is a
problem row and the batch goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import pandas as pd

from benchfoundry.benchmarks.odi.config import OdiConfig
from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.benchmarks.odi.stages.annotation.census import census, spanning_instances
from benchfoundry.benchmarks.odi.stages.annotation.instances import Detection, coco_document, keep_instances
from benchfoundry.benchmarks.odi.stages.annotation.truth_annotator import load_truth, truth_detections
from benchfoundry.benchmarks.odi.stages.panoramas import (
    display_bgr,
    file_digest,
    load_panorama,
    panorama_id,
    release_name,
)
from benchfoundry.benchmarks.odi.stages.sphere_coords import FACES
from benchfoundry.benchmarks.odi.stages.sphere_images import erp_to_cubemap, sample_views
from benchfoundry.configs.build import BuildConfig
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.store import StageStore, spec_hash
from benchfoundry.pipeline.shard_task import shard_task

STAGE = "instances"
#: Part of every panorama's spec hash: bump it when what the stage records changes.
VERSION = 2
#: Annotator: (panorama path, decoded ERP, RGB faces) → detections per face.
Annotator = Callable[[Path, Any, dict[str, Any]], dict[str, list[Detection]]]


def make_annotator(odi: OdiConfig) -> Annotator:
    """The configured annotator; groundedsam's models are loaded here, once per task."""
    width, classes = odi.sphere.face_width, odi.classes
    if odi.chosen_annotator == "truth":
        return lambda path, erp, faces: truth_detections(*load_truth(path, erp.shape[:2]), width, classes)
    from benchfoundry.benchmarks.odi.stages.annotation.groundedsam import load_groundedsam

    model = load_groundedsam(odi.groundedsam)
    return lambda path, erp, faces: model.annotate(faces, classes)


def annotation_settings(odi: OdiConfig) -> dict[str, Any]:
    """What a panorama's instances depend on besides its bytes (hashed into its marker)."""
    settings: dict[str, Any] = {
        "version": VERSION,
        "annotator": odi.chosen_annotator,
        "classes": odi.classes,
        "sphere": odi.sphere.model_dump(mode="json"),
        "quality": odi.crop_quality,
    }
    if odi.chosen_annotator == "groundedsam":
        settings["groundedsam"] = odi.groundedsam.model_dump(mode="json", exclude={"device", "batch_faces"})
    return settings


def _jpeg(path: Path, bgr: Any, quality: int) -> None:
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"{path}: JPEG encoding failed")
    write_bytes_atomic(path, data.tobytes())


def annotate_panorama(
    out: Path, path: Path, pano: str, odi: OdiConfig, annotator: Annotator
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Faces, detections, kept instances, crops and the COCO file of one panorama; returns the manifest rows
    and the marker's record: border drops per face, the objects across face edges, the census, the source."""
    erp = load_panorama(path)
    source = release_name(path, out / BENCHMARK, pano)
    bgr = display_bgr(erp)
    faces = erp_to_cubemap(bgr, odi.sphere.face_width, odi.sphere.interpolation)
    face_files = {}
    for face in FACES:
        rel = f"faces/{pano}/{face}.jpg"
        _jpeg(out / BENCHMARK / rel, faces[face], odi.crop_quality)
        face_files[face] = rel
    detections = annotator(path, erp, {f: cv2.cvtColor(faces[f], cv2.COLOR_BGR2RGB) for f in FACES})
    kept, dropped, border = keep_instances(detections, odi.sphere)
    spanning = spanning_instances(border, odi.sphere.face_width)
    crops = sample_views(bgr, [inst.view for inst in kept], odi.sphere.interpolation)
    rows = []
    for k, (inst, crop) in enumerate(zip(kept, crops), start=1):
        rel = f"{STAGE}/crops/{pano}/{k:03d}_{inst.face}.jpg"
        _jpeg(out / BENCHMARK / rel, crop, odi.crop_quality)
        x1, y1, x2, y2 = inst.detection.box
        rows.append(
            {
                "panorama": pano,
                "source": source,
                "instance": k,
                "face": inst.face,
                "class": inst.detection.label,
                "score": float(inst.detection.score),
                "x1": x1,
                "y1": y1,
                "x2": x2,
                "y2": y2,
                "area": inst.area,
                "rle_counts": inst.rle["counts"],
                "rle_height": inst.rle["size"][0],
                "rle_width": inst.rle["size"][1],
                "theta_deg": inst.theta_deg,
                "phi_deg": inst.phi_deg,
                "contact_phi_deg": inst.contact_phi_deg,
                "solid_angle_sr": inst.solid_angle_sr,
                "erp_fraction": inst.erp_fraction,
                "crop": rel,
                "crop_fov_deg": inst.view.hfov_deg,
                "face_image": face_files[inst.face],
                "annotator": odi.chosen_annotator,
                "truth_id": -1 if inst.detection.truth_id is None else inst.detection.truth_id,
            }
        )
    write_json_atomic(
        out / BENCHMARK / STAGE / "coco" / f"{pano}.json",
        coco_document(pano, face_files, odi.sphere.face_width, kept, odi.classes),
    )
    info = {
        "dropped_at_border": dropped,
        "spanning": spanning,
        "census": census(kept, spanning),
        "source": source,
    }
    return pd.DataFrame(rows), info


def annotator_device(config: BuildConfig) -> str:
    """The torch device of the chosen annotator: GroundedSAM's, or the CPU for the truth."""
    odi = config.odi
    return odi.groundedsam.device if odi.chosen_annotator == "groundedsam" else "cpu"


@shard_task(resource="gpu", name="odi-annotate", device=annotator_device)
def annotate_task(out: str, shard: tuple[str, ...], config: BuildConfig) -> list[dict[str, Any]]:
    """Annotate the batch of panoramas `shard` (`annotate_batch`)."""
    return annotate_batch(out, list(shard), config.odi)


def annotate_batch(out: str, paths: list[str], odi: OdiConfig) -> list[dict[str, Any]]:
    """Annotate a batch of panoramas (finished ones skipped); returns per panorama its id, instance count,
    border drops and problems."""
    root = Path(out)
    store = StageStore(root, BENCHMARK, STAGE)
    settings = annotation_settings(odi)
    annotator: Annotator | None = None
    results = []
    for name in paths:
        path = Path(name)
        pano = panorama_id(path)
        try:
            h = spec_hash([file_digest(path), settings])
        except OSError as exc:
            results.append(
                {
                    "panorama": pano,
                    "done": False,
                    "problems": [problem(STAGE, pano, f"{path}: cannot read ({exc.strerror})", path=name)],
                }
            )
            continue
        if not store.is_done(pano, h):
            if annotator is None:
                annotator = make_annotator(odi)
            try:
                rows, info = annotate_panorama(root, path, pano, odi, annotator)
            except ValueError as exc:
                results.append(
                    {"panorama": pano, "done": False, "problems": [problem(STAGE, pano, str(exc), path=name)]}
                )
                continue
            store.write_shard(pano, rows, spec_hash=h, info=info)
        marker = store.marker(pano) or {}
        results.append(
            {
                "panorama": pano,
                "done": True,
                "instances": marker.get("rows", 0),
                "dropped_at_border": marker.get("dropped_at_border", {}),
                "census": marker.get("census", {}),
                "problems": [],
            }
        )
    return results
