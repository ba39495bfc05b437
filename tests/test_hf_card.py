"""The dataset card and Croissant metadata of `benchfoundry export hf`: the card's YAML read as the Hub reads it
(huggingface_hub, `datasets`) and checked against the Parquet files and build.json, `croissant.json` validated by
mlcroissant and its records compared with the Parquet rows read by pyarrow, no machine path in either, and where
`--to` puts a format's folder."""

from __future__ import annotations

import hashlib
import html
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import mlcroissant
import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image
from test_eval import odi_build, viewspatial_build
from test_syndor_qa import make_labelled_build

from benchfoundry.benchmarks.odi.release.release import COLUMNS as ODI_COLUMNS
from benchfoundry.benchmarks.syndor.qa_config import QaConfig
from benchfoundry.benchmarks.syndor.release.release import TASK_COLUMNS as SYNDOR_COLUMNS
from benchfoundry.benchmarks.syndor.stages import qa_stage
from benchfoundry.cli.main import main
from benchfoundry.configs.build import BuildConfig
from benchfoundry.configs.loader import config_dict, config_hash
from benchfoundry.core.buildinfo import package_versions
from benchfoundry.export.card_facts import card_facts
from benchfoundry.pipeline.benchmarks import get

BENCHMARKS = ("syndor", "odi", "viewspatial")
LICENSE = "cc-by-nc-4.0"
SEED = 7


def record_of(config: BuildConfig) -> dict[str, Any]:
    """A finished build's build.json for `config`, every benchmark built."""
    return {
        "name": "card test",
        "config": config_dict(config),
        "config_hash": config_hash(config),
        "versions": package_versions(("benchfoundry",)),
        "status": "finished",
        "finished": "2026-05-06T07:08:09Z",
        "benchmarks": {b: {"status": "built"} for b in BENCHMARKS},
    }


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All three benchmarks, hand-made, with a build.json whose config sets the export license and a ScanNet root
    (a licensed asset, at a path no card may show)."""
    out = tmp_path_factory.mktemp("build")
    qa_stage.export_qa(make_labelled_build(out), out, QaConfig())
    viewspatial_build(out, n=8)
    odi_build(out)
    config = BuildConfig.model_validate(
        {"seed": SEED, "export": {"license": LICENSE}, "viewspatial": {"scannet_root": str(out / "scannet-here")}}
    )
    (out / "build.json").write_text(json.dumps(record_of(config)))
    return out


@pytest.fixture(scope="module")
def hf(build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export, with `--to` naming the format's folder itself."""
    to = tmp_path_factory.mktemp("export") / "hf"
    assert main(["export", "hf", "--build", str(build), "--to", str(to)]) == 0
    return to


def split_files(folder: Path) -> dict[str, Path]:
    return {p.stem: p for p in sorted((folder / "data").glob("*.parquet"))}


def size_category(rows: int) -> str:
    """The Hub's bucket of `rows`, from `datasets`' own list (after "unknown": below 1K, then one per power of ten)."""
    names = json.loads((Path(datasets.__file__).parent / "utils" / "resources" / "size_categories.json").read_text())
    return names[1 + max(0, int(math.log10(rows)) - 2)] if rows else names[1]


def scannet_assets(benchmark: str) -> list:
    """The benchmark's licensed assets the fixture's config sets: ScanNet's root, where it has one."""
    return [a for a in card_facts(benchmark).licensed_assets if a.key.endswith(".scannet_root")]


def bibtex_fields(text: str) -> dict[str, str]:
    """The fields of one BibTeX entry (braces balanced, one entry)."""
    assert re.match(r"@\w+\{[\w-]+,", text) and text.count("{") == text.count("}")
    return {k.lower(): v for k, v in re.findall(r"^\s*(\w+)\s*=\s*\{(.*?)\},?$", text, re.M | re.S)}


