"""People that read as people: Anny's textures give a face a stock face detector finds (bench/face_detection.py),
one skin tone wherever the body is bare, hair above a hairline, eyes with an iris, and hems where clothes end."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.configs.person import PersonConfig
from benchfoundry.person import prepare, textures
from benchfoundry.person.anny_texture import NEUTRAL, _rest_marks, _texel_map, anny_texture
from benchfoundry.person.textures import outfit

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("face_detection", ROOT / "bench" / "face_detection.py")
face_detection = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(face_detection)

SIZE = 512


def _texels_near(dx: float, dz: float, radius: float) -> np.ndarray:
    """Texel mask of the head's front within `radius` (metres, across and up) of the left eye's centre + (dx, dz)."""
    covered, pos, bone, names = _texel_map(SIZE)
    eye = _rest_marks()["eyes"][0]
    near = np.hypot(pos[:, 0] - eye[0] - dx, pos[:, 2] - eye[2] - dz) < radius
    mask = np.zeros(covered.shape, dtype=bool)
    mask[covered] = near & (pos[:, 1] < eye[1]) & (names[bone] == "head")
    return mask


def _texels_of(bone_prefix: str, joint: str, radius: float) -> np.ndarray:
    """Texel mask of the parts whose bone starts with `bone_prefix`, within `radius` (m) of bone `joint`'s head."""
    from benchfoundry.person import anny_body

    covered, pos, bone, names = _texel_map(SIZE)
    labels = list(anny_body.load_model()[0].bone_labels)
    centre = anny_body.rest_body(NEUTRAL).bone_poses[labels.index(joint), :3, 3]
    mask = np.zeros(covered.shape, dtype=bool)
    mask[covered] = np.char.startswith(names[bone], bone_prefix) & (np.linalg.norm(pos - centre, axis=1) < radius)
    return mask


@functools.cache
def _texture(texture_id: int) -> np.ndarray:
    """Texture `texture_id` at SIZE, painted once for the module (read-only)."""
    image = anny_texture(texture_id, SIZE)
    image.flags.writeable = False
    return image


