"""Pose selection by text-embedding similarity and an LLM rating (docs/design/syndor.md §2), on small made AMASS/BABEL
data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from model_server import ScriptedModel

from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.benchmarks.syndor.stages import pose_ranking, pose_selection
from benchfoundry.configs.model import EmbeddingConfig, ModelEndpoint

FEAT_P = "CMU/CMU/01/01_01_poses.npz"
#: (proc_label, act_cat, start_t, end_t) of the made sequence's frame labels, 10 fps, 60 frames.
LABELS = [
    ("kick with right leg", [], 0.0, 0.5),
    ("walk forward", ["walk"], 1.0, 1.5),
    ("stroll", [], 2.0, 2.5),
    ("crouch and sneak", [], 3.0, 3.5),
    ("stand", [], 4.0, 4.5),
    ("wave hand", [], 5.0, 5.5),
]
ACTIONS = ["kicking", "walking", "sneak", "cover_face"]


@pytest.fixture(scope="module")
def embedder():
    """The shipped model, loaded once per process (the selection under test shares the load)."""
    return pose_ranking.embedder(EmbeddingConfig())


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    amass_root, babel_root = tmp_path / "amass", tmp_path / "babel"
    path = amass_root / "CMU" / "01" / "01_01_poses.npz"
    path.parent.mkdir(parents=True)
    poses = np.zeros((60, 156), np.float32)
    poses[:, 3] = np.arange(60)
    np.savez(path, poses=poses, trans=np.zeros((60, 3)), betas=np.zeros(16), mocap_framerate=np.array(10.0))
    labels = [{"proc_label": p, "act_cat": c, "start_t": s, "end_t": e} for p, c, s, e in LABELS]
    babel_root.mkdir()
    (babel_root / "train.json").write_text(
        json.dumps({"1": {"feat_p": FEAT_P, "dur": 6.0, "frame_ann": {"labels": labels}}})
    )
    return amass_root, babel_root


def _config(roots: tuple[Path, Path], **extra) -> PoseConfig:
    return PoseConfig(
        actions=ACTIONS, amass_root=roots[0], babel_root=roots[1], **{"max_frames_per_action": 12, **extra}
    )


def _cosines(embedder, label: str, actions: list[str]) -> dict[str, float]:
    """The label's best cosine over its texts (proc_label and act_cat) to each action's default phrase."""
    proc, cats, _, _ = next(row for row in LABELS if row[0] == label)
    texts = embedder([proc, *cats])
    phrases = embedder([PoseConfig().phrases[a] for a in actions])
    return dict(zip(actions, (texts @ phrases.T).max(axis=0).tolist()))


def _labels_in_order(sel: pose_selection.PoseSelection, action: str) -> list[str]:
    return list(dict.fromkeys(f.label for f in sel.of(action)))


def test_embedding_finds_stroll_that_no_synonym_matches(roots, embedder) -> None:
    config = _config(roots)
    sel = pose_selection.select_poses(config)
    assert sel.method == "embedding"
    assert "stroll" in _labels_in_order(sel, "walking")
    synonyms = pose_selection.select_poses(_config(roots, selection="synonyms"))
    assert synonyms.method == "synonyms" and "stroll" not in {f.label for f in synonyms.frames}
    assert pose_selection.label_action({"proc_label": "stroll"}, ACTIONS, config.synonyms) is None
    # the floor, checked on cosines computed here: stand and wave hand are under it for every action
    for label in ("stand", "wave hand"):
        assert max(_cosines(embedder, label, ACTIONS).values()) < config.min_similarity
        assert label not in {f.label for f in sel.frames}
    kept = {f.label for f in sel.frames}
    assert kept == {"kick with right leg", "walk forward", "stroll", "crouch and sneak"}


def test_order_and_scores_follow_independent_cosines(roots, embedder) -> None:
    sel = pose_selection.select_poses(_config(roots))
    for action in ("kicking", "walking", "sneak"):
        labels = _labels_in_order(sel, action)
        cos = {lab: _cosines(embedder, lab, ACTIONS) for lab in labels}
        for lab in labels:  # each label went to its best action, and its frames carry that cosine
            assert max(cos[lab], key=cos[lab].get) == action
            assert all(f.score == pytest.approx(cos[lab][action], abs=1e-5) for f in sel.of(action) if f.label == lab)
        assert labels == sorted(labels, key=lambda lab: -cos[lab][action])
    assert len(_labels_in_order(sel, "walking")) == 2  # walk forward (with its act_cat "walk") and stroll
    assert any(p["item"] == "cover_face" for p in sel.problems)  # wave hand stays under the floor


def test_best_segment_is_dealt_frames_first(roots) -> None:
    sel = pose_selection.select_poses(_config(roots, max_frames_per_action=3))
    walks = sel.of("walking")
    # two candidates of 6 frames each (10 fps, [1.0, 1.5] s and [2.0, 2.5] s): 2 picks from the first, 1 from the second
    first = walks[0].label
    assert [f.label for f in walks].count(first) == 2 and len(walks) == 3
    spans = {"walk forward": range(10, 16), "stroll": range(20, 26)}
    assert all(f.frame in spans[f.label] and float(f.body_pose[0, 0]) == f.frame for f in walks)


def test_top_k_keeps_the_best(roots) -> None:
    sel = pose_selection.select_poses(_config(roots, top_k=1))
    full = pose_selection.select_poses(_config(roots))
    assert _labels_in_order(sel, "walking") == _labels_in_order(full, "walking")[:1]


def _rating_server(ratings: dict[str, str]) -> ScriptedModel:
    def script(prompt: str, attempt: int) -> tuple:
        label = prompt.rsplit("Label: ", 1)[1]
        return ("ok", ratings[label])

    return ScriptedModel(script)


def _endpoint(server: ScriptedModel) -> ModelEndpoint:
    return ModelEndpoint(base_url=server.base_url, model="rater", api_key_env=None, max_retries=0, backoff_s=0)


def test_llm_rating_reorders_and_a_rerun_pays_nothing(roots, tmp_path) -> None:
    more, less = _labels_in_order(pose_selection.select_poses(_config(roots)), "walking")  # by similarity
    shown = {"walk forward": "walk forward (walk)", "stroll": "stroll"}  # a label and its act_cat in the prompt
    ratings = {"kick with right leg": "8", "crouch and sneak": "7", shown[more]: "2", shown[less]: "9"}
    cache = tmp_path / "cache"
    with _rating_server(ratings) as server:
        config = _config(roots, rerank=_endpoint(server))
        sel = pose_selection.select_poses(config, cache)
        sent = sum(server.requests.values())
        again = pose_selection.select_poses(config, cache)
        assert sum(server.requests.values()) == sent  # the rerun is answered from the cache
    assert sent == 4  # one request per candidate: kick, walk forward, stroll, sneak
    assert sel.method == "embedding+llm"
    assert [p["item"] for p in sel.problems] == ["cover_face"]  # no frames for it; no rating problem
    assert _labels_in_order(sel, "walking") == [less, more]  # the rating put the less similar one first
    assert {f.label: f.rating for f in sel.of("walking")} == {less: 9.0, more: 2.0}
    assert [(f.frame, f.label) for f in again.frames] == [(f.frame, f.label) for f in sel.frames]
    assert sel.summary()["model_usage"]["answered"] == 4 and again.summary()["model_usage"]["cache_hits"] == 4


def test_unparseable_rating_is_a_problem_and_keeps_similarity_order(roots, tmp_path) -> None:
    similarity_order = _labels_in_order(pose_selection.select_poses(_config(roots)), "walking")
    ratings = {"kick with right leg": "5", "walk forward (walk)": "no idea", "stroll": "10", "crouch and sneak": "6"}
    with _rating_server(ratings) as server:
        sel = pose_selection.select_poses(_config(roots, rerank=_endpoint(server)), tmp_path / "cache")
    unrated = [p for p in sel.problems if p["stage"] == "poses" and p["item"].startswith("walking")]
    assert len(unrated) == 1 and "walk forward" in unrated[0]["item"] and "no idea" in unrated[0]["reason"]
    assert _labels_in_order(sel, "walking") == similarity_order
    assert [f.rating for f in sel.of("kicking")] == [5.0] * len(sel.of("kicking"))


def test_broken_embedder_falls_back_to_synonyms_and_says_so(roots, tmp_path) -> None:
    config = _config(roots, embedding=EmbeddingConfig(path=tmp_path / "no-model"))
    sel = pose_selection.select_poses(config)
    assert sel.method.startswith("synonyms (fallback: ") and "no-model" in sel.method
    assert "syndor.poses.embedding.path" in sel.method
    assert sel.summary()["method"] == sel.method
    assert any(p["kind"] == "fallback" and p["item"] == "poses.embedding" for p in sel.problems)
    plain = pose_selection.select_poses(_config(roots, selection="synonyms"))
    assert [(f.action, f.frame) for f in sel.frames] == [(f.action, f.frame) for f in plain.frames]
    assert all(f.score is None for f in sel.frames)


@pytest.mark.parametrize(
    ("reply", "rating"),
    [("7", 7.0), ("Rating: 8.5/10", 8.5), ("0", 0.0), ("11", None), ("-1", None), ("no idea", None), ("", None)],
)
def test_parse_rating(reply: str, rating: float | None) -> None:
    assert pose_ranking.parse_rating(reply) == rating


def test_spread_picks_deals_in_order_without_repeats() -> None:
    groups = [list(range(5)), list(range(10, 12)), list(range(20, 30))]
    # dealt 1,1,1 then 2,2,2 then the first takes the seventh (the second is full)
    assert [sum(p in g for p in pose_selection.spread_picks(groups, 7)) for g in groups] == [3, 2, 2]
    for n in range(1, 20):
        picks = pose_selection.spread_picks(groups, n)
        assert len(picks) == len(set(picks)) == min(n, 17)
        counts = [sum(p in g for p in picks) for g in groups]
        assert all(counts[i] >= counts[j] or counts[i] == len(groups[i]) for i in range(3) for j in range(i + 1, 3))
        assert all(g[0] in picks and g[-1] in picks for g, c in zip(groups, counts) if c >= 2)


def test_config_checks_prompt_and_phrases() -> None:
    with pytest.raises(ValueError, match="rating_prompt must contain"):
        PoseConfig(rating_prompt="rate {action}")
    with pytest.raises(ValueError, match="phrases: unknown action"):
        PoseConfig(phrases={"juggling": "juggling"})
    assert set(PoseConfig().phrases) == set(PoseConfig().actions)
