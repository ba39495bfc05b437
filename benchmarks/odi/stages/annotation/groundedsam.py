"""The `groundedsam` annotator (docs/design/odi.md §2.1): GroundingDINO boxes from one caption of all classes, then
SAM masks prompted by those boxes, per cube face.

Weights come only from the paths in `odi.groundedsam` (GroundingDINO checkpoint, a local BERT folder as
its text encoder, SAM checkpoint); nothing is fetched from a hub. torch, torchvision (through
`torchvision_ops`), groundingdino and segment_anything are imported inside the functions that need them,
so the rest of the pipeline never pays for them. GroundingDINO runs on batches of `batch_faces` faces;
SAM computes each face's image embedding once and prompts it with all of that face's boxes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.config import GroundedSamConfig
from benchfoundry.benchmarks.odi.stages.annotation.instances import Detection

#: ImageNet normalisation GroundingDINO was trained with.
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
#: GroundingDINO's resize: shorter side to this, longer side at most MAX_SIZE (its `RandomResize([800], 1333)`).
MAX_SIZE = 1333
_REQUIRED = ("dino_checkpoint", "text_encoder", "sam_checkpoint")


def check_files(config: GroundedSamConfig) -> None:
    """Every weight path is set and exists; otherwise a ValueError naming the field and the path."""
    for name in _REQUIRED:
        value = getattr(config, name)
        if value is None:
            raise ValueError(
                f"odi.groundedsam.{name} is not set: the groundedsam annotator needs it (or use odi.annotator: truth)"
            )
        if not Path(value).exists():
            raise ValueError(f"odi.groundedsam.{name}: {value} does not exist")
    if config.dino_config is not None and not Path(config.dino_config).is_file():
        raise ValueError(f"odi.groundedsam.dino_config: {config.dino_config} does not exist")


def caption_for(classes: Sequence[str]) -> str:
    """All classes in one caption, GroundingDINO's way: lower case, joined by ". ", ending with "."."""
    names = [c.strip().lower().rstrip(".") for c in classes]
    return ". ".join(n for n in names if n) + "."


def class_of_phrase(phrase: str, classes: Sequence[str]) -> str | None:
    """The class a detected phrase names: an exact match, else the class sharing the most words
    (ties: the earlier class); None when it shares none."""
    words = phrase.lower().replace(".", " ").split()
    if not words:
        return None
    text = " ".join(words)
    for name in classes:
        if name.lower() == text:
            return name
    overlap = [(len(set(words) & set(name.lower().split())), -k) for k, name in enumerate(classes)]
    best, neg_k = max(overlap)
    return classes[-neg_k] if best else None


def boxes_to_pixels(boxes_cxcywh: np.ndarray, width: int, height: int) -> np.ndarray:
    """GroundingDINO's normalised (cx, cy, w, h) boxes → (x1, y1, x2, y2) face pixels, clipped to the face."""
    b = np.asarray(boxes_cxcywh, dtype=np.float64).reshape(-1, 4)
    xyxy = np.stack([b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2, b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2], 1)
    return np.clip(xyxy * [width, height, width, height], 0, [width, height, width, height])


def select_boxes(
    logits: Any,
    boxes: Any,
    token_ids: Sequence[int],
    tokenizer: Any,
    classes: Sequence[str],
    box_threshold: float,
    text_threshold: float,
) -> list[tuple[str, float, np.ndarray]]:
    """Queries whose best token score exceeds `box_threshold`, labelled by the tokens above `text_threshold`
    (GroundingDINO's `predict`); returns (class, score, normalised cxcywh box) for phrases that name a class."""
    probs = logits.sigmoid()
    best = probs.max(dim=1).values
    found = []
    for q in (best > box_threshold).nonzero(as_tuple=True)[0].tolist():
        ids = [
            token_ids[i] for i in (probs[q] > text_threshold).nonzero(as_tuple=True)[0].tolist() if i < len(token_ids)
        ]
        label = class_of_phrase(tokenizer.decode(ids), classes)
        if label is not None:
            found.append((label, float(best[q]), boxes[q].detach().cpu().numpy()))
    return found


