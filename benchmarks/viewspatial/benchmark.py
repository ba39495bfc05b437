"""ViewSpatial-Bench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml's
`benchfoundry.benchmarks` entry point group: every hook names a module of this folder, and no module of the
folder imports this one (its name and categories are in identity.py)."""

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.core.descriptor import Benchmark

_HERE = "benchfoundry.benchmarks.viewspatial"

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="ViewSpatial-Bench",
    config=f"{_HERE}.config:ViewSpatialConfig",
    flow=f"{_HERE}.flow:viewspatial_flow",
    plan=f"{_HERE}.build_plan:plan_text",
    planned_items=f"{_HERE}.build_plan:planned_items",
    released=f"{BENCHMARK}/ViewSpatial-Bench.json",
    items=f"{_HERE}.release.readers:items",
    release_items=f"{_HERE}.release.readers:release_items",
    export_rows=f"{_HERE}.release.readers:splits",
    report_page="viewspatial.html",
    front_counts=(*((f"released {short}", f"released/{short}") for short in CATEGORIES), ("COCO splits", "coco")),
    order=30,
    categories=tuple(CATEGORIES),
    submits_tasks=True,
    commands=f"{_HERE}.cli:COMMANDS",
    evaluation=f"{_HERE}.harnesses.evaluation:EVALUATION",
    vlmevalkit=(("benchfoundry_ViewSpatial", f"{_HERE}.harnesses.harness:vlmevalkit_rows"),),
    vlmevalkit_dataset=f"{_HERE}.harnesses.vlmevalkit_dataset",
    lmms_eval=f"{_HERE}.harnesses.harness:lmms_eval_tasks",
    lmms_eval_utils=f"{_HERE}.harnesses.lmms_eval_utils",
    scale=f"{_HERE}.scale:scaled",
    card=f"{_HERE}.release.card:CARD",
)
