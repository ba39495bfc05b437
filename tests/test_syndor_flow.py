"""The syndor render stage end to end: index coverage, calibration, reruns, a killed worker."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from prefect import flow
from test_syndor_report import assert_no_broken_links

from benchfoundry.benchmarks.syndor import flow as syndor
from benchfoundry.benchmarks.syndor.scenes import render_plan, render_stage
from benchfoundry.benchmarks.syndor.stages import calibration_stage, label_stage
from benchfoundry.cli import main as cli
from benchfoundry.configs.loader import load_config
from benchfoundry.core.store import StageStore
from benchfoundry.pipeline import render_client
from benchfoundry.pipeline.shard_task import shard_task

pytestmark = pytest.mark.long(minutes=2)

#: docs/design/syndor.md §5, verbatim (not taken from the code under test).
PROMPTS = {
    "human_detection": "Respond only with 1 or 0. Respond with 1 if a person is visible in the image, and 0 if not. "
    "Is there a person visible in the image?",
    "action_recognition": "Respond only with the name of the action. "
    "What action is the person performing in the image?",
}

# 160×90 with an 8.4 mm lens: 40 and 25 px/m are 6.3 and 10.1 m away, the whole person in frame.
TINY = [
    "runner.max_workers=1",
    "runner.retry_delay_s=0",
    "runner.task_retries=2",
    "syndor.camera.resolution_w=160",
    "syndor.camera.resolution_h=90",
    "syndor.camera.focal_mm=8.4",
    "syndor.zones_ppm={near: 40, far: 25}",
    "syndor.scenes=[field]",
    "syndor.lightings=[noon_north, night]",
    "syndor.poses.actions=[walking, kicking]",
    "person.textures.ids=[3]",
    "person.textures.size=64",
    "syndor.rig.azimuths_deg=[0, 180]",
    "syndor.rig.elevations_deg=[0, 45]",
    "syndor.render.samples=2",
    "syndor.render.denoise=false",
    "syndor.render.max_bounces=2",
    # the threshold observer sees the near person (≈70 px tall at elevation 0) and not the far one (≈44 px):
    # the labelled sample holds both classes, so cross-validation runs (160×90 is too small for the detector)
    "syndor.discern.labels.observer=threshold",
    "syndor.discern.labels.observer_min_height_px=50",
    "odi.enabled=false",
    "viewspatial.enabled=false",
]


def _build(out: Path, extra: list[str] = ()) -> dict:
    from benchfoundry.flows.build import build

    return build(load_config(None, [*TINY, *extra]), str(out), ["syndor"])


def _kill_first_worker_mid_shard(out: Path, killed: list[int]) -> None:
    """Kill the worker as soon as the first frame of a render shard is on disk."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if any((out / "syndor" / "render" / "_tmp").glob("*/0000.*")):
            pids = render_client.live_worker_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
        time.sleep(0.02)


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory, prefect_server: None) -> tuple[Path, dict, list[int]]:
    out = tmp_path_factory.mktemp("syndor")
    killed: list[int] = []
    watcher = threading.Thread(target=_kill_first_worker_mid_shard, args=(out, killed), daemon=True)
    watcher.start()
    record = _build(out)
    watcher.join(5)
    return out, record, killed


@pytest.mark.blender
def test_index_has_every_combination_once(first_build: tuple[Path, dict, list[int]]) -> None:
    out, record, killed = first_build
    assert killed, "the watcher did not catch a worker mid-shard"
    outcome = record["benchmarks"]["syndor"]
    assert outcome["status"] == "built", outcome
    index = pd.read_parquet(outcome["stages"]["render"]["manifest"])
    keys = ["scene", "smplx_texture", "action", "lighting", "zone", "azimuth", "elevation"]
    expected = set(
        itertools.product(
            ["field"],
            ["SMPLitex_texture_00003"],
            ["walking", "kicking"],
            ["noon_north", "night"],
            ["near", "far"],
            [0.0, 180.0],
            [0.0, 45.0],
        )
    )
    assert len(index) == len(expected)
    assert set(map(tuple, index[keys].itertuples(index=False))) == expected
    assert not index["img_path"].duplicated().any()
    assert outcome["stages"]["render"]["frames_rendered"] == len(expected)
    for row in index.itertuples():
        assert row.img_path == f"{row.source_dir}/pose{row.pose:03d}/raw_images/{row.img_name}" and row.pose == 0
        assert f"_cam{int(row.azimuth // 45) * 4 + int(row.elevation // 22.5):03d}_" in row.img_name
        assert (out / "syndor" / row.img_path).is_file()
        assert (np.array(Image.open(out / "syndor" / row.mask_path)) > 0).any(), row.mask_path
    assert index["nv_path"].isna().all() and index["human_discernable"].isna().all()
    assert set(index["measured_ppm"].round(6)) == {
        round(d["measured_ppm"], 6) for d in outcome["calibration"]["distances"]
    }


