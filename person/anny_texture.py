"""Procedural clothing and skin tones on Anny's UV layout (MakeHuman's), for texture ids without SMPLitex.

Each texel of the map is traced back to the body: the UV triangles are rasterised into a map of
triangle ids (each grown by a pixel so seams do not bleed), the texel's barycentric coordinates give
its point on the rest body (the neutral phenotype) and its body part, the bone that skins the nearest
corner most. The part and the point's height pick the garment of the id's outfit
(`person/textures.outfit`: the same skin tone, hair, shirt pattern, sleeves, trousers or shorts and
shoes as the fixture body's texture of that id). Images are (H, W, 3) uint8 RGB, row 0 at the top,
UV v = 0 at the bottom (OBJ convention).
"""

from __future__ import annotations

import functools

import numpy as np

from benchfoundry.person.textures import outfit

#: The neutral phenotype whose rest body defines where garments end (the UV layout is shared).
NEUTRAL = {"gender": 0.5, "age": 0.75, "muscle": 0.5, "weight": 0.5, "height": 0.5, "proportions": 0.5}


@functools.lru_cache(maxsize=2)
def _texel_map(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per texel: covered?, rest position (3,), bone name id, and the bone names."""
    import cv2

    from benchfoundry.person import anny_body

    model, _ = anny_body.load_model()
    rest = anny_body.rest_body(NEUTRAL)
    faces, uv = anny_body.faces(), anny_body.corner_uv()
    px = np.stack([uv[..., 0] * size - 0.5, (1.0 - uv[..., 1]) * size - 0.5], axis=-1)  # (F,3,2) pixel centres
    ids = np.full((size, size), -1, dtype=np.int32)
    corners = np.round(px * 16).astype(np.int32)
    for f, tri in enumerate(corners):  # outlines first (the one-pixel margin), then the interiors
        cv2.polylines(ids, [tri], True, f, thickness=2, lineType=cv2.LINE_8, shift=4)
    for f, tri in enumerate(corners):
        cv2.fillConvexPoly(ids, tri, f, lineType=cv2.LINE_8, shift=4)
    covered = ids >= 0
    tri_ids = ids[covered]
    rows, cols = np.nonzero(covered)
    p = np.stack([cols, rows], axis=-1).astype(np.float64)
    a, b, c = (px[tri_ids, k].astype(np.float64) for k in range(3))
    v0, v1, v2 = b - a, c - a, p - a
    den = v0[:, 0] * v1[:, 1] - v1[:, 0] * v0[:, 1]
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)
    w1 = np.clip((v2[:, 0] * v1[:, 1] - v1[:, 0] * v2[:, 1]) / den, 0, 1)
    w2 = np.clip((v0[:, 0] * v2[:, 1] - v2[:, 0] * v0[:, 1]) / den, 0, 1)
    w0 = np.clip(1 - w1 - w2, 0, 1)
    bary = np.stack([w0, w1, w2], axis=-1)
    bary /= bary.sum(axis=1, keepdims=True)
    verts = faces[tri_ids]  # (N,3)
    position = np.einsum("nk,nkd->nd", bary, rest.vertices[verts])
    weights, bones = model.vertex_bone_weights.numpy(), model.vertex_bone_indices.numpy()
    nearest = verts[np.arange(len(verts)), np.argmax(bary, axis=1)]
    bone = bones[nearest, np.argmax(weights[nearest], axis=1)]
    return covered, position, bone, np.array(model.bone_labels)


def _rest_marks() -> dict[str, float | np.ndarray]:
    from benchfoundry.person import anny_body

    rest = anny_body.rest_body(NEUTRAL)
    labels = list(anny_body.load_model()[0].bone_labels)
    heads = rest.bone_poses[:, :3, 3]
    head = heads[labels.index("head")]
    eye = heads[labels.index("eye.L")]
    return {
        "waist": float(heads[labels.index("spine05")][2] + 0.03),
        "head": head,
        "hairline": float(eye[2] + 0.045),
        "eyes": (heads[labels.index("eye.L")], heads[labels.index("eye.R")]),
    }


def anny_texture(texture_id: int, size: int = 512) -> np.ndarray:
    """Clothing texture `texture_id` on Anny's UV layout, (size, size, 3) uint8."""
    if texture_id < 0 or size < 16:
        raise ValueError(f"texture id must be ≥ 0 and size ≥ 16, got {texture_id}, {size}")
    look = outfit(texture_id)
    covered, pos, bone, names = _texel_map(size)
    marks = _rest_marks()
    part = names[bone]
    colour = np.tile(look["skin"], (len(pos), 1))
    starts = np.char.partition(part.astype(str), ".")[:, 0]

    def prefix(*words: str) -> np.ndarray:
        return np.isin(starts, words) | np.any([np.char.startswith(starts, w) for w in words], axis=0)

    z = pos[:, 2]
    torso = prefix("spine", "clavicle", "shoulder01", "root", "pelvis")
    colour[torso] = _fabric(pos[torso], look)
    low = torso & (z < marks["waist"])
    colour[low] = look["trousers"]
    if look["belt"]:
        colour[torso & (np.abs(z - marks["waist"]) < 0.015)] = (0.12, 0.09, 0.07)
    sleeve = prefix("upperarm01") | (prefix("upperarm02", "lowerarm") if look["long_sleeves"] else False)
    colour[sleeve] = _fabric(pos[sleeve], look)
    legs = prefix("upperleg01") | (False if look["shorts"] else prefix("upperleg02", "lowerleg"))
    colour[legs] = look["trousers"]
    colour[prefix("foot", "toe")] = look["shoes"]
    head = prefix("head")
    back = pos[:, 1] > marks["head"][1] - 0.01
    hair_to = marks["head"][2] - (0.1 if look["hair_long"] else 0.0)
    colour[head & ((z > marks["hairline"]) | (back & (z > hair_to)))] = look["hair"]
    colour[head] = _face(pos[head], colour[head], look, marks["eyes"])
    for eye_bone, centre in zip(("eye.L", "eye.R"), marks["eyes"]):
        on_eye = part == eye_bone
        ahead = -(pos[on_eye, 1] - centre[1]) / np.maximum(np.linalg.norm(pos[on_eye] - centre, axis=1), 1e-9)
        colour[on_eye] = np.where((ahead > 0.93)[:, None], (0.12, 0.08, 0.05), (0.93, 0.93, 0.9))
    image = np.tile(np.asarray(look["skin"], dtype=np.float64), (size, size, 1))
    image[covered] = colour
    noise = np.random.default_rng(look["noise_seed"]).normal(1.0, 0.035, (size, size, 1))
    return np.clip(image * noise * 255.0 + 0.5, 0, 255).astype(np.uint8)


def _fabric(pos: np.ndarray, look: dict) -> np.ndarray:
    """Shirt cloth at rest points `pos`: solid, horizontal stripes, or checks (period in metres)."""
    base, other, period = look["shirt"], look["shirt2"], look["period"]
    if look["pattern"] == "stripes":
        mask = np.floor(pos[:, 2] / period) % 2 == 1
    elif look["pattern"] == "checks":
        mask = (np.floor(pos[:, 2] / period) + np.floor(pos[:, 0] / (period * 1.5))) % 2 == 1
    else:
        mask = np.zeros(len(pos), dtype=bool)
    return np.where(mask[:, None], other, base)


def _face(pos: np.ndarray, colour: np.ndarray, look: dict, eyes: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Brows, shadowed eye sockets (lids and lashes) and lips on the front of the head, at rest points `pos`."""
    out = colour.copy()
    front = pos[:, 1] < eyes[0][1] + 0.03
    brow_colour = np.minimum(look["hair"], 0.25)
    for centre in eyes:
        dx, dz = pos[:, 0] - centre[0], pos[:, 2] - centre[2]
        socket = front & ((dx / 0.019) ** 2 + (dz / 0.010) ** 2 < 1)
        out[socket] = look["skin"] * 0.5
        outward = dx * np.sign(centre[0])
        brow = front & (np.abs(outward - 0.003) < 0.021) & (dz > 0.016 - 0.1 * outward) & (dz < 0.025 - 0.1 * outward)
        out[brow] = brow_colour
    centre_z = (eyes[0][2] + eyes[1][2]) / 2
    lips = front & ((pos[:, 0] / 0.024) ** 2 + ((pos[:, 2] - centre_z + 0.072) / 0.007) ** 2 < 1)
    out[lips] = look["skin"] * np.array([0.72, 0.45, 0.45])
    return out
