"""Omni-CoT as ODI-Bench's own options of `benchfoundry eval` (evaluation/options.py), its evaluation hook's `options`:
the modes (`--omni-cot`), the crop's side (`--crop-px`) and its section `omni_cot` of the evaluation config. The
steps themselves are omnicot.py's; this module stays light, as `eval`'s parser reads it.
"""

from __future__ import annotations

from pydantic import Field

from benchfoundry.configs.base import Section
from benchfoundry.evaluation.options import EvalOptions
from benchfoundry.pipeline.commands import arg

#: `--omni-cot`'s modes, the baseline (no Omni-CoT) first: the order of the runs on the evaluation page.
MODES = ("off", "guide", "ground", "full")
#: The largest side of an Omni-CoT view or crop sent to a model, px (a million-pixel side was a terabyte image).
MAX_VIEW_PX = 4096


class OmniCotConfig(Section):
    """Omni-CoT's views and crops (docs/design/odi.md §3)."""

    view_px: int = Field(512, ge=16, le=MAX_VIEW_PX, description="side of each of the six described views")
    crop_px: int = Field(512, ge=16, le=MAX_VIEW_PX, description="side of the grounding crop")
    margin_deg: float = Field(10.0, ge=0, description="added to the box's field of view")


OMNI_COT = EvalOptions(
    title="Omni-CoT",
    key="omni_cot",
    config=OmniCotConfig,
    variant=arg(
        "--omni-cot",
        choices=MODES,
        default="off",
        help="Omni-CoT, where the benchmark offers it: viewpoint guiding only (guide), + crop grounding without "
        "refinement (ground), all steps (full)",
    ),
    name_part="omnicot",
    flags=(arg("--crop-px", type=int, help="side of the Omni-CoT crop (default: the evaluation config's)"),),
    blind="Omni-CoT looks at the panorama",
)
