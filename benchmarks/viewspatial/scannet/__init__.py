"""ViewSpatial-Bench's ScanNet half (docs/design/viewspatial.md §1): reading and writing scans, the synthetic scan,
max-coverage frames, visibility, Cam-Rel. Dir. and Per-Sce. Sim. questions, the per-scan stages."""
