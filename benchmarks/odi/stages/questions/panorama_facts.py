"""What the questions of one panorama know (docs/design/odi.md §2.3): its described instances and the census of the
sphere.

A real panorama gives, without any 3D truth: each kept instance's class and direction (θ, φ, exact from its
mask), its floor contact point (a position on a flat floor with the camera `camera_height_m` above it, for the
classes that stand there, `odi.qa.floor_classes`, when the point lies `min_depression_deg` below the horizon),
the solid angle and ERP area of its mask, the describer's attributes, and the detector's census (the kept
instances and the objects across face edges, by class and direction). The same `PanoramaFacts` built from the synthetic
truth (benchmarks/odi/stages/questions/truth_facts.py) answers the same questions for the agreement figures.

Floor coordinates: the viewer at x = y = 0, +y ahead (θ = 0), +x on the right (θ = 90°).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchfoundry.benchmarks.odi.qa_config import OdiQaConfig
from benchfoundry.benchmarks.odi.stages.annotation.mask_measures import floor_point
from benchfoundry.benchmarks.odi.stages.questions.descriptions import Description


@dataclass(frozen=True)
class Fact:
    """One instance: class, direction, what is measured of it and what its description says."""

    instance_id: int
    category: str
    theta_deg: float
    phi_deg: float
    position_m: tuple[float, float] | None = None
    solid_angle_sr: float | None = None
    erp_fraction: float | None = None
    colour: str | None = None
    material: str | None = None
    text: str | None = None
    clothing: str | None = None
    action: str | None = None
    holding: str | None = None


@dataclass(frozen=True)
class Sighting:
    """An instance known by class and direction only (an object across face edges)."""

    category: str
    theta_deg: float
    phi_deg: float


@dataclass(frozen=True)
class PanoramaFacts:
    """A panorama's facts, the other instances seen, the census by class and the classes looked for."""

    facts: tuple[Fact, ...]
    others: tuple[Sighting, ...] = ()
    census: Mapping[str, int] = field(default_factory=dict)
    searched: tuple[str, ...] = ()

    def fact(self, instance_id: int) -> Fact | None:
        return next((f for f in self.facts if f.instance_id == instance_id), None)

    def sightings(self, category: str) -> list[Sighting]:
        """Every instance of a class with a direction: the facts and the others."""
        return [Sighting(f.category, f.theta_deg, f.phi_deg) for f in self.facts if f.category == category] + [
            s for s in self.others if s.category == category
        ]


def floor_position(row: Mapping[str, Any], qa: OdiQaConfig) -> tuple[float, float] | None:
    """An instance's floor contact point (module docstring), or None."""
    contact = row.get("contact_phi_deg")
    if str(row["class"]) not in qa.floor_classes or contact is None or float(contact) > -qa.min_depression_deg:
        return None
    return floor_point(float(row["theta_deg"]), float(contact), qa.camera_height_m)


def estimated_scene(
    rows: Sequence[Mapping[str, Any]],
    described: Mapping[int, Description | None],
    spanning: Sequence[Mapping[str, Any]],
    classes: Sequence[str],
    qa: OdiQaConfig,
) -> PanoramaFacts:
    """The scene a real panorama gives: the rows of the instances kept by the consistency filter (`described`:
    instance → its description, None where the describer could not see), the objects across face edges."""
    facts = []
    for row in rows:
        k = int(row["instance"])
        if k not in described:
            continue
        d = described[k]
        facts.append(
            Fact(
                k,
                str(row["class"]),
                float(row["theta_deg"]),
                float(row["phi_deg"]),
                position_m=floor_position(row, qa),
                solid_angle_sr=float(row["solid_angle_sr"]),
                erp_fraction=float(row["erp_fraction"]),
                **({} if d is None else _attributes(d)),
            )
        )
    others = tuple(Sighting(str(s["class"]), float(s["theta_deg"]), float(s["phi_deg"])) for s in spanning)
    census: dict[str, int] = {}
    for category in [f.category for f in facts] + [s.category for s in others]:
        census[category] = census.get(category, 0) + 1
    return PanoramaFacts(tuple(facts), others, dict(sorted(census.items())), tuple(classes))


def _attributes(d: Description) -> dict[str, str | None]:
    return {
        "colour": d.colour,
        "material": d.material,
        "text": d.text,
        "clothing": d.clothing,
        "action": d.action,
        "holding": d.holding,
    }
