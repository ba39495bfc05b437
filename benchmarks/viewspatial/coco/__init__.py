"""ViewSpatial-Bench's COCO half (docs/design/viewspatial.md §2): people and their orientation (keypoints,
Orient-Anything), Cam-/Per-Obj. Ori. and Per-Rel. Dir. questions, the synthetic COCO set and the COCO stage."""