def test_the_export_goes_into_the_folder_named_for_its_format(build: Path, hf: Path, tmp_path: Path) -> None:
    """`--to DIR/hf` writes DIR/hf/<benchmark>; `--to DIR` writes DIR/hf/<benchmark> as before."""
    assert sorted(p.name for p in hf.iterdir() if p.is_dir()) == sorted(BENCHMARKS)
    assert not (hf / "hf").exists()
    assert main(["export", "hf", "--build", str(build), "--to", str(tmp_path), "--benchmark", "odi"]) == 0
    assert (tmp_path / "hf" / "odi" / "README.md").is_file()
    assert main(["export", "vlmevalkit", "--build", str(build), "--to", str(tmp_path / "v" / "vlmevalkit")]) == 0
    assert (tmp_path / "v" / "vlmevalkit" / "benchfoundry_ODI.tsv").is_file()
    assert not (tmp_path / "v" / "vlmevalkit" / "vlmevalkit").exists()


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_card_metadata_is_what_the_hub_reads_and_agrees_with_the_files(
    build: Path, hf: Path, benchmark: str
) -> None:
    folder = hf / benchmark
    card = huggingface_hub.DatasetCard.load(folder / "README.md")
    files = split_files(folder)
    rows = {split: pq.read_metadata(path).num_rows for split, path in files.items()}
    assert card.data.license == LICENSE
    assert card.data.pretty_name == get(benchmark).title
    assert card.data.language == ["en"] and card.data.task_categories
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", c) for c in card.data.task_categories)
    assert card.data.size_categories == [size_category(sum(rows.values()))]
    assert ("synthetic" in card.data.tags) == (not scannet_assets(benchmark))  # real scans are not synthetic
    (config,) = card.data.configs
    assert {d["split"]: d["path"] for d in config["data_files"]} == {s: f"data/{s}.parquet" for s in files}
    info = datasets.info.DatasetInfosDict.from_dataset_card_data(card.data)["default"]
    assert {name: s.num_examples for name, s in info.splits.items()} == rows
    for path in files.values():
        assert info.features == datasets.Features.from_arrow_schema(pq.read_schema(path))
    facts = card_facts(benchmark)
    for column in info.features:
        assert f"| `{column}` |" in card.text and facts.fields.get(column), column


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_card_says_how_it_was_built_under_which_terms_and_what_to_cite(
    build: Path, hf: Path, benchmark: str
) -> None:
    text = (hf / benchmark / "README.md").read_text()
    record = json.loads((build / "build.json").read_text())
    assert record["config_hash"] in text and f"seed: `{SEED}`" in text
    assert f"benchfoundry version: `{record['versions']['benchfoundry']}`" in text
    bibtex = re.search(r"```bibtex\n(.*?)\n```", text, re.S)
    fields = bibtex_fields(bibtex.group(1))
    assert {"title", "year", "url"} <= set(fields) and "doi" not in fields
    assert card_facts(benchmark).paper.split(":")[0] in fields["title"].replace("{", "").replace("}", "")
    scannet = scannet_assets(benchmark)
    for asset in scannet:  # the one asset the config set: named with its terms, never its path
        assert f"{asset.name} (config `{asset.key}`): {asset.terms}" in text
    assert ("their terms apply" in text) == bool(scannet)


def test_neither_file_shows_a_machine_path(build: Path, hf: Path) -> None:
    for benchmark in BENCHMARKS:
        for name in ("README.md", "croissant.json"):
            text = (hf / benchmark / name).read_text()
            for path in (build, hf, build / "scannet-here"):
                assert str(path) not in text and str(path.resolve()) not in text, (benchmark, name, path)
            assert not re.search(r"(^|[\s`\"(])/(tmp|home|work|root|Users)/", text), (benchmark, name)


def image_pixels(image: Image.Image | bytes) -> np.ndarray:
    if isinstance(image, bytes):
        image = Image.open(io.BytesIO(image))
    return np.asarray(image.convert("RGB"))


