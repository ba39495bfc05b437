"""ViewSpatial-Bench's ScanNet half (DESIGN §4.1): reading and writing scans, the synthetic scan, max-coverage
frames, visibility, Cam-Rel. Dir. and Per-Sce. Sim. questions, the per-scan stages."""
