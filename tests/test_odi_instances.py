"""ODI annotation without Blender: truth annotator, border drops, the census across face edges, what a mask
measures (floor contact, solid angle, ERP area), RLE, directions, COCO files, relative paths, bad inputs, reruns.

Panoramas here are painted in numpy: spherical caps of known centre and radius. Expected face masks
come from this file's own warp (face basis vectors and the ERP formula of docs/design/odi.md §1), not from the
sphere module.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from pycocotools.coco import COCO

from benchfoundry.benchmarks.odi.config import OdiConfig, SphereConfig
from benchfoundry.benchmarks.odi.release.report_page import overlay, write_report_page
from benchfoundry.benchmarks.odi.stages.annotate_stage import STAGE, annotate_batch
from benchfoundry.benchmarks.odi.stages.annotation.census import census, spanning_instances
from benchfoundry.benchmarks.odi.stages.annotation.instances import (
    Detection,
    decode_rle,
    encode_rle,
    keep_instances,
    touches_border,
)
from benchfoundry.benchmarks.odi.stages.annotation.truth_annotator import load_truth, truth_detections
from benchfoundry.benchmarks.odi.stages.panoramas import list_panoramas, load_panorama
from benchfoundry.core.store import StageStore

#: (right, up, forward) of each face in sphere axes (x right, y up, z forward).
BASES = {
    "front": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "right": ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
    "back": ((-1, 0, 0), (0, 1, 0), (0, 0, -1)),
    "left": ((0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    "up": ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
    "down": ((1, 0, 0), (0, 0, 1), (0, -1, 0)),
}


def unit(theta: np.ndarray | float, phi: np.ndarray | float) -> np.ndarray:
    t, p = np.radians(theta), np.radians(phi)
    return np.stack(np.broadcast_arrays(np.cos(p) * np.sin(t), np.sin(p), np.cos(p) * np.cos(t)), -1)


def erp_directions(width: int) -> np.ndarray:
    h = width // 2
    theta = -180.0 + (np.arange(width) + 0.5) / width * 360.0
    phi = 90.0 - (np.arange(h) + 0.5) / h * 180.0
    return unit(theta[None, :], phi[:, None])


def face_directions(face: str, n: int) -> np.ndarray:
    """Unit directions of a face's pixel centres (90° pinhole, fov spanning the outer pixel edges)."""
    right, up, fwd = (np.array(v, float) for v in BASES[face])
    a = 2 * (np.arange(n) + 0.5) / n - 1
    d = a[None, :, None] * right + (-a)[:, None, None] * up + fwd
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


def warp_nearest(erp: np.ndarray, face: str, n: int) -> np.ndarray:
    """The face sampled from the ERP by nearest neighbour, computed here independently."""
    d = face_directions(face, n)
    theta = np.degrees(np.arctan2(d[..., 0], d[..., 2]))
    phi = np.degrees(np.arcsin(np.clip(d[..., 1], -1, 1)))
    h, w = erp.shape[:2]
    x = np.floor((theta + 180.0) / 360.0 * w).astype(int) % w
    y = np.clip(np.floor((90.0 - phi) / 180.0 * h).astype(int), 0, h - 1)
    return erp[y, x]


def face_pixel(face: str, theta: float, phi: float, n: int) -> tuple[float, float]:
    right, up, fwd = (np.array(v, float) for v in BASES[face])
    d = unit(theta, phi)
    z = d @ fwd
    return ((d @ right / z) + 1) / 2 * n, (1 - d @ up / z) / 2 * n


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


#: id → (category, θ, φ, radius in degrees); id 4 lies across the front/right border (θ = 45°).
CAPS = {
    1: ("sofa", 0.0, -10.0, 12.0),
    2: ("chair", 100.0, 5.0, 8.0),
    3: ("lamp", 30.0, 70.0, 6.0),
    4: ("table", 45.0, 0.0, 10.0),
    5: ("ball", -150.0, -60.0, 9.0),
    6: ("vase", -80.0, 20.0, 7.0),
}


