"""`vlmeval.dataset`'s registry as `build_dataset` reads it: the classes it tries, and the dataset names."""

DATASET_CLASSES: list[type] = []
SUPPORTED_DATASETS: list[str] = []
