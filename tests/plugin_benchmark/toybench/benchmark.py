"""Toy-Bench's registry descriptor, declared in this package's `benchfoundry.benchmarks` entry point group
(pyproject.toml): every hook names a module of this package."""

from benchfoundry.pipeline.benchmarks import Benchmark
from toybench.identity import BENCHMARK, CATEGORY, RELEASED, TITLE

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title=TITLE,
    config="toybench.config:ToyConfig",
    flow="toybench.flow:toy_flow",
    plan="toybench.build_plan:plan_text",
    released=RELEASED.as_posix(),
    items="toybench.readers:items",
    export_rows="toybench.readers:splits",
    report_page="toybench.html",
    categories=(CATEGORY,),
    submits_tasks=True,
    commands="toybench.cli:add_commands",
    evaluation="toybench.evaluation:EVALUATION",
    vlmevalkit=(("benchfoundry_Toy", "toybench.harness:vlmevalkit_rows"),),
    vlmevalkit_dataset="toybench.vlmevalkit_dataset",
    lmms_eval="toybench.harness:lmms_eval_tasks",
    lmms_eval_utils="toybench.lmms_eval_utils",
)
