"""One reading of every categorical attribute value: folding, synonyms, unknowns.

The accepted values and their synonyms are data (``packs/vocabulary.json``,
validated by ``packs/vocabulary.schema.json``); this module only folds and
looks up. A value is read case-blind and whitespace-blind, every run of
punctuation or spaces is one underscore, and a value that differs from an
accepted one only by where its underscores fall (``DRYWELL``) is that value.

:func:`normalise_layer` rewrites each layer's categorical fields once, after
cleaning, to their canonical names and values, so every check that reads them
sees ``device_type = "porous_pavement"`` whether the plan says ``Porous
Pavement`` or ``porous-pavers``. A value it cannot read is left as written and
reported; :func:`read` tells the checks it is unrecognised, and every finding
that depends on it is undetermined (:func:`unknown_words` names the field, the
value and the accepted values).
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Mapping

from .model import FeatureLayer, Warning_
from .rulepack import PACK_DIR, PackError, _check

VOCABULARY_FILE = PACK_DIR / "vocabulary.json"
SCHEMA_FILE = PACK_DIR / "vocabulary.schema.json"

#: Reading of one value.
KNOWN = "known"
MISSING = "missing"
UNRECOGNISED = "unrecognised"

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
#: Shapefiles (dBase) keep at most this many characters of a field name.
DBASE_NAME_LENGTH = 10


def fold(value: Any) -> str:
    """``value`` case-, accent-, whitespace- and punctuation-folded: ``' Porous-Pavement '`` -> ``porous_pavement``."""
    text = unicodedata.normalize("NFKD", str(value)).encode("ascii", "ignore").decode("ascii").lower()
    return _NON_ALNUM.sub("_", text).strip("_")


def _compact(folded: str) -> str:
    return folded.replace("_", "")


def is_blank(value: Any) -> bool:
    """True for an absent value: ``None``, NaN, an empty or blank string, or the texts ``nan``/``none``/``null``."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str):
        return value.strip().lower() in ("", "nan", "none", "null")
    return False


@dataclass(frozen=True)
class FieldVocabulary:
    """The accepted values of one field in some roles."""

    field: str
    roles: tuple[str, ...]
    kind: str
    accepted: tuple[str, ...]
    lookup: Mapping[str, str]
    missing: str | None
    reading: str


@dataclass(frozen=True)
class Reading:
    """What one attribute value reads as.

    ``value`` is the canonical value (``True``/``False`` for a yes/no field),
    or ``None`` when ``state`` is :data:`MISSING` (and the field has no value
    for missing) or :data:`UNRECOGNISED`; ``raw`` is the value as written.
    """

    field: str
    raw: Any
    value: Any
    state: str
    accepted: tuple[str, ...]

    @property
    def known(self) -> bool:
        return self.state == KNOWN


