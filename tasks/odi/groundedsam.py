"""The `groundedsam` annotator (DESIGN §3.2): GroundingDINO boxes from one caption of all classes, then
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

from benchfoundry.configs.odi import GroundedSamConfig
from benchfoundry.tasks.odi.instances import Detection

#: ImageNet normalisation GroundingDINO was trained with.
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
#: GroundingDINO's resize: shorter side to this, longer side at most MAX_SIZE (its `RandomResize([800], 1333)`).
MAX_SIZE = 1333
_REQUIRED = ("dino_checkpoint", "text_encoder", "sam_checkpoint")


def check_files(cfg: GroundedSamConfig) -> None:
    """Every weight path is set and exists; otherwise a ValueError naming the field and the path."""
    for name in _REQUIRED:
        value = getattr(cfg, name)
        if value is None:
            raise ValueError(
                f"odi.groundedsam.{name} is not set: the groundedsam annotator needs it (or use odi.annotator: truth)"
            )
        if not Path(value).exists():
            raise ValueError(f"odi.groundedsam.{name}: {value} does not exist")
    if cfg.dino_config is not None and not Path(cfg.dino_config).is_file():
        raise ValueError(f"odi.groundedsam.dino_config: {cfg.dino_config} does not exist")


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
    cfg: GroundedSamConfig
    load_report: dict[str, Any]

    def _dino_batch(self, images: list[np.ndarray], caption: str) -> tuple[Any, Any]:
        import torch
        import torch.nn.functional as F

        h, w = images[0].shape[:2]
        scale = min(self.cfg.dino_size / min(h, w), MAX_SIZE / max(h, w))
        size = (max(1, round(h * scale)), max(1, round(w * scale)))
        batch = torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).float().div(255.0)
        batch = F.interpolate(batch, size=size, mode="bilinear", align_corners=False)
        batch = (batch - torch.tensor(MEAN)[:, None, None]) / torch.tensor(STD)[:, None, None]
        with torch.no_grad():
            out = self.dino(batch.to(self.cfg.device), captions=[caption] * len(images))
        return out["pred_logits"].float().cpu(), out["pred_boxes"].float().cpu()

    def detect(
        self, faces: dict[str, np.ndarray], classes: Sequence[str]
    ) -> dict[str, list[tuple[str, float, np.ndarray]]]:
        """GroundingDINO on the faces in batches: per face (class, score, box in face pixels)."""
        caption = caption_for(classes)
        token_ids = self.dino.tokenizer(caption)["input_ids"]
        names = list(faces)
        found: dict[str, list[tuple[str, float, np.ndarray]]] = {}
        for start in range(0, len(names), self.cfg.batch_faces):
            chunk = names[start : start + self.cfg.batch_faces]
            logits, boxes = self._dino_batch([faces[n] for n in chunk], caption)
            for k, name in enumerate(chunk):
                h, w = faces[name].shape[:2]
                picked = select_boxes(
                    logits[k],
                    boxes[k],
                    token_ids,
                    self.dino.tokenizer,
                    classes,
                    self.cfg.box_threshold,
                    self.cfg.text_threshold,
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


def _checkpoint_state(path: Path, field: str) -> dict[str, Any]:
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(f"odi.groundedsam.{field}: {path} is not a readable torch checkpoint ({exc})") from None
    state = state.get("model", state) if isinstance(state, dict) else state
    if not isinstance(state, dict):
        raise ValueError(f"odi.groundedsam.{field}: {path} holds no state dict")
    return state


def _load_state(model: Any, state: dict[str, Any], path: Path, field: str) -> dict[str, int]:
    """Load what matches; a checkpoint none of whose tensors fit the model is an error naming it."""
    result = model.load_state_dict(state, strict=False)
    if result.unexpected_keys and len(result.unexpected_keys) == len(state):
        raise ValueError(
            f"odi.groundedsam.{field}: {path} does not fit the model "
            f"(e.g. {result.unexpected_keys[0]!r} is not one of its tensors)"
        )
    return {
        "loaded": len(state) - len(result.unexpected_keys),
        "missing": len(result.missing_keys),
        "unexpected": len(result.unexpected_keys),
    }


def load_groundedsam(cfg: GroundedSamConfig) -> GroundedSam:
    """Build GroundingDINO (its text encoder from `text_encoder`) and SAM, and load both checkpoints."""
    check_files(cfg)
    from benchfoundry.tasks.odi import torchvision_ops

    torchvision_ops.ensure_torchvision_ops()
    from groundingdino.models import build_model
    from groundingdino.util.slconfig import SLConfig
    from groundingdino.util.utils import clean_state_dict
    from segment_anything import SamPredictor, sam_model_registry

    config_path = cfg.dino_config or Path(str(resources.files("groundingdino.config") / "GroundingDINO_SwinT_OGC.py"))
    args = SLConfig.fromfile(str(config_path))
    args.device = cfg.device
    args.text_encoder_type = str(cfg.text_encoder)
    dino = build_model(args)
    dino_report = _load_state(
        dino,
        clean_state_dict(_checkpoint_state(Path(cfg.dino_checkpoint), "dino_checkpoint")),
        Path(cfg.dino_checkpoint),
        "dino_checkpoint",
    )
    dino.eval().to(cfg.device)
    sam = sam_model_registry[cfg.sam_model_type](checkpoint=None)
    sam_report = _load_state(
        sam, _checkpoint_state(Path(cfg.sam_checkpoint), "sam_checkpoint"), Path(cfg.sam_checkpoint), "sam_checkpoint"
    )
    sam.eval().to(cfg.device)
    return GroundedSam(dino, SamPredictor(sam), cfg, {"dino": dino_report, "sam": sam_report})
