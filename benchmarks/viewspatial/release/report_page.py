"""The ViewSpatial section of the build report, `OUT/report/viewspatial.html`: per scan its selected frames
and coverage, item counts per task (the paper's short names) and split, the frames per Per-Sce. Sim. item
beside the release's, a few released items with their image, question, options and answer, and per COCO
split the people kept and rejected and, on the synthetic set, the orientation accuracies against the truth,
overall and per framing. Images are linked from the benchmark's folder, not copied; the page is in the report's one
stylesheet (pipeline/report_style.py)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES, SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.config import FRAMINGS, SECOND_FRAMING
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.release import BENCHMARK_JSON, all_rows
from benchfoundry.core.seeding import item_rng
from benchfoundry.core.store import StageStore
from benchfoundry.pipeline.report_style import write_page

FRAMING_ORDER = (*FRAMINGS, SECOND_FRAMING)
PAGE = "viewspatial.html"
EXAMPLES_PER_TASK = 2
FRAMES_SHOWN = 8
#: Frames per Per-Sce. Sim. item in the authors' ViewSpatial-Bench.json (1,105 items; frames → items).
RELEASE_SCENE_SIM_FRAMES: dict[int, int] = {
    2: 89, 3: 51, 4: 52, 5: 65, 6: 57, 7: 58, 8: 53, 9: 67, 10: 46, 11: 68, 12: 42, 13: 41, 14: 38, 15: 51,
    16: 27, 17: 37, 18: 39, 19: 33, 20: 24, 21: 32, 22: 18, 23: 28, 24: 20, 25: 11, 26: 20, 27: 10, 28: 9,
    29: 8, 30: 6, 32: 5,
}  # fmt: skip
#: Bins of the frames-per-item histogram: (label, least, most).
FRAME_BINS = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 10**9))


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _scans(out: Path) -> list[str]:
    store = StageStore(out, BENCHMARK, "frames")
    parts = ["<h2>Scans: selected frames</h2>"]
    for scene in store.done_shards():
        marker = store.marker(scene) or {}
        frames = store.shard_rows(scene).sort_values("order")["frame_id"].tolist()
        parts.append(
            f"<h3>{_esc(scene)}</h3><p>{len(frames)} frames selected, coverage "
            f"{float(marker.get('coverage', 0.0)):.1%} of the scene's voxels</p><div>"
        )
        parts += [
            f"<img src='../{BENCHMARK}/images/{_esc(scene)}/{int(f)}.jpg' width='160' alt='frame {int(f)}'>"
            for f in frames[:FRAMES_SHOWN]
        ]
        parts.append("</div>")
    return parts


def _counts(out: Path) -> list[str]:
    rows = all_rows(str(out))
    if not len(rows):
        return ["<h2>Items</h2><p>none</p>"]
    counts = rows.groupby(["question_type", "split"]).size().unstack(fill_value=0)
    counts = counts.reindex([t for t in CATEGORIES.values() if t in counts.index])
    head = "".join(f"<th>{_esc(s)}</th>" for s in counts.columns)
    body = "".join(
        f"<tr><td>{_esc(SHORT_NAMES.get(t, t))}</td>" + "".join(f"<td>{int(n)}</td>" for n in r) + "</tr>"
        for t, r in counts.iterrows()
    )
    return [
        "<h2>Items per task and split (before review and the budgets)</h2>",
        f"<table><tr><th>task</th>{head}</tr>{body}</table>",
    ] + _released(out)


def _released(out: Path) -> list[str]:
    path = out / BENCHMARK / BENCHMARK_JSON
    records = json.loads(path.read_text()) if path.is_file() else []
    if not records:
        return []
    counts = {t: sum(r["question_type"] == t for r in records) for t in CATEGORIES.values()}
    camera = counts[CATEGORIES["Cam-Rel. Dir."]] + counts[CATEGORIES["Cam-Obj. Ori."]]
    listed = ", ".join(f"{_esc(SHORT_NAMES[t])} {n}" for t, n in counts.items())
    return [
        f"<p>Released in {BENCHMARK_JSON}: {len(records)} items ({listed}); camera perspective "
        f"{camera / len(records):.1%}, person perspective {1 - camera / len(records):.1%}</p>"
    ]


def frames_histogram(frames_per_item: dict[int, int]) -> list[tuple[str, int]]:
    """(bin label, items) of a frames → items count, over FRAME_BINS."""
    return [
        (
            str(lo) if lo == hi else f"{lo}+" if hi > 32 else f"{lo}–{hi}",
            sum(n for k, n in frames_per_item.items() if lo <= k <= hi),
        )
        for lo, hi in FRAME_BINS
    ]


def _median(frames_per_item: dict[int, int]) -> float:
    values = sorted(k for k, n in frames_per_item.items() for _ in range(n))
    mid = len(values) // 2
    return float(values[mid]) if len(values) % 2 else (values[mid - 1] + values[mid]) / 2.0


def _scene_sim_frames(out: Path) -> list[str]:
    path = out / BENCHMARK / BENCHMARK_JSON
    records = json.loads(path.read_text()) if path.is_file() else []
    ours: dict[int, int] = {}
    for r in records:
        if r["question_type"] == CATEGORIES["Per-Sce. Sim."]:
            ours[len(r["image_path"])] = ours.get(len(r["image_path"]), 0) + 1
    if not ours:
        return []
    theirs = RELEASE_SCENE_SIM_FRAMES
    rows = "".join(
        f"<tr><td>{_esc(label)}</td><td>{n}</td><td>{m}</td></tr>"
        for (label, n), (_, m) in zip(frames_histogram(ours), frames_histogram(theirs))
    )
    return [
        "<h2>Frames per Per-Sce. Sim. item</h2>",
        f"<p>this build: {sum(ours.values())} items, median {_median(ours):g}; the release: "
        f"{sum(theirs.values())} items, median {_median(theirs):g}</p>",
        f"<table><tr><th>frames</th><th>this build</th><th>the release</th></tr>{rows}</table>",
    ]


def _examples(out: Path, seed: int) -> list[str]:
    path = out / BENCHMARK / BENCHMARK_JSON
    records = json.loads(path.read_text()) if path.is_file() else []
    parts = ["<h2>Example items (ViewSpatial-Bench.json)</h2>"]
    for task in [t for t in CATEGORIES.values() if any(r["question_type"] == t for r in records)]:
        of_task = [r for r in records if r["question_type"] == task]
        picks = item_rng(seed, "viewspatial.report", task).permutation(len(of_task))[:EXAMPLES_PER_TASK]
        for r in (of_task[i] for i in sorted(picks)):
            images = "".join(
                f"<img src='../{BENCHMARK}/{_esc(p)}' width='200' alt='{_esc(p)}'>" for p in r["image_path"]
            )
            choices = "<br>".join(_esc(c) for c in r["choices"].split("\n"))
            parts.append(
                f"<div class='example'><b>{_esc(SHORT_NAMES[task])}</b> ({_esc(task)})<br>{images}"
                f"<br>{_esc(r['question'])}<br>{choices}<br>answer: <b>{_esc(r['answer'])}</b></div>"
            )
    return parts


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _coco(out: Path) -> list[str]:
    store = StageStore(out, BENCHMARK, "coco")
    parts = ["<h2>COCO person orientation</h2>"]
    for split in store.done_shards():
        m = store.marker(split) or {}
        rejected = ", ".join(f"{_esc(k)}: {v}" for k, v in sorted(m.get("rejected", {}).items())) or "none"
        parts.append(
            f"<h3>{_esc(split)}</h3><p>{m.get('kept', 0)} of {m.get('people', 0)} people kept; "
            f"rejected by reason: {rejected}</p>"
        )
        acc = m.get("accuracy")
        if acc:
            parts.append(
                "<p>Against the synthetic truth (kept people): facing (8 bins) "
                f"{_share(acc['facing_accuracy'])}, head turn (5 bins) {_share(acc['head_turn_accuracy'])} "
                f"over {acc['kept']} people</p>"
            )
            rows = "".join(
                f"<tr><td>{_esc(framing)}</td><td>{a['people']}</td><td>{a['kept']}</td>"
                f"<td>{_share(a['facing_accuracy'])}</td><td>{_share(a['head_turn_accuracy'])}</td></tr>"
                for framing, a in sorted(acc.get("per_framing", {}).items(), key=lambda kv: FRAMING_ORDER.index(kv[0]))
            )
            parts.append(
                "<table><tr><th>framing</th><th>people</th><th>kept</th>"
                f"<th>facing</th><th>head turn</th></tr>{rows}</table>"
            )
    return parts


def write_report_page(out: str | Path, seed: int) -> Path:
    """Write `report/viewspatial.html` from the build's stores and released file; returns its path."""
    root = Path(out)
    parts = ["<h1>ViewSpatial-Bench</h1>"]
    parts += _counts(root) + _scene_sim_frames(root) + _coco(root) + _scans(root) + _examples(root, seed)
    return write_page(root / "report", PAGE, "ViewSpatial-Bench build report", "\n".join(parts))
