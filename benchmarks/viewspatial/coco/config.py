"""Config of ViewSpatial-Bench's COCO person-orientation half (docs/design/viewspatial.md §2): labels, estimators, the
synthetic set."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from benchfoundry.benchmarks.viewspatial.wordings import check_templates
from benchfoundry.configs.base import MAX_SIDE_PX, Count, DenoisedRenderSection, Section, Share
from benchfoundry.core.directions import HORIZONTAL_LABELS


class CocoSplit(Section):
    """One split of real COCO: the person-keypoints file, its images, and optionally the instances file."""

    annotations: Path = Field(description="person_keypoints_*.json")
    images: Path = Field(description="folder of the split's images (file_name is relative to it)")
    instances: Path | None = Field(
        None, description="instances_*.json: other objects' boxes for Per-Rel. Dir. candidates; None: none asked"
    )
    captions: Path | None = Field(
        None, description="captions_*.json: names a lone subject by its captions' noun (man, woman, …); None: person"
    )


#: Framings of the synthetic set (the frame's bottom edge): the whole person, above the knees, below the hips,
#: below the shoulders.
FRAMINGS = ("whole", "knees", "hips", "shoulders")
#: The framing a second person of an image is scored under (they stand wherever the first person's framing
#: leaves them).
SECOND_FRAMING = "second person"
#: The release's wordings per task (wording → weight: how many of its items use it, where the issue counting them
#: quotes that; equal weights where it does not).
CAM_OBJ_TEMPLATES = {
    "Taking the camera lens as the front, what direction is {subject} looking toward?": 1.0,
    "Taking the camera's viewpoint as the front, which way is {subject} facing in the image?": 1.0,
    "With the camera's viewpoint as the front, which direction is {subject} facing in the image?": 1.0,
    "Considering the camera's perspective as the front, what direction is {subject} facing within the picture?": 1.0,
}
PER_OBJ_TEMPLATES = {
    "As {subject} in the photo, in which direction are you facing?": 1.0,
    "Imagine you're {subject} in this image \u2014 which direction are you facing?": 1.0,
    "Picture yourself as {subject}; which way are you looking in the scene?": 1.0,
    "Suppose you are in {subject}\u2019s position, what direction are you facing?": 1.0,
}
#: Per-Rel. Dir.'s direction wordings and how many of the release's items use each shape (its subjects and
#: targets in any words; 655 of its 842 items, the "which hand" items 162 more).
PER_REL_TEMPLATES = {
    "From the perspective of {subject}, where is {target} located?": 186.0,
    "From the perspective of {subject}, where is {target}?": 167.0,
    "From {subject}'s perspective, where is {target} positioned?": 68.0,
    "From the perspective of {subject}, where is {target} positioned?": 65.0,
    "From {subject}'s perspective, where is {target} located?": 65.0,
    "From the perspective of {subject}, in which direction is {target}?": 48.0,
    "From {subject}'s perspective, where is {target}?": 29.0,
    "From {subject}'s perspective, in which direction is {target}?": 25.0,
    "From {subject}'s perspective, in which direction is {target} located?": 4.0,
    "From the perspective of {subject}, in which direction is {target} located?": 3.0,
}
#: "Which hand" wordings (two options, "A. left\nB. right", the person's own sides): the release asks what the
#: hand does, 82, 37, 22 and 12 times in these shapes ("Which hand is {x}?", "Which hand does {x} use to hold
#: {x}?", "Which hand does {x} hold {x}?", "Which hand is {x} using to hold {x}?").
HAND_TEMPLATES = {
    "Which hand is {subject} holding {target} with?": 82.0,
    "Which hand does {subject} use to hold {target}?": 37.0,
    "Which hand does {subject} hold {target} with?": 22.0,
    "Which hand is {subject} using to hold {target}?": 12.0,
}
#: What a synthetic person holds (benchmarks/viewspatial/coco/held_objects.KINDS builds each).
HELD_OBJECTS = ("cell phone", "cup", "bottle", "book", "handbag", "suitcase", "tennis racket", "umbrella")
#: How a clothing colour names a person, after the release ("the man in white", "the woman in black clothes").
COLOUR_PHRASES = {"in {colour}": 1.0, "in {colour} clothes": 1.0}
#: The release's Cam-Obj. Ori. answers (its 996 items; facing the camera is "back").
RELEASE_FACINGS = {"back": 267.0, "left": 204.0, "back-right": 152.0, "right": 146.0, "back-left": 140.0,
                   "front-left": 34.0, "front": 33.0, "front-right": 20.0}  # fmt: skip
#: The release's Per-Rel. Dir. answers of its 669 direction items (its "which hand" and "which foot" items apart).
RELEASE_PER_REL = {"front": 199.0, "right": 114.0, "left": 111.0, "front-right": 72.0, "back": 61.0,
                   "front-left": 53.0, "back-right": 30.0, "back-left": 29.0}  # fmt: skip
#: The release's Per-Obj. Ori. answers in the five head-turn labels (986 of its 996 items).
RELEASE_HEAD_TURNS = {"front": 570.0, "front-right": 146.0, "front-left": 141.0, "right": 78.0, "left": 51.0}
#: The head-turn labels' bins of Δ, degrees (orientation.head_turn; negative: the person's own left).
HEAD_TURN_BINS = {"left": (-90.0, -60.0), "front-left": (-60.0, -20.0), "front": (-20.0, 20.0),
                  "front-right": (20.0, 60.0), "right": (60.0, 90.0)}  # fmt: skip
#: Degrees a drawn yaw or head turn keeps clear of its label's bin edges, so that the label survives the
#: labeller's margin and an action's own turn of pelvis or head.
DRAW_CLEARANCE_DEG = 7.5


def head_turn_range(label: str, max_head_deg: float) -> tuple[float, float] | None:
    """The head turns Δ drawn for `label`: its bin within ±`max_head_deg`, `DRAW_CLEARANCE_DEG` clear of the
    bin's edges; None when nothing is left."""
    lo, hi = HEAD_TURN_BINS[label]
    lo, hi = max(lo, -max_head_deg) + DRAW_CLEARANCE_DEG, min(hi, max_head_deg) - DRAW_CLEARANCE_DEG
    return (lo, hi) if lo < hi else None


