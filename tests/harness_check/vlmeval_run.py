"""Runs inside a venv that holds VLMEvalKit (its fetched source on PYTHONPATH; tests/harness_check/make_venvs.sh):
registers the export's `benchfoundry_vlmeval.py` classes, builds each dataset with VLMEvalKit's `build_dataset`
from `$LMUData` (the export folder), builds every row's prompt, writes the fake model's replies (`replies.json`,
keyed as lmms_eval_run.py keys them) as a prediction file and prints {dataset: evaluate()} and the first prompts
as JSON; with `ViewSpatialBench`, VLMEvalKit's built-in class of that name asks and scores the export's
ViewSpatial TSV by its own columns.

    python vlmeval_run.py EXPORT_FOLDER REPLIES_JSON DATASET [DATASET …] [ViewSpatialBench]
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

#: The project's torchvision shim (benchmarks/odi/stages/annotation/torchvision_ops.py): VLMEvalKit's dataset package
#: imports torchvision,
#: whose compiled operators do not load beside the CPU torch.
TORCHVISION_OPS = Path(__file__).resolve().parents[2] / "benchmarks" / "odi" / "torchvision_ops.py"


def ensure_torchvision() -> None:
    spec = importlib.util.spec_from_file_location("torchvision_ops", TORCHVISION_OPS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ensure_torchvision_ops()


def row_key(name: str, line: dict) -> str:
    if name == "benchfoundry_ViewSpatial":
        paths = line["image_path"]  # VLMEvalKit's loader has read a list cell as a list
        paths = list(paths) if isinstance(paths, list) else [paths]
        return line["question"] + "|" + json.dumps(paths)
    if name == "benchfoundry_ODI":
        return str(line["id"])
    return f"{line['l2-category']}:{line['image_path']}"


def builtin_viewspatial(folder: str, replies: dict) -> dict:
    """VLMEvalKit's own ViewSpatialBench over the export's TSV: its prompts (meta only: the released image paths,
    as its loader would rebase them) and its evaluate on the fake model's replies. Made without its loader, which
    downloads the authors' TSV and images from the Hub."""
    from vlmeval.dataset.viewspatialbench import ViewSpatialBench
    from vlmeval.smp import load, toliststr

    dataset = ViewSpatialBench.__new__(ViewSpatialBench)
    dataset.dataset_name, dataset.meta_only = "ViewSpatialBench", True
    data = load(os.path.join(folder, "benchfoundry_ViewSpatial.tsv"))
    data["image_path"] = [toliststr(p) for p in data["image_path"]]
    prompts = [dataset.build_prompt(data.iloc[k]) for k in range(len(data))]
    data["prediction"] = [replies[row_key("benchfoundry_ViewSpatial", data.iloc[k])] for k in range(len(data))]
    target = os.path.join(folder, "fake_ViewSpatialBench.tsv")
    data.drop(columns=["image"]).to_csv(target, sep="\t", index=False)
    return {"type": type(dataset).__name__, "scores": dataset.evaluate(target), "prompt": prompts[0]}


def main(folder: str, replies_path: str, names: list[str]) -> dict:
    os.environ["LMUData"] = folder
    sys.path.insert(0, folder)
    ensure_torchvision()
    import benchfoundry_vlmeval
    from vlmeval.dataset import build_dataset

    benchfoundry_vlmeval.register()
    replies = json.loads(open(replies_path, encoding="utf-8").read())
    out: dict = {}
    for name in names:
        if name == "ViewSpatialBench":
            out[name] = builtin_viewspatial(folder, replies)
            continue
        dataset = build_dataset(name)
        data = dataset.data.copy()
        prompts = [dataset.build_prompt(data.iloc[k]) for k in range(len(data))]
        data["prediction"] = [replies[row_key(name, data.iloc[k])] for k in range(len(data))]
        target = os.path.join(folder, f"fake_{name}.tsv")
        data.drop(columns=["image"]).to_csv(target, sep="\t", index=False)
        out[name] = {"type": type(dataset).__name__, "scores": dataset.evaluate(target), "prompt": prompts[0]}
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3:]), default=str))
