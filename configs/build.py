"""The config tree of a build: one pydantic model, loaded from YAML, that fully determines a build."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ModelWrapValidatorHandler, field_validator, model_validator

from benchfoundry.configs.base import Seconds, Section
from benchfoundry.configs.export import ExportConfig
from benchfoundry.configs.person import PersonConfig
from benchfoundry.configs.sections import section_model, validate_sections

#: What a SLURM value written after `#SBATCH -p` and kin may hold: one word, so that it never ends the line.
SLURM_VALUE_PUNCTUATION = "_.,:=+-/$@%"
SLURM_VALUE = re.compile(rf"[A-Za-z0-9{re.escape(SLURM_VALUE_PUNCTUATION)}]+")
#: An extra directive: one sbatch option, `--name` or `--name=value` (value: one word, or a quoted-free list).
SLURM_DIRECTIVE = re.compile(rf"--?[A-Za-z][A-Za-z0-9-]*(=[A-Za-z0-9{re.escape(SLURM_VALUE_PUNCTUATION)}&|*!()]+)?")
#: A Dask scheduler's address (`tcp://host:8786`, `tls://…`): a scheme and one word, which a job script can hold.
SCHEDULER_ADDRESS = re.compile(r"[a-z][a-z0-9+]*://[A-Za-z0-9._~%@\[\]:/-]+")
#: A host name or address (`127.0.0.1`, `login1.cluster`, `[::1]`), as a URL holds it.
HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]")


class SlurmConfig(Section):
    """The SLURM jobs of `runner.backend: slurm` (dask-jobqueue's SLURMCluster); each job runs Dask workers."""

    queue: str | None = Field(None, description="partition (#SBATCH -p)")
    account: str | None = Field(None, description="account to charge (#SBATCH -A)")
    cores: int = Field(8, ge=1, description="CPU cores per job")
    memory: str = Field("32GB", description="memory per job, e.g. 32GB")
    walltime: str = Field("04:00:00", pattern=r"^(\d+-)?\d{1,2}:\d{2}:\d{2}$", description="[D-]HH:MM:SS")
    processes: int = Field(1, ge=1, description="Dask worker processes per job")
    gpus_per_job: int = Field(0, ge=0, description="GPUs per job (#SBATCH --gres=gpu:N), shared by its processes")
    gpu_request: Literal["gres", "gpus"] = Field(
        "gres", description="how gpus_per_job is asked of SLURM: --gres=gpu:N (gres) or --gpus=N (gpus)"
    )
    job_extra_directives: list[str] = Field(
        default_factory=list, description="more #SBATCH lines, e.g. --constraint=a100"
    )
    job_script_prologue: list[str] = Field(default_factory=list, description="shell lines before the worker starts")
    local_directory: str | None = Field(None, description="worker scratch folder on the node, e.g. $TMPDIR")
    scheduler_port: int = Field(8786, ge=0, le=65535, description="port of the scheduler the build starts (0: any)")
    interface: str | None = Field(None, description="network interface the nodes reach the scheduler on, e.g. ib0")
    min_jobs: int = Field(0, ge=0, description="adaptive scaling: fewest jobs")
    max_jobs: int = Field(4, ge=1, description="adaptive scaling: most jobs")
    pending_timeout_s: Seconds = Field(
        300.0,
        description="seconds the build's jobs may pend for a reason that never clears (PartitionConfig, "
        "ReqNodeNotAvail, …) before the build stops with that reason",
    )

    @field_validator("queue", "account", "memory", "local_directory", "interface")
    @classmethod
    def _one_directive_value(cls, value: str | None) -> str | None:
        if value is not None and not SLURM_VALUE.fullmatch(value):
            raise ValueError(f"{value!r}: one word of letters, digits and {SLURM_VALUE_PUNCTUATION!r} (no space)")
        return value

    @field_validator("job_extra_directives")
    @classmethod
    def _one_line_each(cls, lines: list[str]) -> list[str]:
        for line in lines:
            if not SLURM_DIRECTIVE.fullmatch(line):
                raise ValueError(
                    f"{line!r}: one #SBATCH option on one line (`--name` or `--name=value`, no control "
                    "character or shell syntax)"
                )
        return lines

    @model_validator(mode="after")
    def _check(self) -> SlurmConfig:
        if self.min_jobs > self.max_jobs:
            raise ValueError(f"min_jobs ({self.min_jobs}) exceeds max_jobs ({self.max_jobs})")
        if self.gpus_per_job and self.gpus_per_job % self.processes:
            raise ValueError(f"gpus_per_job ({self.gpus_per_job}) must split evenly over processes ({self.processes})")
        return self


class RunnerConfig(Section):
    """Where shard tasks run: threads here (`local`), a Dask LocalCluster the build starts and closes
    (`dask-local`), an existing Dask scheduler (`dask`), or SLURM jobs (`slurm`, dask-jobqueue)."""

    renamed_keys = ("runner", {"kind": "runner.backend"})

    backend: Literal["local", "dask-local", "dask", "slurm"] = "local"
    max_workers: int = Field(2, ge=1, description="threads of the local runner")
    workers: int = Field(2, ge=1, description="worker processes of dask-local (one thread each)")
    worker_gpus: int = Field(0, ge=0, description="GPU resource each dask-local worker offers")
    dask_address: str | None = Field(None, description="scheduler address of backend dask, e.g. tcp://host:8786")
    slurm: SlurmConfig = SlurmConfig()
    prefect_host: str = Field(
        "127.0.0.1",
        description="address of the Prefect server a Dask build starts when "
        "no PREFECT_API_URL is set (SLURM: a name the nodes reach)",
    )
    prefect_port: int = Field(0, ge=0, le=65535, description="port of that server (0: a free one)")
    task_retries: int | None = Field(
        None, ge=0, description="retries of every shard task (None: its resource's, core/retry.SHARD_RETRIES)"
    )
    retry_delay_s: Seconds | None = Field(
        None, description="seconds between a shard task's retries (None: its resource's, core/retry.SHARD_RETRIES)"
    )

    @field_validator("dask_address")
    @classmethod
    def _one_address(cls, value: str | None) -> str | None:
        if value is not None and not SCHEDULER_ADDRESS.fullmatch(value):
            raise ValueError(f"{value[:80]!r}: a scheduler address, scheme://host:port (e.g. tcp://host:8786)")
        return value

    @field_validator("prefect_host")
    @classmethod
    def _one_host(cls, value: str) -> str:
        if not HOST.fullmatch(value):
            raise ValueError(f"{value[:80]!r}: a host name or address (e.g. 127.0.0.1, login1.cluster), no scheme")
        return value

    @model_validator(mode="after")
    def _check_address(self) -> RunnerConfig:
        if self.backend == "dask" and not self.dask_address:
            raise ValueError(
                "backend dask needs dask_address (the scheduler, e.g. tcp://host:8786); "
                "backend dask-local starts a cluster on this machine"
            )
        return self


class BuildConfig(Section):
    """A whole build; besides its fields, a block of each benchmark's section (configs/sections.py), its defaults
    where the YAML has none."""

    model_config = ConfigDict(extra="allow")

    name: str = Field("benchfoundry", description="the build's name (the report, the dataset cards): one line")
    seed: int = Field(0, ge=0, lt=2**64, description="the build seed (numpy SeedSequence entropy)")
    output_root: Path = Path("out/default")
    runner: RunnerConfig = RunnerConfig()
    person: PersonConfig = PersonConfig()
    export: ExportConfig = ExportConfig()

    @field_validator("name")
    @classmethod
    def _one_plain_line(cls, value: str) -> str:
        """No control or format character (a line break, NUL, an escape sequence, a bidi override)."""
        bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf")), None)
        if bad is not None:
            raise ValueError(f"holds {bad!r}: the build's name is one line without control or format characters")
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _check_sections(cls, data: Any, handler: ModelWrapValidatorHandler[BuildConfig]) -> BuildConfig:
        if isinstance(data, dict):
            fields = {k: v for k, v in data.items() if k in cls.model_fields}
            data = {**fields, **validate_sections({k: v for k, v in data.items() if k not in fields}, cls.__name__)}
        return handler(data)

    def section(self, name: str) -> Any:
        """The benchmark section `name`: its block, or that section's defaults when the config predates it."""
        if name in (self.__pydantic_extra__ or {}):
            return getattr(self, name)
        model = section_model(name)
        if model is None:
            raise KeyError(f"{name}: unknown config section")
        return model()
