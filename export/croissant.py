"""`croissant.json`: the exported dataset in Croissant 1.0 (MLCommons' JSON-LD metadata that dataset tracks and the
Hugging Face Hub read), written beside its card.

Each split's Parquet file is a `cr:FileObject` (relative URL, SHA-256) and a record set of the split's name, one
field per column read from that file. An image column (a `datasets` Image: a struct of the file's bytes and its
released path) is a field with two sub-fields, `bytes` (an image) and `path` (text), each pulled from the struct
with a JSON path; a list column is a repeated field. A list of lists has no Croissant 1.0 form: such a column is
left out of the record set, and its description says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchfoundry.export.card import keywords
from benchfoundry.export.card_facts import CardFacts
from benchfoundry.export.dataset_files import SplitFile
from benchfoundry.export.provenance import Provenance

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
#: Croissant 1.0's JSON-LD context, as its specification gives it.
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
#: A `datasets` Value dtype (those export/hf.py writes) → its Croissant data type.
DATA_TYPES = {"string": "sc:Text", "int64": "sc:Integer", "float64": "sc:Float", "bool": "sc:Boolean"}
PARQUET = "application/x-parquet"


def file_id(split: str) -> str:
    return f"{split}-parquet"


def _field(field_id: str, name: str, data_type: str, source: dict[str, Any], description: str) -> dict[str, Any]:
    out = {"@type": "cr:Field", "@id": field_id, "name": name, "dataType": data_type, "source": source}
    return {**out, "description": description} if description else out


def _image(field_id: str, name: str, source: dict[str, Any], repeated: bool, description: str) -> dict[str, Any]:
    """An image column: `bytes` as an image and `path` as text, each taken from the struct by a JSON path."""
    parts = [
        _field(f"{field_id}/{part}", part, kind, {**source, "transform": {"jsonPath": part}}, "")
        for part, kind in (("bytes", "sc:ImageObject"), ("path", "sc:Text"))
    ]
    out: dict[str, Any] = {"@type": "cr:Field", "@id": field_id, "name": name, "subField": parts}
    if repeated:
        out["repeated"] = True
        for part in parts:
            part["repeated"] = True
    return {**out, "description": description} if description else out


def column_field(split: str, name: str, feature: Mapping[str, Any], description: str) -> dict[str, Any] | None:
    """The record set field of one column, or None for a list of lists."""
    field_id = f"{split}/{name}"
    source = {"fileObject": {"@id": file_id(split)}, "extract": {"column": name}}
    repeated = feature["_type"] == "Sequence"
    inner = feature["feature"] if repeated else feature
    if inner["_type"] == "Sequence":
        return None
    if inner["_type"] == "Image":
        return _image(field_id, name, source, repeated, description)
    out = _field(field_id, name, DATA_TYPES[inner["dtype"]], source, description)
    return {**out, "repeated": True} if repeated else out


def record_set(split: str, features: Mapping[str, Mapping[str, Any]], facts: CardFacts) -> dict[str, Any]:
    fields, left_out = [], []
    for name, feature in features.items():
        made = column_field(split, name, feature, facts.fields.get(name, ""))
        if made is None:
            left_out.append(name)
        else:
            fields.append(made)
    description = f"The {split} split's rows, one record per row."
    if left_out:
        description += f" Left out (lists of lists have no Croissant 1.0 form): {', '.join(left_out)}."
    return {"@type": "cr:RecordSet", "@id": split, "name": split, "description": description, "field": fields}


def _description(facts: CardFacts, prov: Provenance) -> str:
    built = ", ".join(
        f"{what} {value}"
        for what, value in (
            ("benchfoundry", prov.version),
            ("config sha256", prov.config_hash),
            ("seed", prov.seed),
        )
        if value is not None
    )
    text = f"{facts.summary} Rebuilt by benchfoundry from raw assets, not the authors' release".strip()
    text = f"{text} ({built})." if built else f"{text}."
    if prov.assets:
        text += " Licensed assets used, under their own terms: " + "; ".join(
            f"{a.name} ({a.terms})" for a in prov.assets
        )
        text += "."
    return text


def croissant(
    facts: CardFacts, prov: Provenance, files: Sequence[SplitFile], features: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The dataset's Croissant 1.0 JSON-LD."""
    doc: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": facts.pretty_name,
        "description": _description(facts, prov),
        "license": prov.license,
        "keywords": keywords(facts, prov),
        "inLanguage": list(facts.language),
    }
    optional = {
        "url": facts.url,
        "citeAs": facts.citation.strip(),
        "version": prov.version,
        "datePublished": prov.finished,
    }
    doc.update({key: value for key, value in optional.items() if value})
    doc["distribution"] = [
        {
            "@type": "cr:FileObject",
            "@id": file_id(f.split),
            "name": f.path,
            "contentUrl": f.path,
            "contentSize": f"{f.size} B",
            "encodingFormat": PARQUET,
            "sha256": f.sha256,
        }
        for f in files
    ]
    doc["recordSet"] = [record_set(f.split, features, facts) for f in files]
    return doc
