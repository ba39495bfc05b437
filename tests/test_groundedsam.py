"""The groundedsam annotator's real code path on the CPU with random weights, a tiny local BERT and small
faces; the pure steps (caption, phrases, thresholds, box scaling, NMS) against hand-made inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from benchfoundry.assets.tiny_bert import write_tiny_bert
from benchfoundry.benchmarks.odi.config import GroundedSamConfig
from benchfoundry.benchmarks.odi.stages.annotation.groundedsam import (
    DINO_EXTRA_KEYS,
    boxes_to_pixels,
    build_dino,
    build_sam,
    caption_for,
    check_files,
    class_of_phrase,
    load_groundedsam,
    select_boxes,
)
from benchfoundry.benchmarks.odi.stages.annotation.torchvision_ops import ensure_torchvision_ops, greedy_nms
from benchfoundry.configs.loader import ConfigError, load_config

pytestmark = pytest.mark.long(minutes=1)

CLASSES = ["person", "potted plant", "chair"]


def half(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors at half precision: a checkpoint half the size, loaded into the float model all the same."""
    return {k: v.half() if v.is_floating_point() else v for k, v in state.items()}


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Whole random-weight checkpoints as the released ones are laid out: GroundingDINO's under `model` with the
    `module.` prefix and its two extra tensors, SAM's flat; one marked tensor in each."""
    d = tmp_path_factory.mktemp("gsam")
    write_tiny_bert(d / "bert", CLASSES)
    config = GroundedSamConfig(text_encoder=d / "bert", sam_model_type="vit_b")
    with torch.no_grad():
        dino = build_dino(config)
        dino.feat_map.bias.fill_(0.125)
        extra = {"label_enc.weight": torch.zeros(2001, 256), "bert.embeddings.position_ids": torch.arange(512)[None]}
        state = {f"module.{k}": v for k, v in half({**dino.state_dict(), **extra}).items()}
        torch.save({"model": state}, d / "dino.pth")
        sam = build_sam(config)
        sam.mask_decoder.iou_prediction_head.layers[2].bias.fill_(0.5)
        torch.save(half(sam.state_dict()), d / "sam.pth")
    return {"dino_checkpoint": d / "dino.pth", "text_encoder": d / "bert", "sam_checkpoint": d / "sam.pth"}


@pytest.fixture(scope="module")
def model(weights: dict[str, Path]) -> object:
    return load_groundedsam(GroundedSamConfig(**weights, sam_model_type="vit_b", dino_size=256))


def test_caption_and_phrases() -> None:
    assert caption_for(["Person", "potted plant.", "chair"]) == "person. potted plant. chair."
    assert class_of_phrase("potted plant", CLASSES) == "potted plant"
    assert class_of_phrase("plant", CLASSES) == "potted plant"
    assert class_of_phrase("chair person", CLASSES) == "person"  # a tie goes to the earlier class
    assert class_of_phrase("table", CLASSES) is None and class_of_phrase("", CLASSES) is None


def test_boxes_scale_to_face_pixels_and_clip() -> None:
    boxes = boxes_to_pixels(np.array([[0.5, 0.5, 0.2, 0.4], [0.95, 0.1, 0.2, 0.4]]), width=200, height=100)
    np.testing.assert_allclose(boxes, [[80, 30, 120, 70], [170, 0, 200, 30]])


def test_thresholds_pick_queries_and_tokens(model: object) -> None:
    tokenizer = model.dino.tokenizer
    caption = caption_for(CLASSES)
    token_ids = tokenizer(caption)["input_ids"]
    words = [tokenizer.decode([t]) for t in token_ids]
    logits = torch.full((3, 256), -10.0)
    logits[0, words.index("chair")] = 2.0  # sigmoid 0.88: kept, phrase "chair"
    logits[1, words.index("potted")] = 0.0  # sigmoid 0.5: kept, "potted" names the plant
    logits[1, words.index("plant")] = -1.5  # 0.18: below the text threshold
    logits[2, words.index("person")] = -0.7  # 0.33: under the box threshold
    boxes = torch.tensor([[0.5, 0.5, 0.2, 0.2], [0.2, 0.3, 0.1, 0.1], [0.7, 0.7, 0.1, 0.1]])
    found = select_boxes(logits, boxes, token_ids, tokenizer, CLASSES, 0.35, 0.25)
    assert [(label, round(score, 2)) for label, score, _ in found] == [("chair", 0.88), ("potted plant", 0.5)]
    np.testing.assert_allclose(found[0][2], [0.5, 0.5, 0.2, 0.2])
    assert len(select_boxes(logits, boxes, token_ids, tokenizer, CLASSES, 0.3, 0.25)) == 3


def test_checkpoints_are_loaded_from_the_configured_files(model: object) -> None:
    assert torch.allclose(model.dino.feat_map.bias, torch.tensor(0.125))
    assert torch.allclose(model.predictor.model.mask_decoder.iou_prediction_head.layers[2].bias, torch.tensor(0.5))
    dino, sam = model.load_report["dino"], model.load_report["sam"]
    assert dino["loaded"] == len(model.dino.state_dict()) and dino["ignored"] == len(DINO_EXTRA_KEYS)
    assert sam["loaded"] == len(model.predictor.model.state_dict())