class Vocabulary:
    """Every field's accepted values, from the vocabulary JSON."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        errors: list[str] = []
        schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        _check(data, schema, schema, "vocabulary", errors)
        if errors:
            raise PackError("; ".join(errors[:5]))
        self.version = str(data["vocabulary_version"])
        self.true = frozenset(_compact(fold(v)) for v in data["booleans"]["true"])
        self.false = frozenset(_compact(fold(v)) for v in data["booleans"]["false"])
        if self.true & self.false:
            raise PackError(f"vocabulary: {sorted(self.true & self.false)} read as both yes and no")
        self.fields: list[FieldVocabulary] = []
        self._field_memo: dict[tuple[str, str], FieldVocabulary | None] = {}
        for spec in data["fields"]:
            lookup: dict[str, str] = {}
            accepted: tuple[str, ...] = ()
            if spec["kind"] == "category":
                values = spec.get("values") or {}
                accepted = tuple(values)
                for canon, synonyms in values.items():
                    if fold(canon) != canon:
                        raise PackError(f"vocabulary {spec['field']}: value '{canon}' is not in folded form")
                    for word in (canon, *synonyms):
                        key = _compact(fold(word))
                        if lookup.get(key, canon) != canon:
                            raise PackError(f"vocabulary {spec['field']}: '{word}' reads as both '{lookup[key]}' and '{canon}'")
                        lookup[key] = canon
                if spec["missing"] is not None and spec["missing"] not in values:
                    raise PackError(f"vocabulary {spec['field']}: missing reads as '{spec['missing']}', which is not a value")
            self.fields.append(
                FieldVocabulary(spec["field"], tuple(spec["roles"]), spec["kind"], accepted, lookup, spec["missing"], spec["reading"])
            )

    def field_for_name(self, role: str, name: str) -> FieldVocabulary | None:
        """The field of ``role`` a column called ``name`` holds: the same name folded, or its 10-character dBase cut.

        Answered once per role and name (the fields never change after loading): every check, and every
        re-check of a suggested move, reads the same column names of every feature.
        """
        k = (role, name)
        if k not in self._field_memo:
            self._field_memo[k] = self._field_for_name(role, name)
        return self._field_memo[k]

    def _field_for_name(self, role: str, name: str) -> FieldVocabulary | None:
        key = fold(name)
        hits = [f for f in self.fields if role in f.roles and fold(f.field) == key]
        if hits:
            return hits[0]
        if key and len(str(name).strip()) == DBASE_NAME_LENGTH:
            cut = [f for f in self.fields if role in f.roles and len(fold(f.field)) > DBASE_NAME_LENGTH and fold(f.field).startswith(key)]
            if len({f.field for f in cut}) == 1:
                return cut[0]
        return None

    def spec(self, role: str, field: str) -> FieldVocabulary | None:
        """The vocabulary of ``field`` in ``role`` (``None`` when the field is not categorical there)."""
        for f in self.fields:
            if f.field == field and role in f.roles:
                return f
        return None

    def read_value(self, role: str, field: str, raw: Any) -> Reading:
        """Read one value of ``field`` in ``role``."""
        spec = self.spec(role, field)
        if spec is None:
            raise KeyError(f"{field} is not a categorical field of the {role} layer")
        if spec.kind == "boolean":
            return self._read_boolean(spec, raw)
        if spec.kind == "name":
            return Reading(field, raw, raw, MISSING if is_blank(raw) else KNOWN, ())
        if is_blank(raw):
            if spec.missing is not None:
                return Reading(field, raw, spec.missing, KNOWN, spec.accepted)
            return Reading(field, raw, None, MISSING, spec.accepted)
        canon = spec.lookup.get(_compact(fold(raw)))
        if canon is None:
            return Reading(field, raw, None, UNRECOGNISED, spec.accepted)
        return Reading(field, raw, canon, KNOWN, spec.accepted)

    def boolean(self, raw: Any) -> bool | None:
        """A yes/no value: ``True``, ``False``, or ``None`` when absent or unreadable."""
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, (int, float)):
            if isinstance(raw, float) and math.isnan(raw):
                return None
            return bool(raw)
        if is_blank(raw):
            return None
        key = _compact(fold(raw))
        if key in self.true:
            return True
        if key in self.false:
            return False
        try:
            x = float(str(raw).strip())
        except ValueError:
            return None
        return bool(x) if x in (0.0, 1.0) else None

    def _read_boolean(self, spec: FieldVocabulary, raw: Any) -> Reading:
        accepted = ("yes", "no")
        if is_blank(raw):
            return Reading(spec.field, raw, None, MISSING, accepted)
        b = self.boolean(raw)
        return Reading(spec.field, raw, b, KNOWN if b is not None else UNRECOGNISED, accepted)


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The bundled vocabulary (read once)."""
    try:
        data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:  # pragma: no cover - bundled file
        raise PackError(f"cannot read {VOCABULARY_FILE}: {exc}") from exc
    return Vocabulary(data)


def field_value(attrs: Mapping[str, Any], field: str) -> Any:
    """The value of ``field`` by case- and whitespace-blind field name (``Device_Type``, ``device type``); ``None`` when absent."""
    if field in attrs:
        return attrs[field]
    want = fold(field)
    for k, v in attrs.items():
        if fold(k) == want:
            return v
    return None


