"""ViewSpatial-Bench's identity: `BENCHMARK`, its name (its folder under the output root, its config section),
and its registry descriptor (tasks/common/benchmarks.py).

Every module of the benchmark takes the name from here."""

from benchfoundry.tasks.common.benchmarks import Benchmark
from benchfoundry.tasks.viewspatial.task_names import RELEASED_TYPES

BENCHMARK = "viewspatial"

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="ViewSpatial-Bench",
    section=BENCHMARK,
    flow="benchfoundry.flows.viewspatial:viewspatial_flow",
    plan="benchfoundry.tasks.viewspatial.build_plan:plan_text",
    planned_items="benchfoundry.tasks.viewspatial.build_plan:planned_items",
    released=f"{BENCHMARK}/ViewSpatial-Bench.json",
    items="benchfoundry.tasks.evaluation.items:viewspatial_items",
    export_rows="benchfoundry.tasks.export.rows:viewspatial_splits",
    report_page="viewspatial.html",
    task_codes=tuple(RELEASED_TYPES),
    submits_tasks=True,
    vlmevalkit=(("benchfoundry_ViewSpatial", "benchfoundry.tasks.export.vlmevalkit:viewspatial_rows"),),
    lmms_eval="benchfoundry.tasks.export.lmms_tasks:viewspatial_tasks",
    lmms_eval_utils="benchfoundry.tasks.export.lmms_eval_viewspatial",
)
