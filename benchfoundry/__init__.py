"""benchfoundry: rebuilds SynDORBench, ODI-Bench and ViewSpatial-Bench from raw assets.

The kernel every other part stands on is `benchfoundry/core/` (``benchfoundry.core``); the rest lives in the
top-level folders of the repository (configs/, assets/, person/, render/, tasks/, flows/), installed as the
subpackages ``benchfoundry.configs`` and so on.
"""
