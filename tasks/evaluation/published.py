"""Published figures of the three papers (from ../shared/seeds/), shown beside a build's own rows.

They were measured on the original data, not on a rebuilt benchmark: the report labels them so.
"""

from __future__ import annotations

#: ViewSpatial-Bench, Table 2 (accuracy, %): the five tasks and Overall (over all items).
VIEWSPATIAL_COLUMNS = ("Cam-Rel. Dir.", "Cam-Obj. Ori.", "Per-Obj. Ori.", "Per-Rel. Dir.", "Per-Sce. Sim.", "Overall")
VIEWSPATIAL = {
    "GPT-4o": (41.46, 19.58, 42.97, 40.86, 26.79, 34.98),
    "Qwen2.5-VL (3B)": (43.43, 33.33, 39.16, 28.62, 28.51, 35.85),
    "Qwen2.5-VL (3B) + SFT (MVSM)": (83.59, 87.65, 90.16, 71.14, 75.75, 82.09),
}

#: ODI-Bench (closed-form and open-form Overall, %).
ODI_COLUMNS = ("Overall (closed)", "Overall (open)")
ODI = {
    "o3": (62.62, 49.53),
    "GPT-4o": (55.79, 42.91),
    "Qwen2.5-VL-72B": (56.91, 39.49),
    "Blind GPT-4o": (36.39, None),
    "Random choice": (26.93, None),
}

#: SynDORBench Table 1: human-presence classification over all lightings, accuracy / macro-F1 (%) at the
#: paper camera's three distances (m).
SYNDOR_DISTANCES = (5.4, 10.8, 23.0)
SYNDOR = {
    "YOLO11x (detector)": ((73.92, 50.17), (65.38, 50.36), (50.29, 42.98)),
    "InternVL3-1B-hf": ((87.77, 59.63), (85.69, 64.58), (83.97, 68.13)),
    "Qwen2.5-VL-7B-Instruct": ((86.13, 58.41), (84.75, 63.86), (80.24, 64.99)),
    "gpt-4o-mini-2024-07-18": ((82.72, 55.79), (77.87, 58.72), (69.60, 59.03)),
}

#: ODI-Bench Table 4: closed-form Overall (%) without and with Omni-CoT (the full method: viewpoint
#: guiding, crop anchoring and crop refinement; `eval --omni-cot` runs the grounding-crop two-step).
ODI_OMNICOT_COLUMNS = ("baseline", "w/ viewpoint guiding", "w/ full Omni-CoT")
ODI_OMNICOT = {
    "o3": (62.62, 68.78, 70.03),
    "GPT-4o": (55.79, 61.67, 62.08),
    "Qwen2.5-VL-72B": (56.91, 64.51, 65.41),
    "InternVL2.5-8B": (52.76, 55.76, 58.04),
}
