"""Shard tasks retry transient failures only: a deterministic error (missing file, bad input, full disk)
fails at once instead of being retried."""

from __future__ import annotations

import errno
import signal

import pytest
from prefect import flow

from benchfoundry.configs.loader import ConfigError
from benchfoundry.core import stopping
from benchfoundry.pipeline.model_client import ModelError
from benchfoundry.pipeline.render_client import RenderError
from benchfoundry.pipeline.shard_task import shard_task


@pytest.mark.parametrize(
    "exc, attempts",
    [
        (FileNotFoundError("model.safetensors: no such file"), 1),
        (ConfigError("c.yaml: invalid config"), 1),
        (ValueError("x.png: cannot decode the image"), 1),
        (OSError(errno.ENOSPC, "No space left on device", "/out/x"), 1),
        (RenderError("render worker 12 is gone"), 3),
        (OSError(errno.EIO, "Input/output error", "/out/x"), 3),
        (IndexError("list index out of range"), 1),
        (ModelError("http://m/v1/chat/completions: HTTP 503, after 5 retries"), 1),
        (RuntimeError("a bug"), 1),
    ],
)
def test_only_transient_errors_are_retried(prefect_server: None, exc: Exception, attempts: int) -> None:
    calls: list[int] = []

    @shard_task(resource="compute", name="retry-probe")
    def shard() -> None:
        calls.append(1)
        raise exc

    @flow
    def stage() -> None:
        shard.with_options(retries=2, retry_delay_seconds=0)()

    with pytest.raises(type(exc)):
        stage()
    assert len(calls) == attempts


def test_nothing_is_retried_once_the_build_is_asked_to_stop(prefect_server: None) -> None:
    calls: list[int] = []

    @shard_task(resource="compute", name="retry-probe")
    def shard() -> None:
        calls.append(1)
        raise RenderError("render worker 12 was killed by the stopping build")

    @flow
    def stage() -> None:
        shard.with_options(retries=2, retry_delay_seconds=0)()

    stopping.request_stop(signal.SIGTERM)
    try:
        with pytest.raises(RenderError):
            stage()
    finally:
        stopping.clear()
    assert len(calls) == 1
