"""ViewSpatial-Bench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml."""

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.core.descriptor import laid_out

DESCRIPTOR = laid_out(
    "benchfoundry.benchmarks.viewspatial",
    name=BENCHMARK,
    title="ViewSpatial-Bench",
    config="config:ViewSpatialConfig",
    flow="flow:viewspatial_flow",
    released=f"{BENCHMARK}/ViewSpatial-Bench.json",
    report_page="viewspatial.html",
    front_counts=(*((f"released {short}", f"released/{short}") for short in CATEGORIES), ("COCO splits", "coco")),
    order=30,
    categories=tuple(CATEGORIES),
    submits_tasks=True,
    vlmevalkit=(("benchfoundry_ViewSpatial", "harnesses.harness:vlmevalkit_rows"),),
)
