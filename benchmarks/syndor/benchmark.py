"""SynDORBench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml's
`benchfoundry.benchmarks` entry point group: every hook names a module of this folder, and no module of the
folder imports this one (its name and categories are in identity.py)."""

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS
from benchfoundry.core.descriptor import Benchmark

_HERE = "benchfoundry.benchmarks.syndor"

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="SynDORBench",
    config=f"{_HERE}.config:SyndorConfig",
    flow=f"{_HERE}.flow:syndor_flow",
    plan=f"{_HERE}.build_plan:plan_text",
    plan_against=f"{_HERE}.build_plan:plan_against",
    planned_items=f"{_HERE}.build_plan:planned_items",
    released=f"{BENCHMARK}/index",
    items=f"{_HERE}.release.readers:items",
    release_items=f"{_HERE}.release.readers:release_items",
    export_rows=f"{_HERE}.release.readers:splits",
    report_page="syndor.html",
    front_counts=(
        ("frames", "stages/render/frames"),
        ("night-vision images", "stages/discern/nv_images"),
        ("labelled sample", "stages/discern/sample"),
        ("indexed frames", "stages/qa/rows"),
    ),
    order=10,
    categories=tuple(TASK_PROMPTS),
    commands=f"{_HERE}.cli:COMMANDS",
    evaluation=f"{_HERE}.harnesses.evaluation:EVALUATION",
    vlmevalkit=(("benchfoundry_SynDOR", f"{_HERE}.harnesses.harness:vlmevalkit_rows"),),
    vlmevalkit_dataset=f"{_HERE}.harnesses.vlmevalkit_dataset",
    lmms_eval=f"{_HERE}.harnesses.harness:lmms_eval_tasks",
    lmms_eval_utils=f"{_HERE}.harnesses.lmms_eval_utils",
    prune=f"{_HERE}.stages.frame_files:prune_outcome",
    scale=f"{_HERE}.scale:scaled",
    card=f"{_HERE}.release.card:CARD",
)
