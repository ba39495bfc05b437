"""`benchfoundry compare A B`: two ODI-Bench builds of the rehearsal preset at a fifth of a percent (seeds 0 and 1)
share no item and no image and are distributed alike; a build against a copy of itself overlaps entirely, and
fake models of known accuracies evaluated on both rank alike (τ = 1; reversed on one side, τ = -1); a build
against a ViewSpatial-Bench.json written in the authors' format (and a re-encoded copy of its images) counts
identical and near-identical images apart."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from model_server import ScriptedModel
from PIL import Image
from test_eval import viewspatial_build

from benchfoundry.cli.main import main
from benchfoundry.compare.measures import tv_distance
from benchfoundry.compare.overlap import hamming
from benchfoundry.compare.questions import common_words, normalised, template
from benchfoundry.configs.compare import CompareConfig
from benchfoundry.evaluation.hooks import evaluation_of
from benchfoundry.evaluation.items import load_items
from benchfoundry.evaluation.protocols import answer_reply

ODI = "odi"
#: Fake models and how many of the build's closed items each answers right (the rest wrong): three accuracies, in
#: the order of the paper's Overall for the models of these names (o3 > InternVL3-78B > GPT-4o).
MODELS = {"openai/o3": 8, "OpenGVLab/InternVL3-78B": 5, "gpt-4o": 2}


def compare(a: Path, b: Path, tmp: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[dict, str]:
    target = tmp / "compare.json"
    assert main(["compare", str(a), str(b), "--json", str(target), *extra]) == 0
    return json.loads(target.read_text()), capsys.readouterr().out


@pytest.fixture(scope="module")
def seeds(prefect_server: None, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The rehearsal preset's ODI-Bench at a fifth of a percent (4 panoramas, 18 items), built with seeds 0 and 1."""
    from benchfoundry.configs.loader import load_config
    from benchfoundry.flows.build import build

    outs = []
    for seed in (0, 1):
        out = tmp_path_factory.mktemp(f"seed{seed}")
        record = build(load_config("rehearsal-odi", ["scale=0.002", f"seed={seed}"]), str(out), [ODI])
        assert record["benchmarks"][ODI]["status"] == "built", record["benchmarks"][ODI]["detail"]
        outs.append(out)
    return outs[0], outs[1]


def fake_model(build: Path, correct: int) -> ScriptedModel:
    """A model that answers the first `correct` closed items (by id) right and the others with another option."""
    evaluation = evaluation_of(ODI)
    closed = sorted((i for i in load_items(ODI, build) if i.options), key=lambda i: i.id)
    replies = {}
    for k, item in enumerate(closed):
        right = "ABCDEFGH".index(item.answer)
        chosen = right if k < correct else (right + 1) % len(item.options)
        replies[evaluation.prompt_text(item, "authors")] = answer_reply(item, chosen, "authors")
    return ScriptedModel(lambda prompt, attempt: ("ok", replies.get(prompt, "I cannot tell.")))


def evaluate(build: Path, models: dict[str, int]) -> None:
    for model, correct in models.items():
        with fake_model(build, correct) as server:
            args = ["eval", ODI, "--build", str(build), "--model", model, "--base-url", server.base_url]
            assert main([*args, "--concurrency", "2", "--timeout-s", "5"]) == 0


def file_hashes(build: Path) -> set[str]:
    """The sha256 of every image the build's ODI-Bench.json names."""
    released = json.loads((build / ODI / "ODI-Bench.json").read_text())
    return {hashlib.sha256((build / ODI / i["image"]).read_bytes()).hexdigest() for i in released}


