"""The person detector on SynDORBench's frames, and the labels it drives, in two builds of one config.

OpenCV's HOG people detector (benchmarks/syndor/stages/observer.py, `detector_seen`) runs on every frame and on its
night-vision image in the discern stage; the simulated observer's labels follow it. This bench reads two finished
builds of the same config and seed that differ in one thing (e.g. the people's textures: one build made in a git
worktree whose person/anny_texture.py is an earlier revision's, `git show REV:person/anny_texture.py`, with
person/textures.TEXTURE_VERSION changed) and prints, for each, the detector's find rate on the frames with a person
(raw and night vision, by time of day), the labels' balance (`human_discernable`, `human_discernable_nv`) and,
frame by frame, how the labels moved from the first build to the second.

    .venv/bin/python bench/person_detection.py BEFORE_BUILD AFTER_BUILD [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.benchmarks.syndor.scenes.lighting import family
from benchfoundry.benchmarks.syndor.stages.label_stage import NV_LABEL_COLUMN, STAGE
from benchfoundry.core.store import StageStore

KEY = "img_path"
LABELS = {"raw": "human_discernable", "nv": NV_LABEL_COLUMN}


def labelled_frames(build: Path) -> pd.DataFrame:
    """The labelled index of a build's SynDORBench frames with a person (empty scenes left out), by image path."""
    rows = StageStore(build, "syndor", STAGE).shard_rows("labels")
    rows = rows[~rows["empty_scene"].astype(bool)].copy()
    rows["light"] = [family(name) for name in rows["lighting"]]
    return rows.set_index(KEY).sort_index()


def detector_rates(rows: pd.DataFrame) -> dict[str, Any]:
    """The HOG detector's find rate on the raw frames and the night-vision images, in all and by time of day."""
    rates: dict[str, Any] = {}
    for variant in LABELS:
        seen = rows[f"{variant}_detector_seen"].dropna()
        groups = rows.loc[seen.index, "light"]
        rates[variant] = {
            "images": int(len(seen)),
            "found": int(seen.sum()),
            "by_lighting": {g: [int(s.sum()), int(len(s))] for g, s in seen.groupby(groups)},
        }
    return rates


def label_balance(rows: pd.DataFrame) -> dict[str, dict[str, int]]:
    """How many images of each variant are labelled discernible (1) and not (0)."""
    return {
        variant: {str(k): int(v) for k, v in rows[column].dropna().astype(int).value_counts().sort_index().items()}
        for variant, column in LABELS.items()
    }


def label_moves(before: pd.DataFrame, after: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per variant, how the labels of the frames both builds hold moved: "0→1", "1→0" and unchanged counts."""
    shared = before.index.intersection(after.index)
    moves: dict[str, dict[str, int]] = {}
    for variant, column in LABELS.items():
        a, b = before.loc[shared, column], after.loc[shared, column]
        both = a.notna() & b.notna()
        pairs = pd.Series([f"{int(x)}→{int(y)}" for x, y in zip(a[both], b[both])], dtype=str)
        moves[variant] = {k: int(v) for k, v in pairs.value_counts().sort_index().items()}
    return moves


def _rate(found: int, images: int) -> str:
    return f"{found}/{images} = {found / max(images, 1):.0%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the first build's folder (its syndor/ inside)")
    parser.add_argument("after", type=Path, help="the second build's folder")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    builds = {"before": labelled_frames(args.before), "after": labelled_frames(args.after)}
    if sorted(builds["before"].index) != sorted(builds["after"].index):
        print("warning: the builds hold different frames; the moves count the frames both hold", file=sys.stderr)
    figures: dict[str, Any] = {}
    for name, rows in builds.items():
        rates, balance = detector_rates(rows), label_balance(rows)
        figures[name] = {"frames": int(len(rows)), "detector": rates, "labels": balance}
        print(f"{name}: {len(rows)} frames with a person")
        for variant, r in rates.items():
            groups = "  ".join(f"{g} {_rate(*fi)}" for g, fi in r["by_lighting"].items())
            print(f"  HOG finds ({variant}): {_rate(r['found'], r['images'])}   {groups}")
            print(f"  labels ({variant}): " + ", ".join(f"{k}: {v}" for k, v in balance[variant].items()))
    figures["moves"] = label_moves(builds["before"], builds["after"])
    for variant, moved in figures["moves"].items():
        print(f"labels moved ({variant}): " + ", ".join(f"{k} {v}" for k, v in moved.items()))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
