"""What a benchmark tells its dataset card and Croissant metadata (its descriptor's `card` hook): who made the
original, what it asks, what each column holds, and which config keys bring licensed content into a build."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from benchfoundry.configs.export import LicensedAsset
from benchfoundry.pipeline.benchmarks import get, hook


@dataclass(frozen=True)
class CardFacts:
    """A benchmark's facts for its card; the generic card adds the build's provenance, sizes and features."""

    pretty_name: str
    summary: str = ""  # a paragraph: what the benchmark asks, in the authors' terms
    paper: str = ""  # the original paper's title and venue
    url: str = ""  # the original paper's or release's page
    citation: str = ""  # the paper's BibTeX
    task_categories: tuple[str, ...] = ("visual-question-answering",)  # Hugging Face task categories
    language: tuple[str, ...] = ("en",)
    tags: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict)  # column → what it holds
    licensed_assets: tuple[LicensedAsset, ...] = ()  # config keys that, set, bring in content under its own terms


def card_facts(benchmark: str) -> CardFacts:
    """The benchmark's `card` hook, or its title alone when it declares none; ValueError when the hook is not a
    CardFacts."""
    facts = hook(benchmark, "card")
    if facts is None:
        return CardFacts(pretty_name=get(benchmark).title)
    if not isinstance(facts, CardFacts):
        raise ValueError(f"{benchmark}: its descriptor's card is not a CardFacts: {type(facts).__name__}")
    return facts
