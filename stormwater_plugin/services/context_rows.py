"""A catalog source's features as their role reads them: fields renamed, the source named, ids kept.

The file reader (``headless.context_reader``) reads a catalog source's features with fiona and writes the few found
to a scratch GeoPackage; what each record holds there is decided here: the role's fields taken from the source's
(``fields`` of :class:`~stormwater_plugin.services.context_catalog.ContextSource`), the source's name on every feature,
and, for a source without an id field, the number the whole file gives each feature (a clip never renumbers them).
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from .context_catalog import ContextSource
from .feature_ids import ROLE_ID_FIELDS
from .input_errors import InputError

#: Field written on every context feature: the catalog source it came from.
SOURCE_FIELD = "context_source"
#: OGR drivers whose feature ids start at 1 (the reader numbers features from 1 in file order).
ONE_BASED_FID_DRIVERS: frozenset[str] = frozenset({"GPKG", "OpenFileGDB", "FileGDB", "SQLite"})


def check_fields(src: ContextSource, schema: Collection[str], file_name: str) -> None:
    """Refuse a source whose file (``file_name``, fields ``schema``) lacks a field the catalog maps or hints name."""
    missing = sorted({v for v in src.fields.values() if v not in schema} | {h.field for h in src.hints if h.field not in schema})
    if missing:
        raise InputError(f"context catalog: {src.name}: field(s) {', '.join(missing)} not in {file_name} (fields: {', '.join(schema)})")


def numbers_features(src: ContextSource, schema: Collection[str]) -> bool:
    """Whether the source's features are given ids by number: it has no ``id``, no field mapped to one, no id field of its role."""
    return "id" not in schema and "id" not in src.fields and not any(f in schema for f in ROLE_ID_FIELDS.get(src.role, ()))


def role_record(src: ContextSource, props: Mapping[str, object], fid: int | str, numbered: bool, driver: str) -> dict[str, object]:
    """One feature's record as the role reads it: the role's fields from the source's, the source's name, its number when
    ``numbered`` (file order from 1, whatever the ``driver`` counts from)."""
    p = dict(props)
    for role_field, source_field in src.fields.items():
        p[role_field] = p.get(source_field)
    p[SOURCE_FIELD] = src.name
    if numbered:
        p["id"] = str(int(fid) + (0 if driver in ONE_BASED_FID_DRIVERS else 1))
    return p


def role_types(src: ContextSource, schema_types: Mapping[str, str], numbered: bool) -> dict[str, str]:
    """The field types of the records :func:`role_record` gives (fiona's type names, without their widths)."""
    types = {k: str(v).split(":")[0] for k, v in schema_types.items()}
    for role_field, source_field in src.fields.items():
        types[role_field] = types.get(source_field, "str")
    types[SOURCE_FIELD] = "str"
    if numbered:
        types["id"] = "str"
    return types


def merged_types(parts: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """One layer's field types over a role's sources: a field typed differently by two sources is text."""
    types: dict[str, str] = {}
    for part in parts:
        for k, t in part.items():
            types[k] = t if types.get(k, t) == t else "str"
    return types


def scratch_row(props: Mapping[str, object], types: Mapping[str, str]) -> dict[str, object]:
    """A record as the merged layer holds it: every field of ``types``, text fields as text, missing ones empty."""
    return {k: (None if props.get(k) is None else (str(props[k]) if types[k] == "str" else props[k])) for k in types}
