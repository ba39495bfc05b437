"""The SynDORBench build report: one static `OUT/report/syndor.html` with its plots and thumbnails, in the
report's one stylesheet (pipeline/report_style.py).

It reads only files of the build (the QA index, the render calibration plot, the discernibility
report, score files in `report/scores/`), so `benchfoundry score syndor` can re-render it.
Every link is relative and points at a file that exists.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release.release import read_jsonl
from benchfoundry.benchmarks.syndor.scenes.lighting import lighting, lighting_group
from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.seeding import item_rng
from benchfoundry.pipeline.report_style import write_page

SPLITS = ("day", "night", "nv")
#: The page, relative to `OUT/report/` (the descriptor's `report_page`).
PAGE = "syndor.html"
#: Beside the page: the dataset-relative images the report could not read (a JSON list, sorted).
UNREADABLE_JSON = "unreadable_images.json"
FACTORS = ("radius", "azimuth", "elevation", "lighting", "scene", "action", "smplx_texture", "pose")
_VIEW = re.compile(r"phi(?P<azimuth>-?\d+(?:\.\d+)?)_theta(?P<elevation>-?\d+(?:\.\d+)?)")
_POSE = re.compile(r"/(?P<pose>pose\d+)/")


def report_dir(out: str | os.PathLike[str]) -> Path:
    return Path(out) / "report"


def unreadable_path(out: str | os.PathLike[str]) -> Path:
    """Where `write_report` lists the images it could not read for thumbnails (dataset-relative paths)."""
    return report_dir(out) / UNREADABLE_JSON


def report_problems(out: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The last report's unreadable thumbnail images as build problems (stage `report`)."""
    path = unreadable_path(out)
    try:
        images = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    root = Path(out) / "syndor"
    return (
        [
            problem("report", str(image), "image unreadable: no thumbnail in the report", path=str(root / str(image)))
            for image in images
        ]
        if isinstance(images, list)
        else []
    )


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(
        f'<th class="l">{html.escape(h)}</th>' if i == 0 else f"<th>{html.escape(h)}</th>" for i, h in enumerate(header)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="l">{html.escape(_fmt(v))}</td>' if i == 0 else f"<td>{html.escape(_fmt(v))}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _img(src: str, alt: str, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ""
    return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}"{size}>'


def factor_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Frames per value of every factor; azimuth and elevation are read from the released file name, pose (within
    its action: `action/poseNNN`) from the image path."""
    counts: dict[str, Counter[str]] = {f: Counter() for f in FACTORS}
    for row in rows:
        for factor in ("radius", "lighting", "scene", "action", "smplx_texture"):
            counts[factor][_fmt(row[factor])] += 1
        view = _VIEW.search(row.get("img_name") or row["img_path"])
        if view:
            counts["azimuth"][view["azimuth"]] += 1
            counts["elevation"][view["elevation"]] += 1
        pose = _POSE.search(row["img_path"])
        if pose:
            counts["pose"][f"{row['action']}/{pose['pose']}"] += 1
    return {f: c for f, c in counts.items() if c}


def balance_rows(counts: dict[str, Counter[str]]) -> list[tuple[Any, ...]]:
    """Per factor: levels, the fewest and most frames of a level and their difference (pose: within each action)."""
    rows = []
    for factor, counter in counts.items():
        spread = max(counter.values()) - min(counter.values())
        if factor == "pose":
            by_action: dict[str, list[int]] = {}
            for key, n in counter.items():
                by_action.setdefault(key.split("/")[0], []).append(n)
            spread = max(max(v) - min(v) for v in by_action.values())
        rows.append((factor, len(counter), min(counter.values()), max(counter.values()), spread))
    return rows


def _natural(value: str) -> tuple[int, float, str]:
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def _pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (imported on first use: the report may draw nothing)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save_figure(fig: Any, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=80, metadata={"Software": None})
    _pyplot().close(fig)


def plot_counts(counts: dict[str, Counter[str]], path: Path) -> Path:
    plt = _pyplot()
    cols = min(4, len(counts))
    rows = -(-len(counts) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3 * rows), squeeze=False)
    for ax in axes.flat[len(counts) :]:
        ax.set_visible(False)
    for ax, (factor, counter) in zip(axes.flat, counts.items()):
        keys = sorted(counter, key=_natural)
        ax.bar(range(len(keys)), [counter[k] for k in keys], color="#4477aa")
        ax.set_xticks(range(len(keys)), keys, rotation=60, ha="right", fontsize=7)
        ax.set_title(factor, fontsize=9)
    fig.tight_layout()
    _save_figure(fig, path)
    return path


def plot_balance(balance: dict[str, Any], path: Path) -> Path:
    plt = _pyplot()
    cells = balance["per_distance_split"]
    labels = [f"{c['radius']:g} m {c['split']}" for c in cells]
    fig, ax = plt.subplots(figsize=(max(4, 0.6 * len(cells) + 2), 3))
    ones = [c["1"] for c in cells]
    ax.bar(range(len(cells)), ones, color="#228833", label="1 (person visible)")
    ax.bar(range(len(cells)), [c["0"] for c in cells], bottom=ones, color="#aa3377", label="0")
    ax.set_xticks(range(len(cells)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("answers")
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save_figure(fig, path)
    return path


def plot_presence(groups: Sequence[dict[str, Any]], threshold: float, path: Path) -> Path:
    """Accuracy against distance, one line per split, with the deployability threshold."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3))
    for split in SPLITS:
        cells = sorted((g["distance"], g["accuracy"]) for g in groups if g["split"] == split and g["distance"] != "all")
        if cells:
            ax.plot([c[0] for c in cells], [c[1] for c in cells], marker="o", label=split)
    ax.axhline(threshold, color="grey", linestyle="--", linewidth=1, label=f"{threshold:.0%}")
    ax.set_xlabel("distance (m)")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save_figure(fig, path)
    return path


