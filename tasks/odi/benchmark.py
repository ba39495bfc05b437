"""ODI-Bench's identity: `BENCHMARK`, its name (its folder under the output root, its config section).

Every module of the benchmark takes the name from here."""

BENCHMARK = "odi"
