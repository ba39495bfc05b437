"""`benchfoundry score syndor PREDICTIONS.jsonl --build DIR`: score model predictions against a build."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS, QaConfig
from benchfoundry.core.output_root import read_build_record

#: The paper's E5Score model (the authors' eval/metrics/e5_score.py).
E5 = "intfloat/e5-large-v2"


def _build_settings(record: dict[str, Any]) -> tuple[QaConfig, int]:
    """The build's QA config and seed from its build record (defaults when there is none)."""
    config = record.get("config", {})
    return QaConfig.model_validate(config.get("syndor", {}).get("qa", {})), int(config.get("seed", 0))


def _embedding_override(qa: QaConfig, path: str | None, name: str | None) -> QaConfig:
    """`qa` with the `--embed-path` / `--embed-name` flags applied.

    A path given without a name takes the model id recorded in the folder's config.json, so the
    score file names the model used and E5 models get their prefix (ValueError when it records none).
    """
    if path is None:
        update: dict[str, Any] = {} if name is None else {"name": name}
    else:
        from benchfoundry.benchmarks.syndor.text_embed import folder_model_name

        update = {"path": Path(path), "name": folder_model_name(path) if name is None else name}
    return qa.model_copy(update={"embedding": qa.embedding.model_copy(update=update)})


def _cell(value: Any, width: int) -> str:
    if isinstance(value, float):
        return f"{value:>{width}.3f}"
    return f"{'-' if value is None else value!s:>{width}}"


def format_tables(score: dict[str, Any]) -> str:
    """The presence and action tables of a score file as plain text."""
    lines = [
        "human presence (accuracy, macro precision / recall / F1)",
        f"{'distance':>9} {'split':>6} {'n':>5} {'invalid':>7} {'acc':>6} {'P':>6} {'R':>6} {'F1':>6}  deployable",
    ]
    for g in score["presence"]["groups"]:
        lines.append(
            " ".join(
                [
                    _cell(g["distance"], 9),
                    _cell(g["split"], 6),
                    _cell(g["n"], 5),
                    _cell(g["n_invalid"], 7),
                    _cell(g["accuracy"], 6),
                    _cell(g["macro_precision"], 6),
                    _cell(g["macro_recall"], 6),
                    _cell(g["macro_f1"], 6),
                ]
            )
            + f"  {'yes' if g['deployable'] else 'no'}"
        )
    model = (score.get("embedding_model") or {}).get("name", "none")
    fallback = "" if model == "none" or "e5" in model.lower() else f" — the embedded fallback, not the paper's {E5}"
    lines += [
        "",
        f"action recognition (E5Score with {model}{fallback}; z within each distance range of this file)",
        f"{'distance':>9} {'split':>6} {'n':>5} {'invalid':>7} {'E5Score':>8} {'z':>7}",
    ]
    for g in score["action"]["groups"]:
        lines.append(
            " ".join(
                [
                    _cell(g["distance"], 9),
                    _cell(g["split"], 6),
                    _cell(g["n"], 5),
                    _cell(g["n_invalid"], 7),
                    _cell(g["e5score"], 8),
                    _cell(g["z"], 7),
                ]
            )
        )
    return "\n".join(lines)


