"""Described subjects: clothing colour in the instance mask (CIE Lab named colours) and phrases that single
out one person, on real photographs (colours checked by eye) and on hand-made masks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from skimage import data as skimage_data

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages import people as coco_people
from benchfoundry.benchmarks.viewspatial.coco.stages.clothing import (
    NAMED_COLOURS,
    clothing_colour,
    described_phrases,
    dominant_colour,
    image_colours,
    person_polygons,
    polygon_mask,
)
from benchfoundry.benchmarks.viewspatial.coco.stages.coco_stage import label_and_colour, subjects
from benchfoundry.benchmarks.viewspatial.coco.stages.people import CHUNK, Person, read_rgb


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


#: CSS colours (sRGB) and the basic name a person gives them, with a red and a blue at half their brightness
#: (a shirt in shade keeps its name).
KNOWN_COLOURS = {
    "navy": ((0, 0, 128), "blue"),
    "royalblue": ((65, 105, 225), "blue"),
    "steelblue": ((70, 130, 180), "blue"),
    "skyblue": ((135, 206, 235), "blue"),
    "maroon": ((128, 0, 0), "red"),
    "crimson": ((220, 20, 60), "red"),
    "shaded red": ((100, 15, 15), "red"),
    "shaded navy": ((15, 30, 85), "blue"),
    "darkgreen": ((0, 100, 0), "green"),
    "forestgreen": ((34, 139, 34), "green"),
    "limegreen": ((50, 205, 50), "green"),
    "mediumseagreen": ((60, 179, 113), "green"),
    "mint green in sun": ((122, 180, 147), "green"),
    "gold": ((255, 215, 0), "yellow"),
    "silver": ((192, 192, 192), "white"),
    "whitesmoke": ((245, 245, 245), "white"),
    "dimgray": ((105, 105, 105), "grey"),
    "slategray": ((112, 128, 144), "grey"),
    "black": ((0, 0, 0), "black"),
    "hotpink": ((255, 105, 180), "pink"),
    "indigo": ((75, 0, 130), "purple"),
    "darkorange": ((255, 140, 0), "orange"),
    "saddlebrown": ((139, 69, 19), "brown"),
    "tan": ((210, 180, 140), "brown"),
}


def test_known_colours_get_their_basic_name() -> None:
    """Steel blue, sky blue, a mint green and tan are not grey or white, a shaded navy not purple (one anchor a
    name got these wrong)."""
    for name, (rgb, basic) in KNOWN_COLOURS.items():
        assert dominant_colour(np.array([rgb], dtype=np.uint8)) == basic, name


def test_phrases_single_out_one_person_or_fall_back_to_place() -> None:
    place = {1: "the man on the left", 2: "the man on the right"}
    both = {1, 2}
    assert described_phrases([(1, "man", "white"), (2, "man", "red")], place, both) == {
        1: "the man in white",
        2: "the man in red",
    }
    assert described_phrases([(1, "man", "white"), (2, "man", "red")], place, {2}) == {
        1: "the man on the left",
        2: "the man in red",
    }
    assert described_phrases([(1, "man", "white"), (2, "man", "white")], place, both) == place
    three = {1: "the first man from the left", 2: "the second man from the left", 3: "the third man from the left"}
    found = described_phrases([(1, "man", "white"), (2, "man", "white"), (3, "man", "red")], three, {1, 2, 3})
    assert found == {1: three[1], 2: three[2], 3: "the man in red"}
    # A man whose colour was not measured may wear it too: no colour names the other.
    assert described_phrases([(1, "man", "white"), (2, "man", None)], place, both) == place
    # A lone noun's colour names them too.
    assert described_phrases([(1, "man", "red"), (2, "woman", "red")], {1: "the man", 2: "the woman"}, both) == {
        1: "the man in red",
        2: "the woman in red",
    }


def _people(
    tmp_path: Path, shirts: list[tuple[int, int, int]], image_id: int = 7, first_id: int = 1
) -> tuple[list[Person], dict[str, Any]]:
    """People standing side by side (100 px apart) in a grey image, each in their shirt, with a polygon."""
    image = np.full((200, 100 * len(shirts) + 100, 3), 128, np.uint8)
    image[::2, ::2] = 100  # texture, so that the blur filter lets the people through
    people, anns = [], []
    name = f"{image_id:06d}.png"
    for k, shirt in enumerate(shirts):
        x0 = 20 + 100 * k
        image[80:200, x0 : x0 + 80] = shirt
        kp = np.zeros((17, 3))
        kp[5], kp[6] = (x0 + 70, 80, 2), (x0 + 10, 80, 2)
        people.append(Person(image_id, first_id + k, name, image.shape[1::-1], (x0, 20.0, 80.0, 180.0), 14400.0, kp))
        anns.append({"id": first_id + k, "segmentation": [[x0, 20, x0 + 80, 20, x0 + 80, 200, x0, 200]]})
    Image.fromarray(image).save(tmp_path / name)
    return people, {"annotations": anns}


def _colours(tmp_path: Path, people: list[Person], data: dict[str, Any]) -> dict[int, str | None]:
    return image_colours(read_rgb(tmp_path / people[0].file_name), people, person_polygons(data))


def test_two_people_of_one_noun_are_named_by_their_clothes_and_lone_nouns_at_the_share(tmp_path: Path) -> None:
    people, data = _people(tmp_path, [(200, 30, 30), (30, 70, 200)])
    colours = _colours(tmp_path, people, data)
    assert colours == {1: "red", 2: "blue"}
    assert subjects({7: people}, {1: "man", 2: "man"}, {}, colours) == {1: "the man in red", 2: "the man in blue"}
    # the same colour does not single either out: place does
    same = {1: "red", 2: "red"}
    assert subjects({7: people}, {1: "man", 2: "man"}, {}, same) == {
        1: "the man on the left",
        2: "the man on the right",
    }
    # a man and a woman: each noun names its person alone; described at the share
    pair = {1: "man", 2: "woman"}
    assert subjects({7: people}, pair, {}, colours) == {1: "the man", 2: "the woman"}
    assert subjects({7: people}, pair, {}, colours, 1.0) == {1: "the man in red", 2: "the woman in blue"}
    drawn = [subjects({7: people}, pair, {}, colours, 0.5, seed) for seed in range(40)]
    described = sum(" in " in phrase for names in drawn for phrase in names.values())
    assert 20 <= described <= 60  # half of 80, drawn


def test_one_of_three_of_a_noun_is_named_by_clothes_not_place(tmp_path: Path) -> None:
    """Left and right do not single out the middle man of three: his colour does, with no share asked."""
    people, data = _people(tmp_path, [(200, 30, 30), (30, 70, 200), (40, 150, 50)])
    colours = _colours(tmp_path, people, data)
    names = subjects({7: people}, dict.fromkeys((1, 2, 3), "man"), {}, colours)
    assert names == {1: "the man in red", 2: "the man in blue", 3: "the man in green"}
    # Two of them in red: only the green man's colour names him; the others keep their place.
    people, data = _people(tmp_path, [(200, 30, 30), (200, 30, 30), (40, 150, 50)])
    names = subjects({7: people}, dict.fromkeys((1, 2, 3), "man"), {}, _colours(tmp_path, people, data))
    assert names == {1: "the first man from the left", 2: "the second man from the left", 3: "the man in green"}


def test_one_shoulder_in_view_is_enough_to_measure_the_top(tmp_path: Path) -> None:
    """A person at the image's edge with one shoulder labelled: their top is measured below that shoulder's row,
    as clothing_colour measures it; with no shoulder labelled, nothing is measured."""
    people, data = _people(tmp_path, [(200, 30, 30), (30, 70, 200)])
    people[1].keypoints[6] = 0  # the right shoulder out of the image, unlabelled
    image = read_rgb(tmp_path / people[0].file_name)
    mask = polygon_mask(data["annotations"][1]["segmentation"], people[1].size)
    colours = _colours(tmp_path, people, data)
    assert colours[2] == clothing_colour(image, mask, float(people[1].keypoints[5, 1])) == "blue"
    people[1].keypoints[5] = 0
    assert 2 not in _colours(tmp_path, people, data)


def test_a_person_with_no_shoulder_in_view_keeps_place_and_stands_in_no_ones_way(tmp_path: Path) -> None:
    """Two men; the second shows no shoulder (his top outside the image, so no colour is measured on it): the
    first man is named by his clothes, which the second cannot be seen to share, and the second by place."""
    people, data = _people(tmp_path, [(200, 30, 30), (30, 70, 200)])
    people[1].keypoints[[5, 6]] = 0
    colours = _colours(tmp_path, people, data)
    assert colours == {1: "red"}
    assert subjects({7: people}, {1: "man", 2: "man"}, {}, colours) == {1: "the man in red", 2: "the man on the right"}
    place = {1: "the man on the left", 2: "the man on the right"}
    assert described_phrases([(1, "man", "red"), (2, "man", None)], place, {1, 2}) == place
    assert described_phrases([(1, "man", "red"), (2, "man", "red")], place, {1, 2}, topless={2}) == {
        1: "the man in red",
        2: "the man on the right",
    }


def _coco(people: list[Person], data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """COCO `images` and person `annotations` (keypoints, box, area) of `_people`'s people."""
    images = [{"id": people[0].image_id, "file_name": people[0].file_name, "width": people[0].size[0],
               "height": people[0].size[1]}]  # fmt: skip
    anns = [
        {
            **ann,
            "image_id": p.image_id,
            "category_id": 1,
            "iscrowd": 0,
            "bbox": list(p.bbox),
            "area": p.area,
            "keypoints": p.keypoints.reshape(-1).tolist(),
        }  # fmt: skip
        for p, ann in zip(people, data["annotations"])
    ]
    return images, anns


