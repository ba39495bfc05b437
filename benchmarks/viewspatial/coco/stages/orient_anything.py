"""Orient-Anything (Wang et al. 2024, github.com/SpatialVision/Orient-Anything), the paper's orientation
estimator: a DINOv2 backbone whose [CLS] token feeds an MLP predicting, per image, distributions over
azimuth (360 one-degree bins), polar (180 bins, −90…89°), rotation (360 bins, −180…179°) and two
confidence logits. Built from local files only (a transformers DINOv2 folder and the checkpoint):
nothing is downloaded.

Their layout, kept so that their released `dino_weight.pt` loads as is: the model has `dinov2` (a
`Dinov2Model`) and `down_sampler` (`MLP_dim`: Linear → BatchNorm1d → ReLU → Linear → BatchNorm1d, every
width 360 + 180 + 360 + 2 = 902 as in their app.py; their README's checkpoints are built with 180
rotation bins, width 722, and the width is read from the checkpoint); the angles are the argmax bin of
each slice (`inference.get_3angle`), the confidence the softmax's first entry over the last two logits.

Preprocessing as their demo (app.py → utils.resize_foreground, without the background removal): a crop is
padded with black to a square, centred, then to side / `foreground_ratio` (0.85: the crop spans 85 % of
the side), so that DINOv2's image processor (their `val_preprocess`: antialiased bicubic resize of the
shortest edge to 256 through PIL, centre crop 224, ImageNet mean/std; here scaled to `image_size`) keeps the
whole crop instead of cutting a tall body crop's head and feet. The backbone interpolates its position
embeddings to the 16 × 16 patches of a 224 crop as transformers 4.38 (their pinned version) does
(`interpolate_pos_encoding_438`): newer versions ask for the output size, 4.38 for a scale factor of
(16 + 0.1) / 37, and the two resample different positions.

Azimuth → this project's yaw (orientation.py: 0 = faces the camera, +90 = faces the image's left): the
identity. Their demo draws a prediction as the object's axes projected on the image
(`utils.get_proj2D_XYZ`, matplotlib x right / y up); at polar 0 and rotation 0 the "front" axis is
(−sin φ, 0) and the "right" axis (−cos φ, 0). At φ = 0 the front axis has no image extent (it points
along the view ray) and the object's own right lies to the image's left, so the object faces the camera:
yaw 0. At φ = 90 the front axis points to the image's left: yaw 90. Both grow the same way, so
yaw = φ (mod 360).
"""

from __future__ import annotations

import math
import pickle
import types
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from PIL import Image
from torch import nn
from torch.nn import functional
from transformers import BitImageProcessor, Dinov2Model
from transformers.image_utils import IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD, PILImageResampling

from benchfoundry.benchmarks.viewspatial.coco.config import OrientAnythingConfig

AZIMUTH_BINS, POLAR_BINS, CONFIDENCE_LOGITS = 360, 180, 2
#: Rotation bins of their released heads (app.py's checkpoint: 360; the README's: 180).
ROTATION_BINS = (360, 180)
#: DINOv2's processor resizes the shortest edge to 256 before its 224 centre crop.
RESIZE_RATIO = 256 / 224
FIELD = "viewspatial.coco.orient_anything"


class Estimate(NamedTuple):
    azimuth_deg: float
    polar_deg: float
    rotation_deg: float
    confidence: float


