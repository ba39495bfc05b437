"""A task's budget filled label by label in given answer shares (`release.answer_shares`), as far as the
candidates allow: how many items of each answer label, and which (the first of each label in a given order)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd


def label_quotas(available: Mapping[str, int], shares: Mapping[str, float], n: int) -> dict[str, int]:
    """Items to take of each label: `n` (or every item, when fewer) split in proportion to `shares`, a label with
    fewer candidates than its part taken whole and its surplus split among the others the same way, then rounded
    once (largest remainders, ties by label); labels without a share fill what the shared labels cannot."""
    quota = dict.fromkeys(available, 0)
    left = min(n, sum(available.values()))
    active = sorted(k for k, m in available.items() if m > 0 and shares.get(k, 0) > 0)
    while True:
        room, total = left - sum(quota.values()), sum(shares[k] for k in active)
        ideal = {k: room * shares[k] / total for k in active}
        full = [k for k in active if ideal[k] >= available[k]]
        if not full:
            break
        quota.update({k: available[k] for k in full})
        active = [k for k in active if k not in full]
    for k, x in ideal.items():
        quota[k] = math.floor(x)
    short = left - sum(quota.values())
    by_remainder = sorted(ideal, key=lambda k: (-(ideal[k] - math.floor(ideal[k])), k))
    for k in by_remainder[: max(short, 0)]:
        quota[k] += 1
    left -= sum(quota.values())
    for k in sorted(available):
        add = min(available[k] - quota[k], left)
        quota[k] += add
        left -= add
    return quota


def shaped(rows: pd.DataFrame, n: int, shares: Mapping[str, float]) -> pd.DataFrame:
    """At most `n` of `rows` (one task's, in the order to draw them), `label_quotas` of each `answer_label`: the
    first rows of each label."""
    labels = rows["answer_label"].astype(str)
    quota = label_quotas(labels.value_counts().to_dict(), shares, n)
    return rows[labels.groupby(labels, sort=False).cumcount() < labels.map(quota)]
