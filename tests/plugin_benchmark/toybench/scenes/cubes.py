"""What item k of a build is: its cube's colour, the order of its options and the cube's turn (no bpy, no Prefect)."""

from __future__ import annotations

from pathlib import Path

from toybench.identity import BENCHMARK, IMAGES

#: Colour name → the cube's emission, linear RGB.
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (1.0, 0.0, 0.0),
    "green": (0.0, 1.0, 0.0),
    "blue": (0.0, 0.0, 1.0),
}
NAMES = tuple(COLOURS)
QUESTION = "What colour is the cube?"


def item_id(k: int) -> str:
    return f"cube{k:04d}"


def colour_of(k: int, seed: int) -> str:
    return NAMES[(seed + k) % len(NAMES)]


def options_of(k: int) -> list[str]:
    """The colour names, turned by 2k places: the correct option's letter varies from item to item."""
    turn = (2 * k) % len(NAMES)
    return list(NAMES[turn:] + NAMES[:turn])


def yaw_of(k: int) -> float:
    return 20.0 + 25.0 * k


def image_name(k: int) -> str:
    """The image's path relative to the released file's folder."""
    return f"{IMAGES}/{item_id(k)}.png"


def image_path(out: str | Path, k: int) -> Path:
    return Path(out) / BENCHMARK / image_name(k)
