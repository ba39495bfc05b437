"""`benchfoundry eval BENCHMARK --build OUT --model NAME [--base-url URL]`: ask a model every item of a built
benchmark through an OpenAI-compatible endpoint (or the seeded random baseline) and score its replies as the
benchmark's authors do, or the project's way (docs/design/evaluation.md §1). What is the benchmark's own (its prompts
and readings, its scores, its judged answers, its own way of asking) its evaluation hook says (evaluation/hooks.py,
evaluation/options.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchfoundry.cli.args import add_args, model_name_problem, path_text
from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.core.retry import MODEL_RETRIES
from benchfoundry.core.safe_paths import within
from benchfoundry.evaluation.hooks import Evaluation, evaluation_of
from benchfoundry.evaluation.options import EvalOptions, config_model, offered, with_flags
from benchfoundry.pipeline.benchmarks import get, names
from benchfoundry.pipeline.commands import non_negative_int, positive_int, print_error, print_note, print_out


def _progress(name: str) -> Any:
    def show(done: int, total: int, errors: int) -> None:
        end = "\n" if done == total else ""
        print(f"\r{name}: {done}/{total} items, {errors} errors", end=end, file=sys.stderr, flush=True)

    return show


def _endpoint(prefix: str, **values: Any) -> ModelEndpoint:
    """A ModelEndpoint; a bad value is a ValueError naming its flag (`--base-url`, `--judge-base-url`, …)."""
    from pydantic import ValidationError

    try:
        return ModelEndpoint(**values)
    except ValidationError as exc:
        flags = {"model": "model", "base_url": "base-url", "api_key_env": "api-key-env", "max_retries": "retries"}
        raise ValueError(
            "; ".join(
                f"--{prefix}{flags.get(str(e['loc'][0]), str(e['loc'][0]).replace('_', '-'))}: {e['msg']}"
                for e in exc.errors()
            )
        ) from None


def judge_key_env(args: argparse.Namespace) -> str | None:
    """The environment variable whose key the judge sends: `--judge-api-key-env` when given; else the model's
    (`--api-key-env`) when the judge shares the model's endpoint; else none. A key goes only where it was
    given for: never the model's key to another host, never an ambient `OPENAI_API_KEY` nobody named."""
    if args.judge_api_key_env:
        return args.judge_api_key_env
    shared = not args.judge_base_url or args.judge_base_url.rstrip("/") == (args.base_url or "").rstrip("/")
    return (args.api_key_env or None) if shared else None


def _others_variant(args: argparse.Namespace, evaluation: Evaluation) -> str | None:
    """Why a variant chosen of another benchmark's own way of asking is refused: whose method it is; or None."""
    for options, owners in offered():
        if options is not evaluation.options and options.chosen(args) != options.baseline:
            titles = " and ".join(get(name).title for name in owners)
            return f"{options.flag} is {titles}'s method; use it with " + " or ".join(f"`eval {n}`" for n in owners)
    return None


def _own_variant(args: argparse.Namespace, evaluation: Evaluation) -> tuple[EvalOptions, str] | None:
    """The benchmark's own way of asking and the variant of it the flags choose; None: the baseline, or it has none."""
    options = evaluation.options
    return None if options is None or options.chosen(args) == options.baseline else (options, options.chosen(args))


def _check_flags(args: argparse.Namespace, evaluation: Evaluation) -> str | None:
    """Why the flags do not go together, or None."""
    from benchfoundry.evaluation.baselines import MODEL as RANDOM

    if (problem := model_name_problem(args.model)) is not None:
        return problem
    if (problem := _others_variant(args, evaluation)) is not None:
        return problem
    own = _own_variant(args, evaluation)
    if own is not None and args.blind and own[0].blind:
        return f"{own[0].flag} and --blind do not go together ({own[0].blind})"
    if args.model == RANDOM and (args.blind or own is not None or args.base_url):
        *flags, last = ("--blind", *(options.flag for options, _ in offered()), "--base-url")
        return f"--model random answers without looking or asking: no {', '.join(flags)} or {last}"
    if args.model != RANDOM and not args.base_url:
        return "--base-url is required (only --model random needs no endpoint)"
    return None


def _load_eval_config(path: str | None) -> Any:
    from benchfoundry.configs.loader import load_model

    return load_model(config_model(), path, "evaluation config")


def _build_identity(build: Path) -> dict[str, Any]:
    """The build a result ran on: its folder, and the name and config hash its build.json records."""
    from benchfoundry.core.output_root import read_build_record

    try:
        record = read_build_record(build)
    except ValueError:
        record = {}
    return {"out": str(build.absolute()), "name": record.get("name"), "config_hash": record.get("config_hash")}


