"""ODI-Bench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml's
`benchfoundry.benchmarks` entry point group: every hook names a module of this folder, and no module of the
folder imports this one (its name and categories are in identity.py)."""

from benchfoundry.benchmarks.odi.identity import BENCHMARK, CATEGORIES
from benchfoundry.core.descriptor import Benchmark

_HERE = "benchfoundry.benchmarks.odi"

DESCRIPTOR = Benchmark(
    name=BENCHMARK,
    title="ODI-Bench",
    config=f"{_HERE}.config:OdiConfig",
    flow=f"{_HERE}.flow:odi_flow",
    plan=f"{_HERE}.build_plan:plan_text",
    planned_items=f"{_HERE}.build_plan:planned_items",
    scale=f"{_HERE}.scale:scaled",
    released=f"{BENCHMARK}/ODI-Bench.json",
    items=f"{_HERE}.release.readers:items",
    release_items=f"{_HERE}.release.readers:release_items",
    export_rows=f"{_HERE}.release.readers:splits",
    report_page="odi.html",
    front_counts=(
        ("panoramas", "qa/panoramas"),
        ("instances kept", "qa/panorama_totals/kept"),
        ("questions", "qa/questions"),
        ("released items", "qa/released"),
    ),
    order=20,
    categories=CATEGORIES,
    submits_tasks=True,
    commands=f"{_HERE}.cli:COMMANDS",
    evaluation=f"{_HERE}.harnesses.evaluation:EVALUATION",
    vlmevalkit=(
        ("benchfoundry_ODI", f"{_HERE}.harnesses.harness:vlmevalkit_closed_rows"),
        ("benchfoundry_ODI_open", f"{_HERE}.harnesses.harness:vlmevalkit_open_rows"),
    ),
    vlmevalkit_dataset=f"{_HERE}.harnesses.vlmevalkit_dataset",
    lmms_eval=f"{_HERE}.harnesses.harness:lmms_eval_tasks",
    lmms_eval_utils=f"{_HERE}.harnesses.lmms_eval_utils",
    site_folders=f"{_HERE}.stages.annotation.torchvision_ops:site_folders",
    card=f"{_HERE}.release.card:CARD",
)
