"""The ODI section of the build report, a static page `OUT/report/odi.html` in the report's one stylesheet:
the questions per task (items, candidates, chosen, and how often their answers agree with the synthetic truth),
the instances the consistency filter dropped, and per panorama its six faces with the kept masks drawn over them
and the drop counts."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pandas as pd

from benchfoundry.benchmarks.odi.stages.annotation.instances import decode_rle
from benchfoundry.benchmarks.odi.stages.sphere_coords import FACES
from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.seeding import item_rng
from benchfoundry.pipeline.report_style import write_page

#: Panoramas whose cube faces the page shows (six overlays each); the others are one table row each.
SHOWN_PANORAMAS = 24


def overlay(face_bgr: np.ndarray, masks: list[np.ndarray], colours: np.ndarray) -> np.ndarray:
    """The face with each mask tinted (half opacity) in its colour and outlined."""
    out = face_bgr.astype(np.float32)
    for mask, colour in zip(masks, colours):
        out[mask] = 0.5 * out[mask] + 0.5 * colour
    out = out.astype(np.uint8)
    for mask, colour in zip(masks, colours):
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(out, contours, -1, tuple(int(c) for c in colour), 1)
    return out


def _share(agree: int, checked: int) -> str:
    return f"{agree}/{checked} ({100.0 * agree / checked:.0f} %)" if checked else "—"


def questions_section(qa: dict[str, Any]) -> list[str]:
    """The per-task table of the QA stage's result (qa_stage.qa_all)."""
    chosen, candidates = qa["agreement"]["chosen"], qa["agreement"]["candidates"]
    total = max(qa["items"], 1)
    parts = [
        "<h1>ODI-Bench: questions</h1>",
        f"<p>{qa['questions']} questions chosen by the budget of {qa['candidates']} candidates; {qa['items']} items "
        "(each question closed and open). Answers come from what the panoramas give (directions, floor contact "
        "points, the detector's census, the describer); where a panorama's synthetic truth lies beside it, the "
        "same questions are answered from the truth, and the agreement columns compare the two.</p>",
        "<table><tr><th>task</th><th>items</th><th>share</th><th>candidates</th>"
        "<th>agree (candidates)</th><th>chosen</th><th>agree (chosen)</th></tr>",
    ]
    for task in sorted(set(candidates) | set(qa["task_mix"])):
        c, k = candidates.get(task, {}), chosen.get(task, {})
        n = qa["task_mix"].get(task, 0)
        parts.append(
            f"<tr><td>{html.escape(task)}</td><td>{n}</td><td>{100.0 * n / total:.1f} %</td>"
            f"<td>{c.get('questions', 0)}</td><td>{_share(c.get('agree', 0), c.get('checked', 0))}</td>"
            f"<td>{k.get('questions', 0)}</td><td>{_share(k.get('agree', 0), k.get('checked', 0))}</td></tr>"
        )
    parts.append("</table>")
    dropped = qa["dropped_inconsistent_by_class"]
    parts.append(
        "<p>Dropped by the consistency filter (the description does not name the class): "
        + (", ".join(f"{html.escape(c)} {n}" for c, n in dropped.items()) or "none")
        + "</p>"
    )
    return parts


def write_report_page(
    out: str | Path,
    manifest: pd.DataFrame,
    dropped: dict[str, dict[str, int]],
    seed: int,
    qa: dict[str, Any] | None = None,
    thumb_px: int = 256,
    shown: int = SHOWN_PANORAMAS,
) -> Path:
    """Overlays under `report/odi/` of the first `shown` panoramas (by name) and the page `report/odi.html`, the
    others' counts in one table (a paper-scale build has thousands); returns the page's path."""
    root = Path(out)
    report = root / "report"
    parts = [
        *(questions_section(qa) if qa is not None else []),
        "<h1>ODI-Bench: cube-face instances</h1>",
        "<p>Kept instances tinted on each face; instances touching a face border are dropped.</p>",
    ]
    by_panorama = dict(tuple(manifest.groupby("panorama", sort=False))) if len(manifest) else {}
    names = sorted(dropped)
    for pano in names[:shown]:
        rows = by_panorama.get(pano, manifest.iloc[:0])
        parts.append(
            f"<h2>{html.escape(pano)}</h2><p>{len(rows)} kept, "
            + ", ".join(f"{f} {dropped[pano].get(f, 0)}" for f in FACES)
            + " dropped at borders</p><div>"
        )
        for face in FACES:
            face_path = root / "odi" / "faces" / pano / f"{face}.jpg"
            try:
                image = decode_file(face_path, cv2.IMREAD_COLOR)
            except ValueError:
                continue
            on_face = rows[rows["face"] == face] if len(rows) else rows
            masks = [
                decode_rle({"size": [r.rle_height, r.rle_width], "counts": r.rle_counts}) for r in on_face.itertuples()
            ]
            colours = item_rng(seed, "odi.report", pano).integers(60, 256, (max(len(masks), 1), 3))
            small = cv2.resize(overlay(image, masks, colours), (thumb_px, thumb_px), interpolation=cv2.INTER_AREA)
            rel = f"odi/{pano}_{face}.jpg"
            ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if ok:
                write_bytes_atomic(report / rel, data.tobytes())
            labels = ", ".join(html.escape(str(c)) for c in on_face["class"]) if len(on_face) else "none"
            parts.append(
                f"<figure><img src='{rel}' width='{thumb_px}' "
                f"alt='{face}'><figcaption>{face}: {labels}</figcaption></figure>"
            )
        parts.append("</div>")
    if names[shown:]:
        parts.append(
            f"<h2>The other {len(names) - shown} panoramas</h2><table><tr><th>panorama</th><th>kept</th>"
            + "".join(f"<th>{f} dropped</th>" for f in FACES)
            + "</tr>"
        )
        parts += [
            f"<tr><td>{html.escape(pano)}</td><td>{len(by_panorama.get(pano, ()))}</td>"
            + "".join(f"<td>{dropped[pano].get(f, 0)}</td>" for f in FACES)
            + "</tr>"
            for pano in names[shown:]
        ]
        parts.append("</table>")
    return write_page(report, "odi.html", "ODI-Bench", "\n".join(parts))
