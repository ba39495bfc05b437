"""The modules an export copies beside its files, to run inside a harness (lmms-eval's `utils.py`, VLMEvalKit's
dataset classes): a benchmark's descriptor names each by its dotted module name, and the export copies that
module's source file as it is."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def module_source(dotted: str, what: str) -> bytes:
    """The source file's bytes of the module `dotted` names, found without importing it (it may import a harness
    that is not installed here); ValueError naming `what` when there is none."""
    try:
        spec = find_spec(dotted)
    except (ImportError, ValueError) as exc:
        raise ValueError(f"{what} module {dotted} not found: {exc}") from exc
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise ValueError(f"{what} module {dotted} not found")
    return Path(spec.origin).read_bytes()
