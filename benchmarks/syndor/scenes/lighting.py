"""The lighting table (docs/design/syndor.md §2): the released lighting names, their families, sun bearings and groups.

`{time}_{sun direction}` by day (morning, noon, evening; sun from north, south, east or west) and `night`,
13 in the released index's order. A lighting's family is its time of day (or `night`); its group, the
split its raw frames join, is `day` or `night` as the authors' task index has it
(jzyee/SynDORBench `task_index/create_task_idxs.py`): morning and noon are day, everything else, evening
included, is night, and the night-vision rows are the night rows after the ISP. A build may still move
evening to day (`syndor.qa.evening_group`).
"""

from __future__ import annotations

from dataclasses import dataclass

TIMES_OF_DAY: tuple[str, ...] = ("morning", "noon", "evening")
NIGHT = "night"
FAMILIES: tuple[str, ...] = (*TIMES_OF_DAY, NIGHT)
#: Compass bearing of the sun per direction: 0 = north = +Y, 90 = east = +X (the person faces south, −Y).
SUN_BEARING_DEG: dict[str, float] = {"north": 0.0, "south": 180.0, "east": 90.0, "west": 270.0}
GROUPS: tuple[str, ...] = ("day", "night")
#: The authors' grouping: families whose raw frames are day; every other family is night.
DAY_FAMILIES: tuple[str, ...] = ("morning", "noon")
#: The night group's families as the authors index them (evening and night): the ISP's default input.
NIGHT_FAMILIES: tuple[str, ...] = tuple(f for f in FAMILIES if f not in DAY_FAMILIES)


@dataclass(frozen=True)
class Lighting:
    name: str
    family: str
    sun_from: str | None  # None at night

    @property
    def sun_bearing_deg(self) -> float | None:
        return None if self.sun_from is None else SUN_BEARING_DEG[self.sun_from]

    @property
    def is_night(self) -> bool:
        return self.family == NIGHT

    def group(self, evening_group: str = NIGHT) -> str:
        """`day` or `night`: evening goes to `evening_group` (night, as the authors index it, by default)."""
        if self.family == "evening":
            return evening_group
        return "day" if self.family in DAY_FAMILIES else NIGHT


#: Every released lighting by name, in the released order.
LIGHTINGS: dict[str, Lighting] = {
    **{f"{t}_{d}": Lighting(f"{t}_{d}", t, d) for t in TIMES_OF_DAY for d in SUN_BEARING_DEG},
    NIGHT: Lighting(NIGHT, NIGHT, None),
}


def lighting(name: str) -> Lighting:
    """The table's entry; an unknown name is a ValueError listing the known ones."""
    try:
        return LIGHTINGS[name]
    except KeyError:
        raise ValueError(f"unknown lighting {name!r}; known: {', '.join(LIGHTINGS)}") from None


def family(name: str) -> str:
    """`morning`, `noon`, `evening` or `night` of a released lighting name."""
    return lighting(name).family


def lighting_group(name: str, evening_group: str = NIGHT) -> str:
    """`day` or `night` of a released lighting name (`morning_north`, `evening_east`, `night`, …)."""
    return lighting(name).group(evening_group)
