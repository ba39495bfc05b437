"""Orchestration only: the build flow over the registered benchmarks, the task runner, the
shard collector, the Dask clusters, the build's Prefect server, stop signals and progress."""
