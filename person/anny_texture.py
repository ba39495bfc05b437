"""Procedural clothing and skin tones on Anny's UV layout (MakeHuman's), for texture ids without SMPLitex.

Each texel of the map is traced back to the body: the UV triangles are rasterised into a map of
triangle ids (each grown by a pixel so seams do not bleed), the texel's barycentric coordinates give
its point on the rest body (the neutral phenotype) and its body part, the bone that skins the nearest
corner most. The part and the point's place on the body pick the garment of the id's outfit
(`person/textures.outfit`: the same skin tone, hair, shirt pattern, sleeves, trousers or shorts and
shoes as the fixture body's texture of that id): one skin tone wherever the body is bare, a crew neckline
around the neck, sleeve and trouser hems square to the limb at a length along its bones, hair above a
hairline that goes round the head (forehead, temples, sideburns, over the ears, the nape) with a soft edge
and strands, and a face: brows, shadowed eye sockets, nostrils, lips, and eyeballs with an iris and pupil (a
darker skin with deeper features and a sheen on the forehead, nose and cheekbones, as dark skin shows).
Images are (H, W, 3) uint8 RGB, row 0 at the top, UV v = 0 at the bottom (OBJ convention).
"""

from __future__ import annotations

import functools

import numpy as np

from benchfoundry.person.textures import outfit

