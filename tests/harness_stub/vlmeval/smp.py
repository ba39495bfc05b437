"""`vlmeval.smp`'s helpers the exported classes use: `load` a TSV file, `toliststr` a cell as a list."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd


def load(path: str) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t")


def toliststr(value: Any) -> list[str]:
    if isinstance(value, str) and value.startswith("["):
        return [str(v) for v in json.loads(value)]
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]