def painted_panorama(folder: Path, name: str = "caps", width: int = 512) -> Path:
    """An ERP of coloured caps, its uint16 instance map and truth JSON, as the synthetic scenes write them."""
    d = erp_directions(width)
    ids = np.zeros(d.shape[:2], np.uint16)
    for k, (_, theta, phi, radius) in CAPS.items():
        ids[d @ unit(theta, phi) > math.cos(math.radians(radius))] = k
    rgb = np.full(ids.shape + (3,), 90, np.uint8)
    rgb[ids > 0] = (40 * ids[ids > 0, None] % 255).astype(np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.png"), rgb)
    cv2.imwrite(str(folder / f"{name}.instances.png"), ids)
    records = [{"id": k, "category": c, "theta_deg": t, "phi_deg": p} for k, (c, t, p, _) in CAPS.items()]
    (folder / f"{name}.json").write_text(json.dumps({"instances": records}))
    return folder / f"{name}.png"


def test_truth_annotator_recovers_caps_and_drops_the_one_across_a_border(tmp_path: Path) -> None:
    path = painted_panorama(tmp_path)
    ids, records = load_truth(path, (256, 512))
    n = 128
    found = truth_detections(ids, records, n, [c for c, *_ in CAPS.values()])
    kept, dropped, border = keep_instances(found, SphereConfig(crop_size=64))
    assert sorted(i.detection.truth_id for i in kept) == [1, 2, 3, 5, 6]
    assert dropped == {"front": 1, "right": 1, "back": 0, "left": 0, "up": 0, "down": 0}
    assert sorted(face for face, _ in border) == ["front", "right"]
    for inst in kept:
        expected = warp_nearest(ids, inst.face, n) == inst.detection.truth_id
        assert iou(decode_rle(inst.rle), expected) >= 0.99
        assert not touches_border(decode_rle(inst.rle))
        _, theta, phi, _ = CAPS[inst.detection.truth_id]
        # The centroid of a cap is its centre, up to the pixel grid.
        assert np.degrees(np.arccos(np.clip(unit(inst.theta_deg, inst.phi_deg) @ unit(theta, phi), -1, 1))) < 1.0
        u, v = face_pixel(inst.face, inst.theta_deg, inst.phi_deg, n)
        assert decode_rle(inst.rle)[int(v), int(u)]


def test_the_census_counts_an_object_across_faces_once(tmp_path: Path) -> None:
    path = painted_panorama(tmp_path)
    ids, records = load_truth(path, (256, 512))
    found = truth_detections(ids, records, 128, [c for c, *_ in CAPS.values()])
    # a second table, wholly on the back face, touching nothing: the two table parts must not join it
    far = Detection("table", 1.0, (50, 50, 60, 60), np.pad(np.ones((10, 10), bool), ((50, 68), (50, 68))))
    edge = np.zeros((128, 128), bool)
    edge[60:70, :4] = True  # a table part at the left edge of the left face: across it lies the back face
    high = np.zeros((128, 128), bool)
    high[5:15, :4] = True  # at the right face's left edge, far above where the front/right table crosses it
    kept, _, border = keep_instances(
        {
            **found,
            "back": [far],
            "left": [*found["left"], Detection("table", 1.0, (0, 60, 4, 70), edge)],
            "right": [*found["right"], Detection("table", 1.0, (0, 5, 4, 15), high)],
        },
        SphereConfig(crop_size=32),
    )
    spanning = spanning_instances(border, 128)
    assert len(spanning) == 3 and sorted(len(s["faces"]) for s in spanning) == [1, 1, 2]
    across = next(s for s in spanning if s["faces"] == ["front", "right"])
    _, theta, phi, _ = CAPS[4]
    assert abs(across["theta_deg"] - theta) < 1.0 and abs(across["phi_deg"] - phi) < 1.0
    assert census(kept, spanning) == {"ball": 1, "chair": 1, "lamp": 1, "sofa": 1, "table": 4, "vase": 1}


def test_a_mask_measures_its_cap(tmp_path: Path) -> None:
    """Solid angle 2π(1 − cos r), the ERP share of the cap's pixels, and its lowest point φ − r below its centre."""
    width = 1024
    path = painted_panorama(tmp_path, width=width)
    ids, records = load_truth(path, (width // 2, width))
    kept, _, _ = keep_instances(truth_detections(ids, records, 256, ["sofa", "chair", "lamp", "ball"]), SphereConfig())
    for inst in kept:
        _, theta, phi, radius = CAPS[inst.detection.truth_id]
        cap = 2 * math.pi * (1 - math.cos(math.radians(radius)))
        assert inst.solid_angle_sr == pytest.approx(cap, rel=0.02)
        assert inst.erp_fraction == pytest.approx((ids == inst.detection.truth_id).mean(), rel=0.03)
        if abs(phi) + radius < 85:
            assert inst.contact_phi_deg == pytest.approx(phi - radius, abs=0.6)


def test_rle_round_trip_and_border_rule() -> None:
    rng = np.random.default_rng(3)
    mask = rng.random((37, 53)) > 0.6
    rle = encode_rle(mask)
    assert rle["size"] == [37, 53] and isinstance(rle["counts"], str)
    assert np.array_equal(decode_rle(rle), mask)
    inner = np.zeros((10, 10), bool)
    inner[1:9, 1:9] = True
    assert not touches_border(inner)
    for edge in (np.s_[0, 4], np.s_[9, 4], np.s_[4, 0], np.s_[4, 9]):
        touching = inner.copy()
        touching[edge] = True
        assert touches_border(touching)


def test_empty_mask_is_dropped() -> None:
    empty = Detection("sofa", 0.9, (0, 0, 1, 1), np.zeros((16, 16), bool))
    kept, dropped, border = keep_instances({"front": [empty]}, SphereConfig())
    assert kept == [] and dropped["front"] == 1 and border == []


def test_batch_task_writes_coco_crops_and_reports_bad_files(tmp_path: Path) -> None:
    root = tmp_path / "panos"
    good = painted_panorama(root)
    (root / "empty.jpg").write_bytes(b"")
    cv2.imwrite(str(root / "square.png"), np.zeros((64, 64, 3), np.uint8))
    data = (root / "caps.png").read_bytes()
    (root / "cut.png").write_bytes(data[: len(data) // 2])
    paths = list_panoramas(root)
    assert [p.name for p in paths] == ["caps.png", "cut.png", "empty.jpg", "square.png"]
    out = tmp_path / "out"
    odi = OdiConfig(
        classes=["sofa", "chair", "lamp", "table", "ball", "vase"], sphere={"face_width": 128, "crop_size": 64}
    )
    results = annotate_batch(str(out), [str(p) for p in paths], odi)
    by_name = {r["panorama"]: r for r in results}
    assert by_name["caps.png"]["done"] and by_name["caps.png"]["instances"] == 5
    for bad, words in (("cut.png", "truncated"), ("empty.jpg", "empty"), ("square.png", "not an equirectangular")):
        (reported,) = by_name[bad]["problems"]
        assert not by_name[bad]["done"] and str(root / bad) in reported["reason"] and words in reported["reason"]
    doc = out / "odi" / STAGE / "coco" / "caps.png.json"
    coco = COCO()
    coco.dataset = json.loads(doc.read_text())
    coco.createIndex()
    assert len(coco.getImgIds()) == 6 and len(coco.getAnnIds()) == 5
    ids = cv2.imread(str(root / "caps.instances.png"), cv2.IMREAD_UNCHANGED)
    for ann in coco.loadAnns(coco.getAnnIds()):
        image = coco.loadImgs(ann["image_id"])[0]
        assert (out / "odi" / image["file_name"]).exists()
        mask = coco.annToMask(ann).astype(bool)
        cat = coco.loadCats(ann["category_id"])[0]["name"]
        (truth_id,) = [k for k, (c, *_) in CAPS.items() if c == cat]
        assert iou(mask, warp_nearest(ids, image["face"], 128) == truth_id) >= 0.99
    rows = annotate_batch(str(out), [str(good)], odi)
    assert rows[0]["instances"] == 5 and rows[0]["census"]["table"] == 1
    # The panorama lay outside the build: the release holds its copy and its truth, and names them relative.
    manifest = StageStore(out, "odi", STAGE).shard_rows("caps.png")
    assert set(manifest["source"]) == {"panoramas/caps.png"}
    for name in ("caps.png", "caps.instances.png", "caps.json"):
        assert (out / "odi" / "panoramas" / name).read_bytes() == (root / name).read_bytes()
    assert json.loads((out / "odi" / STAGE / "_done" / "caps.png.json").read_text())["source"] == "panoramas/caps.png"
    crops = sorted((out / "odi" / STAGE / "crops" / "caps.png").glob("*.jpg"))
    assert len(crops) == 5 and all(cv2.imread(str(c)).shape == (64, 64, 3) for c in crops)


def test_rerun_skips_finished_panorama_and_redoes_a_changed_one(tmp_path: Path) -> None:
    root = tmp_path / "panos"
    path = painted_panorama(root)
    out = tmp_path / "out"
    odi = OdiConfig(classes=["sofa", "chair"], sphere={"face_width": 96, "crop_size": 32})
    annotate_batch(str(out), [str(path)], odi)
    marker = out / "odi" / STAGE / "_done" / "caps.png.json"
    first = marker.read_text()
    annotate_batch(str(out), [str(path)], odi)
    assert marker.read_text() == first
    annotate_batch(str(out), [str(path)], odi.model_copy(update={"classes": ["sofa"]}))
    assert json.loads(marker.read_text())["rows"] == 1


def test_16_bit_panorama_and_missing_truth(tmp_path: Path) -> None:
    image = (np.arange(64 * 32 * 3) * 7 % 65535).astype(np.uint16).reshape(32, 64, 3)
    cv2.imwrite(str(tmp_path / "p.png"), image)
    assert np.array_equal(load_panorama(tmp_path / "p.png"), image)
    with pytest.raises(ValueError, match=r"p\.png: the truth annotator needs p\.instances\.png and p\.json"):
        load_truth(tmp_path / "p.png", (32, 64))


def test_report_page_shows_six_faces_with_overlays_and_drops(tmp_path: Path) -> None:
    path = painted_panorama(tmp_path / "panos")
    out = tmp_path / "out"
    odi = OdiConfig(classes=["sofa", "chair", "lamp", "table", "ball", "vase"], sphere={"face_width": 96})
    (result,) = annotate_batch(str(out), [str(path)], odi)
    store = StageStore(out, "odi", STAGE)
    store.write_manifest(["caps.png"])
    page = write_report_page(out, store.read_manifest(), {"caps.png": result["dropped_at_border"]}, seed=0, thumb_px=96)
    text = page.read_text()
    assert "5 kept" in text and "front 1" in text and "right 1" in text
    images = sorted((out / "report" / "odi").glob("*.jpg"))
    assert len(images) == 6 and text.count("<img") == 6
    face = np.full((20, 20, 3), 100, np.uint8)
    mask = np.zeros((20, 20), bool)
    mask[5:12, 6:15] = True
    drawn = overlay(face, [mask], np.array([[0, 0, 255]]))
    changed = (drawn != face).any(axis=2)
    assert changed[mask].all() and not changed[~mask].any()


def test_report_page_shows_the_faces_of_the_first_panoramas_and_the_others_in_one_table(tmp_path: Path) -> None:
    """At paper scale the page does not grow six overlays a panorama: past `shown`, one table row each."""
    path = painted_panorama(tmp_path / "panos")
    out = tmp_path / "out"
    odi = OdiConfig(classes=["sofa", "chair", "lamp", "table", "ball", "vase"], sphere={"face_width": 96})
    (result,) = annotate_batch(str(out), [str(path)], odi)
    store = StageStore(out, "odi", STAGE)
    store.write_manifest(["caps.png"])
    dropped = {"caps.png": result["dropped_at_border"], **{f"z{k:03d}.png": {"front": k} for k in range(5)}}
    page = write_report_page(out, store.read_manifest(), dropped, seed=0, thumb_px=96, shown=1).read_text()
    assert page.count("<img") == 6 and len(list((out / "report" / "odi").glob("*.jpg"))) == 6
    assert "The other 5 panoramas" in page and page.count("<tr><td>z") == 5
    assert "<tr><td>z004.png</td><td>0</td><td>4</td>" in page  # no instance kept, four dropped at the front
