"""Ranking BABEL-labelled stretches for each action (docs/design/syndor.md §2): text-embedding similarity, then an LLM
rating.

A stretch has one or more label texts (its `proc_label` and `act_cat` entries). Every distinct text and each
action's phrase are embedded; a stretch's score for an action is the best cosine similarity among its texts.
A stretch goes to its best action only; per action the stretches at or above the floor are kept, best first
(equal scores in the caller's stretch order), at most `top_k`. With a rating model the candidates are then
rated 0–10 through the model client (cached) and re-ordered by rating, then similarity; an action with a
reply that holds no rating keeps its similarity order, and each such reply is a problem row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.benchmarks.syndor.stages.text_embed import load_embedder
from benchfoundry.configs.model import EmbeddingConfig
from benchfoundry.core.buildinfo import problem
from benchfoundry.pipeline.model_client import ModelClient, ModelError, user_message

STAGE = "poses"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Candidate:
    """One stretch (its index in the caller's list) ranked for an action."""

    index: int
    score: float  # best cosine similarity of its texts to the action's phrase
    rating: float | None = None  # the model's 0–10 rating, when one was asked and given


@dataclass
class Ranking:
    """Candidates per action, best first; problem rows; the rating model's usage (empty without one)."""

    candidates: dict[str, list[Candidate]]
    problems: list[dict[str, Any]]
    usage: dict[str, int]


def normalise_text(text: str) -> str:
    """Lower case, underscores as spaces, single spaces."""
    return " ".join(str(text).lower().replace("_", " ").split())


def best_similarities(
    embed: Callable[[list[str]], np.ndarray], texts: Sequence[Sequence[str]], phrases: Sequence[str]
) -> np.ndarray:
    """(stretches, phrases): for each stretch, the best cosine similarity among its texts to each phrase
    (`embed` gives L2-normalised rows); -1 for a stretch without texts."""
    distinct = sorted({t for group in texts for t in group})
    scores = np.full((len(texts), len(phrases)), -1.0, dtype=np.float64)
    if not distinct or not phrases:
        return scores
    vectors = np.asarray(embed(distinct + list(phrases)), dtype=np.float64)
    sims = vectors[: len(distinct)] @ vectors[len(distinct) :].T
    row = {t: i for i, t in enumerate(distinct)}
    for s, group in enumerate(texts):
        if group:
            scores[s] = sims[[row[t] for t in group]].max(axis=0)
    return scores


def rank_candidates(
    scores: np.ndarray, actions: Sequence[str], min_similarity: float, top_k: int
) -> dict[str, list[Candidate]]:
    """Each stretch to its best action (the first on equal scores) when that score reaches the floor;
    per action the best `top_k`, by score then stretch index."""
    ranked: dict[str, list[Candidate]] = {a: [] for a in actions}
    if scores.size:
        best = scores.argmax(axis=1)
        for s, a in enumerate(best):
            if scores[s, a] >= min_similarity:
                ranked[actions[a]].append(Candidate(s, float(scores[s, a])))
    return {a: sorted(c, key=lambda c: (-c.score, c.index))[:top_k] for a, c in ranked.items()}


def parse_rating(text: str) -> float | None:
    """The first number of a reply when it lies in [0, 10]; None otherwise."""
    found = _NUMBER.search(text)
    if found is None:
        return None
    value = float(found.group())
    return value if 0.0 <= value <= 10.0 else None


def rerank(
    candidates: dict[str, list[Candidate]],
    describe: Callable[[int], str],
    phrases: dict[str, str],
    prompt: str,
    client: ModelClient,
) -> tuple[dict[str, list[Candidate]], list[dict[str, Any]]]:
    """Every candidate rated by the model, each action re-ordered by rating then similarity (then index);
    an action with an unrated candidate keeps its similarity order and each unrated one is a problem row."""
    jobs = [(a, c) for a, cands in candidates.items() for c in cands]
    requests = [[user_message(prompt.format(action=phrases[a], label=describe(c.index)))] for a, c in jobs]
    replies = client.chat_many(requests)
    rated: dict[str, list[Candidate]] = {a: [] for a in candidates}
    unrated: set[str] = set()
    problems = []
    for (action, cand), reply in zip(jobs, replies):
        label = describe(cand.index)
        if isinstance(reply, ModelError):
            rating, why = None, f"no rating: {reply}"
        else:
            rating = parse_rating(reply.text)
            why = f"no 0-10 rating in the reply {reply.text[:200]!r}"
        if rating is None:
            unrated.add(action)
            problems.append(
                problem(STAGE, f"{action}: {label}", f"{why}; {action} keeps its similarity order", kind="unrated")
            )
        rated[action].append(replace(cand, rating=rating))
    ordered = {
        a: cands if a in unrated else sorted(cands, key=lambda c: (-(c.rating or 0.0), -c.score, c.index))
        for a, cands in rated.items()
    }
    return ordered, problems


@lru_cache(maxsize=2)
def _embedder(config_json: str) -> Callable[[list[str]], np.ndarray]:
    """The loaded model of one embedding config, once per process (loading takes seconds)."""
    return load_embedder(EmbeddingConfig.model_validate_json(config_json), "syndor.poses.embedding")


def embedder(config: EmbeddingConfig) -> Callable[[list[str]], np.ndarray]:
    """`text_embed.load_embedder(config)`, loaded once per process; raises what it raises."""
    return _embedder(config.model_dump_json())


def rank_stretches(
    config: PoseConfig,
    texts: Sequence[Sequence[str]],
    describe: Callable[[int], str],
    embed: Callable[[list[str]], np.ndarray],
    cache_dir: str | Path | None,
) -> Ranking:
    """Candidates per configured action for the stretches' texts (already `normalise_text`ed), rated by
    `config.rerank` when set (replies cached under `cache_dir`)."""
    phrases = [normalise_text(config.phrases[a]) for a in config.actions]
    scores = best_similarities(embed, texts, phrases)
    candidates = rank_candidates(scores, config.actions, config.min_similarity, config.top_k)
    if config.rerank is None:
        return Ranking(candidates, [], {})
    with ModelClient(config.rerank, cache_dir) as client:
        candidates, problems = rerank(candidates, describe, config.phrases, config.rating_prompt, client)
        return Ranking(candidates, problems, client.usage())


def describe_texts(texts: Sequence[str]) -> str:
    """A stretch's label for the rating prompt: its first text, then the others in brackets."""
    head, *rest = texts
    return head + (f" ({', '.join(rest)})" if rest else "")


def method_name(config: PoseConfig) -> str:
    return "embedding+llm" if config.rerank is not None else "embedding"
