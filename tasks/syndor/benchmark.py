"""SynDORBench's identity: `BENCHMARK`, its name (its folder under the output root, its config section), and
its registry descriptor (tasks/common/benchmarks.py).

Every module of the benchmark takes the name from here."""

from benchfoundry.configs.syndor_qa import TASK_PROMPTS
from benchfoundry.tasks.common.benchmarks import Benchmark

BENCHMARK = "syndor"

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="SynDORBench",
    section=BENCHMARK,
    flow="benchfoundry.flows.syndor:syndor_flow",
    plan="benchfoundry.tasks.syndor.build_plan:plan_text",
    plan_against="benchfoundry.tasks.syndor.build_plan:plan_against",
    planned_items="benchfoundry.tasks.syndor.build_plan:planned_items",
    released=f"{BENCHMARK}/index",
    items="benchfoundry.tasks.evaluation.items:syndor_items",
    export_rows="benchfoundry.tasks.export.rows:syndor_splits",
    report_page="index.html",
    task_codes=tuple(TASK_PROMPTS),
    vlmevalkit=(("benchfoundry_SynDOR", "benchfoundry.tasks.export.vlmevalkit:syndor_rows"),),
    lmms_eval="benchfoundry.tasks.export.lmms_tasks:syndor_tasks",
    lmms_eval_utils="benchfoundry.tasks.export.lmms_eval_syndor",
)
