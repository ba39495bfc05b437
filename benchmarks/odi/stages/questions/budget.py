"""The question budget (docs/design/odi.md §2.4): which candidates become ODI-Bench's questions.

Each panorama gives at most `per_panorama` questions, or with a build-wide `total` its share of what is left (the
remaining questions over the remaining panoramas, rounded up, so that 4,254 over 2,000 gives 254 panoramas 3 and
the rest 2, and a panorama short of candidates passes its share on), and at most `per_task` of one task; each
question is asked closed and open. The choice is balanced over the whole build: panoramas are visited in a seeded
order, and each next question is the candidate of the task chosen least so far, then of that task's least chosen
kind, then with that task's least chosen answer (so yes/no and the sides come out even), ties broken by a seeded
rank per panorama. The same candidates, budget and seed give the same choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from benchfoundry.benchmarks.odi.qa_config import BudgetConfig
from benchfoundry.benchmarks.odi.stages.questions.question_builder import Candidate
from benchfoundry.core.seeding import item_rng


def choose(
    candidates: Mapping[str, Sequence[Candidate]], budget: BudgetConfig, seed: int
) -> dict[str, list[Candidate]]:
    """Per panorama, its chosen candidates in their candidate order."""
    tasks: Counter[str] = Counter()
    kinds: Counter[tuple[str, str]] = Counter()
    answers: Counter[tuple[str, str]] = Counter()
    names = sorted(candidates)
    visit = item_rng(seed, "odi.qa.budget", "order").permutation(len(names))
    chosen: dict[str, list[Candidate]] = {}
    left = budget.total
    for visited, pano in enumerate(names[int(i)] for i in visit):
        pool = list(candidates[pano])
        rank = item_rng(seed, "odi.qa.budget", pano).permutation(len(pool))
        picked: list[int] = []
        per_task: Counter[str] = Counter()
        quota = budget.per_panorama if left is None else -(-left // (len(names) - visited))
        while len(picked) < quota:
            open_ = [k for k, c in enumerate(pool) if k not in picked and per_task[c.task] < budget.per_task]
            if not open_:
                break
            best = min(
                open_,
                key=lambda k: (
                    tasks[pool[k].task],
                    kinds[(pool[k].task, pool[k].kind)],
                    answers[(pool[k].task, pool[k].answer)],
                    int(rank[k]),
                ),
            )
            c = pool[best]
            picked.append(best)
            per_task[c.task] += 1
            tasks[c.task] += 1
            kinds[(c.task, c.kind)] += 1
            answers[(c.task, c.answer)] += 1
        chosen[pano] = [pool[k] for k in sorted(picked)]
        if left is not None:
            left -= len(picked)
    return {pano: chosen[pano] for pano in names}
