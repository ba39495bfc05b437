"""ViewSpatial-Bench's results tables (docs/design/papers.md §3), complete and in the paper's row and column order,
shown with our rows added in its section of the evaluation page (evaluation.py). A cell is as
evaluation/tables.Table says; the published figures were measured on the original data, not on this build.
"""

from __future__ import annotations

from benchfoundry.evaluation.tables import Table

#: The five task columns (the paper's short names) and Overall (over all items, not the mean of the columns).
VIEWSPATIAL_TASKS = ("Cam-Rel. Dir.", "Cam-Obj. Ori.", "Per-Obj. Ori.", "Per-Rel. Dir.", "Per-Sce. Sim.")
VIEWSPATIAL_TABLE2 = Table(
    "ViewSpatial-Bench Table 2: accuracy (%)",
    ("Model", *VIEWSPATIAL_TASKS, "Overall"),
    (
        ("GPT-4o", 41.46, 19.58, 42.97, 40.86, 26.79, 34.98),
        ("Doubao-Seed-2.0", 65.60, 44.78, 47.19, 72.09, 33.57, 53.52),
        ("Qwen3.5-Plus (397B)", 62.21, 38.65, 50.20, 68.17, 38.37, 52.28),
        ("Qwen2.5-VL (3B)", 43.43, 33.33, 39.16, 28.62, 28.51, 35.85),
        ("Qwen2.5-VL (3B) + SFT / MVSM", 83.59, 87.65, 90.16, 71.14, 75.75, 82.09),
    ),
    "Overall is the accuracy over all items, not the mean of the five columns.",
)
#: Table 2 as accuracies (shares) by model, overall and per task: what `benchfoundry compare` ranks models against.
VIEWSPATIAL_SCORES = {
    row[0]: {"overall": row[-1] / 100, **{task: v / 100 for task, v in zip(VIEWSPATIAL_TASKS, row[1:-1])}}
    for row in VIEWSPATIAL_TABLE2.rows
}
VIEWSPATIAL_TABLE3 = Table(
    "ViewSpatial-Bench Table 3: answer format and backbone, accuracy (%) before and after fine-tuning",
    ("Configuration", "Original accuracy", "Fine-tuned accuracy", "Gain (points)"),
    (
        ("Qwen2.5-VL (3B), multiple choice (MC)", 35.85, 82.09, 46.24),
        ("Qwen2.5-VL (3B), direct answer (DA)", 35.85, 79.34, 43.49),
        ("Qwen2.5-VL (7B)", 36.85, 83.01, 46.16),
        ("InternVL2.5 (2B)", 34.98, 76.45, 41.47),
    ),
    "Fine-tuning runs outside benchfoundry (the build writes the SFT files): no row of ours.",
)
VIEWSPATIAL_TABLE4 = Table(
    "ViewSpatial-Bench Table 4: transfer to other benchmarks, accuracy (%)",
    ("Transfer evaluation", "Qwen2.5-VL (3B)", "MVSM", "Gain (points)"),
    (
        ("VSI-Bench relative direction", 46.00, 46.93, 0.93),
        ("VSI-Bench route planning", 21.90, 31.44, 9.54),
        ("VSI-App indoor", 18.00, 41.00, 23.00),
        ("VSI-App outdoor", 27.00, 36.00, 9.00),
        ("VSI-App mean", 22.50, 38.50, 16.00),
    ),
    "Measured on other benchmarks (VSI-Bench, VSI-App): no row of ours.",
)
