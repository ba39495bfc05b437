"""A stand-in for the VLMEvalKit package in tests: only what the exported dataset modules use of it."""