#: The release's people by noun (its Cam-Obj. Ori. persons: man 1,317, woman 735, boy 240, girl 137).
PEOPLE = {"man": 1317.0, "woman": 735.0, "boy": 240.0, "girl": 137.0}


def as_weights(value: Any) -> Any:
    """A list of wordings as equal weights; anything else as given (pydantic checks it)."""
    if isinstance(value, (list, tuple)):
        return dict.fromkeys(value, 1.0)
    return value


#: Wordings and their weights (a list gives equal weights).
Wordings = Annotated[dict[str, float], BeforeValidator(as_weights)]


def label_weights(field: str, weights: Mapping[str, float], labels: Collection[str]) -> dict[str, float]:
    """`weights` (label → weight ≥ 0, not all 0) over `labels`; ValueError naming the field otherwise."""
    unknown = sorted(set(weights) - set(labels))
    if unknown or not weights or any(not w >= 0 for w in weights.values()) or not sum(weights.values()) > 0:
        raise ValueError(f"{field}: weights ≥ 0 (not all 0) of {list(labels)}, got {dict(weights)}")
    return dict(weights)


class SyntheticCocoConfig(DenoisedRenderSection):
    """The embedded default (docs/design/defaults.md §6): the Anny person rendered with known body and head yaw."""

    images: dict[str, Count] = Field(
        default_factory=lambda: {"val": 24, "train": 12}, description="split → number of rendered images"
    )
    part_images: int = Field(
        100,
        ge=1,
        le=100_000,
        description="images of a split rendered by one task (the last part fewer): a split's parts render in "
        "parallel, and a larger split renders only its new parts",
    )
    width: int = Field(240, ge=32, le=MAX_SIDE_PX)
    height: int = Field(320, ge=32, le=MAX_SIDE_PX)
    # 2 spp denoised (FAST prefilter, BALANCED network): bench/render_quality.py, docs/performance.md
    samples: int = Field(2, ge=1, description="Cycles samples per pixel")
    object_share: Share = Field(0.5, description="share of images with objects around the person")
    two_person_share: Share = Field(
        0.3, description="share of images with a second person (a Per-Rel. Dir. target and viewer)"
    )
    three_person_share: Share = Field(
        0.15,
        description="share of images with three people, the first between the others (place alone then does not "
        "name one of three of a noun: a clothing phrase does); drawn apart from the other choices, so the rest "
        "of an image stays as drawn",
    )
    beside_share: Share = Field(
        0.75,
        description="share of second people who stand beside the first, at about their depth on the side the first "
        "faces (the camera panned to make room), instead of farther back: a Per-Rel. Dir. target in front of a "
        "viewer who faces sideways; drawn apart from the other choices",
    )
    texture_ids: list[int] | None = Field(
        None,
        description="the set's people (texture ids: outfit and, with Anny, phenotype; people of one image differ "
        "where there are enough); null: person.textures.ids",
    )
    framings: dict[str, float] = Field(
        default_factory=lambda: {"whole": 0.15, "knees": 0.3, "hips": 0.3, "shoulders": 0.25},
        description="framing → weight: the whole person, or the frame's bottom edge above the knees, below the "
        "hips or below the shoulders (head and shoulders)",
    )
    max_head_deg: float = Field(80.0, ge=0, le=120, description="largest head turn drawn, degrees either way")
    facings: dict[str, float] = Field(
        default_factory=lambda: dict(RELEASE_FACINGS),
        description="facing label → weight of each person's drawn body yaw as the camera sees it (Cam-Obj. Ori.'s "
        "answer, facing the camera is back); the release's 996 answers",
    )
    head_turns: dict[str, float] = Field(
        default_factory=lambda: dict(RELEASE_HEAD_TURNS),
        description="head-turn label → weight of each person's drawn head turn (Per-Obj. Ori.'s answer; a label "
        "reaching past max_head_deg is drawn up to it); the release's answers",
    )
    people: dict[str, float] = Field(
        default_factory=lambda: dict(PEOPLE),
        description="noun → weight of each person drawn (Anny's gender and age: man, woman, boy, girl); the "
        "release's man 1,317 : woman 735 : boy 240 : girl 137",
    )
    held_share: Share = Field(0.3, description="share of images whose first person holds an object in one hand")
    held_objects: list[str] = Field(
        default_factory=lambda: list(HELD_OBJECTS),
        description=f"what a person holds (COCO names, one drawn per image): of {list(HELD_OBJECTS)}",
    )

    @model_validator(mode="after")
    def _framings(self) -> SyntheticCocoConfig:
        unknown = sorted(set(self.framings) - set(FRAMINGS))
        if unknown or not self.framings or any(w < 0 for w in self.framings.values()):
            raise ValueError(f"framings: weights ≥ 0 of {list(FRAMINGS)}, got {self.framings}")
        if sum(self.framings.values()) <= 0:
            raise ValueError("framings: the weights sum to 0")
        return self

    def part_ranges(self, split: str) -> list[range]:
        """The image numbers (1-based) of each render part of a split: `part_images` a part, the last fewer."""
        n, size = self.images[split], self.part_images
        return [range(first, min(first + size, n + 1)) for first in range(1, n + 1, size)]

    @field_validator("facings")
    @classmethod
    def _facings(cls, facings: dict[str, float]) -> dict[str, float]:
        return label_weights("viewspatial.coco.synthetic.facings", facings, HORIZONTAL_LABELS)

    @model_validator(mode="after")
    def _head_turns(self) -> SyntheticCocoConfig:
        field = "viewspatial.coco.synthetic.head_turns"
        label_weights(field, self.head_turns, tuple(HEAD_TURN_BINS))
        out = [k for k, w in self.head_turns.items() if w > 0 and head_turn_range(k, self.max_head_deg) is None]
        if out:
            raise ValueError(f"{field}: {out} lie beyond max_head_deg {self.max_head_deg:g}; give them weight 0")
        return self

    @field_validator("people")
    @classmethod
    def _nouns(cls, people: dict[str, float]) -> dict[str, float]:
        return label_weights("people", people, PEOPLE)

    @field_validator("held_objects")
    @classmethod
    def _held(cls, names: list[str]) -> list[str]:
        if not names or set(names) - set(HELD_OBJECTS):
            raise ValueError(f"held_objects: one or more of {list(HELD_OBJECTS)}, got {names}")
        return names

    @field_validator("texture_ids")
    @classmethod
    def _valid_ids(cls, ids: list[int] | None) -> list[int] | None:
        if ids is not None and (not ids or any(i < 0 for i in ids) or len(set(ids)) != len(ids)):
            raise ValueError(f"texture_ids: distinct non-negative integers or null, got {ids}")
        return ids


