"""ViewSpatial-Bench's name: its folder under the build root and its config section. Every module of the
benchmark takes it from here; the descriptor (benchmark.py) is imported by none of them."""

BENCHMARK = "viewspatial"
