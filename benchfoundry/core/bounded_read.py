"""Readers of JSON, YAML and CSV from input, bounded in size, nesting depth and expansion.

A file over its size limit is refused before it is read; a document nested deeper than `MAX_DEPTH` (or
too deep for the parser's recursion), a YAML document whose aliases expand to more than `MAX_YAML_NODES`
values (an alias bomb is a few hundred bytes), a CSV field over the csv module's limit, an integer of
thousands of digits or text that is not UTF-8 all raise the caller's error type (ValueError by default)
with one line naming the file (or `where`) and, for CSV, the line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import yaml

ErrorType = Callable[[str], Exception]

#: Deeper than any file the pipeline reads (COCO, Label Studio, ScanNet, build records: under 10).
MAX_DEPTH = 100
#: Values a YAML document may expand to, aliases counted each time they are used.
MAX_YAML_NODES = 1_000_000
#: Larger than COCO's biggest annotation file (instances_train2017.json, 448 MB).
MAX_JSON_BYTES = 2 << 30
#: Larger than any config, review or label file.
MAX_TEXT_BYTES = 256 << 20


def check_depth(
    value: Any, where: str, max_depth: int = MAX_DEPTH, max_nodes: int | None = None, *, error: ErrorType = ValueError
) -> None:
    """Raise `error` naming `where` when `value` nests lists / dicts deeper than `max_depth`, or (when
    given) holds more than `max_nodes` values counting shared ones at every use."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if max_nodes is not None and seen > max_nodes:
            raise error(f"{where}: expands to more than {max_nodes} values (YAML aliases used as a bomb?)")
        if isinstance(node, dict):
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth and children:
            raise error(f"{where}: nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children)


def read_bytes(
    path: str | os.PathLike[str], max_bytes: int, what: str = "file", *, error: ErrorType = ValueError
) -> bytes:
    """The file's bytes; `error` naming it when it is larger than `max_bytes` or not a regular file (a FIFO, a
    device: refused by type before opening); OSError when unreadable."""
    path = Path(path)
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path}: not a regular file (a FIFO, a device or a folder); a {what} is expected")
    size = info.st_size
    if size > max_bytes:
        raise error(f"{path}: {size} bytes, over the limit of {max_bytes} for a {what}")
    return path.read_bytes()


def read_text(
    path: str | os.PathLike[str],
    max_bytes: int = MAX_TEXT_BYTES,
    what: str = "text file",
    *,
    error: ErrorType = ValueError,
) -> str:
    """The file as UTF-8 text (a byte-order mark dropped); `error` naming it when too large or not UTF-8."""
    data = read_bytes(path, max_bytes, what, error=error)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})") from None


def loads_json(data: str | bytes, where: str, max_depth: int = MAX_DEPTH, *, error: ErrorType = ValueError) -> Any:
    """Parsed JSON; `error` naming `where` for invalid or too deeply nested JSON."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise error(f"{where}: nested too deeply to parse") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise error(f"{where}: not valid JSON ({exc})") from None
    check_depth(value, where, max_depth, error=error)
    return value


def read_json(
    path: str | os.PathLike[str],
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_DEPTH,
    *,
    error: ErrorType = ValueError,
) -> Any:
    """A JSON file, bounded in size and depth; OSError when it cannot be read."""
    return loads_json(read_bytes(path, max_bytes, "JSON file", error=error), str(path), max_depth, error=error)


class _UniqueKeyLoader(yaml.SafeLoader):
    """yaml's SafeLoader refusing a key given twice in one mapping (two blocks of one section: the first would be
    dropped without a word)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<:` keys may be overridden: not a second key
                continue
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, Hashable):
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} given twice in one mapping", key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


#: The most of a parser's message an error quotes: its quote of the input is an excerpt, never the file.
MAX_EXCERPT_CHARS = 200


def _excerpt(text: str) -> str:
    """A parser's message on one line, cut to `MAX_EXCERPT_CHARS`."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_EXCERPT_CHARS else text[: MAX_EXCERPT_CHARS - 1] + "…"


def loads_yaml(
    text: str, where: str, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_YAML_NODES, *, error: ErrorType = ValueError
) -> Any:
    """`yaml.safe_load`, bounded in depth and in values after alias expansion, a key given twice in one mapping
    refused; `error` naming `where`."""
    try:
        value = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader
    except RecursionError:
        raise error(f"{where}: nested too deeply to parse") from None
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML: {_excerpt(str(exc))}") from None
    except ValueError as exc:  # a constructor's: an integer of more digits than Python converts, …
        raise error(f"{where}: a value YAML cannot hold: {_excerpt(str(exc))}") from None
    check_depth(value, where, max_depth, max_nodes, error=error)
    return value


def csv_records(
    text: str, where: str, delimiter: str = ",", *, error: ErrorType = ValueError
) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header, [(line, row)]) of CSV text, each row a dict of the header's columns (missing cells empty);
    `error` naming `where` and the line for a field over the csv module's limit, malformed quoting (a quote
    left open swallows every row after it: refused, naming the line it opened on) or a column named twice."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter, restval="", strict=True)
    rows = []
    start = 1
    try:
        header = list(reader.fieldnames or [])
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:
            raise error(f"{where}: line 1: column(s) {', '.join(map(repr, twice))} named more than once")
        start = reader.line_num + 1
        for row in reader:
            rows.append((reader.line_num, {k: v for k, v in row.items() if isinstance(k, str)}))
            start = reader.line_num + 1
    except csv.Error as exc:  # raised before the line it is on is counted
        raise error(f"{where}: line {start}: unreadable CSV ({exc}; a quote left open?)") from None
    return header, rows
