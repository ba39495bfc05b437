"""`benchfoundry runner job-script CONFIG`: the sbatch script a `runner.backend: slurm` build submits."""

from __future__ import annotations

import argparse
import sys

from benchfoundry.pipeline.commands import print_error


def _cmd_job_script(args: argparse.Namespace) -> int:
    from benchfoundry.configs.loader import ConfigError, load_config
    from benchfoundry.flows.cluster import slurm_job_script
    from benchfoundry.flows.prefect_api import configured_api_url

    try:
        config = load_config(args.config, args.set or [])
    except ConfigError as exc:
        print_error(exc)
        return 2
    if config.runner.backend != "slurm":
        print(
            f"note: runner.backend is {config.runner.backend}, not slurm; this is the script a slurm build with the "
            "same runner.slurm section would submit",
            file=sys.stderr,
        )
    runner = config.runner
    api = configured_api_url() or f"http://{runner.prefect_host}:{runner.prefect_port or '<free port>'}/api"
    print(slurm_job_script(runner, api, args.scheduler), end="")
    return 0


def _scheduler_address(text: str) -> str:
    """An argparse type: a Dask scheduler's address, one word the job script can hold (a line break there would
    put a shell line of its own into the script)."""
    from benchfoundry.configs.build import SCHEDULER_ADDRESS

    if not SCHEDULER_ADDRESS.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text[:80]!r} is not a scheduler address (scheme://host:port)")
    return text


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    runner = subparsers.add_parser("runner", help="the build's runner (Dask, SLURM)")
    sub = runner.add_subparsers(dest="runner_command", required=True, metavar="COMMAND")
    p = sub.add_parser("job-script", help="print the sbatch script a slurm build submits for each job")
    p.add_argument("config", help="YAML build config: a file or a preset name")
    p.add_argument("--set", action="append", metavar="KEY.PATH=VALUE", help="override a config value (repeatable)")
    p.add_argument(
        "--scheduler",
        type=_scheduler_address,
        help="scheduler address to show (default: tcp://THIS-HOST:runner.slurm.scheduler_port)",
    )
    p.set_defaults(func=_cmd_job_script)