@dataclass
class GroundedSam:
    """Loaded models and settings; `annotate` turns RGB faces into detections."""

    dino: Any
    predictor: Any
    config: GroundedSamConfig
    load_report: dict[str, Any]

    def _dino_batch(self, images: list[np.ndarray], caption: str) -> tuple[Any, Any]:
        import torch
        import torch.nn.functional as F

        h, w = images[0].shape[:2]
        scale = min(self.config.dino_size / min(h, w), MAX_SIZE / max(h, w))
        size = (max(1, round(h * scale)), max(1, round(w * scale)))
        batch = torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).float().div(255.0)
        batch = F.interpolate(batch, size=size, mode="bilinear", align_corners=False)
        batch = (batch - torch.tensor(MEAN)[:, None, None]) / torch.tensor(STD)[:, None, None]
        with torch.no_grad():
            out = self.dino(batch.to(self.config.device), captions=[caption] * len(images))
        return out["pred_logits"].float().cpu(), out["pred_boxes"].float().cpu()

    def detect(
        self, faces: dict[str, np.ndarray], classes: Sequence[str]
    ) -> dict[str, list[tuple[str, float, np.ndarray]]]:
        """GroundingDINO on the faces in batches: per face (class, score, box in face pixels)."""
        caption = caption_for(classes)
        token_ids = self.dino.tokenizer(caption)["input_ids"]
        names = list(faces)
        found: dict[str, list[tuple[str, float, np.ndarray]]] = {}
        for start in range(0, len(names), self.config.batch_faces):
            chunk = names[start : start + self.config.batch_faces]
            logits, boxes = self._dino_batch([faces[n] for n in chunk], caption)
            for k, name in enumerate(chunk):
                h, w = faces[name].shape[:2]
                picked = select_boxes(
                    logits[k],
                    boxes[k],
                    token_ids,
                    self.dino.tokenizer,
                    classes,
                    self.config.box_threshold,
                    self.config.text_threshold,
                )
                found[name] = [(label, score, boxes_to_pixels(box, w, h)[0]) for label, score, box in picked]
        return found

    def segment(self, face: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """SAM masks (N × H × W, bool) for the face's boxes, from one image embedding."""
        import torch

        if len(boxes) == 0:
            return np.zeros((0,) + face.shape[:2], dtype=bool)
        self.predictor.set_image(face)
        prompts = self.predictor.transform.apply_boxes_torch(
            torch.as_tensor(boxes, dtype=torch.float32, device=self.predictor.device), face.shape[:2]
        )
        with torch.no_grad():
            masks, _, _ = self.predictor.predict_torch(None, None, boxes=prompts, multimask_output=False)
        return masks[:, 0].cpu().numpy().astype(bool)

    def annotate(self, faces: dict[str, np.ndarray], classes: Sequence[str]) -> dict[str, list[Detection]]:
        """Detections per face (RGB uint8 images, all of one size)."""
        found = self.detect(faces, classes)
        out: dict[str, list[Detection]] = {}
        for name, picks in found.items():
            boxes = np.array([box for _, _, box in picks], dtype=np.float64).reshape(-1, 4)
            masks = self.segment(faces[name], boxes)
            out[name] = [
                Detection(label, score, tuple(float(v) for v in box), mask)
                for (label, score, box), mask in zip(picks, masks)
            ]
        return out


#: Tensors of the released GroundingDINO checkpoints (groundingdino_swint_ogc.pth, …) that the model does
#: not have: the denoising label embedding of training, and BERT's position ids (a buffer transformers no
#: longer saves). Loading the released file reports exactly these as unexpected; nothing else is allowed.
DINO_EXTRA_KEYS = frozenset({"label_enc.weight", "bert.embeddings.position_ids"})


def _checkpoint_state(path: Path, field: str) -> dict[str, Any]:
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(f"odi.groundedsam.{field}: {path} is not a readable torch checkpoint ({exc})") from None
    state = state.get("model", state) if isinstance(state, dict) else state
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"odi.groundedsam.{field}: {path} holds no state dict of tensors")
    return state


def _first(keys: Sequence[str], n: int = 3) -> str:
    return ", ".join(keys[:n]) + (f" (+{len(keys) - n} more)" if len(keys) > n else "")


