"""The parts every ODI-Bench question generator shares: an instance's facts, the first-person sectors
around the viewer, English plurals, and the builder that turns a question and its answer into the closed
(lettered options shuffled by the item's seed) and open items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchfoundry.core.directions import distractor_pool
from benchfoundry.core.seeding import item_rng

#: The four 90° sectors around the viewer: phrase and centre bearing (θ = 0 ahead, +90° on the right).
QUADRANTS = (("in front of me", 0.0), ("on my right", 90.0), ("behind me", 180.0), ("on my left", 270.0))


@dataclass(frozen=True)
class Fact:
    instance_id: int
    category: str
    theta_deg: float
    phi_deg: float
    colour: str | None = None
    material: str | None = None
    text: str | None = None
    pose: str | None = None
    position_m: tuple[float, float, float] | None = None


def signed(angle: float) -> float:
    """An angle in (−180, 180]."""
    wrapped = (angle + 180.0) % 360.0 - 180.0
    return 180.0 if wrapped == -180.0 else wrapped


def quadrant(theta: float) -> tuple[str, float]:
    """The phrase of the 90° sector around the viewer holding θ, and θ's distance to the sector's edge."""
    for phrase, centre in QUADRANTS:
        offset = abs(signed(theta - centre))
        if offset < 45.0:
            return phrase, 45.0 - offset
    return QUADRANTS[0][0], 0.0


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


class ItemBuilder:
    """Collects one panorama's items; options are shuffled by each item's own seed."""

    def __init__(self, panorama: str, image: str, seed: int) -> None:
        self.panorama, self.image, self.seed = panorama, image, seed
        self.items: list[dict[str, Any]] = []

    def add(
        self,
        task: str,
        key: str,
        question: str,
        answer: str,
        pool: Sequence[str],
        ids: Sequence[int],
        n_options: int = 4,
    ) -> None:
        base = {
            "task": task,
            "question": question,
            "answer": answer,
            "image": self.image,
            "instance_ids": [int(i) for i in ids],
            "source": "template",
            "verified": False,
        }
        item_id = f"{self.panorama}:{task}:{key}"
        distractors = sorted(set(distractor_pool(answer, pool)))
        if len(distractors) >= n_options - 1:
            rng = item_rng(self.seed, "odi.qa.options", item_id)
            picked = [distractors[i] for i in rng.choice(len(distractors), size=n_options - 1, replace=False)]
            options = [answer, *picked]
            self.items.append(
                {
                    "id": f"{item_id}:closed",
                    "form": "closed",
                    **base,
                    "options": [options[i] for i in rng.permutation(n_options)],
                }
            )
        self.items.append({"id": f"{item_id}:open", "form": "open", **base, "options": []})
