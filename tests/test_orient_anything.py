"""Orient-Anything on the head and body crops: the real loading path offline with a tiny random DINOv2, the
output layout against hand-set head weights, the azimuth → facing convention, checkpoint errors, batching,
the CLI; their demo's square padding and antialiased resize, transformers 4.38's position-embedding
interpolation against a copy of its code; and the crops on constructed boxes."""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from skimage import data as skimage_data
from transformers import Dinov2Config, Dinov2Model

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig, OrientAnythingConfig
from benchfoundry.benchmarks.viewspatial.coco.stages import orient_anything as oa
from benchfoundry.benchmarks.viewspatial.coco.stages.people import CropRejected, Person, label_file, person_crops
from benchfoundry.cli.main import main
from benchfoundry.core.directions import facing_direction

HIDDEN, SIZE = 32, 56
NO_HEAD = "subject too small: head below 24 px"
#: Their heads' widths: azimuth 360 + polar 180 + rotation 360 (app.py) or 180 (README) + confidence 2.
WIDTH, README_WIDTH = 902, 722


@pytest.fixture(scope="module")
def dinov2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny DINOv2 (hidden 32, 2 layers, patch 14, 56 px) with random weights, saved as transformers does."""
    folder = tmp_path_factory.mktemp("dinov2")
    torch.manual_seed(0)
    config = Dinov2Config(
        hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2, image_size=SIZE, patch_size=14
    )
    Dinov2Model(config).save_pretrained(folder)
    return folder


def their_head(seed: int = 1, in_dim: int = HIDDEN, width: int = WIDTH) -> dict[str, torch.Tensor]:
    """A random head state dict under the names their DINOv2_MLP saves (`down_sampler` = MLP_dim: net1 =
    Linear, BatchNorm1d, ReLU; net2 = Linear, BatchNorm1d), written out here rather than taken from the code."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for net, fan_in in (("net1", in_dim), ("net2", width)):
        state[f"down_sampler.{net}.0.weight"] = torch.randn(width, fan_in, generator=g) / math.sqrt(fan_in)
        state[f"down_sampler.{net}.0.bias"] = torch.randn(width, generator=g) * 0.1
        state[f"down_sampler.{net}.1.weight"] = 1 + 0.1 * torch.randn(width, generator=g)
        state[f"down_sampler.{net}.1.bias"] = 0.1 * torch.randn(width, generator=g)
        state[f"down_sampler.{net}.1.running_mean"] = 0.1 * torch.randn(width, generator=g)
        state[f"down_sampler.{net}.1.running_var"] = 0.5 + torch.rand(width, generator=g)
        state[f"down_sampler.{net}.1.num_batches_tracked"] = torch.tensor(100)
    return state


def peaked_head(
    azimuth: int, polar_bin: int, rotation_bin: int, confidence_logits: tuple[float, float], width: int = WIDTH
) -> dict[str, torch.Tensor]:
    """A head whose output ignores the image: net1 gives ReLU(1) everywhere, net2's bias is the output, with
    one peak in each distribution and the given confidence logits (BatchNorms at identity)."""
    state = their_head(width=width)
    out = torch.zeros(width)
    out[azimuth] = out[360 + polar_bin] = out[540 + rotation_bin] = 5.0
    out[-2:] = torch.tensor(confidence_logits)
    for net in ("net1", "net2"):
        state[f"down_sampler.{net}.0.weight"].zero_()
        state[f"down_sampler.{net}.1.weight"].fill_(1.0)
        state[f"down_sampler.{net}.1.bias"].zero_()
        state[f"down_sampler.{net}.1.running_mean"].zero_()
        state[f"down_sampler.{net}.1.running_var"].fill_(1.0)
    state["down_sampler.net1.0.bias"].fill_(1.0)
    state["down_sampler.net2.0.bias"] = out
    return state


def save(state: dict[str, torch.Tensor], path: Path) -> Path:
    torch.save(state, path)
    return path


