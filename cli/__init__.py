"""The `benchfoundry` command line: argument parsing and printing only, calling flows and library functions;
a benchmark's own subcommands come from its descriptor (pipeline/benchmarks.py)."""