def thumbnail(src: Path, thumbs: Path, px: int, rel: str) -> Path | None:
    """A JPEG thumbnail of `src` in `thumbs/`, named by its dataset-relative path `rel` and its
    content (the same build gives the same names wherever it lies); None when unreadable (decoded by the
    guarded decoder)."""
    import cv2
    from PIL import Image

    digest = hashlib.blake2b(src.read_bytes(), digest_size=10)
    digest.update(f"|{rel}|{px}".encode())
    name = digest.hexdigest() + ".jpg"
    target = thumbs / name
    if target.exists():
        return target
    try:
        small = Image.fromarray(cv2.cvtColor(decode_file(src, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB))
    except ValueError:
        return None
    small.thumbnail((px, px))
    with atomic_path(target) as tmp:
        small.save(tmp, format="JPEG", quality=85)
    return target


def _sample(rows: Sequence[dict[str, Any]], k: int, seed: int, item: str) -> list[dict[str, Any]]:
    if len(rows) <= k:
        return list(rows)
    picks = sorted(item_rng(seed, "report", item).choice(len(rows), size=k, replace=False))
    return [rows[i] for i in picks]


class _Page:
    """Collects sections and the files they link, so the page links only what exists."""

    def __init__(self, out: Path, qa: QaConfig, seed: int) -> None:
        self.out = out
        self.dir = report_dir(out)
        self.thumbs = self.dir / "thumbs"
        self.qa = qa
        self.seed = seed
        self.parts: list[str] = []
        self.used_thumbs: set[str] = set()
        self.missing: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def rel(self, path: Path) -> str:
        return Path(os.path.relpath(path, self.dir)).as_posix()

    def thumb(self, image_rel: str, alt: str) -> str:
        """A thumbnail linking to the full image, or a note when the image cannot be read."""
        src = self.out / "syndor" / image_rel
        made = thumbnail(src, self.thumbs, self.qa.thumb_px, image_rel) if src.is_file() else None
        if made is None:
            self.missing.append(image_rel)
            return f'<span class="warn">[{html.escape(image_rel)} unreadable]</span>'
        self.used_thumbs.add(made.name)
        return f'<a href="{html.escape(self.rel(src))}">{_img(self.rel(made), alt)}</a>'

    def prune_thumbs(self) -> None:
        if self.thumbs.exists():
            for path in self.thumbs.iterdir():
                if path.is_file() and path.name not in self.used_thumbs:
                    path.unlink()


def _split_rows(index: Path) -> dict[str, list[dict[str, Any]]]:
    """The frames of each split, as the human-detection task files list them (`img_path` is the shown image)."""
    split: dict[str, list[dict[str, Any]]] = {}
    for name in SPLITS:
        path = index / "human_detection" / f"{name}.jsonl"
        split[name] = read_jsonl(path) if path.is_file() else []
    return split


def _section_coverage(page: _Page, rows: Sequence[dict[str, Any]]) -> None:
    counts = factor_counts(rows)
    page.add(
        f"<h2>Factor coverage</h2><p>{len(rows)} frames in the master index (the build's stratified sample: "
        "every level of every factor balanced; <code>build.json</code> has the sample's balance and its "
        "distance × level pairs under <code>stages.render.sample</code>).</p>"
    )
    if rows:
        page.add(table(["factor", "levels", "fewest frames", "most frames", "difference"], balance_rows(counts)))
        plot = plot_counts(counts, page.dir / "coverage.png")
        page.add(_img(page.rel(plot), "frames per factor value"))
    for factor, counter in counts.items():
        page.add(
            f"<h3>{html.escape(factor)}</h3>"
            + table([factor, "frames"], [(k, counter[k]) for k in sorted(counter, key=_natural)])
        )


def _calibration_plot(out: Path, calibration: Any) -> Path | None:
    """The render stage's calibration plot: where its summary says, else the usual places."""
    named = (
        [out / calibration["plot"]]
        if isinstance(calibration, dict) and isinstance(calibration.get("plot"), str)
        else []
    )
    for path in [*named, report_dir(out) / "calibration.png", out / "syndor" / "report" / "calibration.png"]:
        if path.is_file():
            return path
    return None


def _section_calibration(page: _Page, calibration: Any) -> None:
    """`calibration` is the render stage's summary ({passed, tolerance, plot, distances: [...]}) or None."""
    page.add("<h2>DORI calibration</h2>")
    plot = _calibration_plot(page.out, calibration)
    if plot is not None:
        page.add(_img(page.rel(plot), "target vs measured px/m"))
    else:
        page.add('<p class="warn">No calibration plot in this build.</p>')
    if not isinstance(calibration, dict):
        return
    if "passed" in calibration:
        verdict = "all distances within tolerance" if calibration["passed"] else "some distance is out of tolerance"
        page.add(f"<p>{html.escape(verdict)} ({html.escape(str(calibration.get('tolerance', '')))})</p>")
    rows = calibration.get("distances")
    if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
        header = list(dict.fromkeys(k for r in rows for k in r))
        page.add(table(header, [[r.get(k) for k in header] for r in rows]))


def _section_groups(page: _Page, rows: Sequence[dict[str, Any]], split_rows: dict[str, list[dict[str, Any]]]) -> None:
    """Which lightings make each group (the authors' task index: day = morning and noon, night = the rest, NV = the
    night rows after the ISP) and the frames and items of each."""
    page.add(
        "<h2>Lighting groups</h2><p>As the authors' task index has them: day = morning and noon; night = "
        "evening and night; NV = the night rows after the ISP (evening joins day only with "
        f"<code>syndor.qa.evening_group: day</code>; here: {html.escape(page.qa.evening_group)}).</p>"
    )
    per_lighting = Counter(r["lighting"] for r in rows)
    with_nv = Counter(r["lighting"] for r in rows if r.get("nv_path"))
    page.add(
        table(
            ["lighting", "group", "frames", "with NV image"],
            [
                (name, lighting_group(name, page.qa.evening_group), per_lighting[name], with_nv[name])
                for name in sorted(per_lighting, key=lambda n: (lighting_group(n, page.qa.evening_group), n))
            ],
        )
    )
    page.add(
        table(
            ["split", "presence items", "answer 1", "answer 0"],
            [
                (
                    split,
                    len(split_rows[split]),
                    sum(1 for r in split_rows[split] if r["human_discernable"] == 1),
                    sum(1 for r in split_rows[split] if r["human_discernable"] == 0),
                )
                for split in SPLITS
            ],
        )
    )


def _section_thumbs(page: _Page, split_rows: dict[str, list[dict[str, Any]]]) -> None:
    page.add("<h2>Frames per distance × lighting</h2>")
    radii = sorted({r["radius"] for rows in split_rows.values() for r in rows})
    header = "".join(f"<th>{s}</th>" for s in SPLITS)
    body = []
    for radius in radii:
        cells = []
        for split in SPLITS:
            rows = [r for r in split_rows[split] if r["radius"] == radius]
            picked = _sample(rows, page.qa.thumbs_per_cell, page.seed, f"{radius}|{split}")
            cells.append(
                '<td class="grid">'
                + "".join(page.thumb(r["img_path"], f"{split} {radius:g} m") for r in picked)
                + "</td>"
            )
        body.append(f'<tr><td class="l">{radius:g} m</td>{"".join(cells)}</tr>')
    page.add(f'<table><tr><th class="l">distance</th>{header}</tr>{"".join(body)}</table>')


def _section_pairs(page: _Page, split_rows: dict[str, list[dict[str, Any]]]) -> None:
    page.add("<h2>Night vs night vision</h2>")
    pairs = [r for r in split_rows["nv"] if lighting(r["lighting"]).is_night] or split_rows["nv"]
    picked = _sample(pairs, page.qa.nv_pairs, page.seed, "nv-pairs")
    if not picked:
        page.add("<p>No night-vision images in this build.</p>")
        return
    rows = [
        f'<tr><td class="l">{r["radius"]:g} m, {html.escape(r["lighting"])}</td>'
        f"<td>{page.thumb(r['raw_img_path'], 'raw')}</td><td>{page.thumb(r['img_path'], 'night vision')}</td></tr>"
        for r in picked
    ]
    page.add(f'<table><tr><th class="l">frame</th><th>raw</th><th>night vision</th></tr>{"".join(rows)}</table>')


def _is_matrix(value: Any) -> bool:
    """A non-empty list of equally long, non-empty lists of numbers (a confusion matrix)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(r, list) and r for r in value)
        and len({len(r) for r in value}) == 1
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for r in value for v in r)
    )


def _flat(prefix: str, value: Any) -> list[tuple[str, Any]]:
    """Scalar figures of a nested report as (dotted key, value); matrices are left to `_matrices`."""
    if isinstance(value, dict):
        return [kv for k in sorted(value) for kv in _flat(f"{prefix}.{k}" if prefix else str(k), value[k])]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return [(prefix, value)]
    if isinstance(value, list) and all(isinstance(v, (int, float, str)) for v in value):
        return [(prefix, ", ".join(_fmt(v) for v in value))]
    return []


def _matrices(prefix: str, value: Any) -> list[tuple[str, list[list[Any]]]]:
    """The matrices (lists of lists of numbers) of a nested report as (dotted key, matrix)."""
    if isinstance(value, dict):
        return [kv for k in sorted(value) for kv in _matrices(f"{prefix}.{k}" if prefix else str(k), value[k])]
    return [(prefix, value)] if _is_matrix(value) else []


def matrix_table(name: str, matrix: Sequence[Sequence[Any]]) -> str:
    """A confusion matrix as a small table: rows are the label (class 0, 1, …), columns the prediction."""
    header = [f"{name}: label \\ predicted", *(str(j) for j in range(len(matrix[0])))]
    return table(header, [(str(i), *row) for i, row in enumerate(matrix)])


def _section_discern(page: _Page) -> None:
    page.add("<h2>Discernibility classifier</h2>")
    found = [p for folder in (page.dir, page.out / "syndor" / "report") for p in sorted(folder.glob("discern*.json"))]
    if not found:
        page.add("<p>No discernibility report in this build.</p>")
    for path in found:
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            page.add(f'<p class="warn">{html.escape(path.name)} is not readable JSON.</p>')
            continue
        page.add(f"<h3>{html.escape(path.name)}</h3>")
        _discern_figures(page, data)
        page.add(table(["figure", "value"], _flat("", data)))
        page.add("".join(matrix_table(name, matrix) for name, matrix in _matrices("", data)))
        for image in sorted(path.parent.glob(f"{path.stem}*.png")):
            page.add(_img(page.rel(image), image.stem))


def _pct(value: Any) -> Any:
    return round(100 * value, 2) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _discern_figures(page: _Page, data: dict[str, Any]) -> None:
    """The classifier's held-out and CV figures beside the paper's, and the raw-vs-NV labels per distance."""
    if not isinstance(data, dict):
        return
    holdout, cv, paper = data.get("holdout") or {}, data.get("cv") or {}, data.get("paper") or {}
    if isinstance(holdout, dict) and isinstance(cv, dict) and isinstance(paper, dict):
        page.add(
            f"<p>Labels: {html.escape(str(data.get('label_source')))}; {data.get('sample')} labelled images, "
            f"{data.get('held_out')} held out and tested once, the model trained on the other "
            f"{data.get('trained_on')}.</p>"
        )
        rows = []
        for name in ("ensemble", "decision_tree"):
            got, fold, ref = holdout.get(name) or {}, cv.get(name) or {}, paper.get(name) or {}
            rows.append(
                (
                    name.replace("_", " "),
                    _pct(got.get("macro_f1")),
                    _pct(got.get("accuracy")),
                    _pct(ref.get("macro_f1")),
                    _pct(ref.get("accuracy")),
                    _pct(fold.get("macro_f1")),
                    _pct(fold.get("accuracy")),
                )
            )
        page.add(
            table(
                [
                    "model (%)",
                    "held-out macro-F1",
                    "held-out accuracy",
                    "paper macro-F1",
                    "paper accuracy",
                    "5-fold CV macro-F1",
                    "5-fold CV accuracy",
                ],
                rows,
            )
        )
    night = data.get("night_vision")
    if not isinstance(night, dict):
        return
    for key, title in (("labels", "labels"), ("detector", "the detector observer")):
        cells = night.get(key)
        if not isinstance(cells, dict):
            continue
        page.add(
            f"<p>Raw night frame vs its night-vision image, by {html.escape(title)} "
            f"({night.get('frames')} frames with both):</p>"
        )
        page.add(
            table(
                ["distance", "raw 1", "NV 1", "raw 0", "NV recovers (raw 0, NV 1)", "NV loses (raw 1, NV 0)", "rate"],
                [
                    (
                        zone,
                        c.get("raw_1"),
                        c.get("nv_1"),
                        c.get("raw_0"),
                        c.get("nv_recovers"),
                        c.get("nv_loses"),
                        c.get("recovery_rate"),
                    )
                    for zone, c in cells.items()
                    if isinstance(c, dict)
                ],
            )
        )


def _section_balance(page: _Page, balance: dict[str, Any] | None) -> None:
    page.add("<h2>Label balance (human presence)</h2>")
    if balance is None:
        page.add('<p class="warn">No index/balance.json.</p>')
        return
    page.add(f"<p>{html.escape(balance['note'])}</p>")
    page.add(
        table(
            ["split", "answer 1", "answer 0", "of which empty scene", "total"],
            [(s, c["1"], c["0"], c.get("empty_scene", 0), c["total"]) for s, c in balance["per_split"].items()],
        )
    )
    cells = balance["per_distance_split"]
    page.add(
        table(
            ["distance (m)", "split", "answer 1", "answer 0"],
            [(c["radius"], c["split"], c["1"], c["0"]) for c in cells],
        )
    )
    if cells:
        page.add(_img(page.rel(plot_balance(balance, page.dir / "balance.png")), "answers per distance and split"))
    _nv_label_agreement(page, balance.get("nv_label"))


def _nv_label_agreement(page: _Page, nv: Any) -> None:
    """Which label the nv rows carry and how often the raw frame's and the night-vision image's disagree."""
    if not isinstance(nv, dict):
        return
    own = (
        "the night-vision image's own label" if nv.get("source") == "own" else "the raw frame's label (as the authors)"
    )
    page.add(
        f"<p>nv rows carry {own} (<code>syndor.qa.nv_label: {html.escape(str(nv.get('source')))}</code>); "
        f"the two labels disagree on {nv.get('disagree')} of {nv.get('frames')} person frames with a "
        "night-vision image.</p>"
    )
    page.add(
        table(
            ["distance (m)", "frames", "raw and NV labels disagree"],
            [(c["radius"], c["frames"], c["disagree"]) for c in nv.get("per_distance", []) if isinstance(c, dict)],
        )
    )


def _section_scores(page: _Page) -> None:
    scores = sorted((page.dir / "scores").glob("*.json")) if (page.dir / "scores").exists() else []
    page.add("<h2>Scores</h2>")
    if not scores:
        page.add(
            "<p>No predictions scored yet (<code>benchfoundry score syndor PREDICTIONS.jsonl --build DIR</code>).</p>"
        )
    for path in scores:
        try:
            score = json.loads(path.read_text())
            if score.get("benchmark", "syndor") != "syndor":
                continue  # another benchmark's score file (`benchfoundry score <benchmark>`)
            presence, action = score["presence"], score["action"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError, AttributeError):
            page.add(f'<p class="warn">{html.escape(path.name)} is not a score file.</p>')
            continue
        model = score.get("embedding_model") or {}
        page.add(
            f"<h3>{html.escape(path.stem)}</h3><p>predictions: {html.escape(str(score.get('predictions')))}; "
            f"{len(score.get('problems', []))} bad lines skipped; embedding model: "
            f"{html.escape(str(model.get('name', 'none')))}</p>"
        )
        page.add(
            table(
                ["distance (m)", "split", "n", "invalid", "accuracy", "macro P", "macro R", "macro F1", "deployable"],
                [
                    (
                        g["distance"],
                        g["split"],
                        g["n"],
                        g["n_invalid"],
                        g["accuracy"],
                        g["macro_precision"],
                        g["macro_recall"],
                        g["macro_f1"],
                        g["deployable"],
                    )
                    for g in presence["groups"]
                ],
            )
        )
        if any(g["distance"] != "all" for g in presence["groups"]):
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", path.stem)
            plot = plot_presence(presence["groups"], presence["deployable_accuracy"], page.dir / f"score_{safe}.png")
            page.add(_img(page.rel(plot), "presence accuracy per distance"))
        page.add(
            table(
                ["distance (m)", "split", "n", "invalid", "E5Score", "z"],
                [(g["distance"], g["split"], g["n"], g["n_invalid"], g["e5score"], g["z"]) for g in action["groups"]],
            )
        )


def write_report(out: str | os.PathLike[str], qa: QaConfig, seed: int = 0, calibration: Any = None) -> Path:
    """Render `OUT/report/syndor.html` from the build's files; returns its path.

    The images it could not read for thumbnails go to `report/unreadable_images.json` (`report_problems`
    turns them into build problems); a JSONL line that is not JSON is a ValueError naming file and line.
    """
    root = Path(out)
    page = _Page(root, qa, seed)
    master_path = root / "syndor" / "index" / "master_index.jsonl"
    if not master_path.is_file():
        raise FileNotFoundError(f"{master_path}: no master index; run the QA export first")
    rows = read_jsonl(master_path)
    balance_path = root / "syndor" / "index" / "balance.json"
    balance = json.loads(balance_path.read_text()) if balance_path.is_file() else None
    split_rows = _split_rows(root / "syndor" / "index")
    page.add("<h1>SynDORBench build report</h1>")
    _section_coverage(page, rows)
    _section_groups(page, rows, split_rows)
    _section_calibration(page, calibration)
    _section_thumbs(page, split_rows)
    _section_pairs(page, split_rows)
    _section_discern(page)
    _section_balance(page, balance)
    _section_scores(page)
    if page.missing:
        page.add(f'<p class="warn">{len(page.missing)} images could not be read for thumbnails.</p>')
    page.prune_thumbs()
    write_json_atomic(unreadable_path(root), sorted(set(page.missing)))
    return write_page(page.dir, PAGE, "SynDORBench build report", "\n".join(page.parts))
