"""SynDORBench's `scale` hook (a config's top-level `scale: f`, configs/loader.py): the section with its counts
times f, the stratified sample kept balanced.

What shrinks is what the build counts, never a factor's levels: every scene, lighting, camera, distance, person,
action and pose stays, and the sample draws fewer frames of them.

- `sample.items` becomes a whole number of *units*, the items of one frame per lighting × distance (here 2 per
  day frame and 4 per frame with a night-vision image, so 3 × 36 = 108 items for the paper's grid): f × items
  rounded to the nearest unit, half up. A unit is the paper's own grain (54,864 items are 508 units): every
  lighting then gets the same frames, split evenly over the distances, and sampling.py deals every other factor
  within one frame of even, overall and within each distance. At least as many units as let every distance
  hold every level of the section's factors (lighting, azimuth, elevation, scene, action, pose within action),
  so that no level drops out; never more than the config's own items. A section without `sample.items` (the
  full factorial) cannot be scaled here: its item count needs the people, which are not in the section.
- `discern.labels.sample_size` (the paper's 2,000) is f × it rounded half up, at least `MIN_LABEL_SAMPLE`;
  `holdout_size` (the paper's 400) the same with `MIN_HOLDOUT` and below the sample. Unset (None: Cochran's
  size, a fifth held out) they stay unset: they follow the scaled population by themselves.

A disabled section is returned as it is. The result is deterministic, so the scaled config a build records (with
no `scale`) loads to itself.
"""

from __future__ import annotations

import math

from benchfoundry.benchmarks.syndor.config import SyndorConfig
from benchfoundry.configs.sections import scaled_count

#: The least label sample of a scaled build: a few images of every stratum (distance × lighting group × raw/NV),
#: enough for the classifier's cross-validation folds.
MIN_LABEL_SAMPLE = 50
#: The least held-out part of it: the paper's fifth of the least sample, so the classifier is still tested.
MIN_HOLDOUT = 10


def item_unit(section: SyndorConfig) -> int:
    """Items of one frame per lighting × distance: the grain of a scaled sample."""
    zones = len(section.rig.zones or section.zones_ppm)
    return zones * sum(section.items_per_frame(lighting) for lighting in section.lightings)


def least_units(section: SyndorConfig) -> int:
    """The fewest units that let every distance hold every level of the section's factors (a unit gives each
    distance one frame per lighting); the people (`person.textures`) are outside the section."""
    levels = max(
        len(section.lightings),
        len(section.rig.azimuths_deg),
        len(section.rig.elevations_deg),
        len(section.scenes),
        len(section.poses.actions) * section.poses.poses_per_action,
    )
    return math.ceil(levels / len(section.lightings))


def scaled_items(section: SyndorConfig, fraction: float) -> int:
    """`sample.items` times `fraction`, in whole units (module docstring)."""
    items = section.sample.items
    if items is None:
        raise ValueError(
            "syndor.sample.items is unset (the full factorial), and its item count depends on person.textures: "
            "set syndor.sample.items to scale SynDORBench"
        )
    unit = item_unit(section)
    units = max(least_units(section), math.floor(fraction * items / unit + 0.5))
    return min(units * unit, items)


def scaled(section: SyndorConfig, fraction: float) -> SyndorConfig:
    """The section with its counts times `fraction` (0 < fraction <= 1), the sample kept balanced."""
    if not section.enabled:
        return section
    labels = section.discern.labels
    sample_size, holdout = (
        None if count is None else scaled_count(count, fraction, least)
        for count, least in ((labels.sample_size, MIN_LABEL_SAMPLE), (labels.holdout_size, MIN_HOLDOUT))
    )
    if holdout is not None and sample_size is not None:
        holdout = min(holdout, sample_size - 1)
    data = section.model_dump(mode="json")
    data["sample"]["items"] = scaled_items(section, fraction)
    data["discern"]["labels"].update(sample_size=sample_size, holdout_size=holdout)
    return SyndorConfig.model_validate(data)
