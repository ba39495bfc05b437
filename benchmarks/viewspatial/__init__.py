"""ViewSpatial-Bench stages (docs/design/viewspatial.md): ScanNet reading and writing, synthetic scans, frame selection,
visibility, direction QA; COCO people, their orientation, the synthetic COCO set, their QA; review; the release."""
