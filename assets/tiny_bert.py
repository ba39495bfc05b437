"""A tiny local BERT folder (config, random weights, tokenizer with a made-up vocabulary) for running
GroundingDINO's real code path without its licensed text encoder (tests, bench)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", "?", ",")


def write_tiny_bert(folder: Path, words: Sequence[str], hidden: int = 32, layers: int = 2, seed: int = 0) -> Path:
    """Write a randomly initialised `BertModel` and a `BertTokenizer` whose vocabulary is the special tokens
    plus the lower-case words of `words`; returns the folder (GroundingDINO's `text_encoder_type`)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    vocab = list(SPECIAL_TOKENS)
    for phrase in words:
        vocab += [w for w in phrase.lower().split() if w not in vocab]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(folder)
    BertTokenizer(str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    return folder
