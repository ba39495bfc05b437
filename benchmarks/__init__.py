"""The built-in benchmarks, one self-contained folder each: stages, flow, config section, readers, harness
adapters, report page and command-line subcommands; each registers as a plug-in through the
`benchfoundry.benchmarks` entry point group (pipeline/benchmarks.py), as one from another package would."""
