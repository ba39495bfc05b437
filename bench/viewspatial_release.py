"""Our ViewSpatial-Bench.json beside the authors' release, task by task (issue 33, point 8).

Reads the authors' released file (ZJU-REAL/ViewSpatial-Bench `eval/ViewSpatial-Bench.json`, given by path)
and a build's, and prints per task: items, subjects by kind (person, animal; named plainly, by position or by
a description), frames per item (the Per-Sce. Sim. histogram), answer shares, option counts and the commonest
wordings with the share of theirs that one of ours matches. Not a timing: no anchor, no ratio.

    .venv/bin/python bench/viewspatial_release.py --theirs ViewSpatial-Bench.json \\
        [--ours out/smoke/viewspatial/ViewSpatial-Bench.json] [--top 4]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.categories import SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.release.report_page import frames_histogram
from benchfoundry.benchmarks.viewspatial.scannet.config import (
    CAM_REL_TEMPLATES,
    EXCLUDED_NYU40,
    NYU40_NAMES,
    SCENE_SIM_TEMPLATES,
)
from benchfoundry.compare.measures import tv_distance

#: COCO's ten animal categories, all of which the release asks about, and the release's other animal nouns.
ANIMALS = ("bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "panda")
POSITIONS = ("on the left", "on the right", "in the middle", "in the front", "in the back")
OBJECT_NAMES = sorted((n for i, n in NYU40_NAMES.items() if i not in EXCLUDED_NYU40), key=len, reverse=True)
#: What follows a subject phrase: a verb or frame phrase, or punctuation.
AFTER_SUBJECT = (
    r" (?:is|in the photo|facing|looking|position|does|was|of the|relative|located|positioned|be|use|using|have"
    r"|hold|closer|nearer|in this)\b|[,?’'—;]| —"
)
SUBJECT = re.compile(rf"\b(?:the|this) [a-z]+(?: [a-z]+)*?(?={AFTER_SUBJECT})")
ORIENTATION = ("Cam-Obj. Ori.", "Per-Obj. Ori.", "Per-Rel. Dir.")
#: How a person subject is named, in the order the people lines print them.
PEOPLE_NAMING = ("described", "plain", "by position")
#: Words of the frame, not of a subject ("the camera's viewpoint as the front", "in the image").
FRAME_WORDS = {"camera", "camera's", "front", "image", "photo", "scene", "picture", "lens", "perspective",
               "viewpoint", "position", "direction", "location"}  # fmt: skip


def subject_of(question: str) -> str | None:
    """The first "the …"/"this …" phrase of a question that is not a word of the frame."""
    for found in SUBJECT.finditer(question.split("\n")[0]):
        if found.group(0).split()[1] not in FRAME_WORDS:
            return found.group(0)
    return None


def subject_kind(phrase: str) -> str:
    """animal, or person, and how it is named: plain ("the man"), by position, or described."""
    words = phrase.split()
    kind = "animal" if any(w in ANIMALS for w in words) else "person"
    if any(p in phrase for p in POSITIONS):
        return f"{kind}, by position"
    return f"{kind}, described" if len(words) > 2 else f"{kind}, plain"


def skeleton(question: str) -> str:
    """The wording with its objects or subjects replaced by {x}."""
    text = question.split("\n")[0]
    for name in OBJECT_NAMES:
        text = re.sub(rf"\b{re.escape(name)}\b", "{x}", text)
    return SUBJECT.sub(lambda m: m.group(0) if m.group(0).split()[1] in FRAME_WORDS else "{x}", text)


def pools() -> dict[str, list[str]]:
    """Per short task name, every wording our default config can draw (ScanNet's and COCO's)."""
    coco = CocoConfig()
    return {
        "Cam-Rel. Dir.": list(CAM_REL_TEMPLATES),
        "Per-Sce. Sim.": list(SCENE_SIM_TEMPLATES),
        "Cam-Obj. Ori.": list(coco.cam_obj_templates),
        "Per-Obj. Ori.": list(coco.per_obj_templates),
        "Per-Rel. Dir.": [*coco.per_rel.templates, *coco.per_rel.hand_templates],
    }


def wording_pattern(template: str) -> re.Pattern[str]:
    """A template's text with each {slot} matching any words."""
    return re.compile(re.sub(r"\\\{[a-z]+\\\}", "(.+?)", re.escape(template)))


