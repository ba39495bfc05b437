"""Reliability, fourth round, bounds and the smaller items: every number of the config is bounded, naming its
field; YAML, JSON and CSV from input go through the bounded reader (a key given twice, an open quote, a column
named twice refused); error output is bounded; `--model ..` writes nowhere it should not (issue 36, points 4
and 7)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from test_eval import odi_build
from test_reliability_security import odi_items

from benchfoundry.cli.main import main
from benchfoundry.configs.loader import ConfigError, load_config
from benchfoundry.pipeline import review
from benchfoundry.pipeline.review import SHOWN_BAD_ROWS, import_review_file


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ("viewspatial.coco.synthetic.images={val: 1000000000000}", "viewspatial.coco.synthetic.images.val"),
        ("odi.synthetic.samples=1000000000000", "odi.synthetic"),
        ("syndor.camera.resolution_w=100000000", "syndor.camera.resolution_w"),
        ("odi.synthetic.render_timeout_s=1e300", "odi.synthetic.render_timeout_s"),
        ("viewspatial.coco.synthetic.render_timeout_s=1e300", "viewspatial.coco.synthetic.render_timeout_s"),
    ],
)
def test_an_absurd_number_is_refused_in_one_line_naming_its_field(setting: str, field: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config("smoke", [setting])
    (line,) = str(refused.value).splitlines()[1:]
    assert line.strip().startswith(field + ":") and setting.split("=")[0].rsplit(".", 1)[1] in line


def test_every_bound_in_the_presets_holds() -> None:
    for preset in ("smoke", "syndorbench", "odibench", "viewspatial"):
        load_config(preset)


def test_a_config_with_two_blocks_of_one_section_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("odi:\n  batch_size: 2\nsyndor:\n  enabled: false\nodi:\n  enabled: false\n")
    with pytest.raises(ConfigError, match="'odi' given twice"):
        load_config(path)


def write_review(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def test_an_open_quote_in_a_review_csv_is_refused_not_swallowing_rows(tmp_path: Path) -> None:
    items = odi_items()
    path = tmp_path / "filled.csv"
    path.write_text(
        "id,decision,edited_answer\n"
        + f'{items[0]["id"]},"accept,\n'
        + "".join(f"{i['id']},reject,\n" for i in items[1:4])
    )
    with pytest.raises(ValueError, match=r"line 2: .*quote"):
        review.read_decisions(path, items)


def test_a_column_named_twice_in_a_review_csv_is_refused(tmp_path: Path) -> None:
    items = odi_items()
    path = tmp_path / "filled.csv"
    write_review(path, ["id", "decision", "decision"], [[items[0]["id"], "accept", "reject"]])
    with pytest.raises(ValueError, match="'decision' named more than once"):
        review.read_decisions(path, items)


def test_a_review_file_of_many_bad_rows_prints_a_bounded_report(tmp_path: Path, capsys) -> None:
    items = odi_items()
    path = tmp_path / "filled.csv"
    bad = [[f"no-such-item-{k}", "accept", ""] for k in range(500)]
    write_review(path, ["id", "decision", "edited_answer"], [[items[0]["id"], "accept", ""], *bad])
    assert import_review_file(str(path), items, tmp_path / "decisions") == (1, 500)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == SHOWN_BAD_ROWS + 1 and "480 more" in err[-1]


def test_a_deep_eval_config_is_one_error_line(tmp_path: Path, capsys) -> None:
    odi_build(tmp_path)
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    argv = ["eval", "odi", "--build", str(tmp_path), "--model", "random", "--eval-config", str(deep)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "deep" in err[0]


@pytest.mark.parametrize("model", ["..", "."])
def test_a_model_name_that_makes_no_folder_is_refused(tmp_path: Path, model: str, capsys) -> None:
    odi_build(tmp_path)
    assert main(["eval", "odi", "--build", str(tmp_path), "--model", model, "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--model" in capsys.readouterr().err
    assert not (tmp_path / "report" / "eval").is_dir() or not any((tmp_path / "report" / "eval").glob("odi*"))
