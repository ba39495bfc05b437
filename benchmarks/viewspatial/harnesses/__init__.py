"""The benchmark in other tools: its evaluation hooks, harness rows and the adapter modules copied into VLMEvalKit
and lmms-eval."""
