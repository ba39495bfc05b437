"""Config of SynDORBench's QA export, scoring and report (DESIGN §2.5)."""

from __future__ import annotations

from benchfoundry.flows.params_base import Section


class QaConfig(Section):
    """QA task files, scoring and the build report."""
