"""A budget filled in the release's answer shares (benchmarks/viewspatial/release/answer_shares.py,
release.within_budgets):
the quotas' arithmetic checked against its definition on random availabilities, and a skewed candidate pool
drawn back to the shares."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.config import RELEASE_ANSWERS, ReleaseConfig, TaskBudgets
from benchfoundry.benchmarks.viewspatial.release.answer_shares import label_quotas
from benchfoundry.benchmarks.viewspatial.release.release import within_budgets

LABELS = ("front", "back", "left", "right")


@pytest.mark.parametrize("seed", range(40))
def test_quotas_take_what_there_is_and_split_it_by_share_among_the_labels_with_room(seed: int) -> None:
    rng = np.random.default_rng(seed)
    available = {k: int(rng.integers(0, 60)) for k in LABELS}
    shares = {k: float(rng.uniform(0.1, 5.0)) for k in LABELS[:3]}  # "right" has no share
    n = int(rng.integers(0, 200))
    quota = label_quotas(available, shares, n)
    assert sum(quota.values()) == min(n, sum(available.values()))
    assert all(0 <= quota[k] <= available[k] for k in LABELS)
    # A label short of what it asks is taken whole; the labels with room left each lie within one item (rounding)
    # of one common multiple of their shares; the unshared label only fills what the others cannot.
    room = [k for k in shares if quota[k] < available[k]]
    for a in room:
        for b in room:
            assert (quota[a] - 1) / shares[a] < (quota[b] + 1) / shares[b]
    if quota["right"] > 0:
        assert all(quota[k] == available[k] for k in shares)


def test_with_plenty_of_every_label_each_quota_is_its_share_of_the_budget() -> None:
    shares = RELEASE_ANSWERS["cam_rel"]
    quota = label_quotas(dict.fromkeys(shares, 10_000), shares, 1773)
    total = sum(shares.values())
    assert sum(quota.values()) == 1773
    assert all(abs(quota[k] - 1773 * w / total) < 1 for k, w in shares.items())


def _cam_rel_rows(counts: dict[str, int]) -> pd.DataFrame:
    labels = [label for label, n in counts.items() for _ in range(n)]
    return pd.DataFrame(
        {
            "item_id": [f"scene:cam:{k}" for k in range(len(labels))],
            "split": "val",
            "question_type": CATEGORIES["Cam-Rel. Dir."],
            "image_path": [[f"images/scene{k % 37:04d}/{k}.jpg"] for k in range(len(labels))],
            "answer_label": labels,
        }
    )


def test_a_skewed_pool_is_drawn_to_the_shares_and_without_shares_follows_the_seed_alone() -> None:
    rows = _cam_rel_rows({"right": 700, "left": 150, "front": 100, "back": 50})
    shares = {"cam_rel": {"right": 1.0, "left": 1.0, "front": 1.0, "back": 1.0}}
    kept = within_budgets(rows, TaskBudgets(cam_rel=160), 3, answer_shares=shares)
    assert kept["answer_label"].value_counts().to_dict() == {"right": 40, "left": 40, "front": 40, "back": 40}
    assert within_budgets(rows, TaskBudgets(cam_rel=160), 3, answer_shares=shares).equals(kept)
    plain = within_budgets(rows, TaskBudgets(cam_rel=160), 3)
    assert len(plain) == 160 and (plain["answer_label"] == "right").sum() > 80  # the pool's 70 %
    # Within a label the draw keeps the seed's image order: the kept "right" rows are a subset of the plain draw's
    # first rows of that label in the same ranking, so a larger budget only adds rows.
    more = within_budgets(rows, TaskBudgets(cam_rel=200), 3, answer_shares=shares)
    assert set(kept["item_id"]) <= set(more["item_id"])


def test_per_obj_is_asked_of_the_people_cam_obj_is_drawn_for() -> None:
    """Cam-Obj. Ori. drawn to even shares from a pool of mostly "back"; Per-Obj. Ori., asked of the same people,
    keeps exactly Cam-Obj.'s images though its own seed order would have kept others."""
    facing = ["back"] * 60 + ["left"] * 20 + ["right"] * 20
    base = pd.DataFrame(
        {"split": "val", "image_path": [[f"images/coco/val/{k:012d}.jpg"] for k in range(100)], "scene_id": range(100)}
    )
    cam = base.assign(
        item_id=[f"coco:{k}:cam_obj" for k in range(100)],
        question_type=CATEGORIES["Cam-Obj. Ori."],
        answer_label=facing,
    )
    per = base.assign(
        item_id=[f"coco:{k}:per_obj" for k in range(100)],
        question_type=CATEGORIES["Per-Obj. Ori."],
        answer_label="front",
    )
    rows = pd.concat([cam, per], ignore_index=True)
    shares = {"cam_obj": {"back": 1.0, "left": 1.0, "right": 1.0}}
    kept = within_budgets(rows, TaskBudgets(cam_obj=30, per_obj=30), 6, answer_shares=shares)
    by_task = {t: set(kept[kept["question_type"] == t]["scene_id"]) for t in CATEGORIES.values()}
    kept_cam = kept[kept["question_type"] == CATEGORIES["Cam-Obj. Ori."]]
    assert kept_cam["answer_label"].value_counts().to_dict() == {"back": 10, "left": 10, "right": 10}
    assert by_task[CATEGORIES["Per-Obj. Ori."]] == by_task[CATEGORIES["Cam-Obj. Ori."]]


def test_answer_shares_name_budgeted_tasks_and_their_labels() -> None:
    with pytest.raises(ValueError, match="answer_shares"):
        ReleaseConfig(answer_shares={"per_obj": {"front": 1.0}})  # Per-Obj. Ori. follows Cam-Obj.'s images
    with pytest.raises(ValueError, match="answer_shares.scene_sim"):
        ReleaseConfig(answer_shares={"scene_sim": {"down": 1.0}})
    assert ReleaseConfig(answer_shares={}).answer_shares == {}
