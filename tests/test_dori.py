"""DORI distances against the paper's numbers and an independent form of the pinhole model."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from benchfoundry.benchmarks.syndor.scenes import dori


def _distance_via_fov(h_res: int, focal_mm: float, sensor_mm: float, ppm: float) -> float:
    """D = h_res / (PPM · 2·tan(vfov/2)), the FOV form of docs/design/syndor.md §1, computed from scratch."""
    half = math.atan(sensor_mm / (2 * focal_mm))
    return h_res / (ppm * 2 * math.tan(half))


def test_zone_midpoints_lie_between_thresholds() -> None:
    t = dori.THRESHOLDS_PPM
    assert dori.ZONE_MIDPOINTS_PPM == {
        "recognition-identification": (t["recognition"] + t["identification"]) / 2,
        "observation-recognition": (t["observation"] + t["recognition"]) / 2,
        "detection-observation": (t["detection"] + t["observation"]) / 2,
    }
    assert sorted(dori.ZONE_MIDPOINTS_PPM.values()) == [43.75, 93.75, 187.5]


def test_paper_preset_gives_paper_distances() -> None:
    rows = dori.zone_table(dori.PRESETS["paper"])
    assert [round(r["distance_m"], 1) for r in rows] == [5.4, 10.8, 23.0]


def test_real_sensor_preset_matches_design_numbers() -> None:
    rows = dori.zone_table(dori.PRESETS["ipc-1-2.8in"])
    assert [round(r["distance_m"], 2) for r in rows] == pytest.approx([5.15, 10.31, 22.08], abs=0.01)


@pytest.mark.parametrize("h_res,focal,sensor", [(1080, 2.8, 3.0), (270, 2.8, 3.0), (2160, 6.0, 4.8), (480, 4.0, 2.2)])
@pytest.mark.parametrize("ppm", [25.0, 43.75, 93.75, 187.5, 250.0])
def test_distance_agrees_with_fov_form(h_res: int, focal: float, sensor: float, ppm: float) -> None:
    cam = dori.DoriOptics(h_res, focal, sensor)
    assert dori.distance_for_ppm(ppm, cam) == pytest.approx(_distance_via_fov(h_res, focal, sensor, ppm), rel=1e-12)
    assert dori.ppm_at_distance(dori.distance_for_ppm(ppm, cam), cam) == pytest.approx(ppm, rel=1e-12)


def test_vertical_fov_of_paper_camera() -> None:
    assert dori.vertical_fov_deg(2.8, 3.0) == pytest.approx(math.degrees(2 * math.atan(1.5 / 2.8)))


def test_nonpositive_camera_spec_is_rejected() -> None:
    with pytest.raises(ValueError, match="focal_mm"):
        dori.DoriOptics(1080, 0.0, 3.0)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchfoundry.cli.main", *args], capture_output=True, text=True)


def test_cli_json_paper_preset() -> None:
    result = _cli("dori", "--preset", "paper", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["ppm"] for r in rows] == [187.5, 93.75, 43.75]
    assert [round(r["distance_m"], 1) for r in rows] == [5.4, 10.8, 23.0]
    assert set(rows[0]) == {"zone", "ppm", "distance_m", "vfov_deg"}


def test_cli_explicit_camera_spec() -> None:
    result = _cli("dori", "--resolution", "720", "--focal-mm", "4", "--sensor-height-mm", "2.4", "--json")
    assert result.returncode == 0, result.stderr
    for row in json.loads(result.stdout):
        assert row["distance_m"] == pytest.approx(_distance_via_fov(720, 4.0, 2.4, row["ppm"]))
        assert row["vfov_deg"] == pytest.approx(math.degrees(2 * math.atan(1.2 / 4.0)))


@pytest.mark.parametrize("flag", ["--resolution", "--focal-mm", "--sensor-height-mm"])
def test_cli_rejects_a_zero_value_instead_of_using_the_preset(flag: str) -> None:
    result = _cli("dori", flag, "0", "--json")
    assert result.returncode == 2
    assert "must be positive" in result.stderr and not result.stdout
