"""Rule packs: one JSON file per jurisdiction, validated against ``packs/schema.json``.

A pack is data only. Nothing in it is executed: ``kind`` selects one of the
checks implemented in :mod:`stormwater_plugin.core.checks`, and every number
the check uses comes from ``params``.

A pack's ``glossary`` gives each term of its texts one reading: the layer
roles a term ("water body", "cleared land") reads, why, and the phrases that
name it. A rule reads a term by an item ``{"term": "water body"}`` in one of
its role lists (:data:`ROLE_PARAMS`), which the loader replaces by the term's
roles (``{"role": r}`` items in ``targets``); a rule whose excerpt names a
term and that reads roles must read the term, or name the rule that reads it
for it in ``term_read_by`` (a rule split by target). One term, one reading,
in every rule of the pack.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .errors import StormwaterError
from .kinds import param_problems
from .model import Citation
from .roles import ROLES

PACK_DIR = Path(__file__).resolve().parent / "packs"
JURISDICTIONS: tuple[str, ...] = ("lgpc", "lake-george", "mamakating")
#: Rule parameters that list layer roles (``targets``: items ``{"role": ...}``; the others: role names).
ROLE_PARAMS: tuple[str, ...] = ("targets", "water_roles", "removal_roles", "roles")


class PackError(ValueError, StormwaterError):
    """A rule pack that does not match the schema."""


@dataclass(frozen=True)
class Rule:
    """One rule of a pack."""

    id: str
    kind: str
    title: str
    citation: Citation
    applies: Mapping[str, Any]
    params: Mapping[str, Any]
    #: Ids this rule replaces (a rule split or renamed keeps reviewer decisions and comparisons).
    replaces: tuple[str, ...] = ()
    #: Glossary terms the rule reads (its role lists were expanded from them).
    terms: tuple[str, ...] = ()

    def applies_to_class(self, project_class: str) -> bool:
        classes = self.applies.get("classes")
        return classes is None or project_class in classes


@dataclass(frozen=True)
class Term:
    """One term of a pack's glossary: the roles it reads and why.

    Attributes
    ----------
    term : str
        The term as the texts write it (``water body``).
    roles : tuple of str
        The layer roles every rule naming the term reads, in order.
    reading : str
        The reading, in words.
    why : str
        Why it is read so (the conservative reading and its grounds).
    citation : str
        Where the texts use or define the term.
    named_as : tuple of str
        Phrases (lower case) that name the term in an excerpt.
    """

    term: str
    roles: tuple[str, ...]
    reading: str
    why: str
    citation: str
    named_as: tuple[str, ...]

    def named_in(self, text: str) -> bool:
        """Whether ``text`` names the term (case-insensitive)."""
        low = " ".join(text.lower().split())
        return any(p in low for p in self.named_as)


@dataclass(frozen=True)
class ClassRule:
    """A classification threshold with its citation."""

    citation: Citation
    below_sqft: float | None = None
    max_new_impervious_sqft: float | None = None


@dataclass(frozen=True)
class SubdivisionRule:
    """The minor-project subdivision clause: lots, per-lot and road disturbance limits."""

    citation: Citation
    min_lots: int
    max_lots: int
    per_lot_below_sqft: float
    road_below_sqft: float
    max_residences_per_lot: int | None
    road_uses: tuple[str, ...]


@dataclass(frozen=True)
class SubmissionItem:
    """One thing the submission must show (the completeness check, ``services/completeness.py``).

    ``kind``: ``layers_present`` (each of ``params.roles`` is a layer of the package; empty says "none"),
    ``features_present`` (each role holds a feature), ``topography`` (a DEM or existing-grade contours) or
    ``device_fields`` (every device has each of ``params.fields``).
    """

    id: str
    kind: str
    what: str
    citation: Citation
    classes: tuple[str, ...]
    params: Mapping[str, Any]


@dataclass(frozen=True)
class RulePack:
    jurisdiction: str
    title: str
    pack_version: str
    source_file: str
    source_title: str
    source_version: str
    gradient_tolerance_ft: float
    exempt: ClassRule | None
    minor: ClassRule | None
    major: ClassRule
    rules: tuple[Rule, ...] = field(default_factory=tuple)
    raw: Mapping[str, Any] = field(default_factory=dict)
    subdivision: SubdivisionRule | None = None
    glossary: tuple[Term, ...] = ()
    #: What the submission must show, in the pack's order.
    submission: tuple[SubmissionItem, ...] = ()
    #: The coordinate system the pack suggests for plans (``EPSG:2260``), or None.
    site_crs: str | None = None

    def term(self, name: str) -> Term:
        """The glossary entry of ``name``."""
        for t in self.glossary:
            if t.term == name:
                return t
        raise KeyError(name)

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def successor(self, rule_id: str) -> str:
        """The current id of ``rule_id``: itself, or the rule that records it in ``replaces``."""
        for r in self.rules:
            if r.id == rule_id:
                return r.id
        for r in self.rules:
            if rule_id in r.replaces:
                return r.id
        return rule_id


# --- a small validator for the subset of JSON Schema the pack schema uses ----

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _check(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, errors: list[str]) -> None:
    if "$ref" in schema:
        ref = schema["$ref"]
        target: Any = root
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        if value is None and "null" in _as_list(schema.get("type")):
            return
        _check(value, target, root, path, errors)
        return
    types = _as_list(schema.get("type"))
    if types:
        ok = False
        for t in types:
            if t in ("number",) and isinstance(value, bool):
                continue
            if isinstance(value, _TYPES[t]):
                ok = True
        if not ok:
            errors.append(f"{path}: expected {' or '.join(types)}, got {type(value).__name__}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing '{key}'")
        props = schema.get("properties", {})
        for key, sub in value.items():
            if key in props:
                _check(sub, props[key], root, f"{path}.{key}", errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key '{key}'")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _check(item, schema["items"], root, f"{path}[{i}]", errors)


def _as_list(t: Any) -> list[str]:
    if t is None:
        return []
    return list(t) if isinstance(t, list) else [t]


def validate_pack_dict(data: Mapping[str, Any]) -> list[str]:
    """Errors found validating a pack against the schema (empty when valid)."""
    schema = json.loads((PACK_DIR / "schema.json").read_text(encoding="utf-8"))
    errors: list[str] = []
    _check(data, schema, schema, "pack", errors)
    ids = [r.get("id") for r in data.get("rules", []) if isinstance(r, dict)]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        errors.append(f"pack: duplicate rule ids {sorted(str(d) for d in dupes)}")
    for i, r in enumerate(data.get("rules", [])):
        if isinstance(r, dict):  # the kind's parameter rules, from the registry (core/kinds.py)
            errors += [f"pack.rules[{i}].params.{key} {problem}" for key, problem in param_problems(r.get("kind"), r.get("params", {}))]
    errors += _glossary_errors(data)
    return errors


def _term_refs(params: Mapping[str, Any]) -> list[str]:
    """The glossary terms a rule's role lists read."""
    return [str(item["term"]) for key in ROLE_PARAMS for item in (params.get(key) or []) if isinstance(item, dict) and "term" in item]


