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
    odd: dict[tuple[str, str], list[str]] = {}
    readings: dict[tuple[str, str], Reading] = {}
    new_attrs: list[dict[str, Any]] = []
    for fid, attrs in zip(layer.ids, layer.attrs):
        out: dict[str, Any] = {}
        for k, v in attrs.items():
            spec = vocab.field_for_name(layer.role, str(k))
            if spec is None:
                out[k] = v
                continue
            if spec.field in out and (is_blank(v) or not is_blank(out[spec.field])):
                continue  # two spellings of one field name: the first with a value counts
            r = vocab.read_value(layer.role, spec.field, v)
            out[spec.field] = r.value if r.known else v
            if r.state == UNRECOGNISED:
                key = (spec.field, str(v).strip())
                odd.setdefault(key, []).append(fid)
                readings[key] = r
        new_attrs.append(out)
    for key, fids in odd.items():
        field, raw = key
        code = f"{field}_unknown"
        warnings.append(
            Warning_(code, f"{unknown_words(readings[key])}: every finding that depends on it is undetermined", layer.role, tuple(fids))
        )
    return FeatureLayer.from_sequences(layer.role, list(layer.geoms), layer.ids, new_attrs, no_geometry=layer.no_geometry)


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
