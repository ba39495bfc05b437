"""A question's wordings: the check that every wording names its slots and no other, which the configs of both
halves use (coco/config.py, scannet/config.py)."""

from __future__ import annotations

from collections.abc import Collection, Mapping


def check_templates(field: str, templates: Collection[str], slots: tuple[str, ...]) -> Collection[str]:
    """Templates (a list, or wordings → weights > 0) that name every slot and no other; ValueError naming the
    field otherwise."""
    if not templates:
        raise ValueError(f"{field}: at least one wording")
    if isinstance(templates, Mapping) and any(not w > 0 for w in templates.values()):
        raise ValueError(f"{field}: every wording's weight must be > 0, got {dict(templates)}")
    for t in templates:
        try:
            t.format(**dict.fromkeys(slots, "x"))
        except (KeyError, IndexError, ValueError) as exc:
            named = ", ".join("{" + slot + "}" for slot in slots)
            raise ValueError(f"{field}: {t!r} has a slot other than {named} ({exc})") from None
        absent = [slot for slot in slots if "{" + slot + "}" not in t]
        if absent:
            raise ValueError(f"{field}: {t!r} does not name {', '.join(absent)}")
    return templates