class OrientAnythingConfig(Section):
    """Orient-Anything (DINOv2 backbone + MLP head), read by path only: nothing is downloaded."""

    dinov2_dir: Path | None = Field(None, description="local DINOv2 folder (config.json + weights, transformers)")
    checkpoint: Path | None = Field(None, description="the orientation head's (or whole model's) weights, .pt/.pth")
    device: str = Field("cpu", description="torch device, e.g. cpu, cuda, cuda:1")
    image_size: int = Field(224, ge=14, description="crop side fed to the backbone, px (a multiple of the patch)")
    max_polar_deg: float = Field(
        60.0, ge=0, le=90, description="a crop seen from further above or below is rejected as an implausible angle"
    )
    max_rotation_deg: float = Field(
        45.0, ge=0, le=180, description="a crop rolled further in the image plane is rejected as an implausible angle"
    )
    foreground_ratio: float = Field(
        0.85,
        gt=0,
        le=1,
        description="a crop is padded to a square and then to side / ratio, centred, black (their demo's "
        "resize_foreground), before the processor's resize and centre crop",
    )


class PersonRelConfig(Section):
    """Per-Rel. Dir.: "from this person's viewpoint, where is X?" (docs/design/viewspatial.md §2.4); X is another object
    or person."""

    renamed_keys = (
        "viewspatial.coco.per_rel",
        {
            "release_unverified": "viewspatial.coco.per_rel.release_unreviewed",
            "template": "viewspatial.coco.per_rel.templates",
            "limb_templates": "viewspatial.coco.per_rel.hand_templates (the release asks which hand holds "
            "something, never which is nearer)",
            "limb_share": "viewspatial.coco.per_rel.hand_share",
            "limb_min_gap": "viewspatial.coco.per_rel.hand_touch",
        },
    )

    templates: Wordings = Field(
        default_factory=lambda: dict(PER_REL_TEMPLATES),
        description="direction wordings → weights, one drawn per item: {subject} the viewer, {target} the object or "
        "person asked about",
    )
    margin_deg: float = Field(10.0, ge=0, description="skip an object this close to a label boundary")
    min_object_area_ratio: Share = Field(0.005, description="least object area / image area asked about")
    per_image: int | None = Field(
        None, ge=1, description="most items per image (drawn by the seed; the release has one); null: all"
    )
    release_unreviewed: bool = Field(
        False, description="real COCO candidates not yet reviewed are released too, as verified: false"
    )
    answer_weights: dict[str, float] = Field(
        default_factory=lambda: dict(RELEASE_PER_REL),
        description="answer label → weight by which an image's direction items are drawn when it has more than "
        "`per_image` (as the release's annotators chose what to ask); the release's answers",
    )
    described_share: Share = Field(
        0.85,
        description="as coco.described_share, for the people Per-Rel. Dir. names (the release describes more of "
        "them: 53 % of its subjects, 39 % a plain noun); those sharing their noun are named by place where their "
        "colour does not single them out, and anyone whose colour goes unmeasured by noun alone, so 0.85 of the "
        "others are described to come near the release's share (measured on the rehearsal at 10 % with the set's "
        "default people, texture ids 0–11: 58 % with seed 0, 45 % with seed 1; 0.7 gave 55 % and 38 %, 1.0 65 % and "
        "54 %; the rehearsal's people in solid colours now set their own, 0.4); "
        "drawn by the same per-person draw, so a person described in the orientation tasks is described here too",
    )
    hand_templates: Wordings = Field(
        default_factory=lambda: dict(HAND_TEMPLATES),
        description="two-option 'which hand' wordings → weights: {subject} the person, {target} what they hold",
    )
    hand_share: Share = Field(
        1.0,
        description="chance that an image whose person holds something is asked 'which hand' rather than its "
        "direction items",
    )
    hand_touch: float = Field(
        0.02,
        ge=0,
        description="real COCO: a wrist keypoint this far (× the person's box height) outside an object's box still "
        "touches it; a hand is a candidate when exactly one wrist does",
    )

    @model_validator(mode="after")
    def _slots(self) -> PersonRelConfig:
        label_weights("viewspatial.coco.per_rel.answer_weights", self.answer_weights, HORIZONTAL_LABELS)
        check_templates("viewspatial.coco.per_rel.templates", self.templates, ("subject", "target"))
        check_templates("viewspatial.coco.per_rel.hand_templates", self.hand_templates, ("subject", "target"))
        return self


