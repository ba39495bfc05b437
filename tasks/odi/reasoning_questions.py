"""ODI reasoning (OR) questions from known facts (DESIGN §3.2): one step of reasoning over the whole 360° scene.

Three kinds, each asked only where its answer is a checkable fact:
- nearest / farthest: "Which is closest to me: the ball, the lamp, the sofa or the television?" from 3D centres,
  measured on the floor plane from the viewer (who stands at x = y = 0, tasks/odi/synthetic_panoramas.py). The
  answer must be `NEAR_MARGIN` (relative) nearer (farther) than each other option: a panorama carries no metric
  depth, so a reviewer and a model judge distance from apparent size, height in the field of view and occlusion,
  and a quarter nearer is a difference those cues show without measuring; it also absorbs the gap between an
  object's centre and its nearest surface for room-sized furniture (a 1.9 m sofa at 2.7 m: 0.45 m, 17 %).
- turns: "If I turn to face the A and then turn around, which is in front of me: …?" and "If I turn 90° to my
  right, which is now on my left: …?" from directions (θ): the answer lies at least `margin` inside that 90°
  sector of the new heading, every other option at least `margin` outside it.
- count in a direction: "How many chairs are behind me?", only with a census (category → count of the whole
  scene) that says every instance of the category is among the facts, and none lies within `margin` of the
  sector's edges.
Objects seen more than `POLE_LIMIT_DEG` above or below the horizon take no part (nor their category in counts).
Objects are named by category alone, so only categories that occur once (in the facts and in the census when
given) take part, and the four options of one question keep the distractor rule between each other. Closed
items have the four options shuffled by the item's seed (ItemBuilder); open items ask the same question.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from benchfoundry.core.directions import distractor_pool
from benchfoundry.core.seeding import item_rng
from benchfoundry.tasks.odi.question_builder import QUADRANTS, Fact, ItemBuilder, plural, signed

#: The answer of a nearest/farthest question is at least this much (relative) nearer/farther than every other
#: option (module docstring).
NEAR_MARGIN = 0.25
#: Beyond this elevation (deg, either way) an object (a rug under me, a light overhead) has no clear direction
#: around me: a few decimetres move its azimuth by tens of degrees, and its floor distance says little.
POLE_LIMIT_DEG = 60.0
#: Turns asked about with the quadrants around the viewer: words and the new heading (deg, clockwise).
TURNS = (("turn 90° to my right", 90.0), ("turn 90° to my left", -90.0), ("turn around", 180.0))
#: The sectors of tasks/odi/question_builder.QUADRANTS by the word that names them in item ids.
SECTOR_KEYS = {"in front of me": "front", "on my right": "right", "behind me": "back", "on my left": "left"}


def floor_distance(position_m: Sequence[float]) -> float:
    """Distance (m) on the floor plane from the viewer at x = y = 0 to a point."""
    return math.hypot(position_m[0], position_m[1])


def _compatible(a: str, b: str) -> bool:
    return distractor_pool(a, [b]) == [b]


def _pick(rng: np.random.Generator, answer: Fact, pool: Sequence[Fact], k: int = 3) -> list[Fact] | None:
    """`k` facts of `pool` drawn in a seeded order whose names keep the distractor rule with the answer and
    with each other; None when the pool holds fewer."""
    picked: list[Fact] = []
    for i in rng.permutation(len(pool)):
        f = pool[int(i)]
        if all(_compatible(f.category, g.category) for g in (answer, *picked)):
            picked.append(f)
            if len(picked) == k:
                return picked
    return None


def _ask_which(b: ItemBuilder, key: str, stem: str, answer: Fact, distractors: Sequence[Fact]) -> None:
    """ "{stem}: the a, the b, the c or the d?" with the names in alphabetical order (no hint of the answer)."""
    names = sorted(f.category for f in (answer, *distractors))
    listed = ", ".join(f"the {n}" for n in names[:-1]) + f" or the {names[-1]}"
    b.add(
        "OR",
        key,
        f"{stem}: {listed}?",
        answer.category,
        [f.category for f in distractors],
        [answer.instance_id, *(f.instance_id for f in distractors)],
    )


def nearest_items(b: ItemBuilder, unique: Sequence[Fact]) -> None:
    """One closest and one farthest question per object that can be the clear answer among four."""
    dist = {f.instance_id: floor_distance(f.position_m) for f in unique if f.position_m is not None}
    placed = [f for f in unique if f.instance_id in dist]
    for word, clear in (
        ("closest to", lambda a, o: dist[o] >= (1 + NEAR_MARGIN) * dist[a]),
        ("farthest from", lambda a, o: dist[a] >= (1 + NEAR_MARGIN) * dist[o]),
    ):
        for a in placed:
            key = f"{word.split()[0]}:{a.instance_id}"
            pool = [o for o in placed if o is not a and clear(a.instance_id, o.instance_id)]
            picked = _pick(item_rng(b.seed, "odi.qa.or", f"{b.panorama}:{key}"), a, pool)
            if picked is not None:
                _ask_which(b, key, f"Which is {word} me", a, picked)


def _sector_split(facts: Sequence[Fact], heading: float, centre: float, margin: float) -> tuple[list[Fact], list[Fact]]:
    """Facts clearly inside and clearly outside the 90° sector centred `centre` from `heading`."""
    offsets = [(f, abs(signed(f.theta_deg - heading - centre))) for f in facts]
    return ([f for f, d in offsets if d <= 45.0 - margin], [f for f, d in offsets if d >= 45.0 + margin])


def turn_items(b: ItemBuilder, unique: Sequence[Fact], margin: float) -> None:
    """Which object is in a sector after a fixed turn, and which is in front after facing one and turning around."""
    asks = [
        (f"turn{int(turn)}:{SECTOR_KEYS[phrase]}", turn, centre, f"If I {words}, which is now {phrase}", None)
        for words, turn in TURNS
        for phrase, centre in QUADRANTS
    ]
    asks += [
        (
            f"face{a.instance_id}:back",
            a.theta_deg + 180.0,
            0.0,
            f"If I turn to face the {a.category} and then turn around, which is in front of me",
            a,
        )
        for a in unique
    ]
    for key, heading, centre, stem, faced in asks:
        inside, outside = _sector_split([f for f in unique if f is not faced], heading, centre, margin)
        if not inside:
            continue
        rng = item_rng(b.seed, "odi.qa.or", f"{b.panorama}:{key}")
        answer = inside[int(rng.integers(len(inside)))]
        picked = _pick(rng, answer, outside)
        if picked is not None:
            _ask_which(b, key, stem, answer, picked)


def count_items(b: ItemBuilder, facts: Sequence[Fact], margin: float, census: Mapping[str, int]) -> None:
    """How many of a category lie in one sector around me, for categories whose every instance is among the facts:
    of the sectors no instance straddles, an occupied or an empty one with even odds (so that "0" is not the usual
    answer), drawn with the seed."""
    present = Counter(f.category for f in facts)
    for category in sorted(c for c in present if census.get(c) == present[c]):
        if any(abs(f.phi_deg) > POLE_LIMIT_DEG for f in facts if f.category == category):
            continue
        thetas = [f.theta_deg for f in facts if f.category == category]
        clear = [
            (phrase, centre)
            for phrase, centre in QUADRANTS
            if all(not 45.0 - margin < abs(signed(t - centre)) < 45.0 + margin for t in thetas)
        ]
        if not clear:
            continue
        held = [(phrase, centre, sum(abs(signed(t - centre)) < 45.0 for t in thetas)) for phrase, centre in clear]
        rng = item_rng(b.seed, "odi.qa.or", f"{b.panorama}:count:{category}")
        occupied, empty = [h for h in held if h[2]], [h for h in held if not h[2]]
        group = next(g for g in ((occupied, empty) if rng.random() < 0.5 else (empty, occupied)) if g)
        phrase, _, count = group[int(rng.integers(len(group)))]
        b.add(
            "OR",
            f"count:{category}:{SECTOR_KEYS[phrase]}",
            f"How many {plural(category)} are {phrase}?",
            str(count),
            [str(n) for n in range(max(0, count - 3), count + 4)],
            [f.instance_id for f in facts if f.category == category],
        )


def reasoning_items(
    b: ItemBuilder, facts: Sequence[Fact], margin: float, census: Mapping[str, int] | None = None
) -> None:
    """Every OR question of one panorama in a fixed order: nearest/farthest, turns, then counts (with a census)."""
    counts = Counter(f.category for f in facts)
    unique = [
        f
        for f in facts
        if counts[f.category] == 1
        and (census is None or census.get(f.category) == 1)
        and abs(f.phi_deg) <= POLE_LIMIT_DEG
    ]
    nearest_items(b, unique)
    turn_items(b, unique, margin)
    if census is not None:
        count_items(b, facts, margin, census)
