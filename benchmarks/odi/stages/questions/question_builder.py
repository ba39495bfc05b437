"""What every ODI-Bench question generator shares: the candidate question, how an instance is named, the options
of the closed form, and the closed and open items a chosen candidate becomes.

Objects are named in the first person, and only where the name picks one instance of all those the detector saw
on the sphere: "the sofa" when it is the only one, "the red chair" when its colour tells it from every other chair
(all of them described), "the chair on my left" when no other chair is near that side. A question about an
attribute or a direction does not name its object by what it asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.stages.questions.answers import POLE_LIMIT_DEG, in_sector
from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts
from benchfoundry.core.directions import distractor_pool
from benchfoundry.core.seeding import item_rng

#: The four sides around the viewer as a question says them, with their centre bearings.
QUADRANTS = (("in front of me", 0.0), ("on my right", 90.0), ("behind me", 180.0), ("on my left", 270.0))


@dataclass(frozen=True)
class Candidate:
    """A question a panorama can ask, before the budget chooses. `options` is the closed form's options with the
    answer first (the items shuffle them); `spec` is what `answers.answer` evaluates (None for a model-written
    question); `open_vocabulary` marks answers whose wrong options a model may write."""

    task: str
    kind: str
    key: str
    question: str
    answer: str
    options: tuple[str, ...]
    instance_ids: tuple[int, ...]
    spec: dict[str, Any] | None
    answer_from: str
    open_vocabulary: bool = False
    source: str = "template"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Candidate:
        return cls(
            **{
                **data,
                "options": tuple(data["options"]),
                "instance_ids": tuple(int(i) for i in data["instance_ids"]),
            }
        )


def plural(noun: str) -> str:
    """English plural of a category name ("bench" → "benches", "person" → "people", "shelf" → "shelves")."""
    head, _, last = noun.rpartition(" ")
    irregular = {"person": "people", "man": "men", "woman": "women", "child": "children", "shelf": "shelves"}
    if last in irregular or last.endswith("shelf"):
        word = irregular.get(last, last[:-1] + "ves")
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        word = last + "es"
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def _look(fact: Fact) -> str | None:
    """The attribute that tells an instance from others of its class: a person's clothing, else its colour."""
    if fact.category == "person":
        return f"wearing {fact.clothing}" if fact.clothing else None
    return fact.colour


def name(scene: PanoramaFacts, fact: Fact, *, direction: bool, attributes: bool, margin: float) -> str | None:
    """The first-person name that picks `fact` alone (module docstring), or None. `direction` and `attributes`
    allow a side of me or its look in the name."""
    if scene.census.get(fact.category, 0) == 1:
        return f"the {fact.category}"
    same = [f for f in scene.facts if f.category == fact.category]
    look = _look(fact)
    if attributes and look and len(same) == scene.census.get(fact.category, 0):
        if sum(_look(f) == look for f in same) == 1:
            return f"the {fact.category} {look}" if look.startswith("wearing") else f"the {look} {fact.category}"
    if direction and abs(fact.phi_deg) <= POLE_LIMIT_DEG:
        others = [
            s for s in scene.sightings(fact.category) if (s.theta_deg, s.phi_deg) != (fact.theta_deg, fact.phi_deg)
        ]
        for phrase, centre in QUADRANTS:
            if in_sector(fact.theta_deg, centre, margin) and all(
                in_sector(s.theta_deg, centre, margin) is False for s in others
            ):
                return f"the {fact.category} {phrase}"
    return None


def label_options(answer: str, labels: Sequence[str]) -> tuple[str, ...]:
    """A fixed label set as options, the answer first."""
    return (answer, *(label for label in labels if label != answer))


def pool_options(answer: str, pool: Sequence[str], rng: np.random.Generator) -> tuple[str, ...] | None:
    """The answer and three wrong options drawn from `pool` under the distractor rule; None when it has fewer."""
    wrong = sorted(set(distractor_pool(answer, pool)))
    if len(wrong) < 3:
        return None
    return (answer, *(wrong[int(i)] for i in rng.choice(len(wrong), size=3, replace=False)))


def count_options(answer: int, rng: np.random.Generator, lowest: int) -> tuple[str, ...]:
    """Four consecutive counts from `lowest` or above holding the answer at a seeded place, the answer first."""
    start = int(rng.integers(max(lowest, answer - 3), answer + 1))
    return (str(answer), *(str(n) for n in range(start, start + 4) if n != answer))


def items_of(candidate: Candidate, panorama: str, image: str, seed: int, distractors_from: str) -> list[dict[str, Any]]:
    """The closed item (options shuffled by the item's seed) and the open item of a chosen candidate."""
    item_id = f"{panorama}:{candidate.task}:{candidate.key}"
    base = {
        "task": candidate.task,
        "question": candidate.question,
        "answer": candidate.answer,
        "image": image,
        "instance_ids": list(candidate.instance_ids),
        "source": candidate.source,
        "verified": False,
        "answer_from": candidate.answer_from,
    }
    order = item_rng(seed, "odi.qa.options", item_id).permutation(len(candidate.options))
    closed = {
        "id": f"{item_id}:closed",
        "form": "closed",
        **base,
        "options": [candidate.options[int(i)] for i in order],
        "distractors_from": distractors_from,
    }
    return [closed, {"id": f"{item_id}:open", "form": "open", **base, "options": [], "distractors_from": ""}]
