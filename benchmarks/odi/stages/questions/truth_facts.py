"""The synthetic truth as a `PanoramaFacts`, to check the answers a panorama gave without it (docs/design/odi.md §2.3).

The questions of a synthetic panorama are made as for a real one (its truth hidden: no census, no 3D); where
its truth files lie beside it, each instance is matched to the object under its mask (the most frequent id of
the ERP instance map), and that object's record answers the same spec: its category, the direction and floor
position of its 3D centre, the solid angle and ERP area of all its pixels, its attributes; the census counts
every record. `agreement` sums, per task, how many questions the truth could answer and how many it answered alike.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.stages.questions.answers import Margins, answer
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts, Sighting
from benchfoundry.benchmarks.odi.stages.questions.template_describer import POSE_WORDS, id_under_mask


def pixel_measures(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per id of an ERP instance map: its solid angle (sr) and the fraction of the image it fills."""
    h, w = ids.shape
    rows = np.cos(np.radians(90.0 - (np.arange(h) + 0.5) / h * 180.0)) * (2 * math.pi / w) * (math.pi / h)
    flat = ids.astype(np.intp).ravel()
    solid = np.bincount(flat, weights=np.repeat(rows, w))
    return solid, np.bincount(flat) / float(h * w)


def truth_scene(
    rows: Sequence[Mapping[str, Any]], ids: np.ndarray, records: Mapping[int, Mapping[str, Any]], classes: Sequence[str]
) -> PanoramaFacts:
    """The truth's scene for a panorama's instance rows (module docstring)."""
    solid, fraction = pixel_measures(ids)
    facts, matched = [], set()
    for row in rows:
        k = id_under_mask(row, ids)
        record = records.get(k)
        if record is None:
            continue
        matched.add(k)
        x, y, _ = record["position_m"]
        facts.append(
            Fact(
                int(row["instance"]),
                str(record["category"]),
                float(record["theta_deg"]),
                float(record["phi_deg"]),
                position_m=(float(x), float(y)),
                solid_angle_sr=float(solid[k]) if k < len(solid) else 0.0,
                erp_fraction=float(fraction[k]) if k < len(fraction) else 0.0,
                colour=record.get("colour"),
                material=record.get("material"),
                text=record.get("text"),
                clothing=record.get("clothing"),
                action=POSE_WORDS.get(record.get("pose"), record.get("pose")),
            )
        )
    others = tuple(
        Sighting(str(r["category"]), float(r["theta_deg"]), float(r["phi_deg"]))
        for k, r in sorted(records.items())
        if k not in matched
    )
    census = Counter(str(r["category"]) for r in records.values())
    return PanoramaFacts(tuple(facts), others, dict(sorted(census.items())), tuple(classes))


def truth_answer(spec: Mapping[str, Any] | None, scene: PanoramaFacts | None) -> str | None:
    """The truth's answer to a spec (no margins), None when there is no truth or it cannot answer."""
    if spec is None or scene is None:
        return None
    return answer(spec, scene, Margins())


def agreement(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per task, of question records {task, answer, truth}: questions, checked (the truth answered), agree, and the
    agreeing share of the checked ones."""
    table: dict[str, dict[str, Any]] = {}
    for r in records:
        row = table.setdefault(str(r["task"]), {"questions": 0, "checked": 0, "agree": 0})
        row["questions"] += 1
        if r.get("truth") is not None:
            row["checked"] += 1
            row["agree"] += int(r["truth"] == r["answer"])
    for row in table.values():
        row["agreement"] = round(row["agree"] / row["checked"], 3) if row["checked"] else None
    return dict(sorted(table.items()))