def config(dinov2_dir: Path, checkpoint: Path) -> OrientAnythingConfig:
    return OrientAnythingConfig(dinov2_dir=dinov2_dir, checkpoint=checkpoint, image_size=SIZE)


def crops(n: int, seed: int = 0) -> list[np.ndarray]:
    """Random crops of assorted shapes, grey ones among them."""
    rng = np.random.default_rng(seed)
    shapes = [(40, 30, 3), (90, 50, 3), (20, 70), (5, 3, 3), (64, 64, 3), (120, 40), (33, 77, 3)]
    return [rng.integers(0, 256, shapes[i % len(shapes)], dtype=np.uint8) for i in range(n)]


def test_the_model_loads_from_local_files_without_the_network(
    dinov2_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    estimator = oa.load(config(dinov2_dir, save(their_head(), tmp_path / "head.pt")))
    found = estimator.estimate(crops(7))
    assert len(found) == 7
    for az, polar, rotation, confidence in found:
        assert 0 <= az < 360 and -90 <= polar < 90 and -180 <= rotation < 180 and 0 <= confidence <= 1
        assert az == int(az) and polar == int(polar) and rotation == int(rotation)
    assert len({f.azimuth_deg for f in found}) > 1  # random weights: the crops do not all look alike


def test_a_hand_set_head_gives_its_peaks_and_the_azimuth_maps_to_the_facing_seen(
    dinov2_dir: Path, tmp_path: Path
) -> None:
    for azimuth in (0, 90, 180, 270):
        path = save(peaked_head(azimuth, 100, 200, (2.0, 0.0)), tmp_path / f"peak{azimuth}.pt")
        (found,) = oa.load(config(dinov2_dir, path)).estimate(crops(1))
        assert found.azimuth_deg == azimuth and found.polar_deg == 100 - 90 and found.rotation_deg == 200 - 180
        assert found.confidence == pytest.approx(1 / (1 + math.exp(-2.0)), abs=1e-5)
        # Their demo draws the prediction's axes on the image (utils.get_proj2D_XYZ at polar 0, rotation 0):
        # front = (−sin φ, 0), the object's right = (−cos φ, 0), image x to the right.
        front_x, right_x = -math.sin(math.radians(azimuth)), -math.cos(math.radians(azimuth))
        if abs(front_x) > 0.5:
            seen = "left" if front_x < 0 else "right"
        else:  # the object's right on the image's left: it faces the camera, "back" with the camera as front
            seen = "back" if right_x < 0 else "front"
        assert facing_direction(oa.yaw_deg(found.azimuth_deg)) == seen
    # The README's checkpoints: 180 rotation bins, centred (bin 100 → 10°).
    path = save(peaked_head(30, 100, 100, (2.0, 0.0), width=README_WIDTH), tmp_path / "readme.pt")
    assert oa.load(config(dinov2_dir, path)).estimate(crops(1)) == [(30, 10, 10, pytest.approx(0.8808, abs=1e-4))]


def test_a_checkpoint_missing_a_key_or_of_another_shape_is_an_error_naming_it(dinov2_dir: Path, tmp_path: Path) -> None:
    state = their_head()
    del state["down_sampler.net2.1.running_var"]
    path = save(state, tmp_path / "missing.pt")
    with pytest.raises(ValueError, match=rf"{path}: .*missing.*down_sampler\.net2\.1\.running_var"):
        oa.load(config(dinov2_dir, path))
    wide = save(their_head(in_dim=64), tmp_path / "wide.pt")
    with pytest.raises(ValueError, match=rf"{wide}: .*of another shape.*down_sampler\.net1\.0\.weight"):
        oa.load(config(dinov2_dir, wide))
    odd = save(their_head(width=900), tmp_path / "odd.pt")
    with pytest.raises(ValueError, match=rf"{odd}: the head's output width 900 is none of"):
        oa.load(config(dinov2_dir, odd))
    partial = save({**their_head(), "dinov2.layernorm.weight": torch.ones(HIDDEN)}, tmp_path / "partial.pt")
    with pytest.raises(ValueError, match=rf"{partial}: .*missing.*dinov2\."):
        oa.load(config(dinov2_dir, partial))
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "text.pt").write_text("not a checkpoint")
    for bad in (tmp_path / "absent.pt", tmp_path / "empty.pt", tmp_path / "text.pt"):
        with pytest.raises(ValueError, match=rf"{bad}: cannot read the checkpoint"):
            oa.load(config(dinov2_dir, bad))
    with pytest.raises(ValueError, match=rf"{tmp_path}: not a DINOv2 folder"):
        oa.load(config(tmp_path, path))