def _median(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    assert mask.sum() > 3
    return np.median(image[mask].astype(np.float64) / 255, axis=0)


@pytest.mark.parametrize("texture_id", [0, 1, 2])
def test_a_face_has_brows_darker_than_its_forehead_and_one_skin_tone_on_the_cheek(texture_id: int) -> None:
    """Brows over each eye (what a face detector keys on) are darker than the skin; the cheek is the skin."""
    image = _texture(texture_id).astype(np.float64) / 255
    skin = np.asarray(outfit(texture_id)["skin"]).mean()
    brow = image[_texels_near(0.004, 0.022, 0.003)].mean(axis=1)
    cheek = image[_texels_near(0.0, -0.035, 0.006)].mean(axis=1)
    assert len(brow) > 3 and len(cheek) > 3
    assert np.median(brow) < 0.7 * skin
    assert abs(np.median(cheek) - skin) < 0.08


@pytest.mark.parametrize("texture_id", range(6))
def test_one_skin_tone_on_face_neck_hands_and_forearms(texture_id: int) -> None:
    """The lower cheek (below a dark face's sheen), the side of the neck above the collar, the back of the hand and
    (in short sleeves) the forearm are one tone: the outfit's skin, within the texture's grain."""
    look = outfit(texture_id)
    image = _texture(texture_id)
    places = {
        "cheek": _texels_near(0.0, -0.05, 0.006),
        "neck": _texels_of("neck", "neck03", 0.07),
        "hand": _texels_of("wrist", "wrist.L", 0.05),
    }
    if not look["long_sleeves"]:
        places["forearm"] = _texels_of("lowerarm", "lowerarm02.L", 0.05)
    for place, mask in places.items():
        assert np.abs(_median(image, mask) - look["skin"]).max() < 0.04, place


def test_a_dark_face_has_deeper_features_and_a_soft_sheen_a_light_one_has_none() -> None:
    """On the darkest tone the eye sockets and brows are darker against the skin than on a light tone, and the
    cheekbone shines a little (at most a fifth) over the lower cheek; a light tone's cheekbone is its lower cheek's."""
    tones = {n: face_detection.tone_of(n) for n in range(40)}
    dark, light = min(n for n, t in tones.items() if t == 5), min(n for n, t in tones.items() if t == 0)

    def luma(texture_id: int, dx: float, dz: float, radius: float) -> float:
        image = _texture(texture_id)
        return float(_median(image, _texels_near(dx, dz, radius)) @ np.array([0.2126, 0.7152, 0.0722]))

    def ratios(texture_id: int) -> tuple[float, float, float]:
        lower = luma(texture_id, 0.0, -0.05, 0.006)
        socket, brow = luma(texture_id, 0.0, -0.004, 0.003), luma(texture_id, 0.004, 0.022, 0.003)
        return socket / lower, brow / lower, luma(texture_id, 0.005, -0.035, 0.004) / lower

    socket_d, brow_d, shine_d = ratios(dark)
    socket_l, brow_l, shine_l = ratios(light)
    assert socket_d < socket_l - 0.05 and brow_d < brow_l
    assert 1.05 < shine_d < 1.2 and abs(shine_l - 1) < 0.03


@pytest.mark.parametrize("texture_id", range(6))
def test_hair_above_a_hairline_and_skin_below_it(texture_id: int) -> None:
    """The crown is the hair's colour and the forehead above the brows the skin's; between them the colour turns
    from one to the other once, within a band of 1.5 cm (a hairline, not blotches)."""
    look = outfit(texture_id)
    image = _texture(texture_id).astype(np.float64) / 255
    covered, pos, bone, names = _texel_map(SIZE)
    eye = _rest_marks()["eyes"][0]
    midline = (names[bone] == "head") & (np.abs(pos[:, 0]) < 0.006) & (pos[:, 1] < eye[1] + 0.02)
    colours = image[covered][midline]
    heights = pos[midline, 2] - eye[2]
    hair_like = np.linalg.norm(colours - look["hair"], axis=1) < np.linalg.norm(colours - look["skin"], axis=1)
    forehead, crown = (heights > 0.035) & (heights < 0.045), heights > 0.09
    assert forehead.sum() > 3 and crown.sum() > 3
    assert not hair_like[forehead].any() and hair_like[crown].mean() > 0.9
    bins = np.arange(0.03, 0.1, 0.0025)
    share = np.array([hair_like[(heights >= lo) & (heights < lo + 0.0025)].mean() for lo in bins])
    starts, full = bins[np.argmax(share > 0.1)], np.argmax(share > 0.9)
    assert bins[full] - starts < 0.015 and np.all(share[full:] > 0.75)


def test_an_eye_has_a_dark_iris_on_a_paler_white() -> None:
    """The front of each eyeball (its iris and pupil) is dark; its white is pale but no brighter than paper."""
    covered, pos, bone, names = _texel_map(SIZE)
    image = _texture(3).astype(np.float64) / 255
    for eye_bone, centre in zip(("eye.L", "eye.R"), _rest_marks()["eyes"]):
        on_eye = names[bone] == eye_bone
        offset = pos[on_eye] - centre
        ahead = -offset[:, 1] / np.linalg.norm(offset, axis=1)
        luma = image[covered][on_eye] @ np.array([0.2126, 0.7152, 0.0722])
        side = (np.abs(ahead) < 0.3) & (np.abs(offset[:, 2]) < 0.003)
        front = np.argsort(-ahead)[:5]
        assert side.sum() > 3
        assert np.median(luma[front]) < 0.25 < 0.6 < np.median(luma[side]) < 0.9


@pytest.mark.parametrize("texture_id", range(6))
def test_sleeves_and_trousers_end_at_hems(texture_id: int) -> None:
    """Short sleeves cover the shoulder and leave the elbow bare, long ones reach past the elbow and leave the hand
    bare; trousers cover the knee, shorts leave it bare."""
    look = outfit(texture_id)
    image = _texture(texture_id)
    shoulder = _median(image, _texels_of("upperarm", "upperarm01.L", 0.07))
    elbow = _median(image, _texels_of("lowerarm", "lowerarm01.L", 0.05))
    knee = _median(image, _texels_of("lowerleg", "lowerleg01.L", 0.07))
    skin = np.asarray(look["skin"])
    assert np.abs(shoulder - skin).max() > 0.04
    assert (np.abs(elbow - skin).max() > 0.04) == look["long_sleeves"]
    assert (np.abs(knee - skin).max() > 0.04) != look["shorts"]


def test_the_same_texture_twice_is_the_same_bytes_and_its_version_names_its_cache(monkeypatch) -> None:
    """A texture id paints the same bytes every time; the embedded textures' version is part of the cache name, so
    a new version paints anew."""
    assert np.array_equal(anny_texture(5, 128), anny_texture(5, 128))
    person = PersonConfig()
    name = prepare.texture_file_name(person, 5)
    monkeypatch.setattr(textures, "TEXTURE_VERSION", textures.TEXTURE_VERSION + 1)
    assert prepare.texture_file_name(person, 5) != name


@pytest.mark.blender
def test_a_stock_face_detector_finds_faces_facing_the_camera_and_none_from_behind(tmp_path: Path) -> None:
    """OpenCV's frontal-face cascade, as bench/face_detection.py runs it, finds the face of at least three of four
    people turned within 30° of the camera (light to dark skin), and none of two people seen from behind."""
    facing, away = [0, 54, 66, 81], [2, 3]
    assert all(abs(face_detection.yaw_of(n)) <= 30 for n in facing)
    assert all(abs(face_detection.yaw_of(n)) >= 120 for n in away)
    shots = face_detection.render_heads({"now": anny_texture}, 0, tmp_path, only=facing + away)["now"]
    found_facing, n_facing, found_away, n_away = face_detection.find_rates(shots)
    assert (n_facing, n_away) == (4, 2)
    assert found_facing >= 3 and found_away == 0


def _labelled_build(root: Path, raw: list[int], nv: list[float], seen: list[float]) -> Path:
    """A build folder whose SynDORBench labels hold four frames with a person and one empty scene."""
    import pandas as pd

    from benchfoundry.core.store import StageStore

    frame = pd.DataFrame(
        {
            "img_path": [f"images/f{k}.jpg" for k in range(5)],
            "lighting": ["morning_north", "morning_north", "night", "night", "night"],
            "empty_scene": [False, False, False, False, True],
            "raw_detector_seen": [*seen, 0.0],
            "nv_detector_seen": [None, None, *seen[2:], 0.0],
            "human_discernable": [*raw, 0],
            "human_discernable_nv": [*nv, 0.0],
        }
    )
    StageStore(root, "syndor", "discern").write_shard("labels", frame, spec_hash="x")
    return root


def test_the_person_detection_bench_counts_finds_balance_and_moves_frame_by_frame(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("person_detection", ROOT / "bench" / "person_detection.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    nan = float("nan")
    before = bench.labelled_frames(_labelled_build(tmp_path / "a", [1, 0, 1, 0], [nan, nan, 1.0, 0.0], [1, 0, 1, 0]))
    after = bench.labelled_frames(_labelled_build(tmp_path / "b", [1, 1, 0, 0], [nan, nan, 1.0, 1.0], [1, 1, 0, 0]))
    assert len(before) == 4  # the empty scene is left out
    rates = bench.detector_rates(after)
    assert rates["raw"] == {"images": 4, "found": 2, "by_lighting": {"morning": [2, 2], "night": [0, 2]}}
    assert rates["nv"]["images"] == 2 and rates["nv"]["found"] == 0
    assert bench.label_balance(before) == {"raw": {"0": 2, "1": 2}, "nv": {"0": 1, "1": 1}}
    assert bench.label_moves(before, after) == {
        "raw": {"0→0": 1, "0→1": 1, "1→0": 1, "1→1": 1},
        "nv": {"0→1": 1, "1→1": 1},
    }
