"""Shared base of every config model: unknown keys are errors, values are validated on assignment, no number is
infinite or NaN, and every number has an upper bound (its field's own, else `MAX_NUMBER`), refused naming the
field; and the shared validated types the sections use for their fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, model_validator

T = TypeVar("T")

#: The most of anything a build makes or does (images, scenes, samples, frames, …).
MAX_COUNT = 1_000_000
#: The longest side of any image a build renders or reads, px (OpenCV's remap stops at 32,767).
MAX_SIDE_PX = 32766
#: The longest wait of anything, s (a day).
MAX_SECONDS = 86400
#: The bound of a number whose field declares none: no count, size or timeout of a build comes near it.
MAX_NUMBER = 1_000_000

#: A list that must hold at least one value (scenes, lightings, azimuths, …): an empty one builds nothing.
NonEmptyList = Annotated[list[T], Field(min_length=1)]
#: A count of things to make or do: at least 1.
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]

#: A share, probability or ratio: 0 to 1.
Share = Annotated[float, Field(ge=0, le=1)]
#: A number of seconds to wait: at most a day.
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS)]
#: A field of view or an angular size, degrees: above 0, below 180.
FovDegrees = Annotated[float, Field(gt=0, lt=180)]
#: OpenImageDenoise's prefilter and network, and Blender's render device (each render config sets its default).
DenoisePrefilter = Annotated[
    Literal["ACCURATE", "FAST"],
    Field(description="ACCURATE denoises the albedo and normal passes too; FAST takes them as they are"),
]
DenoiseQuality = Annotated[Literal["HIGH", "BALANCED", "FAST"], Field(description="the denoiser's network")]
RenderDevice = Literal["CPU", "CUDA", "OPTIX", "HIP", "METAL", "ONEAPI"]


class Section(BaseModel):
    """A block of a build config."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False, allow_inf_nan=False)
    #: The keys of an older release this section refuses with their new path: (its own dotted path, {old key →
    #: new dotted path}).
    renamed_keys: ClassVar[tuple[str, Mapping[str, str]] | None] = None

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        """A key of `renamed_keys` is refused with its new path."""
        if cls.renamed_keys is not None and isinstance(data, dict):
            section, renamed = cls.renamed_keys
            old = [k for k in renamed if k in data]
            if old:
                raise ValueError("; ".join(f"{section}.{k} moved to {renamed[k]}" for k in old))
        return data

    @model_validator(mode="after")
    def _numbers_bounded(self) -> Section:
        """A number (or one in a list or dict) of a field that declares no upper bound is at most MAX_NUMBER."""
        for name, info in type(self).model_fields.items():
            if not any(isinstance(m, (annotated_types.Le, annotated_types.Lt)) for m in info.metadata):
                _check_bounded(getattr(self, name), name)
        return self


class DenoisedRenderSection(Section):
    """A Blender render's denoiser, adaptive sampling, device and time limit (the panoramas', the synthetic
    COCO set's; each sets its own `samples`): the defaults are bench/render_quality.py's choice
    (docs/performance.md)."""

    denoise: bool = Field(True, description="OpenImageDenoise (albedo and normal passes) on every image")
    denoise_prefilter: DenoisePrefilter = "FAST"
    denoise_quality: DenoiseQuality = "BALANCED"
    adaptive_threshold: float = Field(0.0, ge=0, description="adaptive sampling's noise threshold; 0: off")
    device: RenderDevice = "CPU"
    render_timeout_s: float = Field(1800.0, gt=0, le=MAX_SECONDS)


def _check_bounded(value: Any, where: str) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)) and abs(value) > MAX_NUMBER:
        raise ValueError(f"{where}: {value!r} is over the limit of {MAX_NUMBER:,}")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _check_bounded(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            _check_bounded(item, f"{where}[{k}]")