def test_a_whole_model_checkpoint_replaces_the_backbone(dinov2_dir: Path, tmp_path: Path) -> None:
    torch.manual_seed(7)
    other = Dinov2Model(Dinov2Config.from_pretrained(dinov2_dir))
    whole = {**{f"dinov2.{k}": v for k, v in other.state_dict().items()}, **their_head()}
    estimator = oa.load(config(dinov2_dir, save(whole, tmp_path / "whole.pt")))
    for key, value in other.state_dict().items():
        assert torch.equal(estimator.model.dinov2.state_dict()[key], value), key


def test_batches_give_the_numbers_of_one_by_one(dinov2_dir: Path, tmp_path: Path) -> None:
    estimator = oa.load(config(dinov2_dir, save(their_head(), tmp_path / "head.pt")), batch_size=3)
    given = crops(7, seed=4)
    batched = estimator.estimate(given)
    single = [estimator.estimate([c])[0] for c in given]
    for b, s in zip(batched, single):
        assert b[:3] == s[:3] and b.confidence == pytest.approx(s.confidence, abs=1e-5)


def transformers_438_interpolate_pos_encoding(self, embeddings, height, width):
    """transformers 4.38.0, models/dinov2/modeling_dinov2.py, Dinov2Embeddings.interpolate_pos_encoding: the
    function body as released (the reference for the project's own version)."""
    num_patches = embeddings.shape[1] - 1
    num_positions = self.position_embeddings.shape[1] - 1
    if num_patches == num_positions and height == width:
        return self.position_embeddings
    class_pos_embed = self.position_embeddings[:, 0]
    patch_pos_embed = self.position_embeddings[:, 1:]
    dim = embeddings.shape[-1]
    height = height // self.config.patch_size
    width = width // self.config.patch_size
    # we add a small number to avoid floating point error in the interpolation
    # see discussion at https://github.com/facebookresearch/dino/issues/8
    height, width = height + 0.1, width + 0.1
    patch_pos_embed = patch_pos_embed.reshape(1, int(math.sqrt(num_positions)), int(math.sqrt(num_positions)), dim)
    patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)
    target_dtype = patch_pos_embed.dtype
    patch_pos_embed = torch.nn.functional.interpolate(
        patch_pos_embed.to(dtype=torch.float32),
        scale_factor=(float(height / math.sqrt(num_positions)), float(width / math.sqrt(num_positions))),
        mode="bicubic",
        align_corners=False,
    ).to(dtype=target_dtype)
    if int(height) != patch_pos_embed.shape[-2] or int(width) != patch_pos_embed.shape[-1]:
        raise ValueError("Width or height does not match with the interpolated position embeddings")
    patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
    return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)


