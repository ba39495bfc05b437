"""ODI-Bench candidate questions of the general and spatial tasks (docs/design/odi.md §2.3), from what a panorama gives.

General: object attribute (OA: colour, material) and human attribute (HA: what a person does, wears, holds) from
the describer; existence and counting from the detector's census of the whole sphere (a class it looked for and
did not see is a "no"); panoramic OCR from the text the describer read. Spatial: egocentric view orientation
(EVO, the side of me an object is on, from its direction), allocentric view orientation (AVO: from the
perspective of a person in the scene, or of someone standing at an object, facing me or another object, where
is a third), scene simulation (SS: imagine I stand at one object facing another; in which corner is a third),
relative direction (RD: as I look at one object, on which side of it is another; front is farther from me)
from floor positions. ODI reasoning (OR) is in benchmarks/odi/stages/questions/reasoning_questions.py. Answers come from
benchmarks/odi/stages/questions/answers.py; a question too close to call is not asked. Multiple choice has four options,
yes/no two.
Kinds with many combinations keep at most `MAX_PER_KIND` candidates per panorama, drawn with the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.stages.questions.answers import CORNERS, POLE_LIMIT_DEG, SIDES, YES_NO, Margins, answer
from benchfoundry.benchmarks.odi.stages.questions.descriptions import with_article
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts
from benchfoundry.benchmarks.odi.stages.questions.question_builder import (
    Candidate,
    count_options,
    label_options,
    name,
    plural,
    pool_options,
)
from benchfoundry.core.seeding import item_rng

COLOURS = ("red", "blue", "green", "yellow", "brown", "black", "white", "grey", "orange", "purple")
MATERIALS = ("fabric", "wood", "metal", "plastic", "ceramic", "rubber", "stone", "paper", "glass")
ACTIONS = ("standing", "walking", "sitting", "running", "waving", "kicking", "jumping", "dancing", "lying down")
HOLDINGS = ("a bag", "an umbrella", "a phone", "a cup", "a book", "a camera", "a ball", "nothing")
CLOTHES = tuple(with_article(f"{c} shirt") for c in COLOURS)
SIGN_WORDS = ("EXIT", "OPEN", "STOP", "PUSH", "CAFE", "HOTEL", "PARKING", "SALE", "ENTRANCE", "TOILET")
MAX_PER_KIND = 24
#: Attribute questions: (task, attribute, question with {name}, wrong-answer pool).
ATTRIBUTES: tuple[tuple[str, str, str, Sequence[str]], ...] = (
    ("OA", "colour", "What colour is {name}?", COLOURS),
    ("OA", "material", "What is {name} made of?", MATERIALS),
    ("HA", "action", "What is {name} doing?", ACTIONS),
    ("HA", "clothing", "What is {name} wearing?", CLOTHES),
    ("HA", "holding", "What is {name} holding?", HOLDINGS),
    ("OCR", "text", "What is written on {name}?", SIGN_WORDS),
)


class Generator:
    """Makes one panorama's candidates: names, answers under the build's margins, seeded options."""

    def __init__(self, scene: PanoramaFacts, panorama: str, seed: int, margins: Margins) -> None:
        self.scene, self.panorama, self.seed, self.margins = scene, panorama, seed, margins

    def rng(self, key: str) -> np.random.Generator:
        return item_rng(self.seed, "odi.qa.candidates", f"{self.panorama}:{key}")

    def name(self, fact: Fact, direction: bool = True, attributes: bool = True) -> str | None:
        return name(self.scene, fact, direction=direction, attributes=attributes, margin=self.margins.deg)

    def make(
        self,
        task: str,
        key: str,
        spec: dict[str, Any],
        question: str,
        options: Callable[[str], tuple[str, ...] | None],
        ids: Sequence[int],
        answer_from: str,
        open_vocabulary: bool = False,
    ) -> Candidate | None:
        """The candidate when the scene answers the spec clearly and the closed form has its options."""
        found = answer(spec, self.scene, self.margins)
        if found is None:
            return None
        picked = options(found)
        if picked is None:
            return None
        return Candidate(
            task,
            spec["kind"],
            key,
            question,
            found,
            picked,
            tuple(int(i) for i in ids),
            spec,
            answer_from,
            open_vocabulary,
        )

    def capped(self, kind: str, found: list[Candidate | None]) -> list[Candidate]:
        """At most `MAX_PER_KIND` of a kind's candidates, drawn with the seed, in their order."""
        made = [c for c in found if c is not None]
        if len(made) <= MAX_PER_KIND:
            return made
        keep = sorted(self.rng(f"cap:{kind}").choice(len(made), size=MAX_PER_KIND, replace=False))
        return [made[int(i)] for i in keep]

    def placed(self) -> list[tuple[Fact, str]]:
        """Instances with a floor position near the horizon and a name."""
        found = []
        for f in self.scene.facts:
            named = self.name(f)
            if f.position_m is not None and abs(f.phi_deg) <= POLE_LIMIT_DEG and named is not None:
                found.append((f, named))
        return found


