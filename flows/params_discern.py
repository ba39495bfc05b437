"""Config of SynDORBench's night-vision ISP and discernibility labelling (DESIGN §2.3–2.4)."""

from __future__ import annotations

from benchfoundry.flows.params_base import Section


class DiscernConfig(Section):
    """Night-vision ISP, features, human-label sample and classifier."""
