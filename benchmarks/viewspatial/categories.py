"""ViewSpatial-Bench's five categories (the released `question_type`; the paper calls them tasks): the paper's short
names (report columns, prose) and the `question_type`
strings of the authors' release (ZJU-REAL/ViewSpatial-Bench `eval/ViewSpatial-Bench.json`), which lmms-eval and
VLMEvalKit key their per-task scores on (docs/design/viewspatial.md §3)."""

from __future__ import annotations

#: Short name → released `question_type`, in the release's order.
CATEGORIES: dict[str, str] = {
    "Cam-Rel. Dir.": "Camera perspective - Relative Direction",
    "Cam-Obj. Ori.": "Camera perspective - Object View Orientation",
    "Per-Obj. Ori.": "Person perspective - Object View Orientation",
    "Per-Rel. Dir.": "Person perspective - Relative Direction",
    "Per-Sce. Sim.": "Person perspective - Scene Simulation Relative Direction",
}
#: Released `question_type` → short name.
SHORT_NAMES: dict[str, str] = {released: short for short, released in CATEGORIES.items()}
