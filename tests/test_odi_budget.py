"""The question budget: caps per panorama and per task, a balanced choice over the build, determinism."""

from __future__ import annotations

from collections import Counter

from benchfoundry.benchmarks.odi.identity import CATEGORIES
from benchfoundry.benchmarks.odi.qa_config import BudgetConfig
from benchfoundry.benchmarks.odi.stages.questions.budget import choose
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate


def candidate(task: str, k: int, answer: str = "yes", kind: str = "x") -> Candidate:
    return Candidate(task, kind, f"{task}:{k}", "?", answer, (answer, "no"), (), {"kind": kind}, "directions")


def pool(n_panoramas: int, skew: dict[str, int]) -> dict[str, list[Candidate]]:
    """Every panorama offers `skew[task]` candidates of each task (default 5), answers alternating yes/no."""
    return {
        f"p{p:03d}": [
            candidate(t, k, "yes" if (k + p) % 2 else "no") for t in CATEGORIES for k in range(skew.get(t, 5))
        ]
        for p in range(n_panoramas)
    }


def test_caps_per_panorama_and_per_task() -> None:
    chosen = choose(pool(12, {}), BudgetConfig(per_panorama=4, per_task=1), seed=0)
    for picked in chosen.values():
        assert len(picked) == 4 and len({c.task for c in picked}) == 4


def test_the_paper_scale_spreads_evenly_over_the_ten_tasks() -> None:
    """2 questions a panorama, 1 of a task: even though OR offers 40 candidates a panorama and HA one."""
    chosen = choose(pool(200, {"OR": 40, "HA": 1}), BudgetConfig(), seed=0)
    tasks = Counter(c.task for cs in chosen.values() for c in cs)
    assert sum(tasks.values()) == 400 and set(tasks) == set(CATEGORIES)
    assert max(tasks.values()) - min(tasks.values()) <= 1


def test_answers_come_out_even_within_a_task() -> None:
    chosen = choose(pool(60, {}), BudgetConfig(per_panorama=10, per_task=1), seed=1)
    for task in CATEGORIES:
        answers = Counter(c.answer for cs in chosen.values() for c in cs if c.task == task)
        assert abs(answers["yes"] - answers["no"]) <= 1


def test_a_panorama_with_few_candidates_gives_what_it_has() -> None:
    few = {"p0": [candidate("EVO", 0), candidate("EVO", 1)], "p1": []}
    chosen = choose(few, BudgetConfig(per_panorama=5, per_task=3), seed=0)
    assert len(chosen["p0"]) == 2 and chosen["p1"] == []


def test_the_same_seed_chooses_the_same_and_another_seed_differently() -> None:
    candidates = pool(30, {})
    budget = BudgetConfig(per_panorama=3, per_task=1)
    first = choose(candidates, budget, seed=0)
    assert choose(candidates, budget, seed=0) == first
    assert any(choose(candidates, budget, seed=s) != first for s in (1, 2, 3))


def test_a_build_wide_total_reaches_the_papers_count_as_its_mix_implies() -> None:
    """4,254 questions over 2,000 panoramas: 254 give 3, the other 1,746 give 2 (the paper's QA count)."""
    chosen = choose(pool(2000, {}), BudgetConfig(total=4254, per_task=1), seed=0)
    sizes = Counter(len(cs) for cs in chosen.values())
    assert sum(len(cs) for cs in chosen.values()) == 4254 and sizes == {3: 254, 2: 1746}
    assert all(len({c.task for c in cs}) == len(cs) for cs in chosen.values())


def test_a_panorama_short_of_candidates_passes_its_share_on() -> None:
    candidates = {**pool(3, {}), "p999": [candidate("EVO", 0)]}
    chosen = choose(candidates, BudgetConfig(total=10, per_task=1), seed=0)
    assert len(chosen["p999"]) == 1 and sum(len(cs) for cs in chosen.values()) == 10


def test_the_presets_plan_their_own_counts() -> None:
    from benchfoundry.benchmarks.odi.build_plan import plan_config
    from benchfoundry.configs.loader import load_config

    full = load_config("odibench").odi.qa.budget
    assert full.planned(2000) == 4254
    smoke = plan_config(load_config("smoke"))
    assert smoke["questions"] == 2 * 20 and smoke["items"] == 2 * smoke["questions"]


def test_the_stored_pool_is_read_a_panorama_at_a_time_and_chooses_as_the_whole_pool(tmp_path, monkeypatch) -> None:
    """qa_stage.StoredCandidates: the budget's choice over the store equals its choice over the pool held whole,
    each panorama read once, and the summary counts every candidate and checks each chosen one against its truth."""
    import json

    import pandas as pd

    from benchfoundry.benchmarks.odi.stages import qa_stage
    from benchfoundry.core.store import StageStore

    whole = pool(30, {"OR": 9})
    store = StageStore(tmp_path, "odi", "qa")
    truth_of = {}
    for pano, cs in whole.items():
        truths = [c.answer if k % 3 else "no" for k, c in enumerate(cs)]  # every third candidate disagrees or agrees
        truth_of.update({(pano, c.key): t for c, t in zip(cs, truths)})
        texts = [json.dumps(c.to_json(), sort_keys=True) for c in cs]
        store.write_shard(pano, pd.DataFrame({"candidate": texts, "truth": pd.Series(truths, dtype=object)}))
    reads = Counter()
    read = store.shard_rows
    monkeypatch.setattr(store, "shard_rows", lambda pano: reads.update([pano]) or read(pano))
    budget = BudgetConfig(total=40, per_task=2)
    stored = qa_stage.StoredCandidates(store, sorted(whole))
    chosen = choose(stored, budget, seed=3)
    assert chosen == choose(whole, budget, seed=3) and set(reads.values()) == {1}
    counts = {p: {**dict.fromkeys(qa_stage.PANORAMA_TOTALS, 0), "dropped_by_class": {}} for p in whole}
    figures = qa_stage.summary(counts, stored, chosen, [])
    assert figures["candidates"] == sum(len(cs) for cs in whole.values())
    picked = [(p, c) for p, cs in chosen.items() for c in cs]
    agree = Counter(c.task for p, c in picked if truth_of[(p, c.key)] == c.answer)
    assert {t: row["agree"] for t, row in figures["agreement"]["chosen"].items()} == {
        t: agree[t] for t in figures["agreement"]["chosen"]
    }
