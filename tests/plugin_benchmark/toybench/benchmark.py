"""Toy-Bench's registry descriptor, declared in this package's `benchfoundry.benchmarks` entry point group
(pyproject.toml): every hook names a module of this package."""

from benchfoundry.core.descriptor import Benchmark
from toybench.identity import BENCHMARK, CATEGORY, RELEASED, TITLE

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title=TITLE,
    config="toybench.config:ToyConfig",
    flow="toybench.flow:toy_flow",
    plan="toybench.build_plan:plan_text",
    released=RELEASED.as_posix(),
    items="toybench.release.readers:items",
    export_rows="toybench.release.readers:splits",
    report_page="toybench.html",
    categories=(CATEGORY,),
    submits_tasks=True,
    commands="toybench.cli:COMMANDS",
    evaluation="toybench.harnesses.evaluation:EVALUATION",
    vlmevalkit=(("benchfoundry_Toy", "toybench.harnesses.harness:vlmevalkit_rows"),),
    vlmevalkit_dataset="toybench.harnesses.vlmevalkit_dataset",
    lmms_eval="toybench.harnesses.harness:lmms_eval_tasks",
    lmms_eval_utils="toybench.harnesses.lmms_eval_utils",
)
