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

from benchfoundry.benchmarks.viewspatial.report_page import frames_histogram
from benchfoundry.benchmarks.viewspatial.scannet.config import EXCLUDED_NYU40, NYU40_NAMES
from benchfoundry.benchmarks.viewspatial.task_names import SHORT_NAMES

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


def compare(ours: Sequence[dict[str, Any]], theirs: Sequence[dict[str, Any]], top: int) -> str:
    a, b = summary(ours), summary(theirs)
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
        if task == "Per-Sce. Sim.":
            for who, s in (("ours", o), ("theirs", t)):
                if s:
                    bins = ", ".join(f"{label}: {n}" for label, n in frames_histogram(dict(s["frames"])))
                    lines.append(f"  frames    {who}: {bins}")
        if o and t:
            matched = sum(n for w, n in t["wordings"].items() if w in o["wordings"])
            lines.append(f"  wordings  theirs matched by one of ours: {matched / nt:.0%}")
        for who, s in (("ours", o), ("theirs", t)):
            if s:
                lines += [f"  wording {who}: {n} × {w}" for w, n in s["wordings"].most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--theirs", type=Path, required=True, help="the authors' ViewSpatial-Bench.json")
    parser.add_argument("--ours", type=Path, default=Path("out/smoke/viewspatial/ViewSpatial-Bench.json"))
    parser.add_argument("--top", type=int, default=4, help="wordings listed per task and side")
    args = parser.parse_args()
    for path in (args.theirs, args.ours):
        if not path.is_file():
            parser.error(f"{path}: not a file")
    print(compare(json.loads(args.ours.read_text()), json.loads(args.theirs.read_text()), args.top))


if __name__ == "__main__":
    main()