def interpolate_pos_encoding_438(self: nn.Module, embeddings: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """transformers 4.38's `Dinov2Embeddings.interpolate_pos_encoding`, bound to a backbone's embeddings by
    `use_438_interpolation`: the pretrained square grid of position embeddings resized bicubically by the
    scale factor (patches + 0.1) / grid side (PyTorch floors the output size and maps coordinates by that
    factor); the class position as is; no resize for a square input of the pretrained grid."""
    positions = self.position_embeddings
    grid = positions.shape[1] - 1
    if embeddings.shape[1] - 1 == grid and height == width:
        return positions
    dim, side = embeddings.shape[-1], math.sqrt(grid)
    rows, cols = height // self.config.patch_size + 0.1, width // self.config.patch_size + 0.1
    patches = positions[:, 1:].reshape(1, int(side), int(side), dim).permute(0, 3, 1, 2)
    resized = functional.interpolate(
        patches.to(torch.float32), scale_factor=(rows / side, cols / side), mode="bicubic", align_corners=False
    ).to(positions.dtype)
    if resized.shape[-2:] != (int(rows), int(cols)):
        raise ValueError(f"position embeddings resized to {tuple(resized.shape[-2:])}, not {int(rows)} × {int(cols)}")
    return torch.cat((positions[:, :1], resized.permute(0, 2, 3, 1).reshape(1, -1, dim)), dim=1)


def use_438_interpolation(dinov2: Dinov2Model) -> Dinov2Model:
    """The backbone with transformers 4.38's position-embedding interpolation (this instance only)."""
    dinov2.embeddings.interpolate_pos_encoding = types.MethodType(interpolate_pos_encoding_438, dinov2.embeddings)
    return dinov2


def pad_square(crop: np.ndarray, ratio: float) -> np.ndarray:
    """Their demo's `resize_foreground` on a crop: black padding to a square (the crop centred, the odd pixel
    below and right), then to int(side / ratio), centred the same way."""
    h, w = crop.shape[:2]
    side = max(h, w)
    outer = int(side / ratio)
    pads = []
    for length in (h, w):
        first = (side - length) // 2
        margin = (outer - side) // 2
        pads.append((first + margin, outer - length - first - margin))
    return np.pad(crop, pads + [(0, 0)] * (crop.ndim - 2))


class OrientationHead(nn.Module):
    """Their `MLP_dim` (ReLU): the same layers under the same names (`net1.0`, `net1.1`, `net2.0`, `net2.1`)."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.net1 = nn.Sequential(nn.Linear(in_dim, out_dim), nn.BatchNorm1d(out_dim), nn.ReLU(inplace=True))
        self.net2 = nn.Sequential(nn.Linear(out_dim, out_dim), nn.BatchNorm1d(out_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net2(self.net1(x))


class OrientAnything(nn.Module):
    """Their `DINOv2_MLP` at evaluation: the backbone's [CLS] token through the head."""

    def __init__(self, dinov2: Dinov2Model, rotation_bins: int = ROTATION_BINS[0]) -> None:
        super().__init__()
        self.dinov2, self.rotation_bins = dinov2, rotation_bins
        width = AZIMUTH_BINS + POLAR_BINS + rotation_bins + CONFIDENCE_LOGITS
        self.down_sampler = OrientationHead(dinov2.config.hidden_size, width)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.down_sampler(self.dinov2(pixel_values=pixel_values).last_hidden_state[:, 0, :])


def yaw_deg(azimuth_deg: float) -> float:
    """orientation.py's yaw of an Orient-Anything azimuth (the module docstring shows why it is the identity)."""
    return azimuth_deg % 360.0


def decode(logits: torch.Tensor, rotation_bins: int = ROTATION_BINS[0]) -> list[Estimate]:
    """(azimuth, polar, rotation, confidence) of each row of the head's output, as their `get_3angle`
    (rotation centred on its bins: −180…179 for 360 of them, −90…89 for 180)."""
    a, p = AZIMUTH_BINS, AZIMUTH_BINS + POLAR_BINS
    r = p + rotation_bins
    azimuth = logits[:, :a].argmax(dim=-1)
    polar = logits[:, a:p].argmax(dim=-1) - POLAR_BINS // 2
    rotation = logits[:, p:r].argmax(dim=-1) - rotation_bins // 2
    confidence = torch.softmax(logits[:, -CONFIDENCE_LOGITS:], dim=-1)[:, 0]
    return [
        Estimate(float(az), float(po), float(ro), float(c))
        for az, po, ro, c in zip(azimuth.tolist(), polar.tolist(), rotation.tolist(), confidence.tolist())
    ]


def processor(image_size: int) -> BitImageProcessor:
    """DINOv2's image processor (their `val_preprocess`) for `image_size` crops."""
    return BitImageProcessor(
        do_resize=True,
        size={"shortest_edge": round(image_size * RESIZE_RATIO)},
        resample=PILImageResampling.BICUBIC,
        do_center_crop=True,
        crop_size={"height": image_size, "width": image_size},
        do_rescale=True,
        rescale_factor=1 / 255,
        do_normalize=True,
        image_mean=IMAGENET_DEFAULT_MEAN,
        image_std=IMAGENET_DEFAULT_STD,
        do_convert_rgb=True,
    )


class Estimator:
    """A loaded model and its preprocessing; `estimate` runs crops in batches."""

    def __init__(
        self,
        model: OrientAnything,
        image_size: int,
        device: torch.device,
        batch_size: int = 16,
        foreground_ratio: float = 0.85,
    ) -> None:
        self.model, self.device, self.batch_size = model, device, batch_size
        self.processor, self.foreground_ratio = processor(image_size), foreground_ratio

    def pixels(self, crops: Sequence[np.ndarray]) -> torch.Tensor:
        """The model's input of crops (H × W × 3 RGB or H × W grey, uint8): padded square, then processed."""
        images = [
            Image.fromarray(pad_square(np.ascontiguousarray(c), self.foreground_ratio)).convert("RGB") for c in crops
        ]
        return self.processor(images=images, return_tensors="pt")["pixel_values"]

    def estimate(self, crops: Sequence[np.ndarray]) -> list[Estimate]:
        """One estimate per crop (H × W × 3 RGB or H × W grey, uint8), in order."""
        found: list[Estimate] = []
        for start in range(0, len(crops), self.batch_size):
            pixels = self.pixels(crops[start : start + self.batch_size]).to(self.device)
            with torch.no_grad():
                found += decode(self.model(pixels).float().cpu(), self.model.rotation_bins)
        return found


def _check_state(state: dict[str, torch.Tensor], model: OrientAnything, path: Path) -> None:
    """ValueError naming `path` unless `state` holds the whole head (and the whole backbone, if any of it)
    with this model's shapes; BatchNorm's `num_batches_tracked` may be absent."""
    expected = model.state_dict()
    needed = {k for k in expected if not k.endswith("num_batches_tracked")}
    if not any(k.startswith("dinov2.") for k in state):
        needed = {k for k in needed if k.startswith("down_sampler.")}
    missing = sorted(needed - state.keys())
    unexpected = sorted(state.keys() - expected.keys())
    mismatched = [
        f"{k} {tuple(state[k].shape)} vs {tuple(expected[k].shape)}"
        for k in sorted(state)
        if k in expected and tuple(state[k].shape) != tuple(expected[k].shape)
    ]
    for what, keys in (("missing", missing), ("unexpected", unexpected), ("of another shape", mismatched)):
        if keys:
            raise ValueError(
                f"{path}: not an Orient-Anything checkpoint for this backbone: {len(keys)} keys {what}, "
                f"first {keys[:5]}"
            )


def read_checkpoint(path: Path) -> dict[str, torch.Tensor]:
    """The checkpoint's state dict; ValueError naming the file when it is not one."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError) as exc:
        raise ValueError(f"{path}: cannot read the checkpoint ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: the checkpoint is not a state dict of tensors")
    return state


def rotation_bins(state: dict[str, torch.Tensor], path: Path) -> int:
    """The rotation bins of the checkpoint's head, from its width; ValueError naming the file for another width."""
    bias = state.get("down_sampler.net2.0.bias")
    if bias is None:
        return ROTATION_BINS[0]  # reported as missing with the other keys
    bins = bias.shape[0] - AZIMUTH_BINS - POLAR_BINS - CONFIDENCE_LOGITS
    if bins not in ROTATION_BINS:
        widths = [AZIMUTH_BINS + POLAR_BINS + b + CONFIDENCE_LOGITS for b in ROTATION_BINS]
        raise ValueError(f"{path}: the head's output width {bias.shape[0]} is none of Orient-Anything's {widths}")
    return bins


def load(config: OrientAnythingConfig, batch_size: int = 16) -> Estimator:
    """The model of `config` on its device: DINOv2 from `dinov2_dir`, then the checkpoint (the head, and the
    backbone too when the checkpoint has it, as their released one does)."""
    if config.dinov2_dir is None or config.checkpoint is None:
        raise ValueError(f"the orient-anything estimator needs {FIELD}.dinov2_dir and {FIELD}.checkpoint")
    folder = Path(config.dinov2_dir)
    if not (folder / "config.json").is_file():
        raise ValueError(f"{folder}: not a DINOv2 folder ({FIELD}.dinov2_dir needs config.json and the weights)")
    try:
        dinov2 = Dinov2Model.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{folder}: cannot load DINOv2 ({exc})") from None
    patch = dinov2.config.patch_size
    if config.image_size % patch:
        raise ValueError(f"{FIELD}.image_size {config.image_size} is not a multiple of the patch size {patch}")
    path = Path(config.checkpoint)
    try:
        state = read_checkpoint(path)
        model = OrientAnything(use_438_interpolation(dinov2), rotation_bins(state, path))
        _check_state(state, model, path)
    except ValueError as exc:  # name the fields to fix: the checkpoint, or the backbone it was made for
        raise ValueError(f"{FIELD}.checkpoint (with {FIELD}.dinov2_dir {folder}): {exc}") from None
    model.load_state_dict(state, strict=False)  # strict but for what `_check_state` allows to be absent
    try:
        device = torch.device(config.device)
        model = model.to(device).eval()
    except (RuntimeError, AssertionError) as exc:
        raise ValueError(f"{FIELD}.device {config.device!r}: {exc}") from None
    return Estimator(model, config.image_size, device, batch_size, config.foreground_ratio)