def _cmd_eval(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import hold_build_lock

    # the build's lock while eval writes into it: never beside a running build
    with hold_build_lock(args.build):
        return _eval(args)


def _eval(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import check_output_dir
    from benchfoundry.evaluation import run
    from benchfoundry.evaluation.items import load_items

    build = Path(args.build)
    evaluation = evaluation_of(args.benchmark)
    problem = _check_flags(args, evaluation)
    if problem:
        print_error(problem)
        return 2
    try:
        config = with_flags(_load_eval_config(args.eval_config), args)
        common = {"concurrency": args.concurrency, "timeout_s": args.timeout_s, "max_retries": args.retries}
        endpoint = None
        if args.base_url:
            endpoint = _endpoint(
                "", base_url=args.base_url, model=args.model, api_key_env=args.api_key_env or None, **common
            )
        judge = None
        if args.judge_model:
            judge = _endpoint(
                "judge-",
                base_url=args.judge_base_url or args.base_url or "",
                model=args.judge_model,
                api_key_env=judge_key_env(args),
                max_tokens=config.judge.max_tokens,
                **common,
            )
        items = load_items(args.benchmark, build)
        target = check_output_dir(within(build, run.model_dir(build, args.model), "report"))
    except (OSError, ValueError, KeyError) as exc:
        print_error(exc)
        return 2
    items = items[: args.limit] if args.limit is not None else items
    own = _own_variant(args, evaluation)
    name = run.result_name(args.benchmark, args.protocol, None if own is None else own[0].run_name(own[1]), args.blind)
    asked = _ask(args, evaluation, endpoint, config, build, items, name)
    if asked is None:
        return 2
    predictions = run.write_predictions(target / f"{name}.predictions.jsonl", asked[0])
    return _score_and_report(args, evaluation, build, items, asked, predictions, judge, config, target, name)


def _ask(
    args: argparse.Namespace,
    evaluation: Evaluation,
    endpoint: ModelEndpoint | None,
    config: Any,
    build: Path,
    items: list[Any],
    name: str,
) -> tuple[list[dict[str, Any]], dict[str, int] | None] | None:
    """(prediction rows, the client's usage); None when the endpoint refuses the first item (nothing else sent)."""
    from benchfoundry.evaluation import run
    from benchfoundry.evaluation.baselines import random_rows
    from benchfoundry.pipeline.model_client import ModelClient

    if endpoint is None:
        return random_rows(items, evaluation.random_answerer(items, args.protocol), args.seed), None
    # Requests (with their base64 images) are built a few concurrency-widths at a time: 12K panoramas are large.
    chunk = 4 * args.concurrency
    with ModelClient(endpoint, run.eval_dir(build) / "cache") as client:
        own = _own_variant(args, evaluation)
        if own is not None:
            variant, section = own[1], getattr(config, own[0].key)

            def ask(batch: list[Any], progress: Any = None) -> list[dict[str, Any]]:
                return evaluation.ask_variant(client, batch, variant, section, args.protocol, progress, chunk)
        else:

            def ask(batch: list[Any], progress: Any = None) -> list[dict[str, Any]]:
                return run.ask(
                    client, batch, lambda i: evaluation.request(i, args.protocol, args.blind), progress, chunk
                )

        rows = ask(items[:1])
        if rows and rows[0]["error"] and "cannot read" not in rows[0]["error"]:
            print_error(f"{rows[0]['error']} (nothing else sent)")
            return None
        rows += ask(items[1:], _progress(name))
        return rows, client.usage()


def _judged(
    judge: ModelEndpoint,
    config: Any,
    build: Path,
    evaluation: Evaluation,
    judged: list[Any],
    rows: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The judge's verdicts on the free-form items the benchmark's evaluation hands it, and their summary."""
    from benchfoundry.evaluation import run
    from benchfoundry.evaluation.judge import judge_replies, summarise
    from benchfoundry.pipeline.model_client import ModelClient

    with ModelClient(judge, run.eval_dir(build) / "cache") as client:
        verdicts = judge_replies(client, config.judge, judged, rows, rubric_task=evaluation.rubric_task)
    return verdicts, summarise(verdicts, config.judge.scale, evaluation.judge_groups(judged))


def _score_and_report(
    args: argparse.Namespace,
    evaluation: Evaluation,
    build: Path,
    items: list[Any],
    asked: tuple[list[dict[str, Any]], dict[str, int] | None],
    predictions: Path,
    judge: ModelEndpoint | None,
    config: Any,
    target: Path,
    name: str,
) -> int:
    from benchfoundry.core.atomic_files import write_json_atomic
    from benchfoundry.core.redact import redact
    from benchfoundry.evaluation import run
    from benchfoundry.evaluation.baselines import MODEL as RANDOM
    from benchfoundry.evaluation.judge import rubrics_sha256
    from benchfoundry.evaluation.report_page import write_eval_report
    from benchfoundry.pipeline.report_nav import link_pages

    rows, usage = asked
    failed = [r for r in rows if r["error"]]
    for row in failed[:5]:
        print_note(f"{row['id']}: {row['error']}")
    if len(failed) > 5:
        print_note(f"… and {len(failed) - 5} more failed items (see {predictions})")
    score: dict[str, Any] = {
        "model": args.model,
        "bench": args.benchmark,
        "protocol": args.protocol,
        "blind": args.blind,
        **{options.key: options.chosen(args) for options, _ in offered()},
        "seed": args.seed if args.model == RANDOM else None,
        "base_url": redact(args.base_url) if args.model != RANDOM else None,
        "build": _build_identity(build),
        "predictions": str(predictions),
        "failed_items": len(failed),
        "usage": usage,
    }
    judged = evaluation.judged(items)
    summary = None
    if judge is not None and judged and args.model != RANDOM:
        verdicts, summary = _judged(judge, config, build, evaluation, judged, rows)
        run.write_predictions(target / f"{name}.judge.jsonl", verdicts)
        score["judge"] = {
            "model": judge.model,
            "base_url": redact(judge.base_url),
            "scale": config.judge.scale,
            "rubrics_sha256": rubrics_sha256(config.judge),
        }
    try:
        score.update(evaluation.score(build, items, rows, args.protocol, target, name))
    except (OSError, ValueError) as exc:
        print_error(exc)
        return 2
    score.update(evaluation.judge_scores(summary, items))
    path = write_json_atomic(target / f"{name}.json", score)
    if score.get("overall") is not None:
        tasks = ", ".join(f"{t} {a:.3f}" for t, a in score["per_task"].items())
        print(
            f"{name}: overall {score['overall']:.3f} over {score['n']} closed items "
            f"({score['invalid']} invalid, {len(failed)} failed); {tasks}"
        )
    judged_summary = score.get(evaluation.judge_key)
    if evaluation.judge_label and judged_summary:
        print(
            f"{name}: {evaluation.judge_label}, judge mean {judged_summary['overall']} "
            f"over {judged_summary['judged']} items"
        )
    print_out(f"scores: {path}")
    print_out(f"report: {write_eval_report(build, run.eval_dir(build))}")
    link_pages(build / "report")
    return 1 if failed and len(failed) == len(rows) else 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval", help="ask a model behind an OpenAI-compatible endpoint (or the random baseline) every item"
    )
    p.add_argument("benchmark", choices=names())
    p.add_argument("--build", required=True, metavar="OUT", type=path_text, help="the build's output root")
    p.add_argument(
        "--model",
        required=True,
        help="the model's name at the endpoint (`name` or `org/name`), or `random` (no endpoint)",
    )
    p.add_argument("--base-url", help="e.g. http://127.0.0.1:8000/v1 (not with --model random)")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key")
    p.add_argument(
        "--protocol",
        choices=("authors", "project"),
        default="authors",
        help="the benchmark authors' prompt and answer reading (default), or the project's",
    )
    p.add_argument("--blind", action="store_true", help="the question and options without the images")
    for options, _ in offered():
        add_args(p, (options.variant, *options.flags))
    p.add_argument("--judge-model", help="an LLM judge for the free-form answers (the benchmark says which)")
    p.add_argument("--judge-base-url", help="the judge's endpoint (default: --base-url)")
    p.add_argument(
        "--judge-api-key-env",
        help="environment variable holding the judge's key (default: --api-key-env's when the judge shares the "
        "model's endpoint, else no key)",
    )
    p.add_argument(
        "--eval-config", metavar="FILE", type=path_text, help="YAML of configs/evaluation.EvaluationConfig (rubrics, …)"
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="the random baseline's seed")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--timeout-s", type=float, default=120.0)
    p.add_argument("--retries", type=int, default=MODEL_RETRIES.retries)
    p.add_argument("--limit", type=positive_int, help="only the first N items (N ≥ 1)")
    p.set_defaults(func=_cmd_eval)
