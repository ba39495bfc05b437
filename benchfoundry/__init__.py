"""benchfoundry: rebuilds SynDORBench, ODI-Bench and ViewSpatial-Bench from raw assets.

The code lives in the top-level folders of the repository (flows/, tasks/, render/,
assets/), installed as the subpackages ``benchfoundry.flows`` and so on.
"""

__version__ = "0.1.0"
