"""The project's dependencies from pyproject.toml, one a line: what an image installs before it copies the sources
(so that a changed source file reinstalls only the project), and with --build the build system's requirements too
(the wheelhouse of `make images`, which installs the project without an index)."""

import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
print(
    *project["project"]["dependencies"],
    *(project["build-system"]["requires"] if "--build" in sys.argv else ()),
    sep="\n",
)