def test_position_embeddings_are_interpolated_as_transformers_4_38_does(dinov2_dir: Path, tmp_path: Path) -> None:
    """On a DINOv2 whose pretrained grid is 37 × 37 (Orient-Anything's, 518 px / 14) resized to 16 × 16 (a 224
    crop): the loaded model's interpolation equals 4.38's bit for bit, and differs from today's transformers
    (which asks for the output size instead of the scale factor)."""
    torch.manual_seed(3)
    config = Dinov2Config(
        hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=2, mlp_ratio=2, image_size=518, patch_size=14
    )
    big = tmp_path / "dinov2_518"
    Dinov2Model(config).save_pretrained(big)
    estimator = oa.load(
        OrientAnythingConfig(dinov2_dir=big, checkpoint=save(their_head(), tmp_path / "head.pt"), image_size=224)
    )
    embeddings = estimator.model.dinov2.embeddings
    with torch.no_grad():
        embeddings.position_embeddings.normal_()
        tokens = torch.zeros(1, 16 * 16 + 1, HIDDEN)
        ours = embeddings.interpolate_pos_encoding(tokens, 224, 224)
        theirs = transformers_438_interpolate_pos_encoding(embeddings, tokens, 224, 224)
        today = type(embeddings).interpolate_pos_encoding(embeddings, tokens, 224, 224)
        assert ours.shape == (1, 257, HIDDEN) and torch.equal(ours, theirs)
        assert not torch.allclose(ours, today, atol=1e-4)
        # A rectangle too, and the pretrained square left as is.
        wide = torch.zeros(1, 16 * 20 + 1, HIDDEN)
        assert torch.equal(
            embeddings.interpolate_pos_encoding(wide, 224, 280),
            transformers_438_interpolate_pos_encoding(embeddings, wide, 224, 280),
        )
        square = torch.zeros(1, 37 * 37 + 1, HIDDEN)
        assert embeddings.interpolate_pos_encoding(square, 518, 518) is embeddings.position_embeddings
    # The override is this model's only: a freshly built DINOv2 keeps today's method.
    assert "interpolate_pos_encoding" not in vars(Dinov2Model(config).embeddings)


def test_crops_are_padded_square_with_their_demos_margin_before_the_processor() -> None:
    """Their resize_foreground: pad to a square (the crop centred, the odd pixel after), then to int(side /
    0.85). A 120 × 300 body crop then reaches the model whole (without the padding the processor's centre crop
    keeps 224/256 of its width and 120/300 · 224/256 = 35 % of its height)."""
    crop = np.full((300, 120, 3), 200, np.uint8)
    padded = oa.pad_square(crop, 0.85)
    assert padded.shape == (352, 352, 3)  # int(300 / 0.85)
    rows, cols = np.nonzero(padded[..., 0])
    assert (rows.min(), rows.max() + 1) == (26, 326) and (cols.min(), cols.max() + 1) == (116, 236)
    assert oa.pad_square(np.ones((5, 4), np.uint8), 1.0).shape == (5, 5)
    estimator = oa.Estimator(None, 224, torch.device("cpu"))  # type: ignore[arg-type]
    pixels = estimator.pixels([crop])[0].numpy()
    grey = pixels[0] * 0.229 + 0.485  # back to [0, 1]
    lit = np.argwhere(grey > 0.5)
    # The crop spans 300/352 of the side: 256/352 · 300 ≈ 218 rows after the resize, all inside the 224 crop.
    assert 214 <= lit[:, 0].max() - lit[:, 0].min() + 1 <= 222


def test_the_resize_is_antialiased() -> None:
    """One-pixel stripes shrunk about 2× average to grey (an antialiased filter); point sampling would keep
    them black and white."""
    stripes = np.zeros((448, 448, 3), np.uint8)
    stripes[:, ::2] = 255
    estimator = oa.Estimator(None, 224, torch.device("cpu"), foreground_ratio=1.0)  # type: ignore[arg-type]
    grey = estimator.pixels([stripes])[0, 0].numpy() * 0.229 + 0.485
    centre = grey[64:160, 64:160]
    assert abs(float(centre.mean()) - 0.5) < 0.05 and float(centre.std()) < 0.05


