"""ViewSpatial-Bench's `scale` hook (pipeline/benchmarks.py): its section with its counts times a fraction f of a
config's top-level `scale` (configs/loader.py), kept balanced.

The budgets (`release.budgets`, the items of each task in ViewSpatial-Bench.json) each become round(budget · f),
half up, at least 1 (a budget of 0 stays 0, an unbudgeted task, null, stays unbudgeted): each within half an
item of its share, so the tasks keep the release's ratios (1,773 : 996 : 996 : 842 : 1,105) within rounding.
The data they are drawn from: the synthetic scans (`synthetic.scans`) and the synthetic COCO set's images
(`coco.synthetic.images`) of each split become ⌈n · f⌉, at least 1 (at least one scan of each split, one image),
rounded up so that the headroom a full build's data has over its budgets is kept at any f. Of real data the only
count is `max_scans` (the first N scans of each split list), scaled the same way when set; a split list read whole
and real COCO's images are not counted before the build and stay. Caps per scan, frame or image (`qa`,
`coverage`, `coco.per_rel`) and shares are not counts of the build, and stay."""

from __future__ import annotations

import math

from benchfoundry.benchmarks.viewspatial.config import ViewSpatialConfig
from benchfoundry.configs.sections import scaled_count

#: Slack of ⌈n · f⌉ against floating point: 240 · 0.1 is 24.000000000000004, 24 scans.
_EPSILON = 1e-9


def scaled_budget(budget: int | None, fraction: float) -> int | None:
    """round(budget · fraction), half up, at least 1; 0 stays 0 and None (every item) stays None."""
    return budget if not budget else scaled_count(budget, fraction)


def scaled_data(count: int, fraction: float) -> int:
    """⌈count · fraction⌉, at least 1: the scans or images a count of data keeps."""
    return max(1, math.ceil(count * fraction - _EPSILON))


def scaled(section: ViewSpatialConfig, fraction: float) -> ViewSpatialConfig:
    """The section with its task budgets, synthetic scans and synthetic images times `fraction` (0 < f <= 1)."""
    data = section.model_dump(mode="python")
    budgets = data["release"]["budgets"]
    for task, budget in budgets.items():
        budgets[task] = scaled_budget(budget, fraction)
    if section.scannet_root is None:
        scans = data["synthetic"]["scans"]
        for split, n in scans.items():
            scans[split] = scaled_data(n, fraction)
    if section.max_scans is not None:
        data["max_scans"] = scaled_data(section.max_scans, fraction)
    if not section.coco.splits:
        images = data["coco"]["synthetic"]["images"]
        for split, n in images.items():
            images[split] = scaled_data(n, fraction)
    return ViewSpatialConfig.model_validate(data)