#: The white of the eye, dimmed by the lids, and the iris (dark brown).
SCLERA, IRIS = np.array((0.8, 0.77, 0.72)), np.array((0.22, 0.13, 0.07))
#: A soft sheen (centre across and up from the eyes' midpoint, half-widths; metres) on the forehead, the nose's
#: bridge and the cheekbones, where dark skin shows its shine.
SHEEN = (
    (0.0, 0.035, 0.03, 0.015),
    (0.0, -0.02, 0.008, 0.03),
    (-0.035, -0.028, 0.015, 0.01),
    (0.035, -0.028, 0.015, 0.01),
)
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
    neck = heads[labels.index("neck01")]

    def limb(*bones: str) -> tuple[np.ndarray, float, float]:
        joints = np.array([heads[labels.index(b)] for b in bones])
        return joints, *np.linalg.norm(np.diff(joints, axis=0), axis=1)

    return {
        **{"arm" + s: limb("upperarm01" + s, "lowerarm01" + s, "wrist" + s) for s in (".L", ".R")},
        **{"leg" + s: limb("upperleg01" + s, "lowerleg01" + s, "foot" + s) for s in (".L", ".R")},
        "waist": float(heads[labels.index("spine05")][2] + 0.03),
        "head": head,
        "eyes": (heads[labels.index("eye.L")], heads[labels.index("eye.R")]),
        "neck": neck,
        "collar": (float(heads[labels.index("clavicle.L")][2] + 0.033), float(neck[2] - 0.005)),
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
    torso = prefix("spine", "clavicle", "shoulder01", "root", "pelvis", "neck") & ~_neck_skin(pos, marks)
    colour[torso] = _fabric(pos[torso], look)
    low = torso & (z < marks["waist"])
    colour[low] = look["trousers"]
    if look["belt"]:
        colour[torso & (np.abs(z - marks["waist"]) < 0.015)] = (0.12, 0.09, 0.07)
    for side in (".L", ".R"):  # hems square to the limb: a sleeve or trouser leg ends at a length along it
        arm = marks["arm" + side]
        on_arm = prefix("upperarm", "lowerarm") & np.char.endswith(part.astype(str), side)
        hem = 0.45 * arm[1] if not look["long_sleeves"] else arm[1] + arm[2] - 0.025
        sleeve = on_arm & (_along(pos, arm[0]) < hem)
        colour[sleeve] = _fabric(pos[sleeve], look)
        leg = marks["leg" + side]
        on_leg = prefix("upperleg", "lowerleg") & np.char.endswith(part.astype(str), side)
        hem = 0.55 * leg[1] if look["shorts"] else leg[1] + leg[2] - 0.01
        colour[on_leg & (_along(pos, leg[0]) < hem)] = look["trousers"]
    colour[prefix("foot", "toe")] = look["shoes"]
    head = prefix("head")
    colour[head] = _face(pos[head], look, marks)
    for eye_bone, centre in zip(("eye.L", "eye.R"), marks["eyes"]):
        on_eye = part == eye_bone
        colour[on_eye] = _eye(pos[on_eye] - centre, look)
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


def _along(pos: np.ndarray, joints: np.ndarray) -> np.ndarray:
    """Length (m) along the bone chain `joints` (a limb's three joints) to each point's nearest place on it."""
    best, where = np.full(len(pos), np.inf), np.zeros(len(pos))
    start = 0.0
    for a, b in zip(joints[:-1], joints[1:]):
        length = float(np.linalg.norm(b - a))
        t = np.clip((pos - a) @ (b - a) / length**2, 0.0, 1.0)
        dist = np.linalg.norm(pos - (a + t[:, None] * (b - a)), axis=1)
        closer = dist < best
        best[closer], where[closer] = dist[closer], start + t[closer] * length
        start += length
    return where


def _neck_skin(pos: np.ndarray, marks: dict) -> np.ndarray:
    """Rest points above a crew neckline: lower at the throat than at the nape, around the neck's axis."""
    neck = marks["neck"]
    front, back = marks["collar"]
    around = np.arctan2(pos[:, 0] - neck[0], -(pos[:, 1] - neck[1]))
    line = front + (back - front) * (1 - np.cos(around)) / 2
    return (pos[:, 2] > line) & (np.hypot(pos[:, 0] - neck[0], pos[:, 1] - neck[1]) < 0.085)


def _hair_edge(pos: np.ndarray, look: dict, marks: dict) -> np.ndarray:
    """Height (m) above which a rest point of the head is hair: a hairline over the forehead, up at the temples,
    down in front of the ears (sideburns), over them, and to the nape (to the shoulders for long hair)."""
    eye, head = marks["eyes"][0][2], marks["head"]
    around = np.degrees(np.abs(np.arctan2(pos[:, 0] - head[0], -(pos[:, 1] - head[1] + 0.008))))
    nape = head[2] - (0.1 if look["hair_long"] else 0.0)
    knots = ((0, eye + 0.062), (35, eye + 0.064), (60, eye + 0.04), (76, eye + 0.01), (80, eye - 0.022))
    knots += ((86, eye - 0.022), (89, eye + 0.012), (106 if not look["hair_long"] else 95, eye + 0.012), (125, nape))
    angle, height = zip(*knots, (180, nape))
    return np.interp(around, angle, height)


def _face(pos: np.ndarray, look: dict, marks: dict) -> np.ndarray:
    """The head at rest points `pos`: skin, hair with a soft hairline and strands, brows, shadowed eye sockets
    (lids and lashes), nostrils and lips; the darker the skin (`_darkness`), the deeper the sockets, brows and lips
    against it and the more sheen on the forehead, nose and cheekbones."""
    skin, hair = np.asarray(look["skin"]), np.asarray(look["hair"])
    rng = np.random.default_rng(look["noise_seed"] + 1)
    edge = _hair_edge(pos, look, marks) + rng.normal(0.0, 0.0012, len(pos))
    cover = np.clip((pos[:, 2] - edge) / 0.004 + 0.5, 0.0, 1.0)[:, None]
    around = np.arctan2(pos[:, 0] - marks["head"][0], -(pos[:, 1] - marks["head"][1]))
    strands = np.interp(around, np.linspace(-np.pi, np.pi, 721), rng.normal(1.0, 0.09, 721))[:, None]
    out = skin * (1 - cover) + hair * strands * cover
    eyes = marks["eyes"]
    front = pos[:, 1] < eyes[0][1] + 0.03
    dark = _darkness(skin)
    brow_colour = hair * min(1.0, (0.4 - 0.2 * dark) * _luma(skin) / max(_luma(hair), 1e-6))
    for centre in eyes:
        dx, dz = pos[:, 0] - centre[0], pos[:, 2] - centre[2]
        reach = np.sqrt((dx / 0.019) ** 2 + (dz / 0.010) ** 2)  # 1 on the socket's rim
        out[front] *= 1 - (0.55 + 0.25 * dark) * np.clip(1.4 - reach[front], 0.0, 1.0)[:, None]
        outward = dx * np.sign(centre[0])  # m from the eye's centre towards the ear
        along = np.clip((outward + 0.017) / 0.041, 0.0, 1.0)  # 0 at the brow's inner end, 1 at its tail
        middle = 0.02 + 0.004 * np.sin(np.pi * along) - 0.004 * along
        brow = front & (outward > -0.017) & (outward < 0.024) & (np.abs(dz - middle) < 0.005 * (1 - 0.5 * along))
        out[brow] = brow_colour
    centre_z = (eyes[0][2] + eyes[1][2]) / 2
    sheen = np.zeros(len(pos))
    for x, z, half_x, half_z in SHEEN:
        reach = ((pos[:, 0] - x) / half_x) ** 2 + ((pos[:, 2] - centre_z - z) / half_z) ** 2
        sheen = np.maximum(sheen, np.clip(1 - reach, 0.0, 1.0))
    out[front] *= 1 + 0.35 * dark * sheen[front, None]
    for side in (-1, 1):
        nostril = front & (
            ((pos[:, 0] - side * 0.009) / 0.0045) ** 2 + ((pos[:, 2] - centre_z + 0.05) / 0.003) ** 2 < 1
        )
        out[nostril] = skin * 0.3
    lips = front & ((pos[:, 0] / 0.024) ** 2 + ((pos[:, 2] - centre_z + 0.072) / 0.007) ** 2 < 1)
    out[lips] = skin * np.array([0.72, 0.45, 0.45]) * (1 - 0.3 * dark)
    return out


def _luma(rgb: np.ndarray) -> float:
    """Rec. 709 luma of an RGB colour in [0, 1]."""
    return float(np.dot(rgb, (0.2126, 0.7152, 0.0722)))


def _darkness(skin: np.ndarray) -> float:
    """0 for skin of luma 0.5 and above (the four lighter tones of person/textures.SKIN_TONES), rising to 1 at luma
    0.26 (the darkest)."""
    return float(np.clip((0.5 - _luma(skin)) / 0.24, 0.0, 1.0))


def _eye(offset: np.ndarray, look: dict) -> np.ndarray:
    """An eyeball at offsets from its centre: iris and pupil ahead, the sclera under the upper lid's shadow (in a
    darker face a brighter white, less of it shadowed)."""
    unit = offset / np.maximum(np.linalg.norm(offset, axis=1, keepdims=True), 1e-9)
    ahead, up = -unit[:, 1], unit[:, 2]
    dark = _darkness(np.asarray(look["skin"]))
    out = np.tile(SCLERA * (1 + 0.12 * dark), (len(offset), 1))
    out[up > 0.35 + 0.15 * dark] = look["skin"] * 0.35
    out[ahead > 0.8] = IRIS
    out[ahead > 0.95] = (0.03, 0.03, 0.03)
    return out
