"""Pose source: the built-in actions, or AMASS frames whose BABEL labels match the configured actions.

AMASS sequences are `.npz` files (SMPL+H release: `*_poses.npz`, as BABEL's `feat_p` names them; SMPL-X
release: `*_stageii.npz`, tried when the former is missing) with `poses` (T,72) SMPL, (T,156) SMPL+H or (T,165) SMPL-X,
`trans`, `betas` and `mocap_framerate` (`mocap_frame_rate` in SMPL-X releases). BABEL files are JSON
objects `{babel_sid: {"feat_p": "CMU/CMU/86/86_05_poses.npz", "dur": s, "seq_ann": {"labels": [...]},
"frame_ann": {"labels": [...]} | null}}`; a label has `proc_label`, `act_cat` (a list) and, in
`frame_ann`, `start_t`/`end_t` in seconds (BABEL's extra_*.json hold lists `frame_anns`/`seq_anns`
instead, read alike). A sequence's frame-level labels are used when it has any,
else its sequence labels (the whole sequence): each is a stretch whose texts are its `proc_label` and
`act_cat` entries. `poses.selection: embedding` ranks the stretches per action
(benchmarks/syndor/stages/pose_ranking.py)
and takes frames from the best first; `synonyms`, and the fallback when the embedding model cannot be
loaded, keeps a label when one of the action's synonyms equals, or occurs as whole words in, one of its
texts (case-insensitive) and spreads the picks over all matching frames. `PoseSelection.method` records
which chose the poses. Only body joints are kept: SMPL+H/SMPL-X hand joints are not SMPL's joints 22–23,
which are left at zero; global orientation, translation and the sequence's `betas` are dropped (the
renderer places the body; its shape comes from `body.betas`). Missing roots are a config error; a
missing or corrupt sequence or BABEL file is reported (buildinfo.problem) and skipped.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.assets.poses import pose_variant
from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.benchmarks.syndor.stages import pose_ranking
from benchfoundry.benchmarks.syndor.stages.pose_ranking import STAGE, normalise_text
from benchfoundry.core.buildinfo import problem

BUILTIN = "builtin"


@dataclass(frozen=True)
class PoseFrame:
    """One pose of one action: its source (BUILTIN or a BABEL `feat_p`), frame index and body pose."""

    action: str
    source: str
    frame: int
    body_pose: np.ndarray  # (23,3) float32 SMPL axis-angle
    label: str = ""  # the BABEL label that matched ("" for built-in poses)
    score: float | None = None  # its label's cosine similarity to the action (embedding selection only)
    rating: float | None = None  # the rating model's 0–10 score of its label, when one rated it


@dataclass
class PoseSelection:
    """The poses of every configured action, the inputs that were skipped (buildinfo.problem rows),
    which method chose them and the rating model's usage."""

    frames: list[PoseFrame] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    method: str = BUILTIN
    usage: dict[str, int] = field(default_factory=dict)

    def of(self, action: str) -> list[PoseFrame]:
        return [f for f in self.frames if f.action == action]

    def summary(self) -> dict[str, Any]:
        """What build.json records: the method, frames per action and, with a rating model, its usage."""
        actions = list(dict.fromkeys(f.action for f in self.frames))
        found = {"method": self.method, "frames": {a: len(self.of(a)) for a in actions}}
        return {**found, "model_usage": self.usage} if self.usage else found


@dataclass(frozen=True)
class Stretch:
    """One BABEL label's stretch of an AMASS sequence (end None: to the sequence's end) and its texts."""

    feat_p: str
    start_t: float
    end_t: float | None
    label: str
    texts: tuple[str, ...]  # proc_label and act_cat entries, normalised, distinct


@dataclass(frozen=True)
class Segment:
    """A stretch chosen for an action, with its similarity and rating when ranked."""

    action: str
    feat_p: str
    start_t: float
    end_t: float | None
    label: str
    score: float | None = None
    rating: float | None = None