def same(got: Any, want: Any) -> bool:
    """A Croissant value against the pyarrow one: text comes back as bytes, an image struct as its sub-fields."""
    if isinstance(want, dict) and set(want) == {"bytes", "path"}:
        (image,) = [v for k, v in got.items() if k.endswith("/bytes")]
        (path,) = [v for k, v in got.items() if k.endswith("/path")]
        return path.decode() == want["path"] and np.array_equal(image_pixels(image), image_pixels(want["bytes"]))
    if isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    if isinstance(want, str):
        return got.decode() == want
    if isinstance(want, float):
        return got == pytest.approx(want)
    return got == want


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_croissant_validates_and_its_records_are_the_parquet_rows(build: Path, hf: Path, benchmark: str) -> None:
    folder = hf / benchmark
    dataset = mlcroissant.Dataset(jsonld=folder / "croissant.json")  # raises on an invalid document
    assert not dataset.metadata.ctx.issues.errors and not dataset.metadata.ctx.issues.warnings
    doc = json.loads((folder / "croissant.json").read_text())
    assert doc["conformsTo"] == "http://mlcommons.org/croissant/1.0" and doc["license"] == LICENSE
    files = split_files(folder)
    by_url = {d["contentUrl"]: d for d in doc["distribution"]}
    assert set(by_url) == {f"data/{s}.parquet" for s in files}
    for split, path in files.items():
        assert by_url[f"data/{split}.parquet"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        table = pq.read_table(path).to_pylist()
        records = list(dataset.records(record_set=split))
        assert len(records) == len(table) > 0
        for record, row in zip(records, table):
            assert set(record) == {f"{split}/{c}" for c in row}
            for column, value in row.items():
                assert same(record[f"{split}/{column}"], value), (split, column)


def test_each_benchmark_describes_every_column_its_release_exports() -> None:
    """The fixtures' rows hold most columns; the released schemas name the rest (ODI's answer and distractor
    sources, SynDOR's task columns)."""
    assert set(SYNDOR_COLUMNS) | {"image"} <= set(card_facts("syndor").fields)
    assert set(ODI_COLUMNS) | {"image_path"} <= set(card_facts("odi").fields)


@pytest.mark.parametrize(
    "record, says, synthetic",
    [
        (None, "licensed assets: not recorded", False),
        ({"name": "plain", "config": config_dict(BuildConfig())}, "licensed assets: none", True),
    ],
)
def test_a_build_without_a_config_or_without_assets_says_so(
    tmp_path: Path, record: dict | None, says: str, synthetic: bool
) -> None:
    build = tmp_path / "b"
    viewspatial_build(build, n=3)
    if record is not None:
        (build / "build.json").write_text(json.dumps({**record, "benchmarks": {}}))
    assert main(["export", "hf", "--build", str(build), "--to", str(tmp_path / "x")]) == 0
    card = huggingface_hub.DatasetCard.load(tmp_path / "x" / "hf" / "viewspatial" / "README.md")
    assert says in card.text and card.data.license == BuildConfig().export.license
    assert ("synthetic" in card.data.tags) == synthetic


def test_a_license_that_is_no_license_id_is_refused_naming_the_record(tmp_path: Path, capsys) -> None:
    build = tmp_path / "b"
    viewspatial_build(build, n=3)
    config = {**config_dict(BuildConfig()), "export": {"license": "CC BY 4.0, see README"}}
    (build / "build.json").write_text(json.dumps({"config": config, "benchmarks": {}}))
    assert main(["export", "hf", "--build", str(build), "--to", str(tmp_path / "x")]) == 2
    assert re.search(r"build\.json: config export\.license", capsys.readouterr().err)
    assert not list((tmp_path / "x").rglob("*.parquet"))


#: Field names and descriptions a plug-in or a release may carry: Markdown, HTML, table pipes, backticks, breaks.
HOSTILE_NAMES = (
    "a|b",
    "<script>alert(1)</script>",
    "`code`",
    "``twice``",
    "**bold** [link](javascript:alert(1))",
    "line\nbreak",
    "<img src=x onerror=alert(1)>",
)


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=lambda n: repr(n)[:24])
def test_the_cards_tables_show_a_hostile_field_name_as_text_in_its_own_cell(name: str) -> None:
    """A released field name carrying Markdown or HTML was written raw into the card's fields table: it split the
    row, became a link, or became live HTML on the Hub's page. Rendered as the Hub renders (GFM tables), each row
    has its three cells, the name reads back as itself, and no HTML element but the table's is made."""
    from markdown_it import MarkdownIt

    from benchfoundry.export.card import dataset_card
    from benchfoundry.export.card_facts import CardFacts
    from benchfoundry.export.dataset_files import SplitFile
    from benchfoundry.export.provenance import Provenance

    facts = CardFacts(pretty_name="P", fields={name: "described <b>here</b>", "plain": "x"})
    prov = Provenance(None, None, None, None, None, "cc-by-4.0", ())
    files = [SplitFile(name, f"data/{name}.parquet", 1, 1, 1, "0" * 64)]
    features = {name: {"dtype": "string", "_type": "Value"}, "plain": {"dtype": "string", "_type": "Value"}}
    card = dataset_card(facts, prov, files, features)
    body = card.split("\n---\n", 1)[1]  # the Hub reads the YAML front matter as metadata, not as the page
    page = MarkdownIt("commonmark", {"html": True}).enable("table").render(body)
    tags = set(re.findall(r"<(\w+)", page))
    assert tags <= {"h1", "h2", "p", "pre", "code", "table", "thead", "tbody", "tr", "th", "td", "a", "ul", "li"}, tags
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)
    assert all(len(re.findall(r"<t[hd]>", row)) == 3 for row in rows), rows
    flat = " ".join(name.split())
    cells = [re.findall(r"<td>(.*?)</td>", row, re.S) for row in rows]
    fields = next(c for c in cells if c and "described" in c[2])
    assert html.unescape(re.sub(r"</?code>", "", fields[0])).strip() == flat
    assert html.unescape(fields[2]) == "described <b>here</b>"  # shown as text