def test_detect_and_segment_on_small_faces(model: object) -> None:
    rng = np.random.default_rng(0)
    faces = {f: rng.integers(0, 256, (96, 96, 3), dtype=np.uint8) for f in ("front", "up")}
    found = model.detect(faces, CLASSES)
    assert set(found) == {"front", "up"}
    for picks in found.values():
        for label, score, box in picks:
            assert label in CLASSES and score > 0.35
            assert 0 <= box[0] <= box[2] <= 96 and 0 <= box[1] <= box[3] <= 96
    masks = model.segment(faces["front"], np.array([[10, 10, 50, 60], [40, 5, 90, 30]], float))
    assert masks.shape == (2, 96, 96) and masks.dtype == bool
    assert model.segment(faces["front"], np.zeros((0, 4))).shape == (0, 96, 96)


def test_missing_or_wrong_checkpoint_names_the_field(tmp_path: Path, weights: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="groundedsam.text_encoder is required"):
        load_config(
            "smoke",
            [
                f"odi.groundedsam.dino_checkpoint={weights['dino_checkpoint']}",
                f"odi.groundedsam.sam_checkpoint={weights['sam_checkpoint']}",
            ],
        )
    with pytest.raises(ValueError, match=r"odi\.groundedsam\.sam_checkpoint: .*missing\.pth does not exist"):
        check_files(GroundedSamConfig(**{**weights, "sam_checkpoint": tmp_path / "missing.pth"}))
    torch.save({"no_such.weight": torch.zeros(2)}, tmp_path / "wrong.pth")
    with pytest.raises(ValueError, match=r"odi\.groundedsam\.sam_checkpoint: .*wrong\.pth does not fit SAM"):
        load_groundedsam(
            GroundedSamConfig(
                **{**weights, "sam_checkpoint": tmp_path / "wrong.pth"}, sam_model_type="vit_b", dino_size=256
            )
        )


def _load(weights: dict[str, Path], **changed: object) -> object:
    return load_groundedsam(GroundedSamConfig(**{**weights, **changed}, sam_model_type="vit_b", dino_size=256))


def test_a_checkpoint_that_does_not_fit_is_refused_naming_the_field(tmp_path: Path, weights: dict[str, Path]) -> None:
    """Strict loading: a partial or padded GroundingDINO checkpoint, a partial SAM one, a SAM checkpoint of another
    model type, or a BERT folder of another size each stop the load with the config field to fix."""
    dino = torch.load(weights["dino_checkpoint"], weights_only=True)["model"]
    first = next(iter(dino))
    torch.save({"model": {k: v for k, v in dino.items() if k != first}}, tmp_path / "partial.pth")
    with pytest.raises(
        ValueError, match=r"^odi\.groundedsam\.dino_checkpoint: .*partial\.pth does not fit.* 1 missing"
    ):
        _load(weights, dino_checkpoint=tmp_path / "partial.pth")
    torch.save({"model": {**dino, "module.extra.weight": torch.zeros(3)}}, tmp_path / "padded.pth")
    with pytest.raises(ValueError, match=r"^odi\.groundedsam\.dino_checkpoint: .*1 unexpected \(extra\.weight\)"):
        _load(weights, dino_checkpoint=tmp_path / "padded.pth")
    write_tiny_bert(tmp_path / "bert48", CLASSES, hidden=48)
    with pytest.raises(ValueError, match=r"^odi\.groundedsam\.text_encoder: the BERT in .*bert48 does not match"):
        _load(weights, text_encoder=tmp_path / "bert48")
    sam = torch.load(weights["sam_checkpoint"], weights_only=True)
    torch.save({k: v for k, v in sam.items() if not k.startswith("mask_decoder.")}, tmp_path / "encoder_only.pth")
    with pytest.raises(ValueError, match=r"^odi\.groundedsam\.sam_checkpoint: .*encoder_only\.pth does not fit SAM"):
        _load(weights, sam_checkpoint=tmp_path / "encoder_only.pth")
    wider = {**sam, "image_encoder.pos_embed": torch.zeros(1, 64, 64, 1024)}  # ViT-L's width
    torch.save(wider, tmp_path / "vit_l_like.pth")
    with pytest.raises(ValueError, match=r"sam_model_type 'vit_b': 1 mismatched \(image_encoder\.pos_embed"):
        _load(weights, sam_checkpoint=tmp_path / "vit_l_like.pth")


def test_pure_nms_matches_a_brute_force_greedy_and_torchvision() -> None:
    ensure_torchvision_ops()
    from torchvision.ops import batched_nms, nms

    gen = torch.Generator().manual_seed(1)
    xy = torch.rand(60, 2, generator=gen) * 50
    boxes = torch.cat([xy, xy + 5 + torch.rand(60, 2, generator=gen) * 20], 1)
    scores = torch.rand(60, generator=gen)
    order = sorted(range(60), key=lambda i: -float(scores[i]))

    def box_iou(a: torch.Tensor, b: torch.Tensor) -> float:
        w = max(0.0, float(min(a[2], b[2]) - max(a[0], b[0])))
        h = max(0.0, float(min(a[3], b[3]) - max(a[1], b[1])))
        union = float((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1])) - w * h
        return w * h / union

    expected: list[int] = []
    for i in order:
        if all(box_iou(boxes[i], boxes[j]) <= 0.4 for j in expected):
            expected.append(i)
    assert greedy_nms(boxes, scores, 0.4).tolist() == expected
    assert nms(boxes, scores, 0.4).tolist() == expected
    groups = torch.arange(60) % 2
    per_group = sorted(
        greedy_nms(boxes[groups == 0], scores[groups == 0], 0.4).mul(2).tolist()
        + greedy_nms(boxes[groups == 1], scores[groups == 1], 0.4).mul(2).add(1).tolist()
    )
    assert sorted(batched_nms(boxes, scores, groups, 0.4).tolist()) == per_group