@pytest.mark.blender
def test_two_seeds_share_no_item_or_image_and_are_distributed_alike(
    seeds: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = seeds
    record, printed = compare(a, b, tmp_path, capsys)
    overlap = record["benchmarks"][ODI]["overlap"]
    released = [json.loads((s / ODI / "ODI-Bench.json").read_text()) for s in seeds]
    assert overlap["items"] == [len(r) for r in released] and min(overlap["items"]) > 0
    assert overlap["same_items"] == [0, 0] and overlap["near_identical_images"] == [0, 0]
    assert overlap["identical_images"] == [0, 0] and not file_hashes(a) & file_hashes(b)
    assert overlap["images"] == [len({i["image"] for i in r}) for r in released]
    assert f"overlap: 0 of {len(released[1])} items of B" in printed
    rows = record["benchmarks"][ODI]["rows"]
    # one config: each category holds as many items on either side, and no row differs
    for row in rows:
        task_counts = [sum(i["task"] == row["task"] for i in r) for r in released]
        assert row["task"] == "(all)" or row["items"] == task_counts
        assert row["items"][0] == row["items"][1] and row["verdict"] == "close", row
    assert rows[0]["measures"]["categories"]["tv"] == 0.0 and rows[0]["measures"]["frames"]["tv"] == 0.0
    assert record["benchmarks"][ODI]["ranking"] is None and "ranking: no model" in printed
    # the page lands in A's report, linked from its other pages
    page = a / "report" / "compare.html"
    assert page.is_file() and "ODI-Bench" in page.read_text()
    assert 'href="compare.html"' in (a / "report" / "index.html").read_text()


@pytest.mark.blender
def test_a_build_against_its_copy_overlaps_entirely_and_ranks_the_models_alike(
    seeds: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = tmp_path / "a"
    shutil.copytree(seeds[0], a)
    same, reversed_ = tmp_path / "same", tmp_path / "reversed"
    shutil.copytree(a, same)
    shutil.copytree(a, reversed_)
    evaluate(a, MODELS)
    evaluate(same, MODELS)
    evaluate(reversed_, dict(zip(MODELS, reversed(list(MODELS.values())))))
    record, printed = compare(a, same, tmp_path, capsys, "--html", str(tmp_path / "page" / "c.html"))
    entry = record["benchmarks"][ODI]
    n = len(load_items(ODI, a))
    assert entry["overlap"]["same_items"] == [n, n] and entry["overlap"]["same_questions"] == [n, n]
    images = entry["overlap"]["images"]
    assert entry["overlap"]["identical_images"] == images == entry["overlap"]["near_identical_images"]
    assert f"overlap: {n} of {n} items of B are items of A (100 %)" in printed
    assert all(row["verdict"] == "close" for row in entry["rows"])
    assert all(m["tv"] == 0.0 for row in entry["rows"] for m in row["measures"].values() if m["tv"] is not None)
    ranking = entry["ranking"]
    closed = sum(1 for i in load_items(ODI, a) if i.options)
    for model, correct in MODELS.items():
        assert ranking["scores"]["A"][model]["overall"] == pytest.approx(correct / closed)
    overall = ranking["by_scope"]["overall"]
    assert overall["models"] == sorted(MODELS) and overall["tau"] == pytest.approx(1) == overall["rho"]
    assert "overall τ = 1.00" in printed and (tmp_path / "page" / "c.html").is_file()
    # against the paper's table, matched by name: the same order on both sides
    published = evaluation_of(ODI).published_scores
    assert [published[m]["overall"] for m in ("o3", "InternVL3-78B", "GPT-4o")] == sorted(
        (published[m]["overall"] for m in ("o3", "InternVL3-78B", "GPT-4o")), reverse=True
    )
    for side in ("A", "B"):
        assert ranking["published"][side]["overall"]["tau"] == pytest.approx(1)
    assert "ranking of B against the published table: overall τ = 1.00, ρ = 1.00 (3 models)" in printed
    # the same models ranked the other way round on B: τ = -1
    record, _ = compare(a, reversed_, tmp_path, capsys)
    assert record["benchmarks"][ODI]["ranking"]["by_scope"]["overall"]["tau"] == pytest.approx(-1)
    # the build's own Parquet copy read as the authors' release: the same items
    record, printed = compare(a, a / ODI / "hf" / "ODI-Bench.parquet", tmp_path, capsys)
    assert record["benchmarks"][ODI]["overlap"]["same_items"] == [n, n]
    assert record["sides"]["B"]["benchmarks"] == [ODI]


def reencoded(path: Path) -> bytes:
    """The image brightened by one level and saved again: other bytes, the same picture."""
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(np.int16)
    out = io.BytesIO()
    Image.fromarray(np.clip(pixels + 1, 0, 255).astype(np.uint8)).save(out, format="PNG")
    return out.getvalue()


def textured_build(out: Path, n: int) -> list[dict]:
    """viewspatial_build's items with images that differ in content (seeded noise), not only in colour."""
    items = viewspatial_build(out, n)
    rng = np.random.default_rng(7)
    for item in items:
        path = out / "viewspatial" / item["image_path"][0]
        Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)).resize((128, 128)).save(path, "JPEG")
    return items


