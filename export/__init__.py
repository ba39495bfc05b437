"""A built benchmark in the formats of the harnesses people evaluate with (`benchfoundry export`): VLMEvalKit,
lmms-eval, Hugging Face `datasets`."""