def read(attrs: Mapping[str, Any], role: str, field: str) -> Reading:
    """Read ``field`` of one feature of ``role`` (already normalised or not: the result is the same)."""
    vocab = vocabulary()
    raw = field_value(attrs, field)
    if raw is None:
        for k, v in attrs.items():
            spec = vocab.field_for_name(role, str(k))
            if spec is not None and spec.field == field:
                raw = v
                break
    return vocab.read_value(role, field, raw)


def truthy(value: Any) -> bool | None:
    """Read a yes/no value with the vocabulary's words; ``None`` when absent or unreadable."""
    return vocabulary().boolean(value)


def unknown_words(reading: Reading) -> str:
    """``device_type 'rain garden' is not a recognised value (accepted: dry_well, …)``, or the missing-value text."""
    accepted = ", ".join(reading.accepted)
    if reading.state == MISSING:
        return f"{reading.field} is not set (accepted: {accepted})"
    return f"{reading.field} '{str(reading.raw).strip()}' is not a recognised value (accepted: {accepted})"


def normalise_layer(layer: FeatureLayer, warnings: list[Warning_]) -> FeatureLayer:
    """``layer`` with every categorical field under its canonical name and value; unrecognised values reported.

    Field names are matched case- and whitespace-blind and written lower-case
    (``Device_Type`` -> ``device_type``). A recognised value becomes its
    canonical form (``Porous Pavement`` -> ``porous_pavement``, ``YES`` ->
    ``True``); a missing or unrecognised one is kept as written, so a later
    :func:`read` still sees it as unknown. One warning per field and value
    names the features, the value and the accepted values.
    """
    vocab = vocabulary()
    specs = [f for f in vocab.fields if layer.role in f.roles]
    if not specs or not len(layer):
        return layer
    new_attrs, unread = _normalised_attrs(vocab, layer.role, layer.attrs)
    odd: dict[tuple[str, str], list[str]] = {}
    readings: dict[tuple[str, str], Reading] = {}
    for n, _pos, field, v in sorted(unread, key=lambda u: (u[0], u[1])):  # in the order a feature-by-feature reading meets them
        key = (field, str(v).strip())
        odd.setdefault(key, []).append(layer.ids[n])
        readings[key] = vocab.read_value(layer.role, field, v)
    for key, fids in odd.items():
        field, raw = key
        code = f"{field}_unknown"
        warnings.append(
            Warning_(code, f"{unknown_words(readings[key])}: every finding that depends on it is undetermined", layer.role, tuple(fids))
        )
    return FeatureLayer.from_sequences(layer.role, list(layer.geoms), layer.ids, new_attrs, no_geometry=layer.no_geometry)


#: An unrecognised value met while normalising: the feature's index, the field's place among its fields, the field, the value.
_Unread = tuple[int, int, str, Any]
#: The value types whose readings are kept by value while a layer is normalised: equal values of one of these types (and
#: ``str`` of them) read the same. Any other type (a date with a time zone: equal instants, other texts) is read each time.
_READ_BY_VALUE: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def _normalised_attrs(vocab: Vocabulary, role: str, attrs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[_Unread]]:
    """Each feature's attributes normalised (see :func:`normalise_layer`), and the unrecognised values met.

    A county's parcels are 100,000 features with the same few fields and a few distinct values: the features are taken in
    groups of the same field names (in order), each field name is looked up once a group and each distinct value once a
    field, and the features' dictionaries are built from the columns. A group in which two names are one field (or a
    name is the canonical name of another) is read feature by feature (:func:`_normalised_features`), the first value
    counting as there.
    """
    groups: dict[tuple[Any, ...], list[int]] = {}
    for n, a in enumerate(attrs):
        groups.setdefault(tuple(a), []).append(n)
    out: list[dict[str, Any]] = [{}] * len(attrs)
    unread: list[_Unread] = []
    for names, members in groups.items():
        fields = [vocab.field_for_name(role, str(k)) for k in names]
        written = [k if f is None else f.field for k, f in zip(names, fields)]
        if len(set(written)) != len(written):
            rows, odd = _normalised_features(vocab, role, [attrs[n] for n in members])
            for n, row in zip(members, rows):
                out[n] = row
            unread.extend((members[i], pos, field, v) for i, pos, field, v in odd)
            continue
        columns: list[list[Any]] = []
        for pos, (k, spec) in enumerate(zip(names, fields)):
            column = [attrs[n][k] for n in members]
            if spec is not None:
                column = _read_column(vocab, role, spec, column, pos, members, unread)
            columns.append(column)
        for n, values in zip(members, zip(*columns)):
            out[n] = dict(zip(written, values))
    return out, unread


