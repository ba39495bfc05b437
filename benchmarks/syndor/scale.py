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
from benchfoundry.benchmarks.syndor.lighting import family
from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS

#: The least label sample of a scaled build: a few images of every stratum (distance × lighting group × raw/NV),
#: enough for the classifier's cross-validation folds.
MIN_LABEL_SAMPLE = 50
#: The least held-out part of it: the paper's fifth of the least sample, so the classifier is still tested.
MIN_HOLDOUT = 10


def _round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


def items_per_frame(section: SyndorConfig, lighting: str) -> int:
    """QA items of one frame of `lighting`: a row per task, twice with a night-vision image (as
    sampling.items_per_frame, from the section alone)."""
    return len(TASK_PROMPTS) * (2 if family(lighting) in section.discern.isp.apply_to else 1)


def poses_per_action(section: SyndorConfig) -> int:
    """Poses per action as the plan counts them: `max_frames_per_action` with AMASS, one built-in pose otherwise."""
    return section.poses.max_frames_per_action if section.poses.uses_amass else 1


def item_unit(section: SyndorConfig) -> int:
    """Items of one frame per lighting × distance: the grain of a scaled sample."""
    zones = len(section.rig.zones or section.zones_ppm)
    return zones * sum(items_per_frame(section, lighting) for lighting in section.lightings)


def least_units(section: SyndorConfig) -> int:
    """The fewest units that let every distance hold every level of the section's factors (a unit gives each
    distance one frame per lighting); the people (`person.textures`) are outside the section."""
    levels = max(
        len(section.lightings),
        len(section.rig.azimuths_deg),
        len(section.rig.elevations_deg),
        len(section.scenes),
        len(section.poses.actions) * poses_per_action(section),
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
    units = max(least_units(section), _round_half_up(fraction * items / unit))
    return min(units * unit, items)


def _scaled_count(count: int | None, fraction: float, least: int) -> int | None:
    if count is None:
        return None
    return min(count, max(least, _round_half_up(fraction * count)))


def scaled(section: SyndorConfig, fraction: float) -> SyndorConfig:
    """The section with its counts times `fraction` (0 < fraction <= 1), the sample kept balanced."""
    if not 0 < fraction <= 1:
        raise ValueError(f"scale: {fraction!r} is not a fraction in (0, 1]")
    if not section.enabled:
        return section
    labels = section.discern.labels
    sample_size = _scaled_count(labels.sample_size, fraction, MIN_LABEL_SAMPLE)
    holdout = _scaled_count(labels.holdout_size, fraction, MIN_HOLDOUT)
    if holdout is not None and sample_size is not None:
        holdout = min(holdout, sample_size - 1)
    data = section.model_dump(mode="json")
    data["sample"]["items"] = scaled_items(section, fraction)
    data["discern"]["labels"].update(sample_size=sample_size, holdout_size=holdout)
    return SyndorConfig.model_validate(data)
