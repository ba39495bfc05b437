"""The names of SynDORBench's eight actions and their BABEL synonyms (no heavy imports: the config uses them)."""

from __future__ import annotations

#: Action slugs (file names use them), in the released set's order.
ACTIONS: tuple[str, ...] = (
    "kicking", "sneak", "stepping_over", "walking", "cover_face", "choking", "dodging", "guard_up",
)

#: BABEL words per action (matched case-insensitively on proc_label and act_cat).
DEFAULT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "kicking": ("kick", "kicking", "kicks"),
    "sneak": ("sneak", "sneaking", "tiptoe", "tip toe", "creep", "creeping"),
    "stepping_over": ("step over", "stepping over", "steps over", "step over obstacle"),
    "walking": ("walk", "walking", "walks"),
    "cover_face": ("cover face", "covering face", "covers face", "hands on face", "touching face", "face palm"),
    "choking": ("choke", "choking", "chokes", "grab throat", "hands on throat", "strangle"),
    "dodging": ("dodge", "dodging", "dodges", "evade", "duck", "ducking"),
    "guard_up": ("guard", "guard up", "fighting stance", "boxing stance", "defensive stance", "fight"),
}
