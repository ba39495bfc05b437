"""Toy-Bench's name (its folder under the build root, its config section), its category and its released file;
every module of the package takes them from here (none imports the descriptor, benchmark.py)."""

from pathlib import Path

BENCHMARK = "toybench"
TITLE = "Toy-Bench"
#: The one question category (the released `task`).
CATEGORY = "colour"
#: The released file, relative to the build root; its images are in `images/` beside it.
RELEASED = Path(BENCHMARK) / "Toy-Bench.json"
IMAGES = "images"
