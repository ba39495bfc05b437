"""Person textures: SMPLitex UV maps from a folder, or procedural clothing on the procedural body's atlas.

A procedural texture paints the islands of `procedural_body.texture_layout()`: skin on the head (with
eyes, mouth and hair), neck and hands; a shirt (solid, striped or checked; short or long sleeves)
on the upper torso and arms; trousers or shorts on the lower torso and legs; shoes on the feet.
Texture id N always gives the same image (drawn from `benchfoundry/core/seeding.py` with a fixed library seed),
whatever the build seed, so an id names one outfit the way an SMPLitex file name does.
Images are (H, W, 3) uint8 RGB, row 0 at the top; UV v = 0 is the bottom row (OBJ convention).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchfoundry.configs.person import TextureConfig
from benchfoundry.core.seeding import item_rng
from benchfoundry.person.procedural_body import TextureLayout, texture_layout

#: Seed of the procedural texture library (not the build seed: an id is a fixed outfit).
LIBRARY_SEED = 0
#: Version of the embedded textures (this module's and person/anny_texture.py's), part of a texture file's cache
#: name (person/prepare.texture_file_name): bump it when they paint different pixels, so caches paint anew.
TEXTURE_VERSION = 3


def texture_settings(textures: TextureConfig) -> list[object]:
    """What every texture of a build is painted from but its id: the texture settings and `TEXTURE_VERSION`; a
    render's hash holds it, so new embedded textures re-render the frames they are on."""
    return [textures.model_dump(mode="json", exclude={"ids"}), TEXTURE_VERSION]