def select_poses(config: PoseConfig, cache_dir: str | Path | None = None) -> PoseSelection:
    """Built-in poses (`builtin_variants` per action: the action's pose, then fixed variations of it), or
    AMASS/BABEL frames when both roots are configured (rating replies cached under `cache_dir`)."""
    if not config.uses_amass:
        return PoseSelection(
            frames=[
                PoseFrame(a, BUILTIN, k, pose_variant(a, k))
                for a in config.actions
                for k in range(config.builtin_variants)
            ]
        )
    return select_amass_poses(config, cache_dir)


def amass_body_pose(row: np.ndarray) -> np.ndarray:
    """SMPL (23,3) body pose from one AMASS `poses` row (72, 156 or 165 values)."""
    row = np.asarray(row, dtype=np.float32).reshape(-1)
    if row.size == 72:
        return row[3:72].reshape(23, 3).copy()
    if row.size in (156, 165):
        return np.concatenate([row[3:66].reshape(21, 3), np.zeros((2, 3), np.float32)])
    raise ValueError(f"an AMASS poses row has 72, 156 or 165 values, not {row.size}")


def _matches(text: str, synonyms: list[str]) -> bool:
    text = normalise_text(text)
    return any(re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text) for s in synonyms)


def label_texts(label: dict[str, Any]) -> tuple[str, ...]:
    """A label's proc_label and act_cat entries, normalised, distinct, empty ones left out."""
    texts = [str(label.get("proc_label") or "")] + [str(c) for c in (label.get("act_cat") or [])]
    return tuple(dict.fromkeys(t for t in map(normalise_text, texts) if t))


def texts_action(texts: tuple[str, ...], actions: list[str], synonyms: dict[str, list[str]]) -> str | None:
    """The first configured action whose synonyms match one of the texts."""
    for action in actions:
        words = synonyms.get(action, [])
        if any(_matches(t, words) for t in texts):
            return action
    return None


def label_action(label: dict[str, Any], actions: list[str], synonyms: dict[str, list[str]]) -> str | None:
    """The first configured action whose synonyms match the label's proc_label or act_cat."""
    return texts_action(label_texts(label), actions, synonyms)


def load_babel(babel_root: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """All BABEL entries of the JSON files in `babel_root` (sorted by file); unreadable files are problems."""
    entries: dict[str, dict[str, Any]] = {}
    problems: list[dict[str, Any]] = []
    files = sorted(Path(babel_root).glob("*.json"))
    if not files:
        problems.append(problem(STAGE, str(babel_root), "no BABEL .json files", path=str(babel_root)))
    for path in files:
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, dict):
                raise ValueError("top level is not an object")
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            problems.append(problem(STAGE, path.name, f"unreadable BABEL file: {exc}", path=str(path)))
            continue
        for sid, entry in data.items():
            if isinstance(entry, dict) and entry.get("feat_p"):
                entries[f"{path.stem}:{sid}"] = entry
    return entries, problems


