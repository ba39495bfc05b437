"""The dataset card (`README.md`) of every Hugging Face dataset an export writes: the YAML metadata the Hub reads
(license, task categories, language, size category, pretty name, `dataset_info` features and splits, `configs`),
then what the data is, its fields, how it was built and under which terms, and the paper to cite."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from benchfoundry.export.card_facts import CardFacts
from benchfoundry.export.dataset_files import SplitFile
from benchfoundry.export.provenance import Provenance

#: The Hub's size categories: the first whose bound the row count stays below (`datasets`' size_categories.json).
SIZE_CATEGORIES = (
    (10**3, "n<1K"),
    (10**4, "1K<n<10K"),
    (10**5, "10K<n<100K"),
    (10**6, "100K<n<1M"),
    (10**7, "1M<n<10M"),
    (10**8, "10M<n<100M"),
    (10**9, "100M<n<1B"),
    (10**10, "1B<n<10B"),
    (10**11, "10B<n<100B"),
    (10**12, "100B<n<1T"),
)


def size_category(rows: int) -> str:
    """The Hub's size category of a dataset of `rows` rows."""
    return next((name for bound, name in SIZE_CATEGORIES if rows < bound), "n>1T")


def _yaml_type(feature: Mapping[str, Any]) -> str | dict[str, Any]:
    if feature["_type"] == "Image":
        return "image"
    if feature["_type"] == "Sequence":
        return {"list": _yaml_type(feature["feature"])}
    return str(feature["dtype"])


def yaml_features(features: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The `datasets` features (their JSON form, as the Parquet schema carries them) as a card lists them."""
    out = []
    for name, feature in features.items():
        kind = _yaml_type(feature)
        out.append({"name": name, **(kind if isinstance(kind, dict) else {"dtype": kind})})
    return out


def type_text(feature: Mapping[str, Any]) -> str:
    """A feature in words: `string`, `image`, `list of image`."""
    kind = _yaml_type(feature)
    words = []
    while isinstance(kind, dict):
        words.append("list of")
        kind = kind["list"]
    return " ".join([*words, kind])


def keywords(facts: CardFacts, prov: Provenance) -> list[str]:
    """The card's tags and Croissant's keywords: `synthetic` only when the build is known to have used no licensed
    asset (nothing real in it)."""
    return ["benchfoundry", *(["synthetic"] if prov.assets == () else []), *facts.tags]


def front_matter(
    facts: CardFacts, prov: Provenance, files: Sequence[SplitFile], features: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The card's YAML metadata."""
    return {
        "pretty_name": facts.pretty_name,
        "license": prov.license,
        "language": list(facts.language),
        "task_categories": list(facts.task_categories),
        "size_categories": [size_category(sum(f.rows for f in files))],
        "tags": keywords(facts, prov),
        "dataset_info": {
            "features": yaml_features(features),
            "splits": [{"name": f.split, "num_bytes": f.num_bytes, "num_examples": f.rows} for f in files],
            "download_size": sum(f.size for f in files),
            "dataset_size": sum(f.num_bytes for f in files),
        },
        "configs": [
            {"config_name": "default", "data_files": [{"split": f.split, "path": f.path} for f in files]},
        ],
    }


def _cell(text: str) -> str:
    """Text as one cell of a Markdown table: on one line, its pipes escaped, HTML shown as text, not markup."""
    flat = " ".join(html.escape(str(text), quote=False).split())
    return flat.replace("|", "\\|")


def _code(text: str) -> str:
    """Text as an inline code span in one cell of a Markdown table: on one line, fenced by more backticks than
    it holds in a row, its pipes escaped (a table reads them before the span)."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if "`" in flat else ""
    return fence + pad + flat.replace("|", "\\|") + pad + fence


def _built(prov: Provenance) -> str:
    def said(value: object) -> str:
        return "not recorded" if value is None else f"`{value}`"

    lines = [
        f"- build: {said(prov.name)}",
        f"- benchfoundry version: {said(prov.version)}",
        f"- config hash (SHA-256 of the resolved config): {said(prov.config_hash)}",
        f"- seed: {said(prov.seed)}",
        f"- finished: {said(prov.finished)}",
    ]
    if prov.assets is None:
        lines.append("- licensed assets: not recorded (the build record holds no config)")
    else:
        names = ", ".join(f"{a.name} (`{a.key}`)" for a in prov.assets)
        lines.append(f"- licensed assets: {names or 'none; only the content this project makes'}")
    return "\n".join(lines)


def _terms(prov: Provenance) -> str:
    own = (
        f"The data this project makes (renders of its own scenes and people, questions and answers from its "
        f"templates) is released under `{prov.license}`."
    )
    if prov.assets is None:
        return f"{own} The build record names no config, so whether licensed assets were used is not known."
    if not prov.assets:
        return f"{own} The build used no licensed asset."
    listed = "\n".join(f"- {a.name} (config `{a.key}`): {a.terms}" for a in prov.assets)
    return (
        f"{own} This build also used licensed assets: their terms apply to the images and annotations made from "
        f"them, beside the license above.\n\n{listed}"
    )


def dataset_card(
    facts: CardFacts, prov: Provenance, files: Sequence[SplitFile], features: Mapping[str, Mapping[str, Any]]
) -> str:
    """README.md: the YAML metadata, then the card's sections."""
    meta = yaml.safe_dump(front_matter(facts, prov, files, features), sort_keys=False, allow_unicode=True)
    original = f"[{facts.paper}]({facts.url})" if facts.paper and facts.url else facts.paper or facts.pretty_name
    splits = "\n".join(f"| {_code(f.split)} | {f.rows} | {_code(f.path)} |" for f in files)
    fields = "\n".join(
        f"| {_code(name)} | {_cell(type_text(feature))} | {_cell(facts.fields.get(name, 'not described'))} |"
        for name, feature in features.items()
    )
    citation = (
        f"If you use this dataset, cite the original paper:\n\n```bibtex\n{facts.citation.strip()}\n```"
        if facts.citation
        else "The benchmark names no paper to cite."
    )
    return (
        f"---\n{meta}---\n\n# {facts.pretty_name}\n\n{facts.summary}\n\n"
        f"This is {original} rebuilt by benchfoundry from raw assets, not the authors' release.\n\n"
        "## Loading\n\n```python\nfrom datasets import load_dataset\n\n"
        'dataset = load_dataset("<this folder or its Hub id>")\n```\n\n'
        "`croissant.json` describes the same files in Croissant (one record set per split).\n\n"
        f"## Splits\n\n| split | rows | file |\n|---|---|---|\n{splits}\n\n"
        f"## Fields\n\n| field | type | description |\n|---|---|---|\n{fields}\n\n"
        f"## How it was built\n\n{_built(prov)}\n\n## License\n\n{_terms(prov)}\n\n## Citation\n\n{citation}\n"
    )
