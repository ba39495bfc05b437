"""Config of SynDORBench's person: body model, poses and textures (DESIGN §2.2)."""

from __future__ import annotations

from benchfoundry.flows.params_base import Section


class BodyConfig(Section):
    """Body model: official SMPL/SMPL-X files by path, or the procedural default."""


class PoseConfig(Section):
    """Actions: built-in joint rotations, or AMASS sequences selected by BABEL labels."""


class TextureConfig(Section):
    """SMPLitex UV textures from a directory, or procedural clothing textures."""
