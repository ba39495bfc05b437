"""bench/render_quality.py's measures: how far a setting's discernibility values are from the reference's, and
which setting it chooses (the cheapest as close as before on every measure)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # as the benches run: beside bench_table
rq = importlib.import_module("render_quality")


def _values(base: float, seen: float, night: bool) -> dict[str, float]:
    """One image's values: every feature `base` (index added so features differ), the observer's verdict `seen`;
    the night-vision values NaN for a day frame, as the discern stage gives them."""
    out = {}
    for image in ("raw", "nv"):
        for i, feature in enumerate(rq.FEATURES):
            out[f"{image}_{feature}"] = base + i if image == "raw" or night else math.nan
        out[f"{image}_detector_seen"] = seen if image == "raw" or night else math.nan
    return out


def test_drift_is_the_largest_mean_change_over_the_images_that_have_the_feature() -> None:
    reference = [_values(0.0, 1.0, night=False), _values(0.0, 1.0, night=True), _values(0.0, 0.0, night=True)]
    got = [dict(v) for v in reference]
    got[0]["raw_edge_iou"] += 0.3  # raw edge IoU: changes 0.3, 0, 0 → mean 0.1
    got[1]["nv_sw_chroma"] -= 0.5  # night-vision chroma: two images have it, changes 0.5, 0.1 → mean 0.3
    got[2]["nv_sw_chroma"] += 0.1
    got[0]["nv_sw_chroma"] = 99.0  # a day frame's night-vision value is not the reference's: never counted
    got[1]["raw_detector_seen"] = 0.0  # one verdict changed
    got[0]["nv_detector_seen"] = 0.0  # a day frame has no night-vision verdict: not counted
    d = rq.drift(got, reference)
    assert d["largest_feature"] == "nv_sw_chroma"
    assert math.isclose(d["feature_change"], 0.3)
    assert d["verdicts_changed"] == 1
    assert d["verdicts"] == 5  # three frames, two night-vision images


def test_the_chosen_setting_is_the_cheapest_not_further_on_any_measure() -> None:
    before, cheap, cheaper, cheapest = (
        rq.Setting(16, False),
        rq.Setting(4, True),
        rq.Setting(2, True),
        rq.Setting(1, True),
    )
    rows = [
        {"setting": before, "cpu_s": 10.0, "psnr": 40.0, "ssim": 0.9, "feature_change": 0.3, "verdicts_changed": 2},
        {"setting": cheap, "cpu_s": 5.0, "psnr": 45.0, "ssim": 0.95, "feature_change": 0.3, "verdicts_changed": 2},
        {"setting": cheaper, "cpu_s": 3.0, "psnr": 46.0, "ssim": 0.96, "feature_change": 0.2, "verdicts_changed": 3},
        {"setting": cheapest, "cpu_s": 2.0, "psnr": 39.0, "ssim": 0.99, "feature_change": 0.1, "verdicts_changed": 0},
    ]
    assert rq.choose(rows, before)["setting"] == cheap  # cheaper changes a verdict more, cheapest loses PSNR
    rows[1]["feature_change"] = 0.31
    assert rq.choose(rows, before)["setting"] == before  # nothing else is as close: before is kept