@pytest.mark.blender
def test_discernibility_report_and_labels(first_build: tuple[Path, dict, list[int]]) -> None:
    """Issue 4's checks on the build: CV figures for both models, simulated labels flagged, every
    night and night-vision row labelled."""
    out, record, _ = first_build
    config = load_config(None, TINY)
    report = json.loads((out / "report" / "discern_cv.json").read_text())
    assert report["trained_on"] + report["held_out"] == report["sample"] and report["held_out"] >= 1
    for model in ("ensemble", "decision_tree"):
        figures = report["cv"][model]
        assert 0 <= figures["macro_f1"] <= 1 and 0 <= figures["accuracy"] <= 1
        assert np.array(figures["confusion_matrix"]).sum() == report["trained_on"]
        tested = report["holdout"][model]
        assert np.array(tested["confusion_matrix"]).sum() == report["held_out"]
    assert report["label_source"] == "simulated" and any("simulated observer" in n for n in report["notes"])
    rows = pd.read_parquet(record["benchmarks"]["syndor"]["stages"]["discern"]["manifest"])
    night = rows[rows["lighting"] == "night"]
    assert len(night) == 16 and night["nv_path"].notna().all()
    assert night["human_discernable"].isin([0, 1]).all() and night["human_discernable_nv"].isin([0, 1]).all()
    # the images of the labelled sample are exactly those with a sample label; night ones are marked simulated
    units = label_stage.labelling_units(StageStore(out, "syndor", "discern_features").read_manifest(), config)
    sample = set(label_stage.label_sample(units, config)["image"])
    marked = {
        *rows.loc[rows["sample_label"].notna(), "img_path"],
        *rows.loc[rows["sample_label_nv"].notna(), "nv_path"],
    }
    assert marked == sample and len(sample) == report["sample"]
    simulated = {
        *night.loc[night["label_source"] == "simulated", "img_path"],
        *night.loc[night["label_source_nv"] == "simulated", "nv_path"],
    }
    assert simulated == {image for image in sample if image in set(night["img_path"]) | set(night["nv_path"])}
    assert set(night["label_source"]) | set(night["label_source_nv"]) <= {"simulated", "model"}
    for suffix in ("", "_nv"):
        simulated = night[f"label_source{suffix}"] == "simulated"
        assert night.loc[simulated, f"sample_label{suffix}"].isin([0, 1]).all()
        assert night.loc[~simulated, f"sample_label{suffix}"].isna().all()


@pytest.mark.blender
def test_task_files_carry_the_exact_prompts_and_report_links_resolve(first_build: tuple[Path, dict, list[int]]) -> None:
    out, record, _ = first_build
    rows = pd.read_parquet(record["benchmarks"]["syndor"]["stages"]["discern"]["manifest"])
    expected = {
        "day": int((rows["lighting"] != "night").sum()),
        "night": int((rows["lighting"] == "night").sum()),
        "nv": int(rows["nv_path"].notna().sum()),
    }
    assert all(expected.values())  # the build has rows of every split
    for task, prompt in PROMPTS.items():
        for split, count in expected.items():
            lines = (out / "syndor" / "index" / task / f"{split}.jsonl").read_text().splitlines()
            task_rows = [json.loads(line) for line in lines]
            assert len(task_rows) == count, (task, split)
            assert all(r["prompt"] == prompt and r["task"] == task for r in task_rows), (task, split)
            if task == "human_detection" and split != "day":
                assert {r["human_discernable"] for r in task_rows} <= {0, 1}
    page = Path(record["benchmarks"]["syndor"]["stages"]["qa"]["report"])
    assert page == out / "report" / "syndor.html"
    links = assert_no_broken_links(page)
    assert any("calibration" in link for link in links)


