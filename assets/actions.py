"""The built-in actions a person can be posed in (assets/poses.py builds each one)."""

#: The built-in actions' slugs (file names use them), in the order of the released action set.
ACTIONS: tuple[str, ...] = (
    "kicking",
    "sneak",
    "stepping_over",
    "walking",
    "cover_face",
    "choking",
    "dodging",
    "guard_up",
)
