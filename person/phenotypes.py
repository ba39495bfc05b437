"""Anny people: one phenotype per person id, drawn from `body.phenotypes` with the build seed.

The height is drawn in metres and anny's `height` parameter solved for it (by interpolation over a grid of
rest heights with the person's other values); the body's real height is measured afterwards anyway
(`body_mesh.BodyMesh.height_m`), so calibration never relies on the solve being exact.
"""

from __future__ import annotations

import numpy as np

from benchfoundry.configs.person import PhenotypeRanges
from benchfoundry.core.seeding import item_rng

STAGE = "phenotype"
#: anny `height` values at which rest heights are measured for the solve.
HEIGHT_GRID = np.linspace(0.0, 1.0, 9)


def draw_phenotype(ranges: PhenotypeRanges, seed: int, person_id: int) -> dict[str, float]:
    """Phenotype of person `person_id` (anny's six parameters), the same for the same seed and id."""
    from benchfoundry.person.anny_body import rest_heights

    rng = item_rng(seed, STAGE, str(person_id))
    values = {"gender": float(ranges.genders[rng.integers(len(ranges.genders))])}
    for name in ("age", "muscle", "weight", "proportions"):
        lo, hi = getattr(ranges, name)
        values[name] = float(rng.uniform(lo, hi))
    target = float(rng.uniform(*ranges.height_m))
    heights = rest_heights([dict(values, height=float(h)) for h in HEIGHT_GRID])
    if np.any(np.diff(heights) <= 0):
        raise ValueError(f"anny rest height is not increasing with its height parameter for {values}: {heights}")
    if not heights[0] <= target <= heights[-1]:
        raise ValueError(
            f"body.phenotypes.height_m: {target:.3f} m is outside what anny reaches for {values} "
            f"({heights[0]:.3f}–{heights[-1]:.3f} m)"
        )
    values["height"] = float(np.interp(target, heights, HEIGHT_GRID))
    return values
