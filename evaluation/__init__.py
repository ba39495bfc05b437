"""Evaluation of a model on built benchmarks (DESIGN §7): items, prompts, answer parsing, scores."""
