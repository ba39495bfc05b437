"""`benchfoundry_vlmeval.py`, copied beside the TSV files by `benchfoundry export vlmevalkit`: it registers the
VLMEvalKit dataset classes that ask and score the exports as each benchmark's authors do. It runs inside
VLMEvalKit and imports nothing of benchfoundry. VLMEvalKit builds only the classes of `vlmeval.dataset`, so
`register()` adds them there before its `run.py` builds datasets:

    import benchfoundry_vlmeval, runpy, sys
    benchfoundry_vlmeval.register()
    sys.argv = ["run.py", "--data", "<TSV file stem>", "--model", MODEL]
    runpy.run_path("run.py", run_name="__main__")

Each exported benchmark's classes are in `benchfoundry_vlmeval_<benchmark>.py` beside this file (copied from the
module its descriptor names, `vlmevalkit_dataset`); its `classes()` builds them (VLMEvalKit imported only then)
and its docstring says how it asks and scores. `register()` registers the classes of every such module here. What
they share (a TSV cell as text, accuracy overall and per category) is here too: they import it from this module,
by its name beside them (`benchfoundry_vlmeval`).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

#: This module's name beside the TSV files, by which the benchmarks' dataset modules import it.
NAME = "benchfoundry_vlmeval"
#: A benchmark's dataset module beside this one: `<prefix><benchmark>.py`.
PREFIX = f"{NAME}_"


def cell_text(value: Any) -> str:
    """A TSV cell as text (pandas reads an empty cell as NaN)."""
    return "" if value is None or value != value else str(value)


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def accuracy(rows: list[tuple[str, bool]]) -> dict[str, float | None]:
    """Overall and per-category accuracy of (category, correct) rows."""
    out = {"overall": mean([float(ok) for _, ok in rows])}
    for category in sorted({c for c, _ in rows}):
        out[category] = mean([float(ok) for c, ok in rows if c == category])
    return out


def dataset_class(
    base: type,
    name: str,
    dataset: str,
    scores: Callable[[Any], dict[str, float | None]],
    text: Callable[[Any], str] | None = None,
    text_first: bool = False,
) -> type:
    """A dataset class `name` on VLMEvalKit's `base` for the TSV file `dataset`, evaluated by `scores` of the
    prediction file; with `text`, a row is asked as its images and `text(row)` (the text first with `text_first`)."""
    from vlmeval.smp import load, toliststr

    class Dataset(base):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return [dataset]

        if text is not None:

            def build_prompt(self, line: Any) -> list[dict[str, str]]:
                line = self.data.iloc[line] if isinstance(line, int) else line
                images = [{"type": "image", "value": p} for p in toliststr(self.dump_image(line))]
                asked = [{"type": "text", "value": text(line)}]
                return asked + images if text_first else images + asked

        def evaluate(self, eval_file: str, **judge_kwargs: Any) -> dict[str, float | None]:
            return scores(load(eval_file))

    Dataset.__name__ = Dataset.__qualname__ = name
    return Dataset


def _imported(name: str, path: Path) -> ModuleType:
    """The module `name` from `path`, imported once."""
    module = sys.modules.get(name)
    if module is None or Path(getattr(module, "__file__", "") or "").resolve() != path:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def benchmark_modules() -> list[ModuleType]:
    """The benchmarks' dataset modules beside this file, by file name; each imported once, after this module under
    its own name (loaded under another, it is imported again as `NAME` for them)."""
    here = Path(__file__).resolve()
    if NAME not in sys.modules:
        _imported(NAME, here)
    return [_imported(path.stem, path) for path in sorted(here.parent.glob(f"{PREFIX}*.py"))]


def classes() -> list[type]:
    """Every dataset class of the benchmarks' modules beside this file."""
    return [cls for module in benchmark_modules() for cls in module.classes()]


def register() -> list[type]:
    """Put the classes where VLMEvalKit's `build_dataset` and `--data-config` look (before its own)."""
    import vlmeval.dataset as datasets

    found = classes()
    for cls in found:
        setattr(datasets, cls.__name__, cls)
        if cls not in datasets.DATASET_CLASSES:
            datasets.DATASET_CLASSES.insert(0, cls)
        datasets.SUPPORTED_DATASETS.extend(n for n in cls.supported_datasets() if n not in datasets.SUPPORTED_DATASETS)
    return found