def test_a_build_against_a_file_in_the_authors_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = tmp_path / "build"
    items = textured_build(build, 12)
    authors = tmp_path / "authors"
    (authors / "images").mkdir(parents=True)
    # the authors' file: the first eight items, images re-encoded, two of them asked another question
    released = []
    for k, item in enumerate(items[:8]):
        name = item["image_path"][0]
        (authors / name).write_bytes(reencoded(build / "viewspatial" / name))
        released.append({**item, "question": item["question"] + (" Answer now." if k < 2 else "")})
    (authors / "ViewSpatial-Bench.json").write_text(json.dumps(released))
    record, printed = compare(build, authors / "ViewSpatial-Bench.json", tmp_path, capsys)
    entry = record["benchmarks"]["viewspatial"]
    assert record["sides"]["B"]["benchmarks"] == ["viewspatial"] and "released files" in record["sides"]["B"]["what"]
    overlap = entry["overlap"]
    assert overlap["items"] == [12, 8] and overlap["images"] == [12, 8]
    assert overlap["identical_images"] == [0, 0] and overlap["near_identical_images"] == [8, 8]
    assert overlap["same_questions"] == [6, 6] and overlap["same_items"] == [6, 6]
    assert "overlap: 6 of 8 items of B are items of A (75 %)" in printed
    shares = Counter(i["question_type"] for i in items)
    assert entry["rows"][0]["items"] == [12, 8] and sum(shares.values()) == 12
    # a folder holding the authors' file reads the same
    again, _ = compare(build, authors, tmp_path, capsys)
    assert again["benchmarks"]["viewspatial"]["overlap"] == overlap
    # no page without --html when A is no build
    assert main(["compare", str(authors / "ViewSpatial-Bench.json"), str(build)]) == 0
    assert "page:" not in capsys.readouterr().out


def test_a_path_that_is_no_side_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stray = tmp_path / "notes.json"
    stray.write_text("[]")
    assert main(["compare", str(stray), str(stray)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {stray}: neither a build folder") and "ViewSpatial-Bench.json" in err
    assert main(["compare", str(tmp_path / "missing"), str(stray)]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("tv_max: 2\n")
    assert main(["compare", str(stray), str(stray), "--config", str(bad)]) == 2
    assert "tv_max" in capsys.readouterr().err


def test_tv_distance_is_half_the_l1_distance_of_the_shares() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.integers(0, 9, 5), rng.integers(0, 9, 5)
        if not a.sum() or not b.sum():
            continue
        expected = 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()
        assert tv_distance(Counter(dict(enumerate(a))), Counter(dict(enumerate(b)))) == pytest.approx(expected)
    assert tv_distance(Counter("aab"), Counter()) is None


def test_hamming_counts_the_differing_bits() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2**63, 7, dtype=np.uint64) * np.uint64(2)
    b = rng.integers(0, 2**63, 5, dtype=np.uint64)
    assert hamming(a, b).tolist() == [[(int(x) ^ int(y)).bit_count() for y in b] for x in a]


def test_a_template_keeps_the_words_its_questions_share_and_masks_the_rest() -> None:
    questions = ["How many chairs are around me?", "How many street lamps are around me?", 'What does "EXIT" say?']
    common = common_words(questions, CompareConfig().template_min_share)
    shapes = {template(q, common) for q in questions[:2]}
    assert len(shapes) == 1 and "chairs" not in shapes.pop()
    assert template('What does "EXIT" say?', common) == template('What does "OPEN 24" say?', common)
    assert normalised("  What  colour is the CHAIR? ") == normalised("what colour is the chair")
