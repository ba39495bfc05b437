"""One set of bytes: a build's files are a function of its config and seed alone, not of its history (a lighting
added to an earlier build), of where its output root is, or of which frames shared a render shard."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages.annotation import instances
from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
from benchfoundry.benchmarks.syndor.scenes.spec import RigFrame, RigShard
from benchfoundry.benchmarks.syndor.stages import frame_files
from benchfoundry.configs.loader import load_config
from benchfoundry.core.build_files import RUN_RECORDS
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.render_spec import write_spec
from benchfoundry.pipeline import render_client

pytestmark = pytest.mark.long(minutes=4)

#: What a shard's completion marker (or a synthetic scan's render record) says of the run that wrote it: when, how
#: long, and how much of the shard that run rendered or computed and how much an earlier run had left in place.
RUN_KEYS = frozenset(
    {
        "finished",
        "timing",
        "render_s",
        "render_seconds",
        "frames_rendered",
        "frames_kept",
        "frames_reused",
        "frames_computed",
    }
)

# 160×90 with an 8.4 mm lens: 40 and 25 px/m are 6.3 and 10.1 m away, the whole person in frame. A sample of 36
# items is 12 frames over two lightings and 10 over three: the third lighting takes frames from the first two, so
# the frames both builds hold sit in shards of another composition.
SYNDOR = [
    "runner.max_workers=1",
    "runner.retry_delay_s=0",
    "syndor.camera.resolution_w=160",
    "syndor.camera.resolution_h=90",
    "syndor.camera.focal_mm=8.4",
    "syndor.zones_ppm={near: 40, far: 25}",
    "syndor.scenes=[field]",
    "syndor.poses.actions=[walking, kicking]",
    "person.textures.ids=[3]",
    "person.textures.size=32",
    "syndor.rig.azimuths_deg=[0, 90, 180, 270]",
    "syndor.rig.elevations_deg=[0]",
    "syndor.sample.items=36",
    "syndor.render.samples=1",
    "syndor.render.denoise=true",
    "syndor.render.denoise_prefilter=FAST",
    "syndor.render.max_bounces=2",
    "syndor.discern.labels.observer=threshold",
    "syndor.discern.labels.observer_min_height_px=50",
    "odi.enabled=false",
    "viewspatial.enabled=false",
]
TWO = "syndor.lightings=[noon_north, night]"
THREE = "syndor.lightings=[noon_north, night, evening_west]"
#: A small ViewSpatial build: two synthetic scans of 8 frames and a synthetic COCO set of 8 images, tiny.
VIEWSPATIAL = [
    "runner.max_workers=1",
    "syndor.enabled=false",
    "odi.enabled=false",
    "viewspatial.synthetic.frames=8",
    "viewspatial.synthetic.width=64",
    "viewspatial.synthetic.height=48",
    "viewspatial.synthetic.samples=1",
    "viewspatial.coco.synthetic.images={val: 6, train: 2}",
    "viewspatial.coco.synthetic.width=96",
    "viewspatial.coco.synthetic.height=128",
    "viewspatial.coco.synthetic.samples=1",
]


def comparable(root: Path, rel: str) -> bytes:
    """A file's bytes as a build's outputs are compared: a completion marker or a scan's render record without
    what it says of the run (`RUN_KEYS`)."""
    path = root / rel
    parts = Path(rel).parts
    if "_done" in parts or parts[-1] == "rendered.json":
        record = json.loads(path.read_text())
        return json.dumps({k: v for k, v in record.items() if k not in RUN_KEYS}, sort_keys=True).encode()
    return path.read_bytes()


def build_files(root: Path) -> set[str]:
    """Every file under a build root but the run's records (the build record, the root's marker and lock, the
    report's pages of the run, the task clocks)."""
    return {
        rel
        for path in root.rglob("*")
        if path.is_file()
        and (rel := path.relative_to(root).as_posix()) not in RUN_RECORDS
        and "_clock" not in path.parts
    }


