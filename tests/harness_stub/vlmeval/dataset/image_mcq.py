"""VLMEvalKit's custom multiple-choice dataset, as far as the exported classes use it: the TSV file
`$LMUData/<dataset>.tsv` read into `data`, and `dump_image` giving a row's image files (here its `image_path`
cell, which a multi-image row holds as a JSON list)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd


class CustomMCQDataset:
    def __init__(self, dataset: str, **kwargs: Any) -> None:
        self.dataset_name = dataset
        self.data = pd.read_csv(Path(os.environ["LMUData"]) / f"{dataset}.tsv", sep="\t")

    def dump_image(self, line: Any) -> Any:
        return line["image_path"]
