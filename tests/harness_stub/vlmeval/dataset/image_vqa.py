"""VLMEvalKit's custom free-form dataset, as far as the exported classes use it (image_mcq.py)."""

from vlmeval.dataset.image_mcq import CustomMCQDataset


class CustomVQADataset(CustomMCQDataset):
    pass