def _labels(entry: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Labels of one annotation kind: `frame_ann`/`seq_ann` (dense splits) or the lists
    `frame_anns`/`seq_anns` (several annotators, BABEL's extra_*.json)."""
    blocks = [entry.get(kind)] + list(entry.get(f"{kind}s") or [])
    return [
        label
        for block in blocks
        if isinstance(block, dict)
        for label in (block.get("labels") or [])
        if isinstance(label, dict)
    ]


def babel_stretches(babel: dict[str, dict[str, Any]]) -> list[Stretch]:
    """Every labelled stretch, in key then label order: frame labels where a sequence has them, else
    sequence labels; labels without texts are left out."""
    found: list[Stretch] = []
    for key in sorted(babel):
        entry = babel[key]
        frame_labels = _labels(entry, "frame_ann")
        for label in frame_labels or _labels(entry, "seq_ann"):
            texts = label_texts(label)
            if not texts:
                continue
            start = float(label.get("start_t") or 0.0) if frame_labels else 0.0
            end = label.get("end_t") if frame_labels else None
            found.append(
                Stretch(
                    str(entry["feat_p"]),
                    start,
                    None if end is None else float(end),
                    str(label.get("proc_label") or label.get("raw_label") or ""),
                    texts,
                )
            )
    return found


def babel_segments(
    babel: dict[str, dict[str, Any]], actions: list[str], synonyms: dict[str, list[str]]
) -> list[Segment]:
    """Labelled stretches matching the actions' synonyms, in key then label order."""
    found = []
    for st in babel_stretches(babel):
        action = texts_action(st.texts, actions, synonyms)
        if action is not None:
            found.append(Segment(action, st.feat_p, st.start_t, st.end_t, st.label))
    return found


def ranked_segments(
    config: PoseConfig, stretches: list[Stretch], embed: Any, cache_dir: str | Path | None
) -> tuple[list[Segment], list[dict[str, Any]], dict[str, int]]:
    """The stretches ranked per action by benchmarks/syndor/pose_ranking (best first), its problems and usage."""
    ranking = pose_ranking.rank_stretches(
        config,
        [st.texts for st in stretches],
        lambda i: pose_ranking.describe_texts(stretches[i].texts),
        embed,
        cache_dir,
    )
    segments = [
        Segment(
            action,
            stretches[c.index].feat_p,
            stretches[c.index].start_t,
            stretches[c.index].end_t,
            stretches[c.index].label,
            c.score,
            c.rating,
        )
        for action in config.actions
        for c in ranking.candidates[action]
    ]
    return segments, ranking.problems, ranking.usage


def feat_p_names(feat_p: str) -> list[str]:
    """The names a BABEL `feat_p` may have under an AMASS root: as given (SMPL+H release,
    `*_poses.npz`), then the SMPL-X release's `*_stageii.npz`."""
    stem = feat_p[: -len("_poses.npz")] if feat_p.endswith("_poses.npz") else None
    return [feat_p] if stem is None else [feat_p, f"{stem}_stageii.npz"]


def resolve_feat_p(amass_root: Path, feat_p: str) -> Path:
    """The AMASS file of a BABEL `feat_p` ("CMU/CMU/86/86_05_poses.npz"): each of `feat_p_names`
    under the root as given, or with leading folders dropped (roots that already include them).
    FileNotFoundError naming both names when neither is there."""
    names = feat_p_names(feat_p)
    for name in names:
        parts = Path(name).parts
        for i in range(len(parts)):
            candidate = Path(amass_root, *parts[i:])
            if candidate.is_file():
                return candidate
    tried = " or ".join(Path(n).name for n in names)
    raise FileNotFoundError(f"no {tried} under {amass_root} (at {Path(feat_p).parent} or with leading folders dropped)")


def _read_sequence(path: Path) -> tuple[np.ndarray, float]:
    """(poses (T,D), frame rate) of an AMASS npz."""
    with np.load(path, allow_pickle=False) as data:
        poses = np.asarray(data["poses"], dtype=np.float32)
        key = "mocap_framerate" if "mocap_framerate" in data.files else "mocap_frame_rate"
        fps = float(data[key])
    if poses.ndim != 2 or poses.shape[1] not in (72, 156, 165) or len(poses) == 0:
        raise ValueError(f"poses has shape {poses.shape}")
    if not math.isfinite(fps) or fps <= 0:
        raise ValueError(f"frame rate {fps}")
    return poses, fps


def choose_segments(
    config: PoseConfig, babel: dict[str, dict[str, Any]], cache_dir: str | Path | None
) -> tuple[list[Segment], str, list[dict[str, Any]], dict[str, int]]:
    """The segments of every action (ranked ones best first), the method that chose them, problems, usage."""
    if config.selection == "synonyms":
        return babel_segments(babel, config.actions, config.synonyms), "synonyms", [], {}
    try:
        embed = pose_ranking.embedder(config.embedding)
    except (ValueError, ImportError, OSError) as exc:
        reason = " ".join(str(exc).split())
        row = problem(
            STAGE,
            "poses.embedding",
            f"the embedding model did not load ({reason}); poses chosen by synonyms",
            kind="fallback",
        )
        return babel_segments(babel, config.actions, config.synonyms), f"synonyms (fallback: {reason})", [row], {}
    segments, problems, usage = ranked_segments(config, babel_stretches(babel), embed, cache_dir)
    return segments, pose_ranking.method_name(config), problems, usage


def spread_picks(groups: list[list[Any]], n: int) -> list[Any]:
    """Up to `n` items of the groups: one pick at a time dealt to the groups in order (round robin, a
    group taking at most its size), each group's picks evenly spread over it, its ends included."""
    counts = [0] * len(groups)
    left = n
    while left and any(c < len(g) for c, g in zip(counts, groups)):
        for j, group in enumerate(groups):
            if left and counts[j] < len(group):
                counts[j] += 1
                left -= 1
    return [
        group[k]
        for group, c in zip(groups, counts)
        if c
        for k in np.unique(np.linspace(0, len(group) - 1, c).round().astype(int))
    ]


def select_amass_poses(config: PoseConfig, cache_dir: str | Path | None = None) -> PoseSelection:
    """Up to `max_frames_per_action` AMASS frames per action: ranked segments are dealt picks best first,
    each segment's picks evenly spread over it; synonym matches are pooled and the picks spread over them all."""
    for name, root in (("poses.amass_root", config.amass_root), ("poses.babel_root", config.babel_root)):
        if not Path(root).is_dir():  # type: ignore[arg-type]
            raise FileNotFoundError(f"{name} {root}: no such folder")
    babel, problems = load_babel(config.babel_root)  # type: ignore[arg-type]
    segments, method, ranking_problems, usage = choose_segments(config, babel, cache_dir)
    problems += ranking_problems
    sequences: dict[str, tuple[np.ndarray, float] | None] = {}
    groups: dict[str, list[list[tuple[str, int]]]] = {a: [] for a in config.actions}
    owner: dict[str, dict[tuple[str, int], Segment]] = {a: {} for a in config.actions}
    for seg in segments:
        if seg.feat_p not in sequences:
            path = Path(config.amass_root, seg.feat_p)  # type: ignore[arg-type]
            try:
                path = resolve_feat_p(config.amass_root, seg.feat_p)  # type: ignore[arg-type]
                sequences[seg.feat_p] = _read_sequence(path)
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
                sequences[seg.feat_p] = None
                problems.append(problem(STAGE, seg.feat_p, f"unreadable AMASS sequence: {exc}", path=str(path)))
        seq = sequences[seg.feat_p]
        if seq is None:
            continue
        poses, fps = seq
        first = max(0, math.ceil(seg.start_t * fps - 1e-6))
        last = len(poses) - 1 if seg.end_t is None else min(len(poses) - 1, math.floor(seg.end_t * fps + 1e-6))
        keys = [(seg.feat_p, i) for i in range(first, last + 1) if (seg.feat_p, i) not in owner[seg.action]]
        owner[seg.action].update((k, seg) for k in keys)
        if keys:
            groups[seg.action].append(keys)
    selection = PoseSelection(problems=problems, method=method, usage=usage)
    for action in config.actions:
        if not groups[action]:
            why = "matching" if method.startswith("synonyms") else f"at or above similarity {config.min_similarity:g}"
            selection.problems.append(problem(STAGE, action, f"no AMASS frame has a BABEL label {why}"))
            continue
        pooled = groups[action] if method.startswith("embedding") else [sorted(owner[action])]
        for feat_p, i in spread_picks(pooled, config.max_frames_per_action):
            seg = owner[action][feat_p, i]
            poses, _ = sequences[feat_p]  # type: ignore[misc]
            selection.frames.append(
                PoseFrame(action, feat_p, i, amass_body_pose(poses[i]), seg.label, seg.score, seg.rating)
            )
    return selection
