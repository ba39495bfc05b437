"""How ViewSpatial's COCO questions name a person: by noun ("the woman", "the man", "the boy"), as the release
does, from the synthetic truth (the body's phenotype) or from the image's COCO captions; people sharing a noun
are told apart by what they wear (benchmarks/viewspatial/coco/stages/clothing.py), and by their place in the image ("the
man
on the left", "the second man from the left") only where that does not single them out."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

#: Caption words → the noun a question uses.
CAPTION_NOUNS: dict[str, str] = {
    "man": "man",
    "men": "man",
    "guy": "man",
    "gentleman": "man",
    "woman": "woman",
    "women": "woman",
    "lady": "woman",
    "boy": "boy",
    "girl": "girl",
    "child": "child",
    "kid": "child",
    "toddler": "child",
    "baby": "baby",
    "person": "person",
}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_WORD = re.compile(r"[a-z]+")


def caption_noun(captions: Sequence[str]) -> str:
    """The noun most of the captions use first for a person (each caption votes once); "person" when none
    does or two nouns tie."""
    votes = Counter()
    for caption in captions:
        noun = next((CAPTION_NOUNS[w] for w in _WORD.findall(caption.lower()) if w in CAPTION_NOUNS), None)
        if noun:
            votes[noun] += 1
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return "person"
    return ranked[0][0]


def phenotype_noun(gender: float, age: float) -> str:
    """The noun of an Anny phenotype: gender 0 male, 1 female; age below 0.5 a child (anny: 2/3 a young adult)."""
    if 0.25 < gender < 0.75:
        return "child" if age < 0.5 else "person"
    if age < 0.5:
        return "boy" if gender <= 0.25 else "girl"
    return "man" if gender <= 0.25 else "woman"


def subject_phrases(people: Sequence[tuple[int, str, float]]) -> dict[int, str]:
    """Annotation id → "the <noun>" of each (annotation id, noun, image x of the person's centre); people who
    share a noun are told apart left to right ("on the left"/"on the right", or "the second man from the left")."""
    phrases = {}
    for noun in {noun for _, noun, _ in people}:
        same = sorted((x, ann) for ann, n, x in people if n == noun)
        for k, (_, ann) in enumerate(same):
            if len(same) == 1:
                phrases[ann] = f"the {noun}"
            elif len(same) == 2:
                phrases[ann] = f"the {noun} on the {'left' if k == 0 else 'right'}"
            else:
                ordinal = ORDINALS[k] if k < len(ORDINALS) else f"{k + 1}th"
                phrases[ann] = f"the {ordinal} {noun} from the left"
    return phrases


def alone_of_their_noun(people: Sequence[tuple[int, str, float]]) -> set[int]:
    """The annotation ids of (annotation id, noun, image x) whose noun alone names them ("the man"): the release
    names the others by what they wear ("the man in white"), almost never by place (6 of its 2,346 person
    subjects)."""
    nouns = Counter(noun for _, noun, _ in people)
    return {ann for ann, noun, _ in people if nouns[noun] == 1}