def camera_coco(tmp_path: Path) -> Path:
    """scikit-image's `camera` photograph (a man facing the image's right) with hand-placed keypoints, and
    a second copy whose shoulders sit on the box's top edge (no head: too small to read)."""
    Image.fromarray(skimage_data.camera()).save(tmp_path / "camera.png")
    kp = np.zeros((17, 3))
    for i, point in {
        0: (254, 163, 2),
        2: (234, 149, 2),
        4: (186, 138, 2),
        6: (120, 160, 2),
        5: (135, 170, 1),
        12: (55, 430, 2),
        11: (70, 435, 1),
    }.items():
        kp[i] = point
    high = kp.copy()
    high[[5, 6], 1] = 62
    anns = [
        {
            "id": i,
            "image_id": i,
            "category_id": 1,
            "bbox": [0, 62, 340, 450],
            "area": 0.45 * 512 * 512,
            "iscrowd": 0,
            "keypoints": k.reshape(-1).tolist(),
            "num_keypoints": 7,
        }
        for i, k in ((1, kp), (2, high))
    ]
    coco = {
        "images": [{"id": i, "file_name": "camera.png", "width": 512, "height": 512} for i in (1, 2)],
        "annotations": anns,
    }
    path = tmp_path / "camera.json"
    path.write_text(json.dumps(coco))
    return path


def test_the_cli_labels_with_orient_anything(dinov2_dir: Path, tmp_path: Path, capsys) -> None:
    checkpoint = save(peaked_head(270, 90, 180, (2.0, 0.0)), tmp_path / "peak.pt")
    path = camera_coco(tmp_path)
    argv = [
        "coco",
        "label",
        str(path),
        "--images",
        str(tmp_path),
        "--estimator",
        "orient-anything",
        "--dinov2-dir",
        str(dinov2_dir),
        "--checkpoint",
        str(checkpoint),
        "--device",
        "cpu",
        "--json",
    ]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"labels", "rejected"}
    by_image = {r["image_id"]: r for r in result["labels"]}
    assert set(by_image[1]) >= {
        "image_id",
        "annotation_id",
        "kept",
        "reason",
        "facing",
        "head_delta_deg",
        "head_turn",
        "confidence",
    }
    # Azimuth 270 for both crops: faces the image's right, head in line with the body.
    assert by_image[1]["kept"] and by_image[1]["facing"] == "right" and by_image[1]["head_turn"] == "front"
    assert by_image[1]["head_delta_deg"] == 0 and by_image[1]["confidence"] == pytest.approx(0.8808, abs=1e-4)
    assert by_image[2]["reason"] == NO_HEAD and result["rejected"] == {NO_HEAD: 1}
    assert main(argv[:3] + argv[5:]) == 2  # orient-anything without --images
    assert "give the images folder" in capsys.readouterr().err


def test_an_unsure_model_rejects_for_low_confidence(dinov2_dir: Path, tmp_path: Path) -> None:
    checkpoint = save(peaked_head(0, 90, 180, (0.0, 2.0)), tmp_path / "unsure.pt")
    section = CocoConfig(estimator="orient-anything", orient_anything=config(dinov2_dir, checkpoint))
    result = label_file(camera_coco(tmp_path), tmp_path, section)
    assert result["rejected"] == {NO_HEAD: 1, "low confidence": 1}


def test_an_implausible_angle_is_rejected_by_name(dinov2_dir: Path, tmp_path: Path) -> None:
    """Polar bin 90 is 0° (level); 90 + 70 is a person seen from 70° above, beyond the 60° default."""
    checkpoint = save(peaked_head(0, 90 + 70, 180, (2.0, 0.0)), tmp_path / "above.pt")
    section = CocoConfig(estimator="orient-anything", orient_anything=config(dinov2_dir, checkpoint))
    result = label_file(camera_coco(tmp_path), tmp_path, section)
    assert result["rejected"] == {NO_HEAD: 1, "implausible angle": 1}
    [row] = [r for r in result["labels"] if r["reason"] == "implausible angle"]
    assert "polar 70°" in row["detail"]
    relaxed = section.model_copy(
        update={"orient_anything": config(dinov2_dir, checkpoint).model_copy(update={"max_polar_deg": 80.0})}
    )
    assert label_file(camera_coco(tmp_path), tmp_path, relaxed)["rejected"] == {NO_HEAD: 1}
    # Without the size filter the crop itself is refused by name.
    unfiltered = relaxed.model_copy(update={"min_head_px": 0.0})
    assert label_file(camera_coco(tmp_path), tmp_path, unfiltered)["rejected"] == {"empty head crop": 1}


