"""How a build's exports are licensed (`export:` of a build config), and the shape of a licensed asset: a config key
that, when set, means the build used outside content under its owner's terms (its dataset card says so)."""

from __future__ import annotations

from typing import NamedTuple

from pydantic import Field

from benchfoundry.configs.base import Section


class LicensedAsset(NamedTuple):
    """Outside content a config key brings into a build: the key (dotted, as in `--set`), its name, its terms."""

    key: str
    name: str
    terms: str


class ExportConfig(Section):
    """The license a build's dataset cards and Croissant metadata declare."""

    # The default covers what this project makes itself: renders of its own scenes and procedural people, questions
    # and answers written by its templates. That is generated data with no third party's rights in it, and CC-BY-4.0
    # lets anyone use it while asking for credit. Licensed assets a build uses (ScanNet, COCO, AMASS, …) keep their own
    # terms, which the dataset card lists beside this license.
    license: str = Field(
        "cc-by-4.0",
        pattern=r"^[a-z0-9][a-z0-9.+-]{0,63}$",
        description="the exported data's Hugging Face license id (lower case: cc-by-4.0, cc-by-nc-4.0, other, …)",
    )
