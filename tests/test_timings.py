"""Where a build's time went: the task clock's slices in the markers, the stage windows of the collects, and
build.json's `timings` with the report's table."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest
from prefect import flow

from benchfoundry.configs.loader import load_config
from benchfoundry.core.store import StageStore
from benchfoundry.core.task_clock import add_render, current_clock, task_clock
from benchfoundry.core.timings import (
    StageWindow,
    benchmark_timings,
    build_cpu_seconds,
    format_table,
    marker_timings,
    time_table,
)
from benchfoundry.flows import build as build_module
from benchfoundry.flows.collect import collect_shards, recording_stages
from benchfoundry.pipeline.shard_task import shard_task


def _busy(seconds: float) -> float:
    """Spin for `seconds` of this thread's CPU time; returns the CPU time spent."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass
    return time.thread_time() - start


def test_each_marker_records_the_slice_since_the_previous_one(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    rows = pd.DataFrame([{"a": 1}])
    with task_clock():
        time.sleep(0.05)
        spent = _busy(0.05)
        add_render(frames=3, seconds=1.5, cpu_seconds=4.0)
        store.write_shard("one", rows)
        time.sleep(0.02)
        store.write_shard("two", rows)
    store.write_shard("three", rows)  # outside a task: no timing
    one, two = store.marker("one")["timing"], store.marker("two")["timing"]
    assert one["seconds"] >= 0.1 and one["cpu_seconds"] >= spent + 4.0
    assert (one["render_frames"], one["render_seconds"]) == (3, 1.5)
    assert (two["render_frames"], two["render_seconds"]) == (0, 0.0) and two["cpu_seconds"] < 4.0
    assert two["seconds"] >= 0.02 and two["start"] >= one["start"] + one["seconds"] - 1e-3
    assert "timing" not in store.marker("three") and current_clock() is None


def test_a_nested_clock_is_used_inside_and_the_outer_one_resumes() -> None:
    with task_clock() as outer:
        with task_clock() as inner:
            add_render(1, 1.0, 1.0)
            assert current_clock() is inner
        assert current_clock() is outer and outer.render_frames == 0 and inner.render_frames == 1


def test_markers_go_to_the_window_they_finished_in_and_the_rest_to_their_store() -> None:
    windows = [StageWindow("render", 10.0, 20.0, tasks=3, failed=1), StageWindow("features", 20.0, 26.0, tasks=2)]
    markers = [
        {"store": "render", "start": 9.0, "seconds": 4.0, "cpu_seconds": 8.0, "render_frames": 4, "render_seconds": 3},
        {"store": "calibration", "start": 10.0, "seconds": 2.0, "cpu_seconds": 1.0},
        {
            "store": "render",
            "start": 13.0,
            "seconds": 6.0,
            "cpu_seconds": 12.0,
            "render_frames": 4,
            "render_seconds": 5,
        },
        {"store": "features", "start": 20.5, "seconds": 5.0, "cpu_seconds": 5.0},
        {"store": "labels", "start": 27.0, "seconds": 2.0, "cpu_seconds": 2.0},
    ]
    record = benchmark_timings(5.0, 35.0, windows, markers)
    render, features, labels = (record["stages"][s] for s in ("render", "features", "labels"))
    # the render window reaches back to its first task, submitted a second before the collect began
    assert render["wall_s"] == 11.0 and render["tasks"] == 3 and render["failed"] == 1
    assert (render["shards"], render["cpu_s"], render["stores"]) == (3, 21.0, ["render", "calibration"])
    assert (render["render_frames"], render["render_s_per_frame"]) == (8, 1.0)
    assert (features["wall_s"], features["shards"], features["render_s_per_frame"]) == (6.0, 1, None)
    assert (labels["wall_s"], labels["tasks"], labels["cpu_s"]) == (2.0, None, 2.0)
    assert record["wall_s"] == 30.0 and record["other_s"] == 30.0 - 11.0 - 6.0 - 2.0
    # every marker's CPU counted once, whichever row it went to
    assert record["cpu_s"] == sum(m["cpu_seconds"] for m in markers)
    assert build_cpu_seconds({"a": record, "b": {"cpu_s": 2.5}}) == record["cpu_s"] + 2.5


def test_marker_timings_reads_this_builds_markers_only(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    with task_clock():
        store.write_shard("old", pd.DataFrame([{"a": 1}]))
    since = time.time()
    with task_clock():
        store.write_shard("new", pd.DataFrame([{"a": 1}]))
    (store.dir / "_done" / "broken.json").write_text("{")
    found = marker_timings(tmp_path, "bench", since)
    assert [t["store"] for t in found] == ["stage"] and found[0]["start"] >= since


def test_the_table_lists_every_stage_and_the_rest() -> None:
    timings = {
        "wall_s": 40.0,
        "benchmarks": {"bench": benchmark_timings(0.0, 30.0, [StageWindow("render", 1.0, 21.0, tasks=2)], [])},
    }
    rows = time_table(timings)
    assert [r[:3] for r in rows[1:]] == [
        ["bench", "(all)", "30.0"],
        ["", "render", "20.0"],
        ["", "other (planning, manifests, reports)", "10.0"],
        ["build", "(all)", "40.0"],
    ]
    assert rows[-1][4] == ""  # no build total recorded, none shown
    lines = format_table(rows).splitlines()
    assert len(lines) == len(rows) and lines[0].startswith("benchmark")


def test_a_shard_task_keeps_its_own_prefect_key_and_signature() -> None:
    @shard_task(resource="compute", name="first")
    def first(out: str, shard: str) -> str:
        return shard

    @shard_task(resource="compute", name="second")
    def second(out: str, shard: str) -> str:
        return out

    assert first.task_key != second.task_key
    assert first.fn("o", "s") == "s" and first.fn.__name__ == "first"


@shard_task(resource="render", name="bench-panorama")
def _unmarked_shard(out: str, shard: str, cpu_s: float) -> float:
    """A task that writes files outside a store (no marker), with a render worker's CPU seconds."""
    add_render(frames=1, seconds=2.0, cpu_seconds=3.0)
    return _busy(cpu_s)


def test_a_task_that_writes_no_marker_records_its_time_and_its_workers(tmp_path: Path) -> None:
    since = time.time()
    spent = _unmarked_shard.fn(str(tmp_path), "living_room", 0.05)
    _timed_shard.fn(str(tmp_path), "marked", 0.0)
    found = marker_timings(tmp_path, "bench", since) + marker_timings(tmp_path, "viewspatial", since)
    by_store = {t["store"]: t for t in found}
    assert sorted(by_store) == ["panorama", "work"]  # the marked task gets no clock record besides its marker
    record = by_store["panorama"]
    assert record["cpu_seconds"] >= spent + 3.0 - 0.01 and record["render_frames"] == 1 and record["start"] >= since
    assert (tmp_path / "bench" / "_clock" / "panorama" / "living_room.json").is_file()


def test_a_task_outside_a_build_writes_no_clock_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _unmarked_shard.fn("no-such-build", "living_room", 0.0)
    assert list(tmp_path.iterdir()) == []


@shard_task(resource="compute", name="timed-shard")
def _timed_shard(out: str, shard: str, cpu_s: float) -> float:
    time.sleep(0.05)
    spent = _busy(cpu_s)
    StageStore(out, "viewspatial", "work").write_shard(shard, pd.DataFrame([{"shard": shard}]))
    return spent


def test_build_json_records_seconds_per_stage(
    tmp_path: Path, prefect_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(None)

    @flow(name="timed")
    def _timed(config, out):  # type: ignore[no-untyped-def]
        with recording_stages() as windows:
            spent, _ = collect_shards("work", [(s, _timed_shard.submit(out, s, 0.05)) for s in ("a", "b", "c")])
        assert [w.stage for w in windows] == ["work"]
        return {"status": "built", "detail": json.dumps(spent), "stages": {}, "problems": []}

    monkeypatch.setattr("benchfoundry.benchmarks.viewspatial.flow.viewspatial_flow", _timed)
    record = build_module.build(config, str(tmp_path), ["viewspatial"])
    on_disk = json.loads((tmp_path / "build.json").read_text())
    assert on_disk["timings"] == record["timings"]
    bench = on_disk["timings"]["benchmarks"]["viewspatial"]
    work = bench["stages"]["work"]
    assert work["tasks"] == 3 and work["shards"] == 3 and work["stores"] == ["work"]
    assert work["wall_s"] >= 0.05 and work["task_s"] >= 3 * 0.05
    assert work["cpu_s"] >= sum(json.loads(on_disk["benchmarks"]["viewspatial"]["detail"])) - 0.01
    assert bench["wall_s"] >= work["wall_s"] and on_disk["timings"]["wall_s"] >= bench["wall_s"]
    assert on_disk["timings"]["cpu_s"] == bench["cpu_s"] == work["cpu_s"]  # the only stage of the only benchmark
    page = (tmp_path / "report" / "build.html").read_text()
    assert "<td>work</td>" in page and "Where the time went" in page
