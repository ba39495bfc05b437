"""ViewSpatial-Bench's dataset card facts (export/card_facts.py, the descriptor's `card`): the paper, what the
benchmark asks, each exported column, and the config keys that bring licensed content into a build."""

from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.configs.export import LicensedAsset
from benchfoundry.configs.person import PERSON_ASSETS
from benchfoundry.export.card_facts import CardFacts

CITATION = """\
@inproceedings{viewspatialbench2026,
  title     = {{ViewSpatial-Bench}: Evaluating Multi-perspective Spatial Localization in Vision-Language Models},
  booktitle = {European Conference on Computer Vision (ECCV)},
  year      = {2026},
  url       = {https://github.com/ZJU-REAL/ViewSpatial-Bench}
}"""

CARD = CardFacts(
    pretty_name="ViewSpatial-Bench",
    summary=(
        "ViewSpatial-Bench asks vision-language models where things are from a chosen point of view: the camera's or "
        "a person's in the image. Five categories of multiple-choice direction questions: camera-relative direction "
        "(Cam-Rel. Dir.) and person-perspective scene simulation (Per-Sce. Sim.) over indoor scans, camera-frame "
        "and person-frame orientation of people (Cam-Obj. Ori., Per-Obj. Ori.) and person-relative direction "
        "(Per-Rel. Dir.) over images of people."
    ),
    paper="ViewSpatial-Bench: Evaluating Multi-perspective Spatial Localization in Vision-Language Models (ECCV 2026)",
    url="https://github.com/ZJU-REAL/ViewSpatial-Bench",
    citation=CITATION,
    task_categories=("visual-question-answering",),
    tags=("spatial-reasoning", "perspective-taking", "orientation"),
    fields={
        "question_type": "the category, as the authors' release names it",
        "image_path": "the images' paths in the release (one, or two for some items)",
        "question": "the question",
        "answer": "the right option, as `<letter>. <direction>`",
        "choices": "the options, one per line, `A. <direction>`",
        "images": "the images: their bytes and paths in the release, in `image_path`'s order",
    },
    licensed_assets=(
        *PERSON_ASSETS,
        LicensedAsset(f"{BENCHMARK}.scannet_root", "ScanNet", "http://kaldir.vc.in.tum.de/scannet/ScanNet_TOS.pdf"),
        LicensedAsset(f"{BENCHMARK}.coco.splits", "COCO", "https://cocodataset.org/#termsofuse"),
    ),
)
