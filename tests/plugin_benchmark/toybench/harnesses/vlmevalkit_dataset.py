"""Toy-Bench's VLMEvalKit dataset class, copied beside the TSV file as `benchfoundry_vlmeval_toybench.py` by
`benchfoundry export vlmevalkit`; it runs inside VLMEvalKit (imported only in `classes()`) and imports nothing of
benchfoundry. Asked and scored as VLMEvalKit's own multiple-choice datasets are."""

from __future__ import annotations


def classes() -> list[type]:
    from vlmeval.dataset.image_mcq import CustomMCQDataset

    class BenchfoundryToy(CustomMCQDataset):
        @classmethod
        def supported_datasets(cls) -> list[str]:
            return ["benchfoundry_Toy"]

    return [BenchfoundryToy]
