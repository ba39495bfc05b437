"""`build --plan`'s line of Toy-Bench, from the config alone."""

from benchfoundry.configs.build import BuildConfig
from toybench.identity import BENCHMARK


def plan_text(config: BuildConfig) -> str:
    toy = config.section(BENCHMARK)
    return (
        f"{BENCHMARK}: {toy.items} items, {toy.items} render shards ({toy.size_px}x{toy.size_px} px, "
        f"{toy.samples} Cycles samples), Prefect task runs: {toy.items}"
    )