def fit(model: Any, state: dict[str, Any], allowed_extra: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """How `state` fails to fit `model`: its tensors the model lacks (but `allowed_extra`), the model's tensors
    it lacks, and tensors of another shape (`name (checkpoint) vs (model)`)."""
    expected = model.state_dict()
    return {
        "missing": sorted(expected.keys() - state.keys()),
        "unexpected": sorted(state.keys() - expected.keys() - allowed_extra),
        "mismatched": [
            f"{k} {tuple(state[k].shape)} vs {tuple(expected[k].shape)}"
            for k in sorted(state.keys() & expected.keys())
            if tuple(state[k].shape) != tuple(expected[k].shape)
        ],
    }


def _load_dino(model: Any, state: dict[str, Any], config: GroundedSamConfig) -> dict[str, int]:
    """Load the whole GroundingDINO checkpoint, strictly but for `DINO_EXTRA_KEYS`; a tensor of another shape in
    the text encoder blames `text_encoder` (another BERT), anything else `dino_checkpoint` (partial, another
    model, or not the architecture of `dino_config`)."""
    found = fit(model, state, DINO_EXTRA_KEYS)
    bert = [m for m in found["mismatched"] if m.startswith("bert.")]
    if bert:
        raise ValueError(
            f"odi.groundedsam.text_encoder: the BERT in {config.text_encoder} does not match the text encoder of "
            f"{config.dino_checkpoint}: {len(bert)} tensors of another shape, e.g. {_first(bert, 2)}"
        )
    problems = [f"{len(v)} {k} ({_first(v)})" for k, v in found.items() if v]
    if problems:
        raise ValueError(
            f"odi.groundedsam.dino_checkpoint: {config.dino_checkpoint} does not fit GroundingDINO "
            f"(odi.groundedsam.dino_config {config.dino_config or 'SwinT OGC'}): " + "; ".join(problems)
        )
    model.load_state_dict({k: v for k, v in state.items() if k not in DINO_EXTRA_KEYS}, strict=True)
    return {"loaded": len(state) - len(DINO_EXTRA_KEYS & state.keys()), "ignored": len(DINO_EXTRA_KEYS & state.keys())}


def _load_sam(model: Any, state: dict[str, Any], config: GroundedSamConfig) -> dict[str, int]:
    """Load the whole SAM checkpoint strictly; one that does not fit names `sam_checkpoint` and
    `sam_model_type` (a ViT-H file for vit_b gives tensors of another shape and extra blocks)."""
    found = fit(model, state)
    problems = [f"{len(v)} {k} ({_first(v)})" for k, v in found.items() if v]
    if problems:
        raise ValueError(
            f"odi.groundedsam.sam_checkpoint: {config.sam_checkpoint} does not fit SAM of "
            f"odi.groundedsam.sam_model_type {config.sam_model_type!r}: " + "; ".join(problems)
        )
    model.load_state_dict(state, strict=True)
    return {"loaded": len(state), "ignored": 0}


def build_dino(config: GroundedSamConfig) -> Any:
    """GroundingDINO of `dino_config` (default SwinT OGC) with its text encoder from `text_encoder`, random
    weights; ValueError naming `text_encoder` when that folder holds no usable BERT."""
    from benchfoundry.benchmarks.odi.stages.annotation import torchvision_ops

    torchvision_ops.ensure_torchvision_ops()
    from groundingdino.models import build_model
    from groundingdino.util.slconfig import SLConfig

    config_path = config.dino_config or Path(
        str(resources.files("groundingdino.config") / "GroundingDINO_SwinT_OGC.py")
    )
    args = SLConfig.fromfile(str(config_path))
    args.device = config.device
    args.text_encoder_type = str(config.text_encoder)
    try:
        return build_model(args)
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(
            f"odi.groundedsam.text_encoder: {config.text_encoder} is not a usable BERT folder ({exc})"
        ) from None


def build_sam(config: GroundedSamConfig) -> Any:
    """SAM of `sam_model_type`, random weights."""
    from benchfoundry.benchmarks.odi.stages.annotation import torchvision_ops

    torchvision_ops.ensure_torchvision_ops()
    from segment_anything import sam_model_registry

    return sam_model_registry[config.sam_model_type](checkpoint=None)


def load_groundedsam(config: GroundedSamConfig) -> GroundedSam:
    """Build GroundingDINO (its text encoder from `text_encoder`) and SAM, and load both checkpoints whole."""
    check_files(config)
    dino = build_dino(config)
    from groundingdino.util.utils import clean_state_dict
    from segment_anything import SamPredictor

    dino_report = _load_dino(
        dino, clean_state_dict(_checkpoint_state(Path(config.dino_checkpoint), "dino_checkpoint")), config
    )
    dino.eval().to(config.device)
    sam = build_sam(config)
    sam_report = _load_sam(sam, _checkpoint_state(Path(config.sam_checkpoint), "sam_checkpoint"), config)
    sam.eval().to(config.device)
    return GroundedSam(dino, SamPredictor(sam), config, {"dino": dino_report, "sam": sam_report})