def pool_coverage(records: Sequence[dict[str, Any]], pool: dict[str, list[str]]) -> dict[str, float]:
    """Per short task name, the share of `records` whose question (its first line) is one of the task's wordings
    in `pool` with any subjects and objects."""
    patterns = {task: [wording_pattern(t) for t in templates] for task, templates in pool.items()}
    seen: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    for r in records:
        task = SHORT_NAMES.get(r["question_type"], r["question_type"])
        seen[task] += 1
        question = r["question"].split("\n")[0].strip()
        matched[task] += any(p.fullmatch(question) for p in patterns.get(task, []))
    return {task: matched[task] / n for task, n in seen.items()}


def summary(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per short task name: items, subject kinds, frames per item, answers, option counts, wordings."""
    tasks: dict[str, dict[str, Any]] = {}
    for r in records:
        t = tasks.setdefault(
            SHORT_NAMES.get(r["question_type"], r["question_type"]),
            {"items": 0, "subjects": Counter(), "frames": Counter(), "answers": Counter(), "options": Counter(),
             "wordings": Counter()},
        )  # fmt: skip
        t["items"] += 1
        t["frames"][len(r["image_path"])] += 1
        t["answers"][r["answer"].split(". ", 1)[-1]] += 1
        t["options"][len(r["choices"].split("\n"))] += 1
        t["wordings"][skeleton(r["question"])] += 1
        if SHORT_NAMES.get(r["question_type"]) in ORIENTATION:
            found = subject_of(r["question"])
            t["subjects"][subject_kind(found) if found else "unparsed"] += 1
    return tasks


def shares(counts: Counter, n: int, top: int | None = None) -> str:
    return ", ".join(f"{k} {v / n:.0%}" for k, v in counts.most_common(top)) if n else "-"


def people_mix(subjects: Counter) -> tuple[Counter, int]:
    """How the person subjects are named (described, plain, by position: "person, " dropped) and how many parsed
    subjects are animals, which the synthetic world has none of (Anny is a person)."""
    people = Counter({k.split(", ", 1)[1]: n for k, n in subjects.items() if k.startswith("person, ")})
    return people, sum(n for k, n in subjects.items() if k.startswith("animal, "))


def people_line(subjects: Counter) -> str:
    """The person subjects' naming shares, animals left out and counted apart."""
    people, animals = people_mix(subjects)
    parsed = sum(people.values()) + animals
    mix = ", ".join(f"{k} {people[k] / sum(people.values()):.0%}" for k in PEOPLE_NAMING) if people else "-"
    return f"{mix} (animals: {f'{animals} of {parsed}, left out' if animals else 'none'})"


def compare(ours: Sequence[dict[str, Any]], theirs: Sequence[dict[str, Any]], top: int) -> str:
    a, b = summary(ours), summary(theirs)
    covered = pool_coverage(theirs, pools())
    lines = [f"items: ours {len(ours)}, theirs {len(theirs)}"]
    for task in SHORT_NAMES.values():
        o, t = a.get(task), b.get(task)
        no, nt = (o or {}).get("items", 0), (t or {}).get("items", 0)
        lines.append(f"\n== {task}: ours {no}, theirs {nt}")
        for key in ("subjects", "answers", "options"):
            if o is None and t is None:
                continue
            lines.append(f"  {key:9s} ours:   {shares(o[key], no) if o else '-'}")
            lines.append(f"  {'':9s} theirs: {shares(t[key], nt) if t else '-'}")
            if key == "subjects" and task in ORIENTATION:
                lines.append(f"  {'people':9s} ours:   {people_line(o['subjects']) if o else '-'}")
                lines.append(f"  {'':9s} theirs: {people_line(t['subjects']) if t else '-'}")
        if task == "Per-Sce. Sim.":
            for who, s in (("ours", o), ("theirs", t)):
                if s:
                    bins = ", ".join(f"{label}: {n}" for label, n in frames_histogram(dict(s["frames"])))
                    lines.append(f"  frames    {who}: {bins}")
        if o and t:
            matched = sum(n for w, n in t["wordings"].items() if w in o["wordings"])
            lines.append(f"  wordings  theirs matched by one of ours: {matched / nt:.0%}")
        if t:
            lines.append(f"  wordings  theirs one of our config's wordings: {covered.get(task, 0.0):.0%}")
        for who, s in (("ours", o), ("theirs", t)):
            if s:
                lines += [f"  wording {who}: {n} × {w}" for w, n in s["wordings"].most_common(top)]
    return "\n".join(lines)


def described_share(subjects: Counter) -> float | None:
    """The share of parsed subjects named by a description (not plainly, not by position)."""
    parsed = sum(n for kind, n in subjects.items() if kind != "unparsed")
    return sum(n for kind, n in subjects.items() if kind.endswith("described")) / parsed if parsed else None


def people_share(subjects: Counter, naming: str) -> float | None:
    """The share of person subjects named by `naming` (one of PEOPLE_NAMING), animals left out."""
    people, _ = people_mix(subjects)
    return people[naming] / sum(people.values()) if people else None


def animal_share(subjects: Counter) -> float | None:
    """The share of parsed subjects that are animals."""
    people, animals = people_mix(subjects)
    return animals / (sum(people.values()) + animals) if people or animals else None


def _pair(ours: float | None, theirs: float | None) -> str:
    return f"{ours:.0%} / {theirs:.0%}" if ours is not None and theirs is not None else "—"


def frames_tv(ours: Counter, theirs: Counter) -> float:
    """Total-variation distance of two frames-per-item counts over the histogram's bins (`frames_histogram`: 2,
    3–4, 5–8, 9–16, 17–32 …): frame by frame, a draw of a tenth of the release's items lies about 0.18 from the
    whole (its 30 values thinly filled), over the bins about 0.07."""
    return tv_distance(Counter(dict(frames_histogram(dict(ours)))), Counter(dict(frames_histogram(dict(theirs)))))


def table(ours: Sequence[dict[str, Any]], theirs: Sequence[dict[str, Any]]) -> str:
    """The markdown table of docs/viewspatial.md's span `release-distributions`: per task, items, the answers'
    total-variation distance, the answer values only one side gives, described subjects, frames per item (Per-Sce.
    Sim., over the histogram's bins: `frames_tv`), the share of the release's items in one of our config's
    wordings, and of the person subjects those described and those named by position (animals left out), and the
    animals' share of the subjects (the synthetic world has none)."""
    a, b = summary(ours), summary(theirs)
    covered = pool_coverage(theirs, pools())
    rows = [
        "| task | items (ours / release) | answers: TV distance | values only ours / only theirs | described "
        "subjects (ours / release) | frames per item: TV (bins) | release's items in our wordings | people described "
        "(ours / release) | people by position (ours / release) | animal subjects (ours / release) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in SHORT_NAMES.values():
        o, t = a.get(task), b.get(task)
        if not o or not t:
            continue
        only = f"{', '.join(sorted(set(o['answers']) - set(t['answers']))) or '—'} / "
        only += ", ".join(sorted(set(t["answers"]) - set(o["answers"]))) or "—"
        described = _pair(described_share(o["subjects"]), described_share(t["subjects"]))
        frames = frames_tv(o["frames"], t["frames"]) if task == "Per-Sce. Sim." else None
        naming = [
            _pair(people_share(o["subjects"], k), people_share(t["subjects"], k)) for k in ("described", "by position")
        ]
        animals = _pair(animal_share(o["subjects"]), animal_share(t["subjects"]))
        rows.append(
            f"| {task} | {o['items']:,} / {t['items']:,} | {tv_distance(o['answers'], t['answers']):.3f} | {only} | "
            f"{described} | {'—' if frames is None else f'{frames:.3f}'} | {covered.get(task, 0.0):.0%} | "
            f"{' | '.join(naming)} | {animals} |"
        )
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--theirs", type=Path, required=True, help="the authors' ViewSpatial-Bench.json")
    parser.add_argument("--ours", type=Path, default=Path("out/smoke/viewspatial/ViewSpatial-Bench.json"))
    parser.add_argument("--top", type=int, default=4, help="wordings listed per task and side")
    parser.add_argument("--table", type=Path, help="write the per-task markdown table here (docs/viewspatial.md)")
    args = parser.parse_args()
    for path in (args.theirs, args.ours):
        if not path.is_file():
            parser.error(f"{path}: not a file")
    ours, theirs = json.loads(args.ours.read_text()), json.loads(args.theirs.read_text())
    print(compare(ours, theirs, args.top))
    if args.table:
        args.table.write_text(table(ours, theirs))


if __name__ == "__main__":
    main()
