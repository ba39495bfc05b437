"""Shard tasks retry transient failures only: a deterministic error (missing file, bad input, full disk)
fails at once instead of being retried."""

from __future__ import annotations

import errno

import pytest
from prefect import flow

from benchfoundry.configs.loader import ConfigError
from benchfoundry.tasks.common.shard_task import shard_task


@pytest.mark.parametrize(
    "exc, attempts",
    [
        (FileNotFoundError("model.safetensors: no such file"), 1),
        (ConfigError("c.yaml: invalid config"), 1),
        (ValueError("x.png: cannot decode the image"), 1),
        (OSError(errno.ENOSPC, "No space left on device", "/out/x"), 1),
        (RuntimeError("render worker 12 is gone"), 3),
        (OSError(errno.EIO, "Input/output error", "/out/x"), 3),
    ],
)
def test_only_transient_errors_are_retried(prefect_server: None, exc: Exception, attempts: int) -> None:
    calls: list[int] = []

    @shard_task(retries=2, retry_delay_seconds=0)
    def shard() -> None:
        calls.append(1)
        raise exc

    @flow
    def stage() -> None:
        shard()

    with pytest.raises(type(exc)):
        stage()
    assert len(calls) == attempts
