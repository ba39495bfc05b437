"""Makes torchvision work beside the CPU torch (docs/design/environment.md §2): call `ensure_torchvision_ops` before
anything that imports torchvision (GroundingDINO, SAM, timm).

torchvision and timm are not installed in the environment's site-packages but in a folder of their own,
`<venv>/opt/groundedsam` (the Makefile installs them there; `BENCHFOUNDRY_GROUNDEDSAM_SITE` names
another), which only this module puts on `sys.path`: transformers imports torchvision whenever it is
installed, and an unpatched torchvision fails to import, which would break every text model.

The PyPI torchvision that accepts torch 2.13.0 is built against CUDA: its C extension does not load
beside the CPU build of torch, so its compiled operators are missing and `import torchvision` fails
while registering a fake kernel for `torchvision::nms` ("operator torchvision::nms does not exist").
GroundingDINO and SAM need only the Python parts (box ops, transforms) and `nms` / `batched_nms`.
When the extension did not load, `ensure_torchvision_ops` defines `torchvision::nms` and
`torchvision::qnms` with a pure-PyTorch greedy NMS (the same result as torchvision's kernel: indices of
kept boxes by decreasing score), imports torchvision, and tells its `extension` module that the
operators are there (`torchvision.ops.nms` checks that before each call). Other compiled operators
(roi_align, deform_conv2d, …) stay unavailable; GroundingDINO and SAM do not use them. With a working
torchvision this module changes nothing.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import torch

from benchfoundry.benchmarks.odi.identity import BENCHMARK

SITE_ENV = "BENCHFOUNDRY_GROUNDEDSAM_SITE"

_LIB: torch.library.Library | None = None
_LOCK = threading.Lock()


def greedy_nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Indices (int64) of the boxes (x1, y1, x2, y2) kept by greedy NMS, highest score first; a box is
    dropped when its IoU with a kept, higher-scoring box exceeds `iou_threshold`."""
    if boxes.numel() == 0:
        return torch.empty(0, dtype=torch.long, device=boxes.device)
    boxes, scores = boxes.float(), scores.float()
    order = torch.argsort(scores, descending=True, stable=True)
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)
    lt = torch.maximum(b[:, None, :2], b[None, :, :2])
    rb = torch.minimum(b[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(dim=2)
    iou = inter / (area[:, None] + area[None, :] - inter).clamp(min=torch.finfo(torch.float32).tiny)
    suppressed = torch.zeros(len(b), dtype=torch.bool, device=b.device)
    keep = []
    for i in range(len(b)):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > iou_threshold
    return order[torch.tensor(keep, dtype=torch.long, device=b.device)]


def _has_nms() -> bool:
    try:
        _ = torch.ops.torchvision.nms
    except (AttributeError, RuntimeError):
        return False
    return True


def site_folder() -> Path:
    """Where torchvision and timm are installed (`BENCHFOUNDRY_GROUNDEDSAM_SITE`, else `<venv>/opt/groundedsam`)."""
    value = os.environ.get(SITE_ENV, "").strip()
    return Path(value) if value else Path(sys.prefix) / "opt" / "groundedsam"


def site_folders(config: Any) -> list[Path]:
    """The `site_folders` hook (build.json's versions): torchvision's and timm's folder when the build runs the
    groundedsam annotator."""
    odi = config.section(BENCHMARK)
    return [site_folder()] if odi.enabled and odi.chosen_annotator == "groundedsam" else []


def ensure_torchvision_ops() -> None:
    """Put the torchvision folder on `sys.path`, define `torchvision::nms` / `qnms` (pure PyTorch) unless
    torchvision's own kernels are present, then import torchvision."""
    global _LIB
    with _LOCK:
        folder = site_folder()
        if folder.is_dir() and str(folder) not in sys.path:
            sys.path.append(str(folder))
        if _LIB is None and not _has_nms():
            lib = torch.library.Library("torchvision", "DEF")
            for name in ("nms", "qnms"):
                lib.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
                lib.impl(name, greedy_nms, "CompositeExplicitAutograd")
            _LIB = lib
        try:
            import torchvision.extension
        except ImportError as exc:
            raise ImportError(
                f"torchvision is not installed in {folder} (nor importable): run `make venv`, "
                f"or install it there with pip --target, or set {SITE_ENV} ({exc})"
            ) from None

        if _LIB is not None:
            torchvision.extension._has_ops = lambda: True
