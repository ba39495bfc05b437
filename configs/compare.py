"""`benchfoundry compare`'s own settings (`--config FILE`): when two sides' distributions count as close, when two
images are the same, how a question's template and subject are read.

Not part of a build config: comparing two builds changes nothing either built.
"""

from __future__ import annotations

from pydantic import Field

from benchfoundry.configs.base import Section, Share

#: The words that make a question's subject a person or an animal (any other subject is an object).
DEFAULT_SUBJECT_WORDS: dict[str, list[str]] = {
    "person": [
        "person",
        "people",
        "man",
        "men",
        "woman",
        "women",
        "boy",
        "girl",
        "child",
        "children",
        "human",
        "humans",
        "player",
        "someone",
        "he",
        "she",
    ],
    "animal": ["animal", "dog", "cat", "horse", "cow", "sheep", "bird", "elephant", "bear", "zebra", "giraffe"],
}


class CompareConfig(Section):
    """The thresholds of each row's verdict and of the overlap."""

    tv_max: Share = Field(
        0.15,
        description="a distribution (answers, option counts, templates, subject kinds, frames per item) differs "
        "past this total-variation distance between the sides",
    )
    share_max: Share = Field(
        0.05, description="a category's share of its benchmark's items differs past this difference"
    )
    alpha: float = Field(
        0.01,
        gt=0,
        lt=1,
        description="a difference past its threshold counts only where a chi-square test of homogeneity rejects "
        "the same distribution at this level: a small sample's noise is no difference",
    )
    phash_distance: int = Field(
        4,
        ge=0,
        le=64,
        description="two images are near-identical within this Hamming distance of their 64-bit perceptual "
        "hashes (imagehash.phash); 0: the same hash",
    )
    template_min_share: float = Field(
        0.2,
        gt=0,
        le=1,
        description="a word stays in a question's template when at least this share of its category's questions "
        "(both sides) hold it; the rarer words, numbers and quoted phrases are masked",
    )
    categorical_max: int = Field(
        20, ge=1, le=10_000, description="a free-form category's answers are compared when it has at most this many"
    )
    examples: int = Field(5, ge=0, le=1000, description="overlapping images and questions shown per benchmark")
    subject_words: dict[str, list[str]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_SUBJECT_WORDS.items()},
        description="subject kind → the words that name it: a question's subject is the kind of its first such "
        "word, else object",
    )
