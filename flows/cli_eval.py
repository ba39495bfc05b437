"""`benchfoundry eval {syndor,viewspatial,odi} --build OUT --base-url URL --model NAME`: ask a model every
item of a built benchmark through an OpenAI-compatible endpoint and score its replies (DESIGN §7)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchfoundry.configs.model import ModelEndpoint
from benchfoundry.flows.cli_args import positive_int
from benchfoundry.tasks.evaluation.items import BENCHES


def _progress(bench: str) -> Any:
    def show(done: int, total: int, errors: int) -> None:
        end = "\n" if done == total else ""
        print(f"\r{bench}: {done}/{total} items, {errors} errors", end=end, file=sys.stderr, flush=True)

    return show


def _cmd_eval(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import hold_build_lock

    # the build's lock while eval writes into it: never beside a running build
    with hold_build_lock(args.build):
        return _eval(args)


def _eval(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from benchfoundry.core.output_root import check_output_dir
    from benchfoundry.core.redact import redact
    from benchfoundry.core.store import write_json_atomic
    from benchfoundry.tasks.common.model_client import ModelClient
    from benchfoundry.tasks.common.report_nav import link_pages
    from benchfoundry.tasks.evaluation import run
    from benchfoundry.tasks.evaluation.items import load_items
    from benchfoundry.tasks.evaluation.report import write_eval_report

    build = Path(args.build)
    try:
        endpoint = ModelEndpoint(
            base_url=args.base_url,
            model=args.model,
            api_key_env=args.api_key_env,
            concurrency=args.concurrency,
            timeout_s=args.timeout_s,
            max_retries=args.retries,
        )
    except ValidationError as exc:
        print(
            "error: "
            + "; ".join(f"--{'-'.join(map(str, e['loc'])).replace('_', '-')}: {e['msg']}" for e in exc.errors()),
            file=sys.stderr,
        )
        return 2
    try:
        items = load_items(args.bench, build)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.omni_cot and args.bench != "odi":
        print("error: --omni-cot is the ODI-Bench two-step; use it with `eval odi`", file=sys.stderr)
        return 2
    items = items[: args.limit] if args.limit is not None else items
    target = run.model_dir(build, args.model)
    try:
        check_output_dir(target)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    name = "odi-omnicot" if args.omni_cot else args.bench
    with ModelClient(endpoint, run.eval_dir(build) / "cache") as client:
        if args.omni_cot:
            from benchfoundry.tasks.evaluation.omnicot import ask_omnicot

            def ask(batch: list[Any], progress: Any = None) -> list[dict[str, Any]]:
                return ask_omnicot(client, batch, args.crop_px, progress)
        else:

            def ask(batch: list[Any], progress: Any = None) -> list[dict[str, Any]]:
                return run.ask(client, batch, progress)

        rows = ask(items[:1])
        if rows and rows[0]["error"] and "cannot read the image" not in rows[0]["error"]:
            print(f"error: {rows[0]['error']} (nothing else sent)", file=sys.stderr)
            return 2
        rows += ask(items[1:], _progress(name))
        usage = client.usage()
    predictions = run.write_predictions(target / f"{name}.predictions.jsonl", rows)
    failed = [r for r in rows if r["error"]]
    for row in failed[:5]:
        print(f"{row['id']}: {row['error']}", file=sys.stderr)
    if len(failed) > 5:
        print(f"… and {len(failed) - 5} more failed items (see {predictions})", file=sys.stderr)
    score: dict[str, Any] = {
        "model": args.model,
        "bench": name,
        "base_url": redact(endpoint.base_url),
        "predictions": str(predictions),
        "failed_items": len(failed),
        "usage": usage,
    }
    if args.bench == "syndor":
        score.update(_score_syndor(build, rows, items, target))
    else:
        score.update(run.score_choices(items, rows))
    path = write_json_atomic(target / f"{name}.json", score)
    if "overall" in score:
        tasks = ", ".join(f"{t} {a:.3f}" for t, a in score["per_task"].items())
        print(
            f"{name}: overall {score['overall']:.3f} over {score['n']} items "
            f"({score['invalid']} invalid, {len(failed)} failed); {tasks}"
        )
    print(f"scores: {path}")
    print(f"report: {write_eval_report(build, run.eval_dir(build))}")
    link_pages(build / "report")
    return 1 if failed and len(failed) == len(rows) else 0


def _score_syndor(build: Path, rows: list[dict[str, Any]], items: list[Any], target: Path) -> dict[str, Any]:
    """The SynD scorer (presence accuracy / F1, action E5Score) over the answered items."""
    from benchfoundry.flows.cli_score import score_syndor
    from benchfoundry.tasks.evaluation import run

    by_id = {item.id: item for item in items}
    answered = [
        {
            "img_path": by_id[r["id"]].meta["img_path"],
            "prompt": by_id[r["id"]].meta["prompt"],
            "prediction": r["prediction"],
        }
        for r in rows
        if r["prediction"] is not None
    ]
    if not answered:
        return {"n": len(items), "answered": 0}
    scored = run.write_predictions(target / "syndor.scored-predictions.jsonl", answered)
    score, _ = score_syndor(build, scored, target / "syndor.scores.json")
    return {
        "n": len(items),
        "answered": len(answered),
        "presence": score["presence"],
        "action": score["action"],
        "coverage": score["coverage"],
    }


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("eval", help="ask a model behind an OpenAI-compatible endpoint every item of a benchmark")
    p.add_argument("bench", choices=BENCHES)
    p.add_argument("--build", required=True, metavar="OUT", help="the build's output root")
    p.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True, help="the model's name at that endpoint")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--timeout-s", type=float, default=120.0)
    p.add_argument("--retries", type=int, default=5)
    p.add_argument("--limit", type=positive_int, help="only the first N items (N ≥ 1)")
    p.add_argument(
        "--omni-cot",
        action="store_true",
        help="ODI: ask for a grounding box first, then answer with its perspective crop",
    )
    p.add_argument("--crop-px", type=int, default=512, help="side of the Omni-CoT crop")
    p.set_defaults(func=_cmd_eval)