def score_syndor(
    build: Path,
    predictions: Path,
    out: Path | None = None,
    embed_path: str | None = None,
    embed_name: str | None = None,
    protocol: str = "authors",
) -> tuple[dict[str, Any], Path]:
    """Score a predictions file against the build and write the score file (default
    `BUILD/report/scores/<predictions name>.json`); OSError or ValueError when the input or the output
    path is unusable (checked before anything is read). `protocol` is E5Score's (`scoring.E5_PROTOCOLS`):
    the authors' embeds `action` with no prefix and every reply, the empty one too."""
    from benchfoundry.benchmarks.syndor import release, scoring
    from benchfoundry.core.atomic_files import write_json_atomic
    from benchfoundry.core.output_root import check_output_file

    target = check_output_file(out or build / "report" / "scores" / f"{predictions.stem}.json")
    record = read_build_record(build)
    qa, _ = _build_settings(record)
    qa = _embedding_override(qa, embed_path, embed_name)
    key = release.answer_key(release.index_dir(build))
    raw = predictions.read_bytes()
    prompts = {prompt: task for task, prompt in TASK_PROMPTS.items()}
    matched, problems = scoring.match_predictions(raw.decode("utf-8", errors="replace").splitlines(), key, prompts)
    if not any(matched.values()):
        raise ValueError(f"{predictions}: no usable prediction" + (f" ({len(problems)} bad lines)" if problems else ""))
    embedder = None
    actions = matched.get("action_recognition", [])
    if any(protocol == "authors" or i["prediction"].strip() for i in actions):
        from benchfoundry.benchmarks.syndor.text_embed import load_embedder

        embedding = qa.embedding if protocol == "project" else qa.embedding.model_copy(update={"prefix": ""})
        embedder = load_embedder(embedding)
    result = scoring.score_predictions(matched, key, embedder, qa.deployable_accuracy, protocol)
    score = {
        "benchmark": "syndor",
        "predictions": str(predictions),
        "predictions_sha256": hashlib.sha256(raw).hexdigest(),
        "protocol": protocol,
        "build": str(build),
        "embedding_model": embedder.describe() if embedder else None,
        "problems": problems,
        **result,
    }
    write_json_atomic(target, score)
    return score, target


def _writes_into(build: Path, out: str | None) -> bool:
    """Whether scoring writes into the build: its default score file, an --out inside it, or its report."""
    inside = out is None or Path(out).absolute().resolve().is_relative_to(build.absolute().resolve())
    return inside or (build / "report" / "index.html").is_file()


def _cmd_score_syndor(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import hold_build_lock

    build = Path(args.build)
    # the build's lock while writing into it (not for a read-only build scored into a file elsewhere)
    with hold_build_lock(build) if _writes_into(build, args.out) else contextlib.nullcontext():
        return _score_and_report(args, build)


def _score_and_report(args: argparse.Namespace, build: Path) -> int:
    predictions = Path(args.predictions)
    try:
        score, target = score_syndor(
            build, predictions, Path(args.out) if args.out else None, args.embed_path, args.embed_name, args.protocol
        )
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in score["problems"]:
        print(f"{predictions}:{p['line']}: skipped: {p['reason']}", file=sys.stderr)
    print(format_tables(score))
    print(f"\nscore file: {target}" + (f" ({len(score['problems'])} bad lines skipped)" if score["problems"] else ""))
    if (build / "report" / "index.html").is_file():
        from benchfoundry.benchmarks.syndor.report_page import write_report
        from benchfoundry.pipeline.report_nav import link_pages

        record = read_build_record(build)
        qa, seed = _build_settings(record)
        qa = _embedding_override(qa, args.embed_path, args.embed_name)
        print(f"report updated: {write_report(build, qa, seed=seed, calibration=_calibration(record))}")
        link_pages(build / "report")
    return 0


def _calibration(record: dict[str, Any]) -> Any:
    """The render stage's calibration rows recorded in the build record, if any."""
    return record.get("benchmarks", {}).get("syndor", {}).get("calibration")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    score = subparsers.add_parser("score", help="score model predictions against a built benchmark")
    sub = score.add_subparsers(dest="score_command", required=True, metavar="BENCHMARK")
    p = sub.add_parser("syndor", help="SynDORBench: presence accuracy / macro-F1 and action E5Score")
    p.add_argument("predictions", metavar="PREDICTIONS.jsonl", help="rows {img_path, prompt, prediction}")
    p.add_argument("--build", required=True, metavar="DIR", help="the build's output root (holds syndor/index/)")
    p.add_argument("--out", metavar="FILE", help="score JSON (default DIR/report/scores/<predictions name>.json)")
    p.add_argument(
        "--embed-path", metavar="DIR", help="local folder of the embedding model (default: the build's config)"
    )
    p.add_argument(
        "--embed-name",
        metavar="NAME",
        help="its name, e.g. intfloat/e5-large-v2 (default with --embed-path: _name_or_path in its config.json)",
    )
    p.add_argument(
        "--protocol",
        choices=("authors", "project"),
        default="authors",
        help="E5Score as the authors' harness (reference = the released action, no prefix, empty replies embedded) "
        "or the project's (the action's phrase, the model's prefix, an empty reply scores 0)",
    )
    p.set_defaults(func=_cmd_score_syndor)
