"""ODI reasoning (OR) candidates (docs/design/odi.md §2.3): a step of reasoning over the whole sphere, and what the ERP
projection itself does to it. Answers come from benchmarks/odi/stages/questions/answers.py; each kind is asked only
where its answer is
clear under the build's margins.

- nearest / farthest: "Which is closest to me: the ball, the lamp, the sofa or the television?" from floor positions;
  the answer at least `near_margin` (relative) nearer / farther than every other option.
- turns: "If I turn 90° to my right, which is now on my left: …?" and "If I turn to face the A and then turn
  around, which is in front of me: …?" from directions: one option inside that side, the others clearly outside.
- count on a side: "How many chairs are behind me?" from the detector's census, when every instance of the class
  has a direction and none lies near the side's edges.
- the seam: the ERP's left and right edges are the same place behind me. "The A is in the left part of the
  panorama and the B in the right part. Are they within a quarter turn of each other around me?" for objects
  on either side of the seam.
- a straight path drawn as a curve: "Someone walks in a straight line on the floor from the A to the B (the
  panorama draws it as a curve). Halfway, on which side of me are they?" from floor positions.
- apparent size near the poles: "In the panorama the A looks bigger than the B. Does it really cover more of
  my view?" from the masks' solid angles, for pairs whose ERP areas put the A first: near the poles the ERP
  stretches an object, so the answer is "no" where the stretch alone makes it look bigger.
Which-object questions name their options without a side of me (that would give the answer away); the options
keep the distractor rule between each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchfoundry.benchmarks.odi.stages.questions.answers import POLE_LIMIT_DEG, SIDES, YES_NO
from benchfoundry.benchmarks.odi.stages.questions.candidates import Generator
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact
from benchfoundry.benchmarks.odi.stages.questions.question_builder import (
    QUADRANTS,
    Candidate,
    count_options,
    label_options,
    plural,
)
from benchfoundry.core.directions import distractor_pool

#: Turns asked about: words and the new heading (deg, clockwise).
TURNS = (("turn 90° to my right", 90.0), ("turn 90° to my left", -90.0), ("turn around", 180.0))
#: The sides of `question_builder.QUADRANTS` by the word that names them in keys.
SIDE_KEYS = {"in front of me": "front", "on my right": "right", "behind me": "back", "on my left": "left"}


def _short(named: str) -> str:
    return named.removeprefix("the ")


def _listed(names: Sequence[str]) -> str:
    """ "the a, the b, the c or the d" in alphabetical order (no hint of the answer)."""
    ordered = sorted(names)
    return ", ".join(f"the {n}" for n in ordered[:-1]) + f" or the {ordered[-1]}"


def _compatible(names: Sequence[str]) -> bool:
    """Whether option names keep the distractor rule between each other."""
    return all(distractor_pool(a, [b]) == [b] for i, a in enumerate(names) for b in names[i + 1 :])


def _which(
    g: Generator, key: str, spec_kind: dict, stem: str, options: Sequence[tuple[Fact, str]], answer_from: str
) -> Candidate | None:
    """A which-object question over four named instances (the spec's answer names one of them)."""
    names = [_short(n) for _, n in options]
    if not _compatible(names):
        return None
    spec = {**spec_kind, "ids": [f.instance_id for f, _ in options], "options": names}
    return g.make(
        "OR", key, spec, f"{stem}: {_listed(names)}?", lambda a: label_options(a, names), spec["ids"], answer_from
    )


def _fours(g: Generator, key: str, pool: Sequence[tuple[Fact, str]], tries: int = 12) -> list[list[tuple[Fact, str]]]:
    """Up to `tries` distinct sets of four from `pool`, drawn with the seed."""
    if len(pool) < 4:
        return []
    rng = g.rng(key)
    sets = {tuple(sorted(int(i) for i in rng.choice(len(pool), size=4, replace=False))) for _ in range(tries)}
    return [[pool[i] for i in s] for s in sorted(sets)]


def _plain(g: Generator) -> list[tuple[Fact, str]]:
    """Instances near the horizon named without a side of me."""
    found = []
    for f in g.scene.facts:
        named = g.name(f, direction=False)
        if named is not None and abs(f.phi_deg) <= POLE_LIMIT_DEG:
            found.append((f, named))
    return found


def nearest_candidates(g: Generator) -> list[Candidate]:
    placed = [(f, n) for f, n in _plain(g) if f.position_m is not None]
    found = []
    for far, word in ((False, "closest to"), (True, "farthest from")):
        for k, four in enumerate(_fours(g, f"near:{far}", placed)):
            found.append(
                _which(
                    g,
                    f"{word.split()[0]}:{k}",
                    {"kind": "nearest", "far": far},
                    f"Which is {word} me",
                    four,
                    "floor_geometry",
                )
            )
    return g.capped("nearest", found)


def turn_candidates(g: Generator) -> list[Candidate]:
    plain = _plain(g)
    found = []
    for words, heading in TURNS:
        for phrase, centre in QUADRANTS:
            key = f"turn{int(heading)}:{SIDE_KEYS[phrase]}"
            for k, four in enumerate(_fours(g, key, plain, tries=4)):
                found.append(
                    _which(
                        g,
                        f"{key}:{k}",
                        {"kind": "turn", "heading": heading, "sector": centre, "face": None},
                        f"If I {words}, which is now {phrase}",
                        four,
                        "directions",
                    )
                )
    for faced, faced_name in plain:
        rest = [(f, n) for f, n in plain if f is not faced]
        for k, four in enumerate(_fours(g, f"face:{faced.instance_id}", rest, tries=4)):
            found.append(
                _which(
                    g,
                    f"face{faced.instance_id}:back:{k}",
                    {"kind": "turn", "heading": 0.0, "sector": 0.0, "face": faced.instance_id},
                    f"If I turn to face {faced_name} and then turn around, which is in front of me",
                    four,
                    "directions",
                )
            )
    return g.capped("turn", found)


def sector_count_candidates(g: Generator) -> list[Candidate]:
    found = []
    for category in sorted(c for c, n in g.scene.census.items() if n > 0):
        ids = [f.instance_id for f in g.scene.facts if f.category == category]
        for phrase, centre in QUADRANTS:
            key = f"count:{category}:{SIDE_KEYS[phrase]}"
            found.append(
                g.make(
                    "OR",
                    key,
                    {"kind": "sector_count", "category": category, "sector": centre},
                    f"How many {plural(category)} are {phrase}?",
                    lambda a, key=key: count_options(int(a), g.rng(key), 0),
                    ids,
                    "census",
                )
            )
    return g.capped("sector_count", found)


def seam_candidates(g: Generator) -> list[Candidate]:
    plain = _plain(g)
    left = [(f, n) for f, n in plain if f.theta_deg < -90.0]
    right = [(f, n) for f, n in plain if f.theta_deg > 90.0]
    found = []
    for a, a_name in left:
        for b, b_name in right:
            found.append(
                g.make(
                    "OR",
                    f"seam:{a.instance_id}:{b.instance_id}",
                    {"kind": "seam", "ids": [a.instance_id, b.instance_id]},
                    f"In this panorama {a_name} is in the left part of the image and {b_name} in the right part. "
                    "Are they within a quarter turn (90°) of each other around me?",
                    lambda x: label_options(x, YES_NO),
                    [a.instance_id, b.instance_id],
                    "directions",
                )
            )
    return g.capped("seam", found)


def path_candidates(g: Generator) -> list[Candidate]:
    placed = g.placed()
    found = []
    for i, (a, a_name) in enumerate(placed):
        for b, b_name in placed[i + 1 :]:
            found.append(
                g.make(
                    "OR",
                    f"path:{a.instance_id}:{b.instance_id}",
                    {"kind": "path", "ids": [a.instance_id, b.instance_id]},
                    f"Someone walks in a straight line on the floor from {a_name} to {b_name} (the panorama draws "
                    "that line as a curve). Halfway, in which direction from me are they?",
                    lambda x: label_options(x, SIDES),
                    [a.instance_id, b.instance_id],
                    "floor_geometry",
                )
            )
    return g.capped("path", found)


def size_candidates(g: Generator) -> list[Candidate]:
    named = [(f, n) for f in g.scene.facts if (n := g.name(f)) is not None and f.erp_fraction is not None]
    found = []
    for a, a_name in named:
        for b, b_name in named:
            if a is b or a.erp_fraction <= (1 + g.margins.size) * b.erp_fraction:  # type: ignore[operator]
                continue
            found.append(
                g.make(
                    "OR",
                    f"size:{a.instance_id}:{b.instance_id}",
                    {"kind": "size", "ids": [a.instance_id, b.instance_id]},
                    f"In the panorama {a_name} looks bigger than {b_name}. "
                    f"Does {a_name} really cover more of my view than {b_name}?",
                    lambda x: label_options(x, YES_NO),
                    [a.instance_id, b.instance_id],
                    "mask_solid_angles",
                )
            )
    return g.capped("size", found)


def reasoning_candidates(g: Generator) -> list[Candidate]:
    return (
        nearest_candidates(g)
        + turn_candidates(g)
        + sector_count_candidates(g)
        + seam_candidates(g)
        + path_candidates(g)
        + size_candidates(g)
    )
