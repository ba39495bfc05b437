"""bench/scale.py on a build that resumed an interrupted one: build.json counts only the last run's tasks, so the
stage rows are recounted from every run's completion markers; a build made in one run keeps build.json's rows."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("scale_bench", ROOT / "bench" / "scale.py")
scale_bench = importlib.util.module_from_spec(_spec)
sys.modules["scale_bench"] = scale_bench
_spec.loader.exec_module(scale_bench)

from benchfoundry.core.timings import marker_timings  # noqa: E402


def write_marker(root: Path, store: str, name: str, start: float, cpu: float, frames: int = 0) -> None:
    done = root / "syndor" / store / "_done"
    done.mkdir(parents=True, exist_ok=True)
    timing = {"start": start, "seconds": 1.0, "cpu_seconds": cpu, "render_frames": frames}
    (done / f"{name}.json").write_text(json.dumps({"timing": timing}))


def rows(recorded: dict[str, dict]) -> dict[str, dict]:
    return {
        n: {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "tasks": r["tasks"], "frames": r["render_frames"]}
        for n, r in recorded.items()
    }


@pytest.fixture
def build(tmp_path: Path) -> Path:
    # the first run rendered three shards and featured one, then stopped; the second featured two more
    for i, cpu in enumerate((3.0, 4.0, 5.0)):
        write_marker(tmp_path, "render", f"r{i}", start=100.0 + i, cpu=cpu, frames=2)
    write_marker(tmp_path, "calibration", "c0", start=99.0, cpu=0.5, frames=1)
    write_marker(tmp_path, "discern_features", "f0", start=110.0, cpu=1.5)
    for i, cpu in enumerate((2.0, 2.5)):
        write_marker(tmp_path, "discern_features", f"f{i + 1}", start=500.0 + i, cpu=cpu)
    return tmp_path


def test_a_resumed_build_counts_every_run(build: Path) -> None:
    recorded = {
        "render": {"wall_s": 0.1, "cpu_s": 0.0, "tasks": 0, "render_frames": 0, "shards": 0, "stores": []},
        "discern_features": {
            "wall_s": 9.0,
            "cpu_s": 4.5,
            "tasks": 2,
            "render_frames": 0,
            "shards": 2,
            "stores": ["discern_features"],
        },
    }
    stages = rows(recorded)
    assert scale_bench.count_earlier_runs(stages, recorded, marker_timings(build, "syndor", since=0.0))
    assert stages["render"]["cpu_s"] == pytest.approx(12.0) and stages["render"]["frames"] == 6
    assert stages["discern_features"]["cpu_s"] == pytest.approx(6.0)
    assert stages["calibration"] == {"wall_s": None, "tasks": None, "cpu_s": 0.5, "frames": 1}
    # the wall and task counts stay the last run's: they measure that run only
    assert stages["discern_features"]["tasks"] == 2


def test_a_build_made_in_one_run_keeps_its_record(build: Path) -> None:
    recorded = {
        "render": {"wall_s": 5.0, "cpu_s": 12.5, "tasks": 4, "render_frames": 7, "shards": 4, "stores": ["render"]},
        "discern_features": {
            "wall_s": 9.0,
            "cpu_s": 6.0,
            "tasks": 3,
            "render_frames": 0,
            "shards": 3,
            "stores": ["discern_features"],
        },
    }
    stages = rows(recorded)
    before = json.loads(json.dumps(stages))
    assert not scale_bench.count_earlier_runs(stages, recorded, marker_timings(build, "syndor", since=0.0))
    assert stages == before


def run(fraction: float, items: int, cpu_s: float, frames: int, render_cpu_s: float) -> dict:
    stages = {"render": {"cpu_s": render_cpu_s, "frames": frames}, "qa": {"cpu_s": cpu_s - render_cpu_s, "frames": 0}}
    return {"fraction": fraction, "items": items, "cpu_s": cpu_s, "frames": frames, "stages": stages}


def test_the_table_keeps_rows_of_benchmarks_not_measured_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale_bench, "full_items", lambda benchmark: 1000)
    table = tmp_path / "cost.md"
    scale_bench.write_table(table, {"syndor": [run(0.1, 100, 50.0, 10, 20.0)], "odi": [run(0.1, 200, 80.0, 4, 8.0)]})
    first = table.read_text()
    scale_bench.write_table(table, {"odi": [run(0.01, 20, 4.0, 1, 1.0), run(0.3, 300, 150.0, 6, 12.0)]})
    second = scale_bench.earlier_rows(table.read_text())
    assert second["syndor"] == scale_bench.earlier_rows(first)["syndor"]
    cells = [c.strip() for c in second["odi"].strip("|").split("|")]
    # measured at the largest fraction: 150 CPU s over 300 items, 12 render CPU s over 6 frames, 1000 items in all
    assert cells[1].startswith("0.3 (300 items)")
    assert float(cells[2]) == pytest.approx(0.5)
    assert float(cells[3]) == pytest.approx(2.0)
    assert float(cells[5]) == pytest.approx(round(0.5 * 1000 / 3600, 1))
    assert list(second) == ["syndor", "odi"]


def run_of(fraction: float, items: int, stages: dict[str, float]) -> dict:
    return {
        "fraction": fraction,
        "items": items,
        "cpu_s": sum(stages.values()),
        "stages": {name: {"cpu_s": cpu} for name, cpu in stages.items()},
    }


def test_a_stage_growing_per_item_is_a_defect_unless_it_is_a_sliver_of_the_build() -> None:
    """The COCO stage's 0.28 CPU s at 1 % grew 1.28x per item to 0.5 % of the build at 100 %: noise, not a defect;
    the same growth in a stage that is a tenth of the build is one."""
    small = run_of(0.01, 100, {"render": 100.0, "coco": 0.28, "qa": 10.0})
    large = run_of(1.0, 10_000, {"render": 10_000.0, "coco": 0.28 * 100 * 1.28, "qa": 10.0 * 100 * 1.28})
    rows = {row["stage"]: row for row in scale_bench.stage_rows([large, small])}
    assert rows["coco"]["ratio"] == pytest.approx(1.28) and rows["qa"]["ratio"] == pytest.approx(1.28)
    assert rows["coco"]["share"] == pytest.approx(35.84 / large["cpu_s"])
    assert rows["coco"]["share"] < scale_bench.MIN_FLAGGED_SHARE <= rows["qa"]["share"]
    assert not rows["coco"]["defect"] and rows["qa"]["defect"] and not rows["render"]["defect"]
    assert rows["render"]["exponent"] == pytest.approx(1.0)
