"""ODI-Bench's name (its folder under the build root and its config section) and its question categories.
Every module of the benchmark takes them from here; the descriptor (benchmark.py) is imported by none of them."""

BENCHMARK = "odi"
#: The general-level categories.
GENERAL = ("OA", "HA", "existence", "counting", "OCR")
#: The spatial-level categories.
SPATIAL = ("EVO", "AVO", "SS", "RD", "OR")
CATEGORIES = GENERAL + SPATIAL