def _glossary_errors(data: Mapping[str, Any]) -> list[str]:
    """Glossary terms known, their roles contract roles, and every rule naming a term reading it."""
    errors: list[str] = []
    terms = {str(t.get("term")): t for t in data.get("glossary", []) if isinstance(t, dict)}
    if len(terms) != len(data.get("glossary", [])):
        errors.append("pack.glossary: a term is defined twice")
    for name, t in terms.items():
        odd = [r for r in t.get("roles", []) if r not in ROLES]
        if odd:
            errors.append(f"pack.glossary '{name}': roles {odd} are not contract roles")
    rules = [r for r in data.get("rules", []) if isinstance(r, dict)]
    reads = {str(r.get("id")): set(_term_refs(r.get("params", {}))) for r in rules}
    for i, r in enumerate(rules):
        p = r.get("params", {})
        for name in _term_refs(p):
            if name not in terms:
                errors.append(f"pack.rules[{i}] reads the term '{name}', which the glossary does not define")
        by = r.get("term_read_by", {})
        for name, other in by.items():
            if name not in reads.get(str(other), set()):
                errors.append(f"pack.rules[{i}].term_read_by: rule '{other}' does not read the term '{name}'")
        if not any(p.get(k) for k in ROLE_PARAMS):
            continue
        excerpt = " ".join(str(r.get("excerpt", "")).lower().split())
        for name, t in terms.items():
            if any(str(w).lower() in excerpt for w in t.get("named_as", [])) and name not in reads[str(r.get("id"))] and name not in by:
                errors.append(f"pack.rules[{i}] ({r.get('id')}) names '{name}' in its excerpt but does not read the glossary term")
    return errors


