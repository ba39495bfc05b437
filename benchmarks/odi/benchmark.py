"""ODI-Bench's registry descriptor (pipeline/benchmarks.py), declared in pyproject.toml."""

from benchfoundry.benchmarks.odi.identity import BENCHMARK, CATEGORIES
from benchfoundry.core.descriptor import laid_out

DESCRIPTOR = laid_out(
    "benchfoundry.benchmarks.odi",
    name=BENCHMARK,
    title="ODI-Bench",
    config="config:OdiConfig",
    flow="flow:odi_flow",
    released=f"{BENCHMARK}/ODI-Bench.json",
    report_page="odi.html",
    order=20,
    categories=CATEGORIES,
    submits_tasks=True,
    vlmevalkit=(
        ("benchfoundry_ODI", "harnesses.harness:vlmevalkit_closed_rows"),
        ("benchfoundry_ODI_open", "harnesses.harness:vlmevalkit_open_rows"),
    ),
    site_folders="stages.annotation.torchvision_ops:site_folders",
    front_counts=(
        ("panoramas", "qa/panoramas"),
        ("instances kept", "qa/panorama_totals/kept"),
        ("questions", "qa/questions"),
        ("released items", "qa/released"),
    ),
)
