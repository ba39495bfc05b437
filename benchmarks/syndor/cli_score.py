"""`benchfoundry score syndor PREDICTIONS --build DIR`: SynDORBench's side of the generic `score` command (its
evaluation hook's flags, scoring and printed tables), and the scorer `benchfoundry eval` calls on its replies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS, QaConfig
from benchfoundry.core.output_root import read_build_record
from benchfoundry.pipeline.commands import arg

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
        from benchfoundry.benchmarks.syndor.stages.text_embed import folder_model_name

        update = {"path": Path(path), "name": folder_model_name(path) if name is None else name}
    return qa.model_copy(update={"embedding": qa.embedding.model_copy(update=update)})


#: The columns of the presence and action tables: (a group's key, header, width).
_GROUP_COLUMNS = (("distance", "distance", 9), ("split", "split", 6), ("n", "n", 5), ("n_invalid", "invalid", 7))
_PRESENCE_COLUMNS = (
    *_GROUP_COLUMNS,
    ("accuracy", "acc", 6),
    ("macro_precision", "P", 6),
    ("macro_recall", "R", 6),
    ("macro_f1", "F1", 6),
)
_ACTION_COLUMNS = (*_GROUP_COLUMNS, ("e5score", "E5Score", 8), ("z", "z", 7))


def _cell(value: Any, width: int) -> str:
    if isinstance(value, float):
        return f"{value:>{width}.3f}"
    return f"{'-' if value is None else value!s:>{width}}"


def _header(columns: tuple[tuple[str, str, int], ...]) -> str:
    return " ".join(f"{header:>{width}}" for _, header, width in columns)


def _row(group: dict[str, Any], columns: tuple[tuple[str, str, int], ...]) -> str:
    return " ".join(_cell(group[key], width) for key, _, width in columns)


def format_tables(score: dict[str, Any]) -> str:
    """The presence and action tables of a score file as plain text."""
    dropped = score.get("ambiguous_dropped") or {}
    lines = [
        *(
            [
                "presence replies dropped before scoring, as the authors' harness does (ambiguous or none): "
                + ", ".join(f"{split} {n}" for split, n in dropped.items())
            ]
            if dropped
            else []
        ),
        "human presence (accuracy, macro precision / recall / F1)",
        _header(_PRESENCE_COLUMNS) + "  deployable",
    ]
    for g in score["presence"]["groups"]:
        lines.append(_row(g, _PRESENCE_COLUMNS) + f"  {'yes' if g['deployable'] else 'no'}")
    model = (score.get("embedding_model") or {}).get("name", "none")
    fallback = "" if model == "none" or "e5" in model.lower() else f" — the embedded fallback, not the paper's {E5}"
    lines += [
        "",
        f"action recognition (E5Score with {model}{fallback}; z within each distance range of this file)",
        _header(_ACTION_COLUMNS),
    ]
    lines += [_row(g, _ACTION_COLUMNS) for g in score["action"]["groups"]]
    return "\n".join(lines)


def score_lines(
    build: Path,
    lines: Iterable[str],
    protocol: str = "authors",
    embed_path: str | None = None,
    embed_name: str | None = None,
    where: str = "predictions",
) -> dict[str, Any]:
    """Predictions lines (eval's rows or the authors', scoring.py) scored against the build's answer key under
    `protocol`: presence, action, coverage, the embedding model used and the bad lines; ValueError naming `where`
    when no line names an item of the build. Both `eval` and `score` score SynDORBench replies here."""
    from benchfoundry.benchmarks.syndor.harnesses import scoring
    from benchfoundry.benchmarks.syndor.release import release

    qa, _ = _build_settings(read_build_record(build))
    qa = _embedding_override(qa, embed_path, embed_name)
    key = release.answer_key(release.index_dir(build))
    prompts = {prompt: task for task, prompt in TASK_PROMPTS.items()}
    matched, problems = scoring.match_predictions(lines, key, prompts)
    if not any(matched.values()):
        raise ValueError(f"{where}: no usable prediction" + (f" ({len(problems)} bad lines)" if problems else ""))
    embedder = None
    actions = scoring.read_actions(matched.get("action_recognition", []), protocol)
    if any(protocol == "authors" or i["prediction"].strip() for i in actions):
        from benchfoundry.benchmarks.syndor.stages.text_embed import load_embedder

        embedding = qa.embedding if protocol == "project" else qa.embedding.model_copy(update={"prefix": ""})
        embedder = load_embedder(embedding)
    result = scoring.score_predictions(matched, key, embedder, qa.deployable_accuracy, protocol)
    return {"embedding_model": embedder.describe() if embedder else None, "problems": problems, **result}


def score_file(build: Path, predictions: Path, protocol: str, flags: Mapping[str, Any]) -> dict[str, Any]:
    """`score_lines` of a predictions file, with the `--embed-path` / `--embed-name` flags; OSError or ValueError
    naming the file when it is unreadable or names no item of the build."""
    lines = predictions.read_bytes().decode("utf-8", errors="replace").splitlines()
    return score_lines(build, lines, protocol, flags.get("embed_path"), flags.get("embed_name"), str(predictions))


def refresh_report(build: Path, flags: Mapping[str, Any]) -> list[str]:
    """The build's SynDORBench page re-rendered with the score files (when the build has it), and the report's
    pages linked: what `score` prints."""
    from benchfoundry.benchmarks.syndor.identity import BENCHMARK
    from benchfoundry.pipeline.benchmarks import get

    if not (build / "report" / get(BENCHMARK).report_page).is_file():
        return []
    from benchfoundry.benchmarks.syndor.release.report_page import write_report
    from benchfoundry.pipeline.report_nav import link_pages

    record = read_build_record(build)
    qa, seed = _build_settings(record)
    qa = _embedding_override(qa, flags.get("embed_path"), flags.get("embed_name"))
    calibration = record.get("benchmarks", {}).get("syndor", {}).get("calibration")
    page = write_report(build, qa, seed=seed, calibration=calibration)
    link_pages(build / "report")
    return [f"report updated: {page}"]


#: `score syndor`'s own flags: the embedding model of E5Score.
SCORE_FLAGS = (
    arg("--embed-path", metavar="DIR", help="local folder of the embedding model (default: the build's config)"),
    arg(
        "--embed-name",
        metavar="NAME",
        help="its name, e.g. intfloat/e5-large-v2 (default with --embed-path: _name_or_path in its config.json)",
    ),
)