def _read_column(vocab: Vocabulary, role: str, spec: FieldVocabulary, column: list[Any], pos: int, members: list[int],
                 unread: list[_Unread]) -> list[Any]:
    """``column`` (the values of ``spec``'s field, at place ``pos``, of the features ``members``) as normalised: a recognised
    value becomes its canonical one, any other stays as written and is noted in ``unread`` when unrecognised.

    Each distinct value (by type and value) is read once; a value of a type not read by value is read each time.
    """
    if spec.kind == "name":
        return column  # a name is never unrecognised, and reads as itself (or as missing, kept as written)
    if not _READ_BY_VALUE.issuperset(set(map(type, column))):
        return _read_each(vocab, role, spec, column, pos, members, unread)
    keys = list(zip(map(type, column), column))
    readings = {k: vocab.read_value(role, spec.field, k[1]) for k in dict.fromkeys(keys)}
    # a canonical value depends on the value's text folded only (0.0 and -0.0 read alike); one not read is kept as written
    value_of = {k: r.value for k, r in readings.items() if r.known}
    if len(value_of) == len(readings):
        return [value_of[k] for k in keys]
    done: list[Any] = []
    for i, (k, v) in enumerate(zip(keys, column)):
        if k in value_of:
            done.append(value_of[k])
            continue
        done.append(v)
        if readings[k].state == UNRECOGNISED:
            unread.append((members[i], pos, spec.field, v))
    return done


def _read_each(vocab: Vocabulary, role: str, spec: FieldVocabulary, column: list[Any], pos: int, members: list[int],
               unread: list[_Unread]) -> list[Any]:
    """:func:`_read_column` reading every value (a column holding a value whose equal values may not read alike)."""
    done: list[Any] = []
    for i, v in enumerate(column):
        r = vocab.read_value(role, spec.field, v)
        if r.state == UNRECOGNISED:
            unread.append((members[i], pos, spec.field, v))
        done.append(r.value if r.known else v)
    return done


def _normalised_features(vocab: Vocabulary, role: str, attrs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[_Unread]]:
    """Each feature's attributes normalised one by one (the reading :func:`_normalised_attrs` gives each group by columns)."""
    rows: list[dict[str, Any]] = []
    unread: list[_Unread] = []
    for n, a in enumerate(attrs):
        out: dict[str, Any] = {}
        for pos, (k, v) in enumerate(a.items()):
            spec = vocab.field_for_name(role, str(k))
            if spec is None:
                out[k] = v
                continue
            if spec.field in out and (is_blank(v) or not is_blank(out[spec.field])):
                continue  # two spellings of one field name: the first with a value counts
            r = vocab.read_value(role, spec.field, v)
            out[spec.field] = r.value if r.known else v
            if r.state == UNRECOGNISED:
                unread.append((n, pos, spec.field, v))
        rows.append(out)
    return rows, unread


def name_matches(name: Any, pattern: str) -> bool:
    """True when ``pattern`` (``lake george``) is part of ``name`` (``LAKE-GEORGE (north basin)``, ``LakeGeorge``), folded.

    Spaces and punctuation are ignored on both sides, so the match is never
    narrower than a plain substring test of the lower-cased texts.
    """
    p = _compact(fold(pattern))
    return bool(p) and p in _compact(fold(name))


__all__ = [
    "KNOWN",
    "MISSING",
    "UNRECOGNISED",
    "Reading",
    "Vocabulary",
    "field_value",
    "fold",
    "is_blank",
    "name_matches",
    "normalise_layer",
    "read",
    "truthy",
    "unknown_words",
    "vocabulary",
]
