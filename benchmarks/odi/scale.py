"""ODI-Bench's `scale` hook (pipeline/benchmarks.py): its section with its counts times a fraction f of a
config's top-level `scale` (configs/loader.py), kept balanced.

The panoramas: `synthetic.count` variants become round(count · f), or without a count the scenes listed become
the first round(len · f); at least one either way. A folder of given panoramas (`panorama_root`) is listed, not
counted, so it stays as it is. The questions: a build-wide `budget.total` keeps its questions per panorama,
round(total · n′ / n) over the n′ of n panoramas (so 4,254 over 2,000 at f = 0.01 is 43 over 20, the full
build's 2 or 3 a panorama), or round(total · f) when the panoramas stay; at least one, and at most what the
panoramas can give (`per_task` of each task each). `per_panorama` and `per_task` are a panorama's share, not
counts of the build, and stay; the budget's choice balances the tasks, kinds and answers of whatever total it
is given (benchmarks/odi/stages/questions/budget.py). Rounding is half up."""

from __future__ import annotations

from benchfoundry.benchmarks.odi.config import OdiConfig
from benchfoundry.benchmarks.odi.identity import CATEGORIES
from benchfoundry.configs.sections import scaled_count


def scaled(section: OdiConfig, fraction: float) -> OdiConfig:
    """The section with its panoramas and question budget times `fraction` (0 < f <= 1)."""
    data = section.model_dump(mode="python")
    ratio, capacity = fraction, None
    if section.panorama_root is None:
        synthetic = section.synthetic
        if synthetic.count is not None:
            data["synthetic"]["count"] = scaled_count(synthetic.count, fraction)
        else:
            data["synthetic"]["scenes"] = synthetic.scenes[: scaled_count(len(synthetic.scenes), fraction)]
        panoramas = len(type(synthetic).model_validate(data["synthetic"]).names)
        ratio = panoramas / len(synthetic.names)
        capacity = panoramas * section.qa.budget.per_task * len(CATEGORIES)
    total = section.qa.budget.total
    if total is not None:
        data["qa"]["budget"]["total"] = min(scaled_count(total, ratio), capacity or total)
    return OdiConfig.model_validate(data)