class CocoConfig(Section):
    """Which COCO people are kept, how their orientation is estimated, and where the images come from."""

    renamed_keys = (
        "viewspatial.coco",
        {
            "cam_obj_template": "viewspatial.coco.cam_obj_templates",
            "per_obj_template": "viewspatial.coco.per_obj_templates",
        },
    )

    splits: dict[str, CocoSplit] = Field(
        default_factory=dict, description="split (val, train) → real COCO files; empty: the synthetic set"
    )
    synthetic: SyntheticCocoConfig = SyntheticCocoConfig()
    estimator: Literal["keypoints", "orient-anything"] = Field(
        "keypoints",
        description="keypoints: body yaw from shoulders/hips, head from the face; orient-anything: "
        "DINOv2 + MLP on the head and body crops",
    )
    orient_anything: OrientAnythingConfig = OrientAnythingConfig()
    min_area_ratio: Share = Field(0.2, description="least person area / image area")
    max_people: int = Field(
        4, ge=1, description="most people in an image (the authors kept images with exactly one: 1)"
    )
    min_confidence: Share = Field(0.5, description="least confidence of both yaw estimates")
    shoulder_ratio: float | None = Field(
        None, gt=0, description="frontal shoulder span / torso length; null: calibrated from the file's people"
    )
    head_ratio: float | None = Field(
        None,
        gt=0,
        description="frontal shoulder span / shoulder-to-face height (people without a hip); null: calibrated",
    )
    facing_from: Literal["body", "more-confident"] = Field(
        "body",
        description="Cam-Obj. Ori.'s facing: the body's yaw, or the more confident of the head and body yaws "
        "(docs/design/viewspatial.md §2.2; a turned head then gives its own direction)",
    )
    max_head_turn_deg: float = Field(
        90.0, gt=0, le=90, description="head and body estimates further apart than this are rejected"
    )
    min_head_px: float = Field(
        24.0, ge=0, description="least head height (box top to shoulder line), px: smaller subjects are unreadable"
    )
    min_sharpness: float = Field(
        12.0,
        ge=0,
        description="least variance of the Laplacian of the person's grey crop (scaled to 256 px): blurrier "
        "people are rejected; 0: no blur filter (needs the images)",
    )
    margin_deg: float = Field(5.0, ge=0, description="skip a question whose estimate is this close to a bin edge")
    described_share: Share = Field(
        round(34 / 83, 3),
        description="share of the people alone of their noun in their image ('the man') named by their clothing's "
        "colour instead ('the man in red'; the release: 34 % of its Cam-Obj. Ori. subjects described, 49 % a plain "
        "noun, the rest animals: 41 % of its people); people sharing a noun always are, where the colour singles "
        "them out",
    )
    cam_obj_templates: Wordings = Field(
        default_factory=lambda: dict(CAM_OBJ_TEMPLATES),
        description="Cam-Obj. Ori. wordings (the release's) → weights, one drawn per item; {subject}: 'the woman', …",
    )
    per_obj_templates: Wordings = Field(
        default_factory=lambda: dict(PER_OBJ_TEMPLATES),
        description="Per-Obj. Ori. wordings (the release's) → weights, one drawn per item; {subject}: 'the woman', …",
    )
    colour_phrases: Wordings = Field(
        default_factory=lambda: dict(COLOUR_PHRASES),
        description="how a clothing colour names a person → weights, one drawn per person: {colour} ('in {colour}' "
        "gives 'the man in white')",
    )
    per_rel: PersonRelConfig = PersonRelConfig()

    @model_validator(mode="after")
    def _slots(self) -> CocoConfig:
        check_templates("viewspatial.coco.cam_obj_templates", self.cam_obj_templates, ("subject",))
        check_templates("viewspatial.coco.per_obj_templates", self.per_obj_templates, ("subject",))
        check_templates("viewspatial.coco.colour_phrases", self.colour_phrases, ("colour",))
        return self
