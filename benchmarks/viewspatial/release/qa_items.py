"""The question items both halves of ViewSpatial-Bench make (the scans' and the COCO images'): their table's
columns, their wording and lettered options drawn by the item's seed, and the released records (the benchmark
JSON's schema, the SFT chat files)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.core.directions import multiple_choice
from benchfoundry.core.seeding import item_rng

QA_COLUMNS = (
    "item_id",
    "scene_id",
    "split",
    "question_type",
    "image_path",
    "question",
    "answer",
    "choices",
    "answer_label",
    "object_ids",
    "labels",
    "frame_ids",
    "margin_deg",
)


def worded(templates: Sequence[str] | Mapping[str, float], seed: int, item_id: str, **slots: str) -> str:
    """One of the wordings, drawn by the item's seed (by weight, from wordings → weights), with its slots filled."""
    rng = item_rng(seed, "viewspatial.qa.wording", item_id)
    if isinstance(templates, Mapping):
        weights = np.array(list(templates.values()), dtype=float)
        return list(templates)[int(rng.choice(len(weights), p=weights / weights.sum()))].format(**slots)
    return templates[int(rng.integers(len(templates)))].format(**slots)


def with_options(item: dict[str, Any], labels: Sequence[str], seed: int) -> dict[str, Any]:
    """The item with its lettered `choices` and `answer`: the answer label and three distractors from
    `labels` (the rule of docs/design/viewspatial.md §1.6), shuffled by the item's seed."""
    mc = multiple_choice(item["answer_label"], labels, item_rng(seed, "viewspatial.qa.options", item["item_id"]))
    return {**item, "answer": mc.answer, "choices": mc.choices}


def qa_table(items: Iterable[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(items), columns=list(QA_COLUMNS))


def benchmark_records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The released schema: question_type, image_path, question, answer, choices."""
    return [
        {
            "question_type": r.question_type,
            "image_path": list(r.image_path),
            "question": r.question,
            "answer": r.answer,
            "choices": r.choices,
        }
        for r in rows.itertuples()
    ]


def sft_records(rows: pd.DataFrame, mc_instruction: str, direct_instruction: str) -> list[dict[str, Any]]:
    """LLaVA/ShareGPT chat records: a multiple-choice and a direct-answer conversation per item.

    `image` is a path string for one image (LLaVA-1.5) and a list for several (LLaVA-NeXT style);
    `images` is always a list (LLaMA-Factory's sharegpt `images` column). The human turn starts
    with one `<image>` token per image.
    """
    out = []
    for r in rows.itertuples():
        images = [str(p) for p in r.image_path]
        prefix = "<image>\n" * len(images)
        forms = (
            ("mc", f"{prefix}{r.question}\n{r.choices}\n{mc_instruction}", r.answer),
            ("direct", f"{prefix}{r.question}\n{direct_instruction}", r.answer_label),
        )
        for form, prompt, reply in forms:
            out.append(
                {
                    "id": f"{r.item_id}:{form}",
                    "image": images[0] if len(images) == 1 else images,
                    "images": images,
                    "conversations": [{"from": "human", "value": prompt}, {"from": "gpt", "value": reply}],
                }
            )
    return out


def split_by_image_count(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(one-image records, several-image records): each file then has one type per field.

    Loaders that read JSON through Arrow (Hugging Face `datasets`, so LLaMA-Factory) reject a
    field that is a string in one record and a list in another.
    """
    single = [r for r in records if len(r["images"]) == 1]
    return single, [r for r in records if len(r["images"]) != 1]
