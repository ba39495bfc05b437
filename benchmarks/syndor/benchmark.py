"""SynDORBench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml."""

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS
from benchfoundry.core.descriptor import laid_out

DESCRIPTOR = laid_out(
    "benchfoundry.benchmarks.syndor",
    name=BENCHMARK,
    title="SynDORBench",
    config="config:SyndorConfig",
    flow="flow:syndor_flow",
    plan_against="build_plan:plan_against",
    released=f"{BENCHMARK}/index",
    report_page="syndor.html",
    order=10,
    categories=tuple(TASK_PROMPTS),
    vlmevalkit=(("benchfoundry_SynDOR", "harnesses.harness:vlmevalkit_rows"),),
    prune="stages.frame_files:prune_outcome",
    front_counts=(
        ("frames", "stages/render/frames"),
        ("night-vision images", "stages/discern/nv_images"),
        ("labelled sample", "stages/discern/sample"),
        ("indexed frames", "stages/qa/rows"),
    ),
)
