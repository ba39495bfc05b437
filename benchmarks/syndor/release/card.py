"""SynDORBench's dataset card facts (export/card_facts.py, the descriptor's `card`): the paper, what the benchmark
asks, each exported column, and the config keys that bring licensed content into a build."""

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.configs.export import LicensedAsset
from benchfoundry.configs.person import PERSON_ASSETS
from benchfoundry.export.card_facts import CardFacts

CITATION = """\
@inproceedings{syndorbench2026,
  title         = {{SynDORBench}: Evaluating {LVLM} Perceptual Robustness Under Physically Constrained Visibility
                   Conditions},
  booktitle     = {Advances in Neural Information Processing Systems (NeurIPS)},
  year          = {2026},
  eprint        = {2609.31823},
  archivePrefix = {arXiv},
  url           = {https://openreview.net/forum?id=eJbJ4kjbfA}
}"""

CARD = CardFacts(
    pretty_name="SynDORBench",
    summary=(
        "SynDORBench asks whether vision-language models still see a person when the physics of imaging gets in the "
        "way: one person, rendered at the distances of the DORI standard (BS EN 62676-4) from a hemisphere of "
        "viewpoints, in several scenes and lightings, the night frames also passed through a night-vision ISP. Two "
        "tasks: human-presence classification (reply 1 or 0; the answer is whether the person is discernible) and "
        "action recognition (reply the action's name; scored by E5 text similarity). A split is a task and a "
        "lighting group: `day` (morning, noon), `night` (evening, night), `nv` (the night frames after the ISP)."
    ),
    paper="SynDORBench: Evaluating LVLM Perceptual Robustness Under Physically Constrained Visibility Conditions "
    "(NeurIPS 2026)",
    url="https://openreview.net/forum?id=eJbJ4kjbfA",
    citation=CITATION,
    task_categories=("visual-question-answering", "image-classification"),
    tags=("dori", "visibility", "night-vision", "human-detection", "action-recognition"),
    fields={
        "source_dir": "the render folder of the frame's person, action, scene, lighting and distance",
        "action": "the person's action, as a slug (`walking`, `stepping_over`)",
        "scene": "the environment the person stands in (desert, field, wharf)",
        "lighting": "the lighting: `morning_*`, `noon_*` or `evening_*` with the sun's side, or `night`",
        "radius": "the camera's distance from the person, m (a DORI distance)",
        "smplx_texture": "the person's texture, which names one person (`SMPLitex_texture_<id>`)",
        "img_path": "the shown image's path in the release (the night-vision image in the `nv` splits)",
        "mask_path": "the path of the person's mask in the release (the mask is not part of this dataset)",
        "img_name": "the frame's file name: camera index, distance, azimuth (phi) and elevation (theta)",
        "nv_path": "the night-vision image's path in the release; null where the frame has none",
        "human_discernable": "1 when a person can be discerned in the shown image, else 0: human detection's answer",
        "raw_img_path": "the raw render's path in the release (the same as `img_path` outside the `nv` splits)",
        "prompt": "the task's exact prompt",
        "task": "the task: `human_detection` or `action_recognition`",
        "action_phrase": "the action's released name (`stepping over something`): action recognition's reference",
        "image": "the shown image: its bytes and its path in the release",
    },
    licensed_assets=(
        *PERSON_ASSETS,
        LicensedAsset(
            f"{BENCHMARK}.poses.amass_root", "AMASS motion capture", "https://amass.is.tue.mpg.de/license.html"
        ),
        LicensedAsset(
            f"{BENCHMARK}.poses.babel_root", "BABEL action labels", "https://babel.is.tue.mpg.de/license.html"
        ),
    ),
)