@pytest.mark.blender
def test_calibration_in_build_json(first_build: tuple[Path, dict, list[int]]) -> None:
    out, _, _ = first_build
    recorded = json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]["calibration"]
    assert recorded["passed"]
    for row in recorded["distances"]:
        assert row["whole_in_frame"]
        # independent: ±2% of the target, or 1 px of the person's height
        err_px = abs(row["mask_height_px"] - row["target_ppm"] * row["body_height_m"])
        assert abs(row["measured_ppm"] / row["target_ppm"] - 1) <= 0.02 or err_px <= 1.0
    assert (out / recorded["plot"]).stat().st_size > 1000


@pytest.mark.blender
def test_rerun_renders_nothing_and_a_new_lighting_renders_only_its_frames(
    first_build: tuple[Path, dict, list[int]], tmp_path: Path
) -> None:
    """A rerun renders nothing. A new lighting changes each person's shard, but only the new lighting's frames
    render: the others stay in place untouched, and the released index and frames equal a build from scratch."""
    out, _, _ = first_build
    manifest = out / "syndor" / "render" / "manifest.parquet"
    before = pd.read_parquet(manifest)
    again = _build(out)["benchmarks"]["syndor"]["stages"]["render"]
    assert again["frames_rendered"] == 0 and again["shards_rendered"] == 0
    pd.testing.assert_frame_equal(pd.read_parquet(manifest), before)
    stamps = {p: (out / "syndor" / p).stat().st_mtime_ns for p in before["img_path"]}
    three = "syndor.lightings=[noon_north, night, evening_west]"
    stages = _build(out, [three])["benchmarks"]["syndor"]["stages"]
    render = stages["render"]
    index = pd.read_parquet(manifest)
    new = index[index["lighting"] == "evening_west"]
    assert (stages["discern"]["frames_computed"], stages["discern"]["frames_reused"]) == (len(new), len(before))
    assert render["shards_rendered"] == 2 and render["frames_rendered"] == len(new) == 2 * 2 * 2 * 2  # actions × cams
    assert render["frames_kept"] == len(before) and len(index) == len(before) * 3 // 2
    assert (render["changes"]["kept"], render["changes"]["render"], render["changes"]["leaving"]) == (
        len(before),
        len(new),
        0,
    )
    assert all((out / "syndor" / p).stat().st_mtime_ns == t for p, t in stamps.items())
    assert not index["img_path"].duplicated().any()
    scratch = tmp_path / "scratch"
    assert _build(scratch, [three])["benchmarks"]["syndor"]["status"] == "built"
    fresh = pd.read_parquet(scratch / "syndor" / "render" / "manifest.parquet")
    pd.testing.assert_frame_equal(fresh, index)
    for column in ("img_path", "mask_path"):
        for rel in index[column]:
            assert (scratch / "syndor" / rel).read_bytes() == (out / "syndor" / rel).read_bytes(), rel