def general_candidates(g: Generator) -> list[Candidate]:
    """OA, HA and OCR per described instance; existence per class looked for; counting per class seen."""
    found: list[Candidate | None] = []
    for fact in g.scene.facts:
        named = g.name(fact, attributes=False)
        if named is None:
            continue
        for task, attr, wording, pool in ATTRIBUTES:
            if (task == "HA") != (fact.category == "person"):
                continue
            key = f"{attr}:{fact.instance_id}"
            found.append(
                g.make(
                    task,
                    key,
                    {"kind": "attribute", "id": fact.instance_id, "attr": attr},
                    wording.format(name=named),
                    lambda a, pool=pool, key=key: pool_options(a, pool, g.rng(key)),
                    [fact.instance_id],
                    "describer",
                    open_vocabulary=True,
                )
            )
    for category in g.scene.searched:
        ids = [f.instance_id for f in g.scene.facts if f.category == category]
        found.append(
            g.make(
                "existence",
                f"exists:{category}",
                {"kind": "exists", "category": category},
                f"Is there a {category} around me?",
                lambda a: label_options(a, YES_NO),
                ids,
                "census",
            )
        )
        found.append(
            g.make(
                "counting",
                f"count:{category}",
                {"kind": "count", "category": category},
                f"How many {plural(category)} are around me?",
                lambda a, category=category: count_options(int(a), g.rng(f"count:{category}"), 1),
                ids,
                "census",
            )
        )
    return [c for c in found if c is not None]


def egocentric_candidates(g: Generator) -> list[Candidate]:
    """EVO: the side of me each named instance is on."""
    found = []
    for fact in g.scene.facts:
        named = g.name(fact, direction=False)
        if named is not None:
            found.append(
                g.make(
                    "EVO",
                    f"ego:{fact.instance_id}",
                    {"kind": "egocentric", "id": fact.instance_id},
                    f"In which direction from me is {named}?",
                    lambda a: label_options(a, SIDES),
                    [fact.instance_id],
                    "directions",
                )
            )
    return g.capped("egocentric", found)


def allocentric_candidates(g: Generator) -> list[Candidate]:
    """AVO: from a person's perspective (or, in a scene without people, someone standing at an object), facing me
    or another object, the side a third object is on."""
    placed = g.placed()
    people = [(f, n) for f, n in placed if f.category == "person"]
    agents = people or placed
    found = []
    for agent, agent_name in agents:
        who = agent_name if people else f"someone standing at {agent_name}"
        facings = [(None, "me")] + [(f, n) for f, n in placed if f is not agent]
        for facing, facing_name in facings:
            for target, target_name in placed:
                if target is agent or target is facing:
                    continue
                ids = [agent.instance_id] + ([] if facing is None else [facing.instance_id]) + [target.instance_id]
                found.append(
                    g.make(
                        "AVO",
                        "avo:" + ":".join(map(str, ids)) + (":me" if facing is None else ""),
                        {
                            "kind": "allocentric",
                            "at": agent.instance_id,
                            "facing": None if facing is None else facing.instance_id,
                            "target": target.instance_id,
                        },
                        f"From the perspective of {who}, facing {facing_name}, where is {target_name}?",
                        lambda a: label_options(a, SIDES),
                        ids,
                        "floor_geometry",
                    )
                )
    return g.capped("allocentric", found)


def virtual_candidates(g: Generator) -> list[Candidate]:
    """SS: imagine I stand at one object facing another; the corner around me a third is in."""
    placed = [(f, n) for f, n in g.placed() if f.category != "person"]
    found = []
    for at, at_name in placed:
        for facing, facing_name in placed:
            for target, target_name in placed:
                if len({at.instance_id, facing.instance_id, target.instance_id}) < 3:
                    continue
                ids = [at.instance_id, facing.instance_id, target.instance_id]
                found.append(
                    g.make(
                        "SS",
                        "ss:" + ":".join(map(str, ids)),
                        {"kind": "virtual", "at": ids[0], "facing": ids[1], "target": ids[2]},
                        f"Imagine I stand at {at_name}, facing {facing_name}. Where is {target_name} from me then?",
                        lambda a: label_options(a, CORNERS),
                        ids,
                        "floor_geometry",
                    )
                )
    return g.capped("virtual", found)


def relative_candidates(g: Generator) -> list[Candidate]:
    """RD: as I look at one object, the side of it another is on (front: farther from me, back: nearer)."""
    placed = g.placed()
    found = []
    for ref, ref_name in placed:
        for target, target_name in placed:
            if target is ref:
                continue
            ids = [ref.instance_id, target.instance_id]
            found.append(
                g.make(
                    "RD",
                    f"rd:{ids[0]}:{ids[1]}",
                    {"kind": "relative", "ref": ids[0], "target": ids[1]},
                    f"As I look at {ref_name}, where is {target_name} with respect to it? "
                    f"(Front: farther from me than {ref_name}; back: nearer to me.)",
                    lambda a: label_options(a, SIDES),
                    ids,
                    "floor_geometry",
                )
            )
    return g.capped("relative", found)


def spatial_candidates(g: Generator) -> list[Candidate]:
    return egocentric_candidates(g) + allocentric_candidates(g) + virtual_candidates(g) + relative_candidates(g)
