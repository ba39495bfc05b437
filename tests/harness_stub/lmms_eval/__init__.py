"""A stand-in for the lmms-eval package in tests: only its documented viewspatial task interface."""
