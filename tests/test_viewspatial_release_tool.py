"""bench/viewspatial_release.py: Per-Sce. Sim.'s frames per item are compared over the histogram's bins (a tenth of
the release drawn from it lies about 0.18 from it frame by frame, its 30 values thinly filled), and the table's
row shows that distance."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("viewspatial_release", ROOT / "bench" / "viewspatial_release.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

SCENE_SIM = "Person perspective - Scene Simulation Relative Direction"


def _items(frames: dict[int, int]) -> list[dict]:
    return [
        {
            "question_type": SCENE_SIM,
            "image_path": [f"{k}.jpg" for k in range(n_frames)],
            "question": "If you stand at bed facing sofa, where is lamp?",
            "answer": "A. front",
            "choices": "A. front\nB. back\nC. left\nD. right",
        }
        for n_frames, n in frames.items()
        for _ in range(n)
    ]


def test_frames_are_compared_over_the_histograms_bins() -> None:
    assert tool.frames_tv(Counter({9: 10}), Counter({16: 10})) == 0.0  # one bin, 9–16
    assert tool.frames_tv(Counter({2: 5}), Counter({17: 5})) == 1.0
    assert tool.frames_tv(Counter({3: 1, 9: 1}), Counter({4: 1, 33: 1})) == 0.5  # 3–4 shared; 9–16 against 33+


def test_the_tables_scene_simulation_row_shows_the_binned_distance() -> None:
    row = next(r for r in tool.table(_items({5: 4, 12: 4}), _items({8: 4, 20: 4})).splitlines() if "Per-Sce" in r)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "8 / 8" and cells[2] == "0.000" and cells[5] == "0.500"  # 9–16 against 17–32


CAM_OBJ = "Camera perspective - Object View Orientation"


def _subjects(subjects: list[str]) -> list[dict]:
    return [
        {
            "question_type": CAM_OBJ,
            "image_path": ["a.jpg"],
            "question": f"Taking the camera's viewpoint as the front, which way is {s} facing in the image?",
            "answer": "A. back",
            "choices": "A. back\nB. front\nC. left\nD. right",
        }
        for s in subjects
    ]


def test_people_are_compared_with_the_animals_left_out() -> None:
    """The synthetic world has no animals: the people lines and columns give the person subjects' naming among
    people alone, and the animals' share apart."""
    ours = _subjects(["the man in white", "the man on the left", "the man", "the woman"])
    theirs = _subjects(["the bear", "the man in black clothes", "the woman", "the dog", "the girl on the right"])
    text = tool.compare(ours, theirs, 1)
    assert "people    ours:   described 25%, plain 50%, by position 25% (animals: none)" in text
    assert "theirs: described 33%, plain 33%, by position 33% (animals: 2 of 5, left out)" in text
    row = next(r for r in tool.table(ours, theirs).splitlines() if r.startswith("| Cam-Obj"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4] == "25% / 20%"  # described among every subject, animals counted
    assert cells[7:] == ["25% / 33%", "25% / 33%", "0% / 40%"]
