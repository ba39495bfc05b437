"""Render outputs through the compositor: the image, and the object-index pass either through an ID mask
into a binary PNG (a rig's person mask) or whole, as exact integers in a 32-bit EXR handed on as `.npy`
(the instance map of a panorama or a synthetic COCO image).

Cycles writes the object index of the first camera sample of each pixel, without filtering,
so a pixel is in the mask exactly when its first sample hits the person. File Output nodes
write no render-time metadata, so the same input gives the same bytes.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import bpy
import numpy as np

IMAGE_ITEM = "image"
MASK_ITEM = "mask"
#: Items of the instance-map outputs (the written files are `<item>.png` / `<item>.exr`).
INDEXED_IMAGE_ITEM = "panorama"
INDEX_ITEM = "instances"


def _writer(tree: Any, directory: str, item: str, file_format: str, color_mode: str, quality: int) -> Any:
    node = tree.nodes.new("CompositorNodeOutputFile")
    node.directory = directory
    node.file_name = ""
    node.format.media_type = "IMAGE"
    node.format.file_format = file_format
    node.format.color_mode = color_mode
    if file_format == "JPEG":
        node.format.quality = quality
    else:
        node.format.color_depth = "8"
        node.format.compression = 15
    node.file_output_items.new("RGBA" if color_mode == "RGB" else "FLOAT", item)
    return node


def setup_outputs(scene: Any, scratch_dir: str, pass_index: int, image_format: str, quality: int) -> tuple[Path, Path]:
    """Compositor writing the image and the person mask (object index == pass_index) into
    `scratch_dir` at every render; returns the two files' paths."""
    scene.view_layers[0].use_pass_object_index = True
    tree = bpy.data.node_groups.new("passes", "CompositorNodeTree")
    scene.compositing_node_group = tree
    layers = tree.nodes.new("CompositorNodeRLayers")
    tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
    tree.links.new(layers.outputs["Image"], tree.nodes.new("NodeGroupOutput").inputs[0])
    image = _writer(tree, scratch_dir, IMAGE_ITEM, image_format, "RGB", quality)
    tree.links.new(layers.outputs["Image"], image.inputs[IMAGE_ITEM])
    id_mask = tree.nodes.new("CompositorNodeIDMask")
    id_mask.inputs["Index"].default_value = pass_index
    id_mask.inputs["Anti-Alias"].default_value = False
    tree.links.new(layers.outputs["Object Index"], id_mask.inputs["ID value"])
    mask = _writer(tree, scratch_dir, MASK_ITEM, "PNG", "BW", quality)
    tree.links.new(id_mask.outputs["Alpha"], mask.inputs[MASK_ITEM])
    suffix = ".jpg" if image_format == "JPEG" else ".png"
    return Path(scratch_dir) / f"{IMAGE_ITEM}{suffix}", Path(scratch_dir) / f"{MASK_ITEM}.png"


def move_output(written: Path, dest: str) -> None:
    """Move a file the compositor just wrote to the frame's path; across filesystems (a scratch folder
    in /tmp, the output root a network or bind mount) by a copy beside `dest`, then a rename."""
    if not written.exists():
        raise RuntimeError(f"the compositor wrote nothing at {written}")
    target = Path(dest)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(written, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        staged = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            shutil.copyfile(written, staged)
            os.replace(staged, target)
        finally:
            staged.unlink(missing_ok=True)
        written.unlink()


class IndexOutputs(NamedTuple):
    """Where the compositor writes a render's image and its object-index EXR."""

    image: Path
    index: Path


def index_outputs(scene: Any, scratch: Path) -> IndexOutputs:
    """Compositor writing the image (8-bit PNG) and the object-index pass (32-bit EXR) into `scratch` at every
    render; set up once per scene."""
    scene.view_layers[0].use_pass_object_index = True
    tree = bpy.data.node_groups.new("panorama outputs", "CompositorNodeTree")
    scene.compositing_node_group = tree
    layers = tree.nodes.new("CompositorNodeRLayers")
    for item, socket, file_format, depth in (
        (INDEXED_IMAGE_ITEM, "Image", "PNG", "8"),
        (INDEX_ITEM, "Object Index", "OPEN_EXR", "32"),
    ):
        node = tree.nodes.new("CompositorNodeOutputFile")
        node.directory = str(scratch) + "/"
        node.file_name = ""
        node.format.media_type = "IMAGE"
        node.format.file_format = file_format
        node.format.color_mode = "RGB" if file_format == "PNG" else "BW"
        node.format.color_depth = depth
        node.file_output_items.new("RGBA" if file_format == "PNG" else "FLOAT", item)
        tree.links.new(layers.outputs[socket], node.inputs[item])
    return IndexOutputs(scratch / f"{INDEXED_IMAGE_ITEM}.png", scratch / f"{INDEX_ITEM}.exr")


def render_indexed(outputs: IndexOutputs, image_path: str, index_npy: str) -> None:
    """Render: the image to `image_path`, the object-index pass as an integer array to `index_npy` (atomically)."""
    bpy.ops.render.render()
    move_output(outputs.image, image_path)
    ids = read_index_exr(outputs.index)
    outputs.index.unlink()
    target = Path(index_npy)
    staged = target.with_name(f".{target.name}.tmp.npy")
    np.save(staged, ids)
    staged.replace(target)


def read_index_exr(path: Path) -> np.ndarray:
    """The object-index EXR, top row first, as float32 (Blender reads the EXR OpenCV cannot)."""
    image = bpy.data.images.load(str(path))
    w, h = image.size
    pixels = np.empty(w * h * image.channels, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return np.ascontiguousarray(pixels.reshape(h, w, -1)[::-1, :, 0])
