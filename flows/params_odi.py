"""Config of the ODI-Bench build (DESIGN §3)."""

from __future__ import annotations

from benchfoundry.flows.params_base import Section


class OdiConfig(Section):
    """ODI-Bench: panoramas, cubemap faces, instances, QA."""

    enabled: bool = True