SKIN_TONES = (
    np.array(
        [
            (255, 224, 196),
            (241, 194, 158),
            (224, 172, 125),
            (198, 134, 90),
            (141, 85, 54),
            (98, 60, 38),
        ]
    )
    / 255.0
)
HAIR_COLOURS = np.array([(20, 17, 15), (59, 38, 26), (106, 78, 50), (181, 150, 96), (150, 150, 150)]) / 255.0
TROUSER_COLOURS = (
    np.array(
        [
            (43, 62, 99),
            (70, 90, 130),
            (190, 170, 130),
            (30, 30, 32),
            (85, 85, 90),
            (80, 85, 55),
            (95, 65, 45),
        ]
    )
    / 255.0
)
SHOE_COLOURS = np.array([(25, 22, 20), (60, 40, 25), (235, 235, 230), (90, 90, 95), (120, 30, 30)]) / 255.0


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    """One HSV colour (all in [0,1]) as RGB."""
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    return np.array([(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i])


def _outfit(rng: np.random.Generator) -> dict:
    """The random choices of one texture."""
    skin = SKIN_TONES[rng.integers(len(SKIN_TONES))] * rng.uniform(0.95, 1.05)
    shirt = _hsv(rng.uniform(), rng.uniform(0.15, 0.8), rng.uniform(0.25, 0.9))
    shirt2 = _hsv(rng.uniform(), rng.uniform(0.1, 0.7), rng.uniform(0.2, 0.95))
    return {
        "skin": skin,
        "hair": HAIR_COLOURS[rng.integers(len(HAIR_COLOURS))],
        "hair_long": bool(rng.uniform() < 0.35),
        "shirt": shirt,
        "shirt2": shirt2,
        "pattern": ("solid", "stripes", "checks")[rng.integers(3)],
        "period": rng.uniform(0.03, 0.09),
        "long_sleeves": bool(rng.uniform() < 0.5),
        "trousers": TROUSER_COLOURS[rng.integers(len(TROUSER_COLOURS))] * rng.uniform(0.85, 1.15),
        "shorts": bool(rng.uniform() < 0.25),
        "belt": bool(rng.uniform() < 0.5),
        "shoes": SHOE_COLOURS[rng.integers(len(SHOE_COLOURS))],
        "noise_seed": int(rng.integers(2**31)),
    }


def outfit(texture_id: int) -> dict:
    """The outfit (skin tone, hair, garments, pattern) of texture `texture_id`, whatever the body."""
    return _outfit(item_rng(LIBRARY_SEED, "texture", str(texture_id)))


def procedural_texture(texture_id: int, size: int = 512) -> np.ndarray:
    """Clothing texture `texture_id` on the procedural body's UV atlas, (size, size, 3) uint8."""
    if texture_id < 0 or size < 16:
        raise ValueError(f"texture id must be ≥ 0 and size ≥ 16, got {texture_id}, {size}")
    look = outfit(texture_id)
    layout = texture_layout()
    centres = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(centres, 1.0 - centres)  # image row 0 is v ≈ 1
    image = np.tile(np.array([0.5, 0.5, 0.5]), (size, size, 1))
    for part, island in layout.islands.items():
        inside, lu, lv = _island_coords(u, v, island, layout.margin, 2.0 / size)
        image[inside] = _paint(part, lu[inside], lv[inside], look, layout)
    noise = np.random.default_rng(look["noise_seed"]).normal(1.0, 0.035, (size, size, 1))
    return np.clip(image * noise * 255.0 + 0.5, 0, 255).astype(np.uint8)


def _island_coords(u: np.ndarray, v: np.ndarray, island, margin: float, pad: float):
    """Pixels of an island (its inner area grown by `pad`) and their island-local (u, v)."""
    u0, v0, u1, v1 = island
    lo_u, lo_v = u0 + margin, v0 + margin
    span_u, span_v = u1 - u0 - 2 * margin, v1 - v0 - 2 * margin
    inside = (u >= lo_u - pad) & (u <= lo_u + span_u + pad) & (v >= lo_v - pad) & (v <= lo_v + span_v + pad)
    return inside, np.clip((u - lo_u) / span_u, 0, 1), np.clip((v - lo_v) / span_v, 0, 1)


def _fabric(lu: np.ndarray, lv: np.ndarray, outfit: dict) -> np.ndarray:
    """Shirt cloth: solid, stripes along the body, or checks."""
    base, other, period = outfit["shirt"], outfit["shirt2"], outfit["period"]
    if outfit["pattern"] == "stripes":
        mask = np.floor(lv / period) % 2 == 1
    elif outfit["pattern"] == "checks":
        mask = (np.floor(lv / period) + np.floor(lu / (period * 1.5))) % 2 == 1
    else:
        mask = np.zeros(lu.shape, dtype=bool)
    return np.where(mask[:, None], other, base)


def _paint(part: str, lu: np.ndarray, lv: np.ndarray, outfit: dict, layout: TextureLayout) -> np.ndarray:
    """Colours (n,3) in [0,1] of one island's pixels."""
    skin = np.tile(outfit["skin"], (len(lu), 1))
    if part in ("neck", "nose", "left_hand", "right_hand"):
        return skin
    if part in ("left_foot", "right_foot"):
        return np.tile(outfit["shoes"], (len(lu), 1))
    if part == "head":
        return _head(lu, lv, outfit, layout, skin)
    if part == "torso":
        marks = layout.marks["torso"]
        out = _fabric(lu, lv, outfit)
        below = lv < marks["waist"]
        out[below] = outfit["trousers"]
        if outfit["belt"]:
            out[np.abs(lv - marks["waist"]) < 0.012] = (0.12, 0.09, 0.07)
        return out
    if part in ("left_arm", "right_arm"):
        marks = layout.marks["arm"]
        end = marks["wrist"] - 0.02 if outfit["long_sleeves"] else (marks["shoulder"] + marks["elbow"]) / 2
        out = _fabric(lu, lv, outfit)
        out[lv > end] = outfit["skin"]
        return out
    marks = layout.marks["leg"]  # legs
    end = (marks["hip"] + 2 * marks["knee"]) / 3 if outfit["shorts"] else marks["ankle"]
    out = np.tile(outfit["trousers"], (len(lu), 1))
    out[lv > end] = outfit["skin"]
    out[lv > marks["ankle"]] = outfit["shoes"]
    return out


def _head(lu: np.ndarray, lv: np.ndarray, outfit: dict, layout: TextureLayout, skin: np.ndarray) -> np.ndarray:
    """Face (eyes, mouth) at the front (u ≈ 0.5), hair on the top and back."""
    out = skin.copy()
    face = layout.face
    from_front = np.abs(lu - 0.5)
    hairline = face["hairline"][1]
    back_to = 0.15 if outfit["hair_long"] else 0.45
    hair = (lv > hairline) | ((from_front > 0.22) & (lv > back_to))
    out[hair] = outfit["hair"]
    for eye in ("left_eye", "right_eye"):
        eu, ev = face[eye]
        white = ((lu - eu) / 0.035) ** 2 + ((lv - ev) / 0.03) ** 2 < 1
        pupil = ((lu - eu) / 0.015) ** 2 + ((lv - ev) / 0.02) ** 2 < 1
        out[white] = (0.93, 0.93, 0.9)
        out[pupil] = (0.12, 0.08, 0.05)
    mu, mv = face["mouth"]
    mouth = (np.abs(lu - mu) < 0.045) & (np.abs(lv - mv) < 0.012)
    out[mouth] = outfit["skin"] * np.array([0.7, 0.4, 0.4])
    return out


def load_texture(config: TextureConfig, texture_id: int) -> np.ndarray:
    """Texture `texture_id`: the SMPLitex PNG when `config.smplitex_dir` is set, else procedural."""
    if config.smplitex_dir is None:
        return procedural_texture(texture_id, config.size)
    return read_texture_png(Path(config.smplitex_dir) / config.file_pattern.format(id=texture_id))


def read_texture_png(path: Path) -> np.ndarray:
    """An RGB(A) image file as (H, W, 3) uint8; a clear error naming the file if absent or unreadable
    (read through the one guarded decode path, benchfoundry/core/image_decode.py)."""
    from benchfoundry.core.image_decode import decode_file

    if not path.is_file():
        raise FileNotFoundError(f"texture {path}: no such file")
    try:
        image = decode_file(path)
    except ValueError as exc:
        raise ValueError(f"texture {exc}") from None
    if image.ndim not in (2, 3) or image.size == 0:
        raise ValueError(f"texture {path}: not a readable image")
    if image.dtype != np.uint8:
        image = (image.astype(np.float64) / np.iinfo(image.dtype).max * 255 + 0.5).astype(np.uint8)
    if image.ndim == 2:
        return np.repeat(image[:, :, None], 3, axis=2)
    return np.ascontiguousarray(image[:, :, 2::-1])  # BGR(A) → RGB
