"""ODI-Bench questions from known facts (DESIGN §3.2), the offline `template` backend.

A fact is one instance of a panorama: category, colour, material, text (a sign), pose (a person), its
direction (θ, φ) from the viewer (θ = 0 ahead, +90° on the right) and, when known, its 3D position.
Questions use first-person wording ("the chair on my left") and refer to an object only where that
phrase picks exactly one instance. General tasks: object attribute (OA), human attribute (HA),
existence, counting, panoramic OCR; spatial candidates from geometry: egocentric view orientation
(EVO), allocentric view orientation (AVO), relative direction (RD), scene simulation (SS, with 3D
positions) and ODI reasoning (OR, tasks/odi/reasoning_questions.py). Each question comes closed (the
answer and three distractors, shuffled with the item's seed; yes/no and left/right questions have two
options) and open. A direction within `margin_deg` of a label boundary makes no question. Every item is
`source: template`, `verified: false`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin, horizontal_label
from benchfoundry.core.seeding import item_rng
from benchfoundry.tasks.odi.question_builder import Fact, ItemBuilder, plural, quadrant, signed
from benchfoundry.tasks.odi.reasoning_questions import reasoning_items

COLOURS = ("red", "blue", "green", "yellow", "brown", "black", "white", "grey", "orange", "purple")
MATERIALS = ("fabric", "wood", "metal", "plastic", "ceramic", "rubber", "stone", "paper", "glass")
#: Categories asked about in negative existence questions when the panorama lacks them.
ABSENT_CANDIDATES = ("bicycle", "dog", "car", "bed", "piano", "umbrella", "clock", "horse", "guitar", "bathtub")
SIGN_WORDS = ("EXIT", "OPEN", "STOP", "PUSH", "CAFE", "HOTEL", "PARKING", "SALE", "ENTRANCE", "TOILET")
#: Quadrant phrases that pick an object by where it stands around the viewer.
GENERAL = ("OA", "HA", "existence", "counting", "OCR")


def _unique_phrases(facts: Sequence[Fact], margin: float) -> list[tuple[Fact, str]]:
    """Facts with the phrase "the {category} {quadrant}" when it names only them."""
    placed = [(f, *quadrant(f.theta_deg)) for f in facts]
    counts = Counter((f.category, phrase) for f, phrase, _ in placed)
    return [
        (f, f"the {f.category} {phrase}")
        for f, phrase, m in placed
        if counts[(f.category, phrase)] == 1 and m >= margin
    ]


def general_items(b: ItemBuilder, facts: Sequence[Fact], margin: float, census: Mapping[str, int] | None) -> None:
    """OA, HA, existence, counting and OCR questions. Counting and "no" existence questions need the
    `census` of the whole scene (category → count, e.g. from the synthetic truth): the facts hold only the
    kept instances, and one dropped at a face border would make a count or an absence wrong."""
    for fact, name in _unique_phrases(facts, margin):
        ids = [fact.instance_id]
        if fact.pose is not None:
            b.add(
                "HA",
                f"{fact.instance_id}:pose",
                f"What is {name} doing?",
                fact.pose.replace("_", " "),
                ("standing", "walking", "sitting", "running", "kicking", "dodging", "waving"),
                ids,
            )
            continue
        if fact.colour:
            b.add("OA", f"{fact.instance_id}:colour", f"What colour is {name}?", fact.colour, COLOURS, ids)
        if fact.material:
            b.add("OA", f"{fact.instance_id}:material", f"What is {name} made of?", fact.material, MATERIALS, ids)
        if fact.text:
            b.add("OCR", f"{fact.instance_id}:text", f"What does {name} say?", fact.text, SIGN_WORDS, ids)
    present = Counter(f.category for f in facts)
    for category in sorted(present):
        ids = [f.instance_id for f in facts if f.category == category]
        b.add("existence", f"yes:{category}", f"Is there a {category} around me?", "yes", ("no",), ids, 2)
        if census is not None:
            count = census[category]
            b.add(
                "counting",
                category,
                f"How many {plural(category)} are around me?",
                str(count),
                [str(n) for n in range(max(0, count - 3), count + 4)],
                ids,
            )
    if census is None:
        return
    absent = [c for c in ABSENT_CANDIDATES if c not in census]
    rng = item_rng(b.seed, "odi.qa.absent", b.panorama)
    for category in (absent[i] for i in sorted(rng.choice(len(absent), size=min(2, len(absent)), replace=False))):
        b.add("existence", f"no:{category}", f"Is there a {category} around me?", "no", ("yes",), [], 2)


def spatial_items(
    b: ItemBuilder, facts: Sequence[Fact], margin: float, census: Mapping[str, int] | None = None
) -> None:
    """EVO, AVO and RD from directions; SS from 3D positions, for objects whose category is unique; then OR (its
    counts in a direction need the `census`)."""
    counts = Counter(f.category for f in facts)
    unique = [f for f in facts if counts[f.category] == 1 and f.pose is None]
    for f in unique:
        if boundary_margin(f.theta_deg) >= margin:
            b.add(
                "EVO",
                f"{f.instance_id}",
                f"In which direction is the {f.category} from me?",
                horizontal_label(f.theta_deg),
                HORIZONTAL_LABELS,
                [f.instance_id],
            )
    for a, c in ((a, c) for a in unique for c in unique if a is not c):
        turned = c.theta_deg - a.theta_deg
        if boundary_margin(turned) >= margin:
            b.add(
                "AVO",
                f"{a.instance_id}:{c.instance_id}",
                f"If I turn to face the {a.category}, in which direction is the {c.category} from me?",
                horizontal_label(turned),
                HORIZONTAL_LABELS,
                [a.instance_id, c.instance_id],
            )
        side = signed(c.theta_deg - a.theta_deg)
        if a.instance_id < c.instance_id and margin <= abs(side) <= 90.0 - margin:
            b.add(
                "RD",
                f"{a.instance_id}:{c.instance_id}",
                f"Looking at the {a.category}, is the {c.category} on my left or on my right?",
                "right" if side > 0 else "left",
                ("left", "right"),
                [a.instance_id, c.instance_id],
                2,
            )
    placed = [f for f in unique if f.position_m is not None]
    for a, f, c in (
        (a, f, c)
        for a in placed
        for f in placed
        for c in placed
        if len({a.instance_id, f.instance_id, c.instance_id}) == 3
    ):
        forward = np.subtract(f.position_m, a.position_m)[:2]
        v = np.subtract(c.position_m, a.position_m)[:2]
        if min(np.linalg.norm(forward), np.linalg.norm(v)) < 0.3:
            continue
        angle = math.degrees(math.atan2(forward[0] * v[1] - forward[1] * v[0], float(forward @ v)))
        turned = -angle  # counter-clockwise (left) is positive for the cross product; labels grow to the right
        if boundary_margin(turned) >= margin:
            b.add(
                "SS",
                f"{a.instance_id}:{f.instance_id}:{c.instance_id}",
                f"Imagine I stand at the {a.category} and face the {f.category}. "
                f"In which direction is the {c.category} from me?",
                horizontal_label(turned),
                HORIZONTAL_LABELS,
                [a.instance_id, f.instance_id, c.instance_id],
            )
    reasoning_items(b, facts, margin, census)


def template_items(
    panorama: str,
    image: str,
    facts: Sequence[Fact],
    seed: int,
    margin_deg: float = 7.5,
    census: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Every template question of one panorama, general then spatial, in a fixed order."""
    builder = ItemBuilder(panorama, image, seed)
    general_items(builder, facts, margin_deg, census)
    spatial_items(builder, facts, margin_deg, census)
    return builder.items
