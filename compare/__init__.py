"""`benchfoundry compare`: two builds of the benchmarks, or a build and the authors' released files, side by side."""
