"""ViewSpatial-Bench stages (DESIGN §4): ScanNet reading and writing, synthetic scans, frame selection,
visibility, direction QA; COCO people, their orientation, the synthetic COCO set, their QA; review; the release."""
