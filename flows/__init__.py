"""Orchestration only: one flow per benchmark with its stage subflows, the build flow, the runner policy, the CLI."""
