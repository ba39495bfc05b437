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
and its docstring says how it asks and scores. `register()` registers the classes of every such module here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: A benchmark's dataset module beside this one: `<prefix><benchmark>.py`.
PREFIX = "benchfoundry_vlmeval_"


def benchmark_modules() -> list[ModuleType]:
    """The benchmarks' dataset modules beside this file, by file name; each imported once."""
    modules = []
    for path in sorted(Path(__file__).resolve().parent.glob(f"{PREFIX}*.py")):
        module = sys.modules.get(path.stem)
        if module is None or Path(getattr(module, "__file__", "") or "").resolve() != path:
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
        modules.append(module)
    return modules


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
