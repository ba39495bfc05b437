"""Evaluation of a model on built benchmarks (docs/design/evaluation.md): items, prompts, answer parsing, scores."""
