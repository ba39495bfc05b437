"""benchfoundry: rebuilds vision-language benchmarks from raw assets (benchmarks/: one folder each).

The kernel every other part stands on is `benchfoundry/core/` (``benchfoundry.core``); the rest lives in the
top-level folders of the repository (configs/, assets/, person/, render/, pipeline/, flows/, evaluation/,
export/, benchmarks/, cli/), installed as the subpackages ``benchfoundry.configs`` and so on.
"""
