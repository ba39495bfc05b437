"""Config of ViewSpatial-Bench's COCO person-orientation half (DESIGN §4.2): labels, estimators, the synthetic set."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.configs.base import MAX_SIDE_PX, Count, DenoisedRenderSection, Section, refuse_renamed


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
CAM_OBJ_TEMPLATES = [
    "Taking the camera lens as the front, what direction is {subject} looking toward?",
    "Taking the camera's viewpoint as the front, which way is {subject} facing in the image?",
    "With the camera's viewpoint as the front, which direction is {subject} facing in the image?",
    "Considering the camera's perspective as the front, what direction is {subject} facing within the picture?",
]
PER_OBJ_TEMPLATES = [
    "As {subject} in the photo, in which direction are you facing?",
    "Imagine you're {subject} in this image \u2014 which direction are you facing?",
    "Picture yourself as {subject}; which way are you looking in the scene?",
    "Suppose you are in {subject}\u2019s position, what direction are you facing?",
]
PER_REL_TEMPLATES = [
    "From the perspective of {subject}, where is {target} located?",
    "From the perspective of {subject}, where is {target} positioned?",
    "From the viewpoint of {subject}, in which direction is {target}?",
    "If you were {subject}, where would {target} be relative to you?",
]

#: "Which hand/foot" wordings after the release's ("Which hand of this man is wearing a glove?", "Which hand is
#: the man holding the tennis racket with?"): {limb} is hand or foot; the options are the release's
#: "A. left\nB. right", the person's own sides.
LIMB_TEMPLATES = [
    "Which {limb} of {subject} is closer to {target}?",
    "Which {limb} of {subject} is nearer to {target}?",
    "Which {limb} does {subject} have closer to {target}?",
]


def check_templates(field: str, templates: list[str], slots: tuple[str, ...]) -> list[str]:
    """Templates that name every slot and no other; ValueError naming the field otherwise."""
    if not templates:
        raise ValueError(f"{field}: at least one wording")
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


class SyntheticCocoConfig(DenoisedRenderSection):
    """The embedded default (DESIGN §5): the Anny person rendered with known body and head yaw."""

    images: dict[str, Count] = Field(
        default_factory=lambda: {"val": 24, "train": 12}, description="split → number of rendered images"
    )
    width: int = Field(240, ge=32, le=MAX_SIDE_PX)
    height: int = Field(320, ge=32, le=MAX_SIDE_PX)
    # 2 spp denoised (FAST prefilter, BALANCED network): bench/render_quality.py, README Performance
    samples: int = Field(2, ge=1, description="Cycles samples per pixel")
    object_share: float = Field(0.5, ge=0, le=1, description="share of images with objects around the person")
    two_person_share: float = Field(
        0.3, ge=0, le=1, description="share of images with a second person (a Per-Rel. Dir. target and viewer)"
    )
    three_person_share: float = Field(
        0.15,
        ge=0,
        le=1,
        description="share of images with three people, the first between the others (place alone then does not "
        "name one of three of a noun: a clothing phrase does); drawn apart from the other choices, so the rest "
        "of an image stays as drawn",
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

    @model_validator(mode="after")
    def _framings(self) -> SyntheticCocoConfig:
        unknown = sorted(set(self.framings) - set(FRAMINGS))
        if unknown or not self.framings or any(w < 0 for w in self.framings.values()):
            raise ValueError(f"framings: weights ≥ 0 of {list(FRAMINGS)}, got {self.framings}")
        if sum(self.framings.values()) <= 0:
            raise ValueError("framings: the weights sum to 0")
        return self

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
    """Per-Rel. Dir.: "from this person's viewpoint, where is X?" (DESIGN §4.2); X is another object or person."""

    templates: list[str] = Field(
        default_factory=lambda: list(PER_REL_TEMPLATES),
        description="wordings, one drawn per item: {subject} the viewer, {target} the object or person asked about",
    )
    margin_deg: float = Field(10.0, ge=0, description="skip an object this close to a label boundary")
    min_object_area_ratio: float = Field(0.005, ge=0, le=1, description="least object area / image area asked about")
    per_image: int | None = Field(
        None, ge=1, description="most items per image (drawn by the seed; the release has one); null: all"
    )
    release_unreviewed: bool = Field(
        False, description="real COCO candidates not yet reviewed are released too, as verified: false"
    )
    limb_templates: list[str] = Field(
        default_factory=lambda: list(LIMB_TEMPLATES),
        description="two-option 'which hand/foot' wordings: {limb}, {subject} the person, {target} the object",
    )
    limb_share: float = Field(
        0.205, ge=0, le=1, description="share of images asked 'which hand/foot' (the release: 173 of 842 items)"
    )
    limb_min_gap: float = Field(
        0.15, ge=0, description="least difference of the two hands' (feet's) distances to the target / person height"
    )

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        return refuse_renamed(
            "viewspatial.coco.per_rel",
            data,
            {
                "release_unverified": "viewspatial.coco.per_rel.release_unreviewed",
                "template": "viewspatial.coco.per_rel.templates",
            },
        )

    @model_validator(mode="after")
    def _slots(self) -> PersonRelConfig:
        check_templates("viewspatial.coco.per_rel.templates", self.templates, ("subject", "target"))
        check_templates("viewspatial.coco.per_rel.limb_templates", self.limb_templates, ("limb", "subject", "target"))
        return self


class CocoConfig(Section):
    """Which COCO people are kept, how their orientation is estimated, and where the images come from."""

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
    min_area_ratio: float = Field(0.2, ge=0, le=1, description="least person area / image area")
    max_people: int = Field(
        4, ge=1, description="most people in an image (the authors kept images with exactly one: 1)"
    )
    min_confidence: float = Field(0.5, ge=0, le=1, description="least confidence of both yaw estimates")
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
        "(DESIGN §4.2; a turned head then gives its own direction)",
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
    described_share: float = Field(
        0.3,
        ge=0,
        le=1,
        description="share of the people alone of their noun in an image ('the man') named by their clothing's "
        "colour instead ('the man in red'); people sharing a noun always are, where the colour singles them out",
    )
    cam_obj_templates: list[str] = Field(
        default_factory=lambda: list(CAM_OBJ_TEMPLATES),
        description="Cam-Obj. Ori. wordings (the release's), one drawn per item; {subject}: 'the woman', …",
    )
    per_obj_templates: list[str] = Field(
        default_factory=lambda: list(PER_OBJ_TEMPLATES),
        description="Per-Obj. Ori. wordings (the release's), one drawn per item; {subject}: 'the woman', …",
    )
    per_rel: PersonRelConfig = PersonRelConfig()

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        return refuse_renamed(
            "viewspatial.coco",
            data,
            {
                "cam_obj_template": "viewspatial.coco.cam_obj_templates",
                "per_obj_template": "viewspatial.coco.per_obj_templates",
            },
        )

    @model_validator(mode="after")
    def _slots(self) -> CocoConfig:
        check_templates("viewspatial.coco.cam_obj_templates", self.cam_obj_templates, ("subject",))
        check_templates("viewspatial.coco.per_obj_templates", self.per_obj_templates, ("subject",))
        return self