def test_each_image_is_decoded_once_and_its_people_coloured_as_on_an_image_read_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone person, then eight images of two (the last pair straddles the labelling's chunks), and an image
    whose one person is too small to label: the labelling decodes each image of a labelled person once, and
    the colours it returns are those measured on each image decoded apart (the shirts' own names); the image
    of no labelled person is not read."""
    shirts = list(NAMED_COLOURS.values())
    groups = [[shirts[0]]] + [[shirts[k % len(shirts)], shirts[(k + 1) % len(shirts)]] for k in range(1, 9)]
    assert sum(map(len, groups[:-1])) < CHUNK < sum(map(len, groups))
    images, anns, expected, folders = [], [], {}, {}
    for image_id, group in enumerate(groups + [[shirts[1]]], start=1):
        people, data = _people(tmp_path, group, image_id, 10 * image_id)
        if image_id > len(groups):
            people = [replace(people[0], area=100.0)]  # below the area ratio
        found = _coco(people, data)
        images += found[0]
        anns += found[1]
        folders[image_id] = people
        if image_id <= len(groups):
            expected.update(_colours(tmp_path, people, data))
    names = {p.annotation_id: n for ps, g in zip(folders.values(), groups) for p, n in zip(ps, g)}
    assert expected == {a: next(k for k, v in NAMED_COLOURS.items() if v == rgb) for a, rgb in names.items()}
    real, calls = coco_people.decode_file, []
    monkeypatch.setattr(coco_people, "decode_file", lambda path, *a: calls.append(Path(path).name) or real(path, *a))
    config = CocoConfig(estimator="keypoints", min_area_ratio=0.05, shoulder_ratio=0.72, head_ratio=1.0)
    labelled, colours = label_and_colour({"images": images, "annotations": anns}, str(tmp_path), config)
    assert sorted(calls) == sorted(ps[0].file_name for i, ps in folders.items() if i <= len(groups))
    assert colours == expected
    assert {p.image_id for p in labelled.usable} == set(range(1, len(groups) + 1))
