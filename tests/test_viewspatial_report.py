"""The ViewSpatial report page's frames-per-item histogram, on a hand-made released file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.release.report_page import (
    RELEASE_SCENE_SIM_FRAMES,
    frames_histogram,
    write_report_page,
)


def test_histogram_bins_count_every_item_once() -> None:
    counts = {1: 2, 2: 3, 4: 1, 5: 1, 16: 2, 17: 1, 40: 1}
    bins = dict(frames_histogram(counts))
    assert bins == {"1": 2, "2": 3, "3–4": 1, "5–8": 1, "9–16": 2, "17–32": 1, "33+": 1}
    assert sum(n for _, n in frames_histogram(RELEASE_SCENE_SIM_FRAMES)) == sum(RELEASE_SCENE_SIM_FRAMES.values())


def test_the_page_shows_our_frames_per_item_beside_the_release(tmp_path: Path) -> None:
    sim = CATEGORIES["Per-Sce. Sim."]
    records = [
        {
            "question_type": sim,
            "image_path": [f"i/{k}.jpg" for k in range(n)],
            "question": "q",
            "answer": "A. left",
            "choices": "A. left\nB. right",
        }
        for n in (2, 2, 3, 7)
    ]
    (tmp_path / "viewspatial").mkdir()
    (tmp_path / "viewspatial" / "ViewSpatial-Bench.json").write_text(json.dumps(records))
    page = write_report_page(tmp_path, seed=0).read_text()
    assert "Frames per Per-Sce. Sim. item" in page
    assert "this build: 4 items, median 2.5" in page
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td>(\d+)</td><td>\d+</td></tr>", page))
    assert rows["2"] == "2" and rows["3–4"] == "1" and rows["5–8"] == "1" and rows["1"] == "0"
