"""Who a synthetic COCO person is: a noun drawn by weight (the release's man 1,317 : woman 735 : boy 240 : girl
137) and the Anny phenotype that makes one: its gender, an age range (anny: 1/3 a child, 2/3 a young adult) and a
height range for the noun; muscle, weight and proportions stay as `person.body.phenotypes` draws them. The noun a
question uses is read back from the drawn phenotype (subjects.phenotype_noun), the truth."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from benchfoundry.configs.person import PersonConfig

#: noun → (anny gender, age range, standing height range in metres).
NOUN_PHENOTYPES: dict[str, tuple[float, tuple[float, float], tuple[float, float]]] = {
    "man": (0.0, (0.6, 0.85), (1.65, 1.95)),
    "woman": (1.0, (0.6, 0.85), (1.52, 1.82)),
    "boy": (0.0, (0.33, 0.45), (1.15, 1.5)),
    "girl": (1.0, (0.33, 0.45), (1.12, 1.45)),
}


def draw_by_weight(rng: np.random.Generator, weights: Mapping[str, float]) -> str:
    """A key of `weights` (a noun, a label → weight) drawn by weight."""
    keys = list(weights)
    p = np.array([weights[k] for k in keys], dtype=float)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def person_as(person: PersonConfig, noun: str | None) -> PersonConfig:
    """`person` whose phenotypes draw a `noun` (None: as configured)."""
    if noun is None:
        return person
    gender, age, height = NOUN_PHENOTYPES[noun]
    ranges = person.body.phenotypes.model_copy(update={"genders": [gender], "age": age, "height_m": height})
    return person.model_copy(update={"body": person.body.model_copy(update={"phenotypes": ranges})})