def _expand_terms(params: Mapping[str, Any], glossary: Mapping[str, Term]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``params`` with every ``{"term": ...}`` item of a role list replaced by the term's roles, and the terms read."""
    out = dict(params)
    used: list[str] = []
    for key in ROLE_PARAMS:
        items = params.get(key)
        if not isinstance(items, list) or not any(isinstance(x, dict) and "term" in x for x in items):
            continue
        new: list[Any] = []
        for item in items:
            if isinstance(item, dict) and "term" in item:
                t = glossary[str(item["term"])]
                used.append(t.term)
                rest = {k: v for k, v in item.items() if k != "term"}
                new += [{**rest, "role": r} for r in t.roles] if key == "targets" else list(t.roles)
            else:
                new.append(item)
        unique: dict[str, Any] = {}
        for x in new:
            unique.setdefault(json.dumps(x, sort_keys=True), x)
        out[key] = list(unique.values())
    return out, tuple(dict.fromkeys(used))


def _class_rule(d: Mapping[str, Any] | None, source_file: str, version: str) -> ClassRule | None:
    if d is None:
        return None
    return ClassRule(
        citation=Citation(d["citation"], d["excerpt"], d.get("source_file", source_file), version),
        below_sqft=d.get("below_sqft"),
        max_new_impervious_sqft=d.get("max_new_impervious_sqft"),
    )


def pack_from_dict(data: Mapping[str, Any]) -> RulePack:
    """Build a :class:`RulePack` from its JSON form, validating it first."""
    errors = validate_pack_dict(data)
    if errors:
        raise PackError("; ".join(errors[:5]))
    src = data["source"]
    version = data["pack_version"]
    glossary = {
        str(t["term"]): Term(str(t["term"]), tuple(str(x) for x in t["roles"]), str(t["reading"]), str(t["why"]), str(t["citation"]),
                             tuple(str(w).lower() for w in t.get("named_as", [t["term"]])))
        for t in data.get("glossary", [])
    }
    subjects = _device_subjects(data)
    rules = []
    for r in data["rules"]:
        params, used = _expand_terms(r.get("params", {}), glossary)
        if r["id"] in subjects:
            params = {**params, "device_subject": subjects[r["id"]]}
        rules.append(Rule(
            id=r["id"],
            kind=r["kind"],
            title=r["title"],
            citation=Citation(r["citation"], r["excerpt"], r.get("source_file", src["file"]), version),
            applies=dict(r.get("applies", {})),
            params=params,
            replaces=tuple(str(x) for x in r.get("replaces", ())),
            terms=used,
        ))
    cls = data["classification"]
    major = _class_rule(cls["major"], src["file"], version)
    assert major is not None
    return RulePack(
        jurisdiction=data["jurisdiction"],
        title=data["title"],
        pack_version=version,
        source_file=src["file"],
        source_title=src["title"],
        source_version=src["version"],
        gradient_tolerance_ft=float(data["gradient_tolerance_ft"]),
        exempt=_class_rule(cls["exempt"], src["file"], version),
        minor=_class_rule(cls["minor"], src["file"], version),
        major=major,
        rules=tuple(rules),
        raw=data,
        subdivision=_subdivision(cls.get("subdivision"), src["file"], version),
        glossary=tuple(glossary.values()),
        submission=tuple(
            SubmissionItem(str(i["id"]), str(i["kind"]), str(i["what"]), Citation(i["citation"], i["excerpt"], i.get("source_file", src["file"]), version),
                           tuple(str(c) for c in i.get("applies", {}).get("classes", ("exempt", "minor", "major"))), dict(i["params"]))
            for i in data.get("submission", [])
        ),
        site_crs=str(data["site_crs"]["crs"]) if data.get("site_crs") else None,
    )


def _device_subjects(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Rule id to its row of the pack's ``device_subjects`` table (subject words, type to ``applies``/``open``, reading).

    Each row's subject must be words of each of its rules' excerpts (the subject is read from the rule's own words),
    and a rule has at most one row.
    """
    excerpts = {str(r["id"]): " ".join(str(r["excerpt"]).split()).casefold() for r in data["rules"]}
    out: dict[str, dict[str, Any]] = {}
    for row in data.get("device_subjects", []):
        subject = " ".join(str(row["subject"]).split())
        for rid in row["rules"]:
            if rid not in excerpts:
                raise PackError(f"device_subjects names no rule '{rid}'")
            if subject.casefold() not in excerpts[rid]:
                raise PackError(f"device_subjects: '{subject}' is not in the excerpt of {rid}")
            if rid in out:
                raise PackError(f"device_subjects lists {rid} twice")
            bad = sorted(str(v) for v in row["types"].values() if v not in ("applies", "open"))
            if bad:
                raise PackError(f"device_subjects of {rid}: each type 'applies' or 'open', not {', '.join(bad)}")
            out[str(rid)] = {"subject": subject, "types": {str(k): str(v) for k, v in row["types"].items()}, "reading": str(row["reading"])}
    return out


def pack_source(pack: RulePack) -> dict[str, Any]:  # JSON values only (the pack's own)
    """The pack's ``source`` block (the text it encodes, its date, public source, date read, notes), as JSON."""
    src = pack.raw.get("source") if isinstance(pack.raw, Mapping) else None
    out: dict[str, Any] = {"file": pack.source_file, "title": pack.source_title, "version": pack.source_version}
    if isinstance(src, Mapping):
        out.update({str(k): (list(v) if isinstance(v, (list, tuple)) else v) for k, v in src.items()})
    return out


def source_statement(source: Mapping[str, Any], *, label: bool = True) -> str:
    """One paragraph naming the text a pack encodes: title, file, its own date (or that it has none), public source, date read, notes.

    ``label`` starts it with "Text encoded:" (a letter's note); a report row that has the label drops it.
    """
    if not source:
        return ""
    parts = [f"{'Text encoded: ' if label else ''}{source.get('title', '')} ({source.get('file', '')})"]
    if source.get("text_date"):
        parts.append(str(source["text_date"]))
    if source.get("public_source"):
        parts.append(f"source: {source['public_source']}")
    if source.get("read"):
        parts.append(f"read {source['read']}")
    notes = " ".join(str(n) for n in source.get("notes") or [])
    return "; ".join(parts) + "." + (f" {notes}" if notes else "")


def device_subject(rule: Rule, device_type: str | None) -> tuple[str, str]:
    """(``applies`` or ``open``, the reading) of ``rule`` for a device of ``device_type``; ``applies`` when the pack is silent."""
    row = rule.params.get("device_subject")
    if not isinstance(row, Mapping) or device_type is None:
        return "applies", ""
    return str(row["types"].get(device_type, "applies")), str(row["reading"])


def _subdivision(d: Mapping[str, Any] | None, source_file: str, version: str) -> SubdivisionRule | None:
    if not d:
        return None
    return SubdivisionRule(
        citation=Citation(d["citation"], d["excerpt"], d.get("source_file", source_file), version),
        min_lots=int(d["min_lots"]),
        max_lots=int(d["max_lots"]),
        per_lot_below_sqft=float(d["per_lot_below_sqft"]),
        road_below_sqft=float(d["road_below_sqft"]),
        max_residences_per_lot=int(d["max_residences_per_lot"]) if d.get("max_residences_per_lot") is not None else None,
        road_uses=tuple(str(u).lower() for u in d.get("road_uses", ["road"])),
    )


#: Packs read, by file: (path, modification time ns, size) to the pack. A pack is frozen, so one object serves every caller.
_PACKS: dict[tuple[str, int, int], RulePack] = {}
_PACKS_LOCK = threading.Lock()


def load_pack(jurisdiction: str) -> RulePack:
    """Load the bundled pack of a jurisdiction (``lgpc``, ``lake-george``, ``mamakating``).

    Read and validated once per file version (its path, modification time
    and size): the dock asks for the pack several times per review (each read
    cost ~6 ms on the main thread). Thread-safe.
    """
    if jurisdiction not in JURISDICTIONS:
        raise PackError(f"unknown jurisdiction '{jurisdiction}': choose one of {', '.join(JURISDICTIONS)}")
    path = PACK_DIR / f"{jurisdiction}.json"
    try:
        st = path.stat()
    except OSError:
        return load_pack_file(path)  # raises the PackError naming the file
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _PACKS_LOCK:
        pack = _PACKS.get(key)
    if pack is None:
        pack = load_pack_file(path)
        with _PACKS_LOCK:
            _PACKS[key] = pack
    return pack


def load_pack_file(path: Path | str) -> RulePack:
    """Load and validate a pack from a JSON file."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PackError(f"cannot read rule pack {p}: {exc}") from exc
    return pack_from_dict(data)
