"""Faces a face detector finds: OpenCV's stock frontal-face Haar cascade on rendered head-and-shoulders people.

Each person (texture id n, a seeded phenotype, Anny's rest body) is rendered through render/person.py's
mesh and material at a seeded yaw (0 = facing the camera; `yaw_of`), 192×192, face about 75 px high,
Cycles. The cascade (`haarcascade_frontalface_default.xml`, shipped in the opencv wheel) runs on each image;
the bench prints the find rate of the people turned within 30° of the camera (goal ≥ 80 %), of those
turned away, beyond 120° (goal ≤ 5 %), and of those facing by skin tone (person/textures.SKIN_TONES, light to
dark), for today's textures (person/anny_texture.py) and, with `--before REV`, for the textures of git
revision REV rendered in the same run on the same people and yaws.

    nice -n 10 .venv/bin/python bench/face_detection.py [--people 120] [--before HEAD~1] [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchfoundry.person import anny_body, anny_texture
from benchfoundry.person.textures import SKIN_TONES, outfit

ROOT = Path(__file__).resolve().parent.parent
SIZE = 192
FRONT_DEG, AWAY_DEG = 30.0, 120.0


def phenotype(n: int) -> dict[str, float]:
    """A seeded adult phenotype of person n."""
    rng = np.random.default_rng(1000 + n)
    values = {k: float(rng.uniform(0.3, 0.7)) for k in ("muscle", "weight", "height", "proportions")}
    return {"gender": float(n % 2), "age": float(rng.uniform(0.6, 0.85)), **values}


def yaw_of(n: int) -> float:
    """Seeded yaw (degrees, 0 = facing the camera) of person n: two in five within 30° of the camera, two in
    five turned away (beyond 120°), one anywhere."""
    rng = np.random.default_rng(2000 + n)
    if n % 5 < 2:
        return float(rng.uniform(-FRONT_DEG, FRONT_DEG))
    if n % 5 < 4:
        return float(rng.choice([-1.0, 1.0]) * rng.uniform(AWAY_DEG, 180.0))
    return float(rng.uniform(-180.0, 180.0))


def tone_of(n: int) -> int:
    """Person n's skin tone: the index of the nearest of `SKIN_TONES` (0 lightest) to their outfit's skin."""
    return int(np.argmin(np.abs(SKIN_TONES - outfit(n)["skin"]).sum(axis=1)))


def detect_faces(rgb: np.ndarray) -> int:
    """Number of faces OpenCV's stock frontal-face cascade finds in an RGB uint8 image, prepared as OpenCV's own
    cascade tutorial and samples/python/facedetect.py prepare a camera frame: grey, then `equalizeHist` over the
    whole frame. Here the frame is mostly the flat grey world, so the equalisation spreads that one grey over most
    of the range and squeezes a dark face into the lowest levels: what the dark skin tones are found on."""
    import cv2

    cascade = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")
    gray = cv2.equalizeHist(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
    return len(cascade.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24)))


def texture_at(rev: str) -> Callable[[int, int], np.ndarray]:
    """`anny_texture` as person/anny_texture.py reads at git revision `rev`."""
    source = subprocess.run(
        ["git", "show", f"{rev}:person/anny_texture.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType(f"anny_texture_{rev}")
    exec(compile(source, f"{rev}:person/anny_texture.py", "exec"), module.__dict__)
    return module.anny_texture


def _scene():
    """An empty Cycles scene with a camera, a key light and a grey world."""
    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 16
    scene.cycles.use_denoising = False
    scene.render.resolution_x = scene.render.resolution_y = SIZE
    scene.render.image_settings.file_format = "PNG"
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.45, 0.45, 0.45, 1.0)
    scene.world = world
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.data.lens, cam.data.sensor_fit, cam.data.sensor_height = 60.0, "VERTICAL", 36.0
    scene.collection.objects.link(cam)
    scene.camera = cam
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(50), 0.0, math.radians(-20))
    scene.collection.objects.link(sun)
    return scene, cam


def render_heads(
    textures: dict[str, Callable[[int, int], np.ndarray]], people: int, out: Path, only: list[int] | None = None
) -> dict:
    """Render each person (of `only`, when given) under each texture set; {label: [(yaw, image path), ...]}."""
    import bpy

    from benchfoundry.render.person import _mesh, skin_material

    scene, cam = _scene()
    faces, uv = anny_body.faces(), anny_body.corner_uv()
    labels = list(anny_body.load_model()[0].bone_labels)
    shots: dict[str, list[tuple[float, Path]]] = {k: [] for k in textures}
    for n in only if only is not None else range(people):
        rest = anny_body.rest_body(phenotype(n))
        head = rest.bone_poses[labels.index("head"), :3, 3]
        centre = head + np.array([0.0, 0.0, 0.02])
        yaw = yaw_of(n)
        obj = bpy.data.objects.new("person", _mesh("person", rest.vertices, faces, uv.reshape(-1, 2)))
        obj.rotation_euler = (0.0, 0.0, math.radians(yaw))
        obj.location = (-np.array(_rot_z(yaw) @ centre) + centre).tolist()
        scene.collection.objects.link(obj)
        cam.location = (centre + np.array([0.0, -1.0, 0.0])).tolist()
        cam.rotation_euler = (math.radians(90), 0.0, 0.0)
        for label, fn in textures.items():
            png = out / f"tex_{label}_{n}.png"
            _write_png(png, fn(n, 512))
            mat = skin_material(str(png))
            obj.data.materials.clear()
            obj.data.materials.append(mat)
            scene.render.filepath = str(out / f"{label}_{n:03d}.png")
            bpy.ops.render.render(write_still=True)
            shots[label].append((yaw, Path(scene.render.filepath)))
        mesh = obj.data
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
    return shots


def _rot_z(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _write_png(path: Path, rgb: np.ndarray) -> None:
    import cv2

    cv2.imwrite(str(path), np.ascontiguousarray(rgb[:, :, ::-1]))


def find_rates(shots: list[tuple[float, Path]]) -> tuple[int, int, int, int]:
    """(found facing, facing, found away, away) over rendered (yaw, image) pairs."""
    found_f = facing = found_a = away = 0
    for yaw, path in shots:
        hit = _found(path)
        if abs(yaw) <= FRONT_DEG:
            facing, found_f = facing + 1, found_f + hit
        elif abs(yaw) >= AWAY_DEG:
            away, found_a = away + 1, found_a + hit
    return found_f, facing, found_a, away


def facing_by_tone(people: list[int], shots: list[tuple[float, Path]]) -> dict[int, tuple[int, int]]:
    """{skin tone: (found, facing)} over the people facing the camera of rendered (yaw, image) pairs."""
    rates: dict[int, tuple[int, int]] = {}
    for n, (yaw, path) in zip(people, shots):
        if abs(yaw) <= FRONT_DEG:
            found, facing = rates.get(tone_of(n), (0, 0))
            rates[tone_of(n)] = (found + _found(path), facing + 1)
    return dict(sorted(rates.items()))


def _found(path: Path) -> bool:
    import cv2

    return detect_faces(cv2.imread(str(path))[:, :, ::-1]) > 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=120)
    parser.add_argument("--before", default=None, help="git revision whose textures to render as 'before'")
    parser.add_argument("--out", type=Path, default=None, help="keep the renders here")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="faces-"))
    out.mkdir(parents=True, exist_ok=True)
    textures = {"after": anny_texture.anny_texture}
    if args.before:
        textures = {"before": texture_at(args.before), **textures}
    shots = render_heads(textures, args.people, out)
    for label, pairs in shots.items():
        ff, f, fa, a = find_rates(pairs)
        facing = f"facing ≤{FRONT_DEG:.0f}°: {ff}/{f} = {ff / max(f, 1):.0%}"
        print(f"{label:6s} {facing}   away ≥{AWAY_DEG:.0f}°: {fa}/{a} = {fa / max(a, 1):.0%}")
        tones = facing_by_tone(list(range(args.people)), pairs)
        print(f"{'':6s} facing by skin tone (0 lightest): " + "  ".join(f"{t}: {f}/{n}" for t, (f, n) in tones.items()))
    print(f"renders in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