def differing_files(a: Path, b: Path) -> list[str]:
    """The files of two build roots that are not the same bytes, or are in one only (marked `+` / `-`)."""
    ours, theirs = build_files(a), build_files(b)
    only = [f"- {rel}" for rel in sorted(ours - theirs)] + [f"+ {rel}" for rel in sorted(theirs - ours)]
    return only + [rel for rel in sorted(ours & theirs) if comparable(a, rel) != comparable(b, rel)]


def build(out: Path, *settings: str, only: str = "syndor") -> dict:
    from benchfoundry.flows.build import build as run_build

    record = run_build(load_config(None, list(settings)), str(out), [only])
    assert record["benchmarks"][only]["status"] == "built", record["benchmarks"][only]
    return record


def test_the_comparison_sees_a_changed_byte_and_a_missing_file_but_not_a_markers_times(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for root, finished, pixel in ((a, "10:00", b"\x00"), (b, "11:00", b"\x01")):
        (root / "x" / "_done").mkdir(parents=True)
        (root / "x" / "_done" / "s.json").write_text(json.dumps({"rows": 2, "finished": finished}))
        (root / "x" / "frame.png").write_bytes(pixel)
        (root / "build.json").write_text(finished)
    (b / "x" / "extra.txt").write_text("")
    assert differing_files(a, b) == ["+ x/extra.txt", "x/frame.png"]
    (b / "x" / "_done" / "s.json").write_text(json.dumps({"rows": 3, "finished": "10:00"}))
    assert "x/_done/s.json" in differing_files(a, b)


@pytest.mark.blender
def test_a_lighting_added_to_a_build_gives_the_bytes_of_a_build_made_with_it(
    tmp_path: Path, prefect_server: None
) -> None:
    """Two lightings, then a third added (and the frames the new sample no longer uses pruned, as `build --prune`
    does), against the three from scratch in another output root: every file is the same, but what the run
    records of itself."""
    grown, scratch = tmp_path / "grown", tmp_path / "elsewhere" / "scratch"
    build(grown, *SYNDOR, TWO)
    before = {p.shard_id: set(p.frames) for p in render_plan.plan_shards(load_config(None, [*SYNDOR, TWO]))}
    after = {p.shard_id: set(p.frames) for p in render_plan.plan_shards(load_config(None, [*SYNDOR, THREE]))}
    kept = {shard: before[shard] & frames for shard, frames in after.items()}
    assert any(kept.values()) and any(kept[s] != before[s] for s in kept)  # frames kept, in other shards than before
    build(grown, *SYNDOR, THREE)
    assert frame_files.prune_build(grown / "syndor") > 0
    build(scratch, *SYNDOR, THREE)
    differing = differing_files(grown, scratch)
    assert differing == [], "\n".join(differing)


@pytest.mark.blender
def test_two_output_roots_give_the_same_files(tmp_path: Path, prefect_server: None) -> None:
    """A ViewSpatial build (its synthetic scans keep their render spec) in two output roots: the same files, none
    naming its root."""
    roots = [tmp_path / "one", tmp_path / "two" / "deeper"]
    for root in roots:
        build(root, *VIEWSPATIAL, only="viewspatial")
    assert any(roots[0].rglob("render/*/spec.json"))
    differing = differing_files(*roots)
    assert differing == [], "\n".join(differing)


def _render_in_one_worker(*specs: RigShard) -> None:
    """Render `specs` in order in one fresh worker (each spec file beside its frames)."""
    render_client.close_all()
    for spec in specs:
        path = write_spec(Path(spec.frames[0].rgb).parent / "spec.json", spec)
        render_client.render_spec(path, timeout_s=600, shards_per_worker=len(specs))
    render_client.close_all()


def _into(folder: Path, spec: RigShard, *frames: RigFrame) -> RigShard:
    """`spec` holding `frames`, writing into `folder`."""
    moved = [
        dataclasses.replace(f, rgb=str(folder / f"{i}.png"), mask=str(folder / f"{i}_mask.png"))
        for i, f in enumerate(frames)
    ]
    return dataclasses.replace(spec, frames=tuple(moved))


@pytest.mark.blender
def test_a_frames_pixels_do_not_depend_on_what_the_worker_rendered_before_it(tmp_path: Path) -> None:
    """A frame rendered alone; after a frame of another lighting and one of its own; after a shard of another
    person; after shards of another person and another scene: the same image and mask each time (its seed and its
    scene are its own, whatever the worker rendered before)."""
    config = load_config(
        None,
        [
            *SYNDOR,
            # 54 rows need 14 mm for the same px/m at the same distances
            "syndor.camera.resolution_w=96",
            "syndor.camera.resolution_h=54",
            "syndor.camera.focal_mm=14",
            "syndor.scenes=[field, desert]",
            "syndor.sample.items=null",
            "syndor.lightings=[noon_north, night]",
        ],
    )
    plans = render_plan.plan_shards(config)
    spec, kicking, desert = (
        render_stage.shard_frames(config, tmp_path, next(p for p in plans if (p.scene, p.action) == key), tmp_path)[0]
        for key in (("field", "walking"), ("field", "kicking"), ("desert", "kicking"))
    )
    noon = [f for f in spec.frames if f.light == spec.frames[0].light]
    night = next(f for f in spec.frames if f.light != noon[0].light)
    frame = noon[1]
    sequences = {
        "alone": [(spec, frame)],
        "lit": [(spec, night, noon[0], frame)],
        "person": [(kicking, kicking.frames[0]), (spec, frame)],
        "scene": [(kicking, kicking.frames[0]), (desert, desert.frames[0]), (spec, frame)],
    }
    for name, shards in sequences.items():
        folder = tmp_path / name
        _render_in_one_worker(*(_into(folder / str(k), s, *frames) for k, (s, *frames) in enumerate(shards)))
    for name, shards in sequences.items():
        last = tmp_path / name / str(len(shards) - 1)
        n = len(shards[-1]) - 2
        for ours, theirs in (("0.png", f"{n}.png"), ("0_mask.png", f"{n}_mask.png")):
            alone = decode_file(tmp_path / "alone" / "0" / ours, -1)
            assert np.array_equal(alone, decode_file(last / theirs, -1)), f"{name}/{theirs}"


def test_a_rotated_vector_does_not_depend_on_the_vectors_rotated_with_it() -> None:
    """Each row of a rotation alone is the same bits as in the whole array (a BLAS product's rows are not: its
    kernels and threads split the rows by the array's size), and is the product to rounding."""
    matrix = sm.rotation(sm.View.square(37.0, 12.0, 90.0, 64))
    vectors = np.random.default_rng(0).normal(size=(4000, 3))
    whole = sm.rotate(vectors, matrix)
    assert np.array_equal(whole, np.concatenate([sm.rotate(vectors[k : k + 1], matrix) for k in range(len(vectors))]))
    assert np.allclose(whole, vectors @ matrix.T, rtol=0, atol=1e-14)


def test_an_instances_direction_does_not_depend_on_the_order_of_its_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mask's pixels read in another order give the same direction, to the bit; it is the direction of their
    mean unit vector, to a millionth of a degree."""
    rng = np.random.default_rng(3)
    mask = np.zeros((256, 256), bool)
    mask[40:200, 70:230] = rng.random((160, 160)) < 0.6
    face = "right"
    theta, phi = instances.mask_direction(face, mask)
    angles = instances.mask_angles
    order = rng.permutation(int(mask.sum()))
    monkeypatch.setattr(instances, "mask_angles", lambda f, m: tuple(a[order] for a in angles(f, m)))
    assert instances.mask_direction(face, mask) == (theta, phi)
    vs, us = np.nonzero(mask)
    t, p = (np.radians(a) for a in sm.cube_pixel_to_angles(face, us + 0.5, vs + 0.5, 256))
    x, y, z = (float(np.mean(c)) for c in (np.cos(p) * np.sin(t), np.sin(p), np.cos(p) * np.cos(t)))
    assert theta == pytest.approx(np.degrees(np.arctan2(x, z)), abs=1e-6)
    assert phi == pytest.approx(np.degrees(np.arctan2(y, np.hypot(x, z))), abs=1e-6)
    assert (round(theta, 6), round(phi, 6)) == (theta, phi)
