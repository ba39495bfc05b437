"""The SLURM job watch's one-line failure without SLURM: once the build has failed, neither Prefect's flow-run
log nor tornado's shows a traceback (the failure, raised in the main thread, may land inside a C extension that
wraps it in an Exception Prefect then logs), and the filters leave with the block."""

from __future__ import annotations

import logging
import sys

import pytest

from benchfoundry.configs.build import SlurmConfig
from benchfoundry.flows.slurm_jobs import ClusterFailed, JobWatch

#: Prefect's flow-run logger (prefect.logging.loggers.flow_run_logger) and tornado's, which logs a refused sbatch.
LOGGERS = ("prefect.flow_runs", "tornado.application")


def _record(with_traceback: bool) -> logging.LogRecord:
    try:
        raise ValueError("Error calling function `_ser_model`: ClusterFailed: …")
    except ValueError:
        info = sys.exc_info() if with_traceback else None
    return logging.LogRecord("prefect.flow_runs", logging.ERROR, __file__, 1, "Encountered exception", None, info)


def test_after_a_failure_no_traceback_is_logged_and_the_failure_is_raised() -> None:
    watch = JobWatch(SlurmConfig(), None)
    with pytest.raises(ClusterFailed, match="runner.slurm.queue"):
        with watch.watching():
            assert all(watch in logging.getLogger(name).filters for name in LOGGERS)
            assert watch.filter(_record(True)) and watch.filter(_record(False))
            watch.failure = "runner.slurm.queue: sbatch refused the build's job"
            assert not watch.filter(_record(True)) and watch.filter(_record(False))
    assert not any(watch in logging.getLogger(name).filters for name in LOGGERS)
