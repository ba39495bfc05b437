"""ViewSpatial-Bench stages (DESIGN §4): ScanNet reading and writing, synthetic scans, frame selection, visibility, QA."""
