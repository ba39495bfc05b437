"""ODI-Bench's identity: `BENCHMARK`, its name (its folder under the output root, its config section), its task
codes, and its registry descriptor (tasks/common/benchmarks.py).

Every module of the benchmark takes the name and the task codes from here."""

from benchfoundry.tasks.common.benchmarks import Benchmark

BENCHMARK = "odi"
#: The general-level tasks.
GENERAL = ("OA", "HA", "existence", "counting", "OCR")
#: The spatial-level tasks.
SPATIAL = ("EVO", "AVO", "SS", "RD", "OR")
TASKS = GENERAL + SPATIAL

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="ODI-Bench",
    section=BENCHMARK,
    flow="benchfoundry.flows.odi:odi_flow",
    plan="benchfoundry.tasks.odi.build_plan:plan_text",
    planned_items="benchfoundry.tasks.odi.build_plan:planned_items",
    released=f"{BENCHMARK}/ODI-Bench.json",
    items="benchfoundry.tasks.evaluation.items:odi_items",
    export_rows="benchfoundry.tasks.export.rows:odi_splits",
    report_page="odi.html",
    task_codes=TASKS,
    submits_tasks=True,
    vlmevalkit=(
        ("benchfoundry_ODI", "benchfoundry.tasks.export.vlmevalkit:odi_closed_rows"),
        ("benchfoundry_ODI_open", "benchfoundry.tasks.export.vlmevalkit:odi_open_rows"),
    ),
    lmms_eval="benchfoundry.tasks.export.lmms_tasks:odi_tasks",
    lmms_eval_utils="benchfoundry.tasks.export.lmms_eval_odi",
)
