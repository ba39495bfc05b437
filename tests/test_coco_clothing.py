"""Described subjects: clothing colour in the instance mask (CIE Lab named colours) and phrases that single
out one person, on real photographs (colours checked by eye) and on hand-made masks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data as skimage_data

from benchfoundry.tasks.viewspatial.coco.clothing import (
    clothing_colour,
    described_phrases,
    dominant_colour,
    polygon_mask,
)
from benchfoundry.tasks.viewspatial.coco.coco_stage import person_colours, subjects
from benchfoundry.tasks.viewspatial.coco.people import Person


def test_named_colours_of_real_clothes() -> None:
    """The astronaut's suit is orange, the cameraman's coat black (by eye); boxes inside each garment."""
    astronaut = skimage_data.astronaut()
    suit = polygon_mask([[40, 300, 120, 300, 120, 480, 40, 480]], (512, 512))  # her right sleeve and side
    assert clothing_colour(astronaut, suit, shoulder_y=240) == "orange"
    camera = np.repeat(skimage_data.camera()[:, :, None], 3, axis=2)
    coat = polygon_mask([[10, 260, 130, 260, 130, 500, 10, 500]], (512, 512))
    assert clothing_colour(camera, coat, shoulder_y=150) == "black"


def test_a_colour_needs_most_of_the_pixels() -> None:
    half = np.array([[250, 250, 250]] * 50 + [[200, 30, 30]] * 50, dtype=np.uint8)
    assert dominant_colour(half, min_share=0.5) in ("white", "red")
    assert dominant_colour(half, min_share=0.6) is None
    assert dominant_colour(np.zeros((0, 3), np.uint8)) is None


def test_phrases_single_out_one_person_or_fall_back_to_place() -> None:
    place = {1: "the man on the left", 2: "the man on the right"}
    assert described_phrases([(1, "man", "white"), (2, "man", "red")], place) == {
        1: "the man in white",
        2: "the man in red",
    }
    assert described_phrases([(1, "man", "white"), (2, "man", "white")], place) == place
    three = {1: "the first man from the left", 2: "the second man from the left", 3: "the third man from the left"}
    found = described_phrases([(1, "man", "white"), (2, "man", "white"), (3, "man", "red")], three)
    assert found == {1: three[1], 2: three[2], 3: "the man in red"}
    # A man whose colour was not measured may wear it too: no colour names the other.
    assert described_phrases([(1, "man", "white"), (2, "man", None)], place) == place
    # A lone noun keeps its bare phrase.
    assert described_phrases([(1, "man", "red"), (2, "woman", "red")], {1: "the man", 2: "the woman"}) == {
        1: "the man",
        2: "the woman",
    }


def test_two_people_of_one_noun_are_named_by_their_clothes(tmp_path: Path) -> None:
    image = np.full((200, 300, 3), 128, np.uint8)
    image[80:200, 20:120] = (200, 30, 30)  # the left person's red shirt
    image[80:200, 180:280] = (30, 70, 200)  # the right person's blue one
    Image.fromarray(image).save(tmp_path / "two.png")
    people = []
    for ann, x0 in ((1, 20), (2, 180)):
        kp = np.zeros((17, 3))
        kp[5], kp[6] = (x0 + 90, 80, 2), (x0 + 10, 80, 2)
        people.append(Person(7, ann, "two.png", (300, 200), (x0, 20.0, 100.0, 180.0), 18000.0, kp))
    polygons = {ann: [[x0, 20, x0 + 100, 20, x0 + 100, 200, x0, 200]] for ann, x0 in ((1, 20), (2, 180))}
    data = {"annotations": [{"id": a, "segmentation": p} for a, p in polygons.items()]}
    colours = person_colours(data, {7: people}, tmp_path)
    assert colours == {1: "red", 2: "blue"}
    names = subjects({7: people}, {1: "man", 2: "man"}, {}, colours)
    assert names == {1: "the man in red", 2: "the man in blue"}
    assert subjects({7: people}, {1: "man", 2: "man"}, {}) == {1: "the man on the left", 2: "the man on the right"}