def test_calibration_outside_tolerance_fails_the_build_before_discernibility(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A render stage whose far distance measures 5% short (no Blender: the stage is replaced):
    the syndor outcome fails naming the zone, discernibility does not run, the CLI exits 1."""
    manifest = tmp_path / "rendered.parquet"
    pd.DataFrame({"img_path": ["images/a.jpg"]}).to_parquet(manifest)
    mask = np.zeros((90, 160), bool)
    mask[10:80, 80] = True  # 70 px for 1.75 m: 40 px/m
    rows = pd.DataFrame(
        [
            {
                "zone": zone,
                "distance_m": d,
                "target_ppm": target,
                "target_height_px": target * 1.75,
                "body_height_m": 1.75,
                **calibration_stage.measure_ppm(mask, 1.75, target),
            }
            for zone, d, target in (("near", 6.3, 40.0), ("far", 10.1, 40.0 / 0.95))
        ]
    )

    @flow(name="syndor-render-fake")
    def fake_render(config: object, out: str) -> dict:
        return {
            "manifest": str(manifest),
            "shards": 1,
            "empty_scene_shards": 0,
            "shards_rendered": 1,
            "shards_failed": 0,
            "frames": 1,
            "frames_rendered": 1,
            "problems": [],
            "calibration": calibration_stage.calibration_summary(rows, "syndor/report/calibration.png"),
        }

    @flow(name="syndor-discern-must-not-run")
    def no_discern(*args: object) -> dict:
        raise AssertionError("discernibility ran after a failed calibration")

    monkeypatch.setattr(syndor, "render_flow", fake_render)
    monkeypatch.setattr(syndor, "discern_flow", no_discern)
    config = tmp_path / "c.yaml"
    config.write_text("seed: 0\nodi: {enabled: false}\nviewspatial: {enabled: false}\n")
    out = tmp_path / "out"
    assert cli.main(["build", str(config), "--out", str(out), "--only", "syndor"]) == 1
    outcome = json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]
    assert outcome["status"] == "failed" and "discern" not in outcome["stages"]
    assert f"far measured 40.00 vs target {40 / 0.95:.2f} px/m" in outcome["detail"]
    assert "near" not in outcome["detail"] and not outcome["calibration"]["passed"]
    assert outcome["stages"]["render"]["manifest"] == str(manifest)
    assert "syndor: failed (calibration outside" in capsys.readouterr().out


def test_failed_calibration_task_keeps_the_manifest_of_finished_shards_and_names_the_error(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No Blender: the render shard task writes two rows per shard and fails on the kicking shard, the
    calibration task raises. The render stage still writes the manifest of the finished shards and
    the build fails naming both, with each as a problem."""
    written: list[str] = []

    def fake_shard(out: str, plan: render_plan.ShardPlan, config: object) -> str:
        if plan.action == "kicking":
            raise RuntimeError(f"worker died on {plan.shard_id}")
        store = StageStore(out, "syndor", "render")
        paths = [f"{plan.shard_id}/{zone}.jpg" for zone in ("near", "far")]
        store.write_shard(
            plan.shard_id, pd.DataFrame({"img_path": paths, "zone": ["near", "far"]}), spec_hash=plan.spec_hash
        )
        written.extend(paths)
        return str(store.shard_path(plan.shard_id))

    def fake_calibrate(out: str, shard: str, config: object) -> str:
        raise RuntimeError("blender crashed while calibrating")

    @flow(name="syndor-discern-must-not-run")
    def no_discern(*args: object) -> dict:
        raise AssertionError("discernibility ran after a failed calibration")

    monkeypatch.setattr(render_stage, "render_task", shard_task(resource="render", name="fake-render")(fake_shard))
    monkeypatch.setattr(
        calibration_stage, "calibration_task", shard_task(resource="render", name="fake-calibration")(fake_calibrate)
    )
    monkeypatch.setattr(syndor, "discern_flow", no_discern)
    out = tmp_path / "out"
    record = _build(out)
    outcome = record["benchmarks"]["syndor"]
    assert outcome["status"] == "failed" and "discern" not in outcome["stages"]
    # TINY: 1 scene × 1 texture × 2 actions (each shard holds both lightings); the kicking shard fails
    assert "1 render shard(s) failed" in outcome["detail"]
    assert "calibration task failed: RuntimeError: blender crashed while calibrating" in outcome["detail"]
    manifest = pd.read_parquet(out / "syndor" / "render" / "manifest.parquet")
    assert len(written) == 2 and sorted(manifest["img_path"]) == sorted(written)
    assert manifest["measured_ppm"].isna().all() and not outcome["calibration"]["passed"]
    failed = {(p["stage"], p["item"]) for p in outcome["problems"] if p["kind"] == "failed"}
    assert ("calibration", "calibration") in failed
    assert {item for stage, item in failed if stage == "render"} == {"field_t00003_kicking_p000"}
    recorded = json.loads((out / "build.json").read_text())["benchmarks"]["syndor"]["problems"]
    assert any(p["stage"] == "calibration" and "blender crashed while calibrating" in p["reason"] for p in recorded)


@pytest.mark.parametrize(
    "frame, reason",
    [
        (pd.DataFrame({"zone": [], "measured_ppm": [], "within_tolerance": []}), "left no rows"),
        (pd.DataFrame({"zone": ["near"], "measured_ppm": [90.0]}), "['within_tolerance']"),
    ],
)
def test_calibration_rows_that_cannot_be_judged_fail_instead_of_passing(
    tmp_path: Path, frame: pd.DataFrame, reason: str
) -> None:
    """No rows would make `within_tolerance.all()` true: an empty or incomplete table is a failure."""
    path = tmp_path / "calibration.parquet"
    frame.to_parquet(path)

    class Finished:
        def result(self) -> str:
            return str(path)

    rows, error = syndor._calibration_rows(Finished())
    assert rows is None and reason in error
