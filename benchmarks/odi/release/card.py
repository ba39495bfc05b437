"""ODI-Bench's dataset card facts (export/card_facts.py, the descriptor's `card`): the paper, what the benchmark
asks, each exported column, and the config keys that bring licensed content into a build."""

from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.configs.export import LicensedAsset
from benchfoundry.configs.person import PERSON_ASSETS
from benchfoundry.export.card_facts import CardFacts

CITATION = """\
@inproceedings{odibench2026,
  title     = {{ODI-Bench}: Can {MLLMs} Understand Immersive Omnidirectional Environments?},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year      = {2026},
  url       = {https://openreview.net/forum?id=fT8FrhGNo0}
}"""

CARD = CardFacts(
    pretty_name="ODI-Bench",
    summary=(
        "ODI-Bench asks multimodal models about immersive 360° panoramas (equirectangular images), in the first "
        'person ("the chair on my left"). Ten categories: general ones (object attribute OA, human attribute HA, '
        "existence, counting, panoramic OCR) and spatial ones (egocentric view orientation EVO, allocentric view "
        "orientation AVO, scene simulation SS, relative direction RD, ODI reasoning OR), each in closed form (four "
        "options, or yes/no) and open form."
    ),
    paper="ODI-Bench: Can MLLMs Understand Immersive Omnidirectional Environments? (ICLR 2026)",
    url="https://openreview.net/forum?id=fT8FrhGNo0",
    citation=CITATION,
    task_categories=("visual-question-answering",),
    tags=("panorama", "omnidirectional", "360-degree", "spatial-reasoning"),
    fields={
        "id": "the item's id",
        "task": "the category: OA, HA, existence, counting, OCR, EVO, AVO, SS, RD or OR",
        "form": "`closed` (options given) or `open`",
        "question": "the question, in the first person",
        "options": "a closed item's options in their shown order (four, or two for yes/no); empty for an open item",
        "answer": "the right option's text (closed), or the reference answer (open)",
        "instance_ids": "the annotated instances of the panorama the question is about",
        "source": "who wrote the item: `template`, `model` or `human`",
        "verified": "1 when a person reviewed the item, else 0",
        "answer_from": "what the answer was computed from (`model`: the writer model's own question)",
        "distractors_from": "where a closed item's wrong options came from: `model`, `pool` (a template pool or "
        "nearby counts) or `labels` (the question's fixed set: sides, corners, yes/no, the objects asked about)",
        "image": "the panorama: its bytes and its path in the release",
        "image_path": "the panorama's path in the release",
    },
    licensed_assets=(
        *PERSON_ASSETS,
        LicensedAsset(f"{BENCHMARK}.panorama_root", "panoramas of your own", "the terms of the panoramas' source"),
    ),
)