def person(
    bbox: tuple[float, float, float, float], shoulders: tuple[float, float], labelled: tuple[int, int] = (2, 2)
) -> Person:
    kp = np.zeros((17, 3))
    kp[5] = (10, shoulders[0], labelled[0])
    kp[6] = (20, shoulders[1], labelled[1])
    return Person(1, 1, "x.png", (80, 100), bbox, 100.0, kp)


def test_crops_split_the_box_at_the_shoulder_line() -> None:
    image = np.arange(100 * 80 * 3).reshape(100, 80, 3)
    head, body = person_crops(image, person((10.4, 20.0, 30.0, 60.0), (40.0, 44.0)))
    # Columns 10 … 40 (the box 10.4 … 40.4 outward), rows 20 … 41 above the line at 42, 42 … 79 below.
    assert head.shape == (22, 31, 3) and body.shape == (38, 31, 3)
    assert (head[0, 0] == image[20, 10]).all() and (body[0, 0] == image[42, 10]).all()
    assert (body[-1, -1] == image[79, 40]).all()
    # Only the labelled shoulder counts.
    head, _ = person_crops(image, person((10.0, 20.0, 30.0, 60.0), (40.0, 60.0), labelled=(0, 1)))
    assert head.shape[0] == 60 - 20


def test_crops_are_clipped_to_the_image_and_empty_ones_are_rejected_by_name() -> None:
    image = np.zeros((100, 80, 3), np.uint8)
    head, body = person_crops(image, person((-5.0, -10.0, 200.0, 300.0), (30.0, 30.0)))
    assert head.shape == (30, 80, 3) and body.shape == (70, 80, 3)
    with pytest.raises(CropRejected, match="^empty head crop$"):
        person_crops(image, person((10.0, 20.0, 30.0, 60.0), (15.0, 18.0)))
    with pytest.raises(CropRejected, match="^empty body crop$"):
        person_crops(image, person((10.0, 20.0, 30.0, 60.0), (85.0, 95.0)))
    with pytest.raises(CropRejected, match="^person box outside the image$"):
        person_crops(image, person((90.0, 20.0, 30.0, 60.0), (40.0, 40.0)))


def animal_coco(tmp_path: Path) -> Path:
    """skimage's chelsea (a cat) as image 1 with its box; image 2 with two dogs (neither named alone) and a
    small bird; a person box (category 1) that is not an animal."""
    Image.fromarray(skimage_data.chelsea()).save(tmp_path / "chelsea.png")  # 451 × 300
    Image.fromarray(skimage_data.chelsea()).save(tmp_path / "dogs.png")
    box = {"iscrowd": 0, "area": 0.5 * 451 * 300}
    anns = [
        {"id": 11, "image_id": 1, "category_id": 17, "bbox": [60.0, 10.0, 330.0, 280.0], **box},
        {"id": 12, "image_id": 1, "category_id": 1, "bbox": [0.0, 0.0, 100.0, 200.0], **box},
        {"id": 21, "image_id": 2, "category_id": 18, "bbox": [0.0, 0.0, 200.0, 300.0], **box},
        {"id": 22, "image_id": 2, "category_id": 18, "bbox": [200.0, 0.0, 250.0, 300.0], **box},
        {"id": 23, "image_id": 2, "category_id": 16, "bbox": [10.0, 10.0, 20.0, 20.0], "iscrowd": 0, "area": 400.0},
    ]
    coco = {
        "images": [
            {"id": 1, "file_name": "chelsea.png", "width": 451, "height": 300},
            {"id": 2, "file_name": "dogs.png", "width": 451, "height": 300},
        ],
        "annotations": anns,
        "categories": [{"id": 1, "name": "person"}, {"id": 16, "name": "bird"}, {"id": 17, "name": "cat"},
                       {"id": 18, "name": "dog"}],
    }  # fmt: skip
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(coco))
    return path


def test_animals_are_labelled_through_orient_anything(dinov2_dir: Path, tmp_path: Path) -> None:
    """The release's animal categories are COCO's ten; an animal alone of its kind and large enough is cropped
    whole and labelled by the model's azimuth: 90 faces the image's left ("left"), 270 its right."""
    from benchfoundry.benchmarks.viewspatial.coco.stages.animals import ANIMALS, label_animals, select_animals
    from benchfoundry.benchmarks.viewspatial.coco.stages.people import read_annotations
    from benchfoundry.benchmarks.viewspatial.coco.stages.questions import CAM_OBJ, animal_items

    assert set(ANIMALS) == {"bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe"}
    data = read_annotations(animal_coco(tmp_path))
    found = select_animals(data, CocoConfig())
    assert [(a.annotation_id, a.name) for a in found] == [(11, "cat")]  # two dogs: neither; the bird: too small
    for azimuth, facing in ((90, "left"), (270, "right")):
        checkpoint = save(peaked_head(azimuth, 90, 180, (2.0, 0.0)), tmp_path / f"animal{azimuth}.pt")
        section = CocoConfig(estimator="orient-anything", orient_anything=config(dinov2_dir, checkpoint))
        (row,) = label_animals(found, tmp_path, oa.load(section.orient_anything), section)
        assert row["kept"] and row["facing"] == facing and row["name"] == "cat" and row["head_turn"] is None
        (item,) = animal_items([row], {1: "images/coco/val/chelsea.png"}, "val", section, seed=0)
        assert item["question_type"] == CAM_OBJ and "the cat" in item["question"] and item["answer_label"] == facing
    # Random weights: labelled or rejected by a filter, never an error.
    section = CocoConfig(
        estimator="orient-anything", orient_anything=config(dinov2_dir, save(their_head(), tmp_path / "r.pt"))
    )
    (row,) = label_animals(found, tmp_path, oa.load(section.orient_anything), section)
    assert row["kept"] or row["reason"] in ("low confidence", "implausible angle")
    unsure = save(peaked_head(90, 90, 180, (0.0, 2.0)), tmp_path / "unsure.pt")
    section = CocoConfig(estimator="orient-anything", orient_anything=config(dinov2_dir, unsure))
    assert label_animals(found, tmp_path, oa.load(section.orient_anything), section)[0]["reason"] == "low confidence"


def test_the_coco_stage_asks_about_animals_with_orient_anything(dinov2_dir: Path, tmp_path: Path) -> None:
    from benchfoundry.benchmarks.viewspatial.coco.stages.coco_stage import split_items

    instances = animal_coco(tmp_path)
    keypoints = tmp_path / "person_keypoints.json"
    keypoints.write_text(json.dumps({**json.loads(instances.read_text()), "annotations": []}))
    checkpoint = save(peaked_head(270, 90, 180, (2.0, 0.0)), tmp_path / "peak.pt")
    section = CocoConfig(estimator="orient-anything", orient_anything=config(dinov2_dir, checkpoint))
    source = {"annotations": str(keypoints), "images": str(tmp_path), "instances": str(instances), "truth": None}
    table, info, _ = split_items(str(tmp_path / "out"), "val", source, section, 0)
    assert info["animals"] == 1 and info["animals_kept"] == 1
    assert list(table["labels"].map(list)) == [["the cat"]] and list(table["answer_label"]) == ["right"]
    assert (tmp_path / "out" / "viewspatial" / table["image_path"].iloc[0][0]).is_file()
