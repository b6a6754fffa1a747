"""The review's document, typed: what the use case returns and every reader takes, made a findings.json only at the edge.

A :class:`FindingsDocument` holds what findings.json holds, section by section: the tool and the rule pack
(:class:`PackBlock`), the project class (:class:`ClassBlock`), the site, the summary counts, each finding
(:class:`DocFinding`, with its key and the reviewer's decision), the reviewer's decisions as a whole
(:class:`Decisions`), the warnings (:class:`DocWarning`), the suggested moves (:class:`Move`), the
completeness list and the comparison with an earlier review. Blocks the engine hands over as JSON
objects (the notification list, the inventory, a finding's details…) stay JSON objects.

:func:`findings_json` is the one way from the typed document to the findings.json object a writer dumps
(the command line, the dock's saved state, Processing, the batch); :func:`read_findings` is the one way
back, for a findings.json read from disk (its shape judged first, :func:`~.review_doc.findings_doc_problem`).
Nothing in between goes through JSON text: :func:`plain` gives the values ``json.loads(json.dumps(v,
default=str))`` would, by walking them.

QGIS-free and file-free.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import cast

from ..core.errors import StormwaterError
from ..core.model import BuildingSiteSlope, CheckResult, Finding
from ..core.overrides import Override, decide, finding_key
from ..core.serialize import building_site_to_dict, finding_to_dict, result_sections
from .content_memo import ContentMemo, content_key, finding_content, finding_contents
from .doc_move import Move, _opt_float, _opt_str, moves_from_dicts
from .review_doc import findings_doc_problem

JsonMap = Mapping[str, object]


# --------------------------------------------------------------------------- plain JSON values


def _key(k: object) -> str:
    """A mapping key as JSON writes it (``json.dumps``'s rules: text, numbers, true/false/null; anything else refused)."""
    if isinstance(k, str):
        return str.__str__(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    if isinstance(k, float):
        if k != k:
            return "NaN"
        if k in (math.inf, -math.inf):
            return "Infinity" if k > 0 else "-Infinity"
        return float.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


#: The exact types :func:`plain` returns as they are (a subclass of one is made its plain type).
_JSON_LEAVES = frozenset({str, float, int, bool, type(None)})


def plain(value: object) -> object:
    """``value`` as JSON values only, as ``json.loads(json.dumps(value, default=str))`` gives it, without the text.

    Tuples become lists, text and number subclasses (an enum's value, numpy's numbers) their plain types, keys
    text, and anything JSON does not hold its ``str``; every container is new.
    """
    t = type(value)
    if t in _JSON_LEAVES:
        return value
    # a leaf of a JSON type is taken as it is without a call (most of a document's values)
    if t is dict:
        return {(k if type(k) is str else _key(k)): (v if type(v) in _JSON_LEAVES else plain(v)) for k, v in value.items()}  # type: ignore[attr-defined]
    if t is list or t is tuple:
        return [v if type(v) in _JSON_LEAVES else plain(v) for v in value]  # type: ignore[attr-defined]
    return _plain_subclass(value)


def _plain_subclass(value: object) -> object:
    """:func:`plain` of a value whose type is not exactly a JSON one (json's own order of tests: text, numbers, lists, objects)."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(int.__index__(value))
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {_key(k): plain(v) for k, v in value.items()}
    return str(value)


def _map(value: object) -> JsonMap:
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def _maps(value: object) -> tuple[JsonMap, ...]:
    return tuple(v for v in value if type(v) is dict or isinstance(v, Mapping)) if isinstance(value, list) else ()


def _values(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _opt_map(value: object) -> JsonMap | None:
    return value if type(value) is dict or isinstance(value, Mapping) else None


# --------------------------------------------------------------------------- the sections


@dataclass(frozen=True)
class PackBlock:
    """The rule pack the review applied (findings.json ``rule_pack``): title, version and where its texts come from."""

    title: object
    version: object
    source: JsonMap

    def as_dict(self) -> dict[str, object]:
        return {"title": self.title, "version": self.version, "source": self.source}


@dataclass(frozen=True)
class ClassBlock:
    """The project class (findings.json ``project_class`` … ``classification_reasons``).

    ``project_class`` is the class the review applies, ``class_source`` whether it was computed or stated,
    ``computed_class`` what the site gives, ``possible_classes`` and ``question`` when the site leaves it open,
    the two areas in square feet (as decided, 0.1 sq ft) and the reasons.
    """

    project_class: str | None
    class_source: str | None
    computed_class: str | None
    possible_classes: tuple[str, ...]
    question: str | None
    disturbed_sqft: float | None
    new_impervious_sqft: float | None
    reasons: tuple[JsonMap, ...]


@dataclass(frozen=True)
class DocFinding:
    """One finding as the document holds it: the engine's finding in plain values, its key and the reviewer's decision.

    Distances are feet (``measured_ft`` at the decision precision, 0.01 ft); ``subject`` and ``other`` are
    ``{"layer", "id"}``; ``override`` is the decision on it (``None``: none) and ``effective_status`` the status a
    reader acts on. ``extra`` holds fields added after the check (the context sources of a finding), in order.
    """

    rule_id: str
    kind: str | None
    citation: str | None
    excerpt: str | None
    source_file: str | None
    status: str
    subject: JsonMap | None
    other: JsonMap | None
    measured_ft: float | None
    required_ft: float | None
    message: str | None
    details: JsonMap
    margin_ft: float | None
    accuracy_ft: float | None
    near_limit: bool
    key: str = ""
    override: JsonMap | None = None
    effective_status: str | None = None
    extra: JsonMap = field(default_factory=dict)

    @property
    def decided(self) -> bool:
        """A reviewer decision (accepted or waived) applies to this finding."""
        return bool(self.override)

    @cached_property
    def base_key(self) -> str:
        """The finding's key before repeats are told apart (:func:`~stormwater_plugin.core.overrides.finding_key`: rule and features).

        Written once per entry: an entry is never changed (a decided copy keeps it, its rule and features being the same).
        """
        return finding_key(self.rule_id, self.subject, self.other)

    def as_dict(self) -> dict[str, object]:
        """The findings.json entry (fresh containers for the fields this object holds; nested values shared)."""
        out: dict[str, object] = {
            "rule_id": self.rule_id, "kind": self.kind, "citation": self.citation, "excerpt": self.excerpt,
            "source_file": self.source_file, "status": self.status, "subject": self.subject, "other": self.other,
            "measured_ft": self.measured_ft, "required_ft": self.required_ft, "message": self.message, "details": self.details,
            "margin_ft": self.margin_ft, "accuracy_ft": self.accuracy_ft, "near_limit": self.near_limit,
            "key": self.key, "override": self.override, "effective_status": self.effective_status,
        }
        out.update(self.extra)
        return out


_FINDING_FIELDS = ("rule_id", "kind", "citation", "excerpt", "source_file", "status", "subject", "other", "measured_ft", "required_ft",
                   "message", "details", "margin_ft", "accuracy_ft", "near_limit", "key", "override", "effective_status")


#: Each finding's entry (before any decision) by the finding's content (:func:`~.content_memo.finding_content`): the live
#: re-check's review makes anew only the entries of the findings an edit changed.
_ENTRIES: ContentMemo[DocFinding] = ContentMemo()


def doc_finding(f: Finding, content: bytes | None | bool = True) -> DocFinding:
    """The document's entry of ``f`` before any decision (its key and decision come with :meth:`FindingsDocument.decided`).

    The serializer's values (:func:`~stormwater_plugin.core.serialize.finding_to_dict`) as plain JSON values; the entry of a
    finding of the same content is the one made before (its values are shared, never changed). ``content``: ``f``'s content
    key when known (:func:`~.content_memo.finding_content`).
    """
    key = finding_content(f) if content is True else content
    found = _ENTRIES.find(key) if type(key) is bytes else None  # looked up, made only when missing (no closure made per finding)
    if found is None:
        found = _finding(_plain_map(finding_to_dict(f)))
        if type(key) is bytes:
            _ENTRIES.keep(key, found)
    return found


#: Each building site's entry (its slope profile: a few hundred numbers) by its content: the same at most edits.
_SITES: ContentMemo[JsonMap] = ContentMemo(256)


def building_site(b: BuildingSiteSlope) -> JsonMap:
    """The document's entry of one building site (:func:`~stormwater_plugin.core.serialize.building_site_to_dict` as plain values);
    the entry of a site of the same content is the one made before (never changed)."""
    key = content_key((b.id, b.slope_100ft_pct, b.azimuth_deg, b.status.value, b.message, b.profile))
    return _SITES.get(key, lambda: _plain_map(building_site_to_dict(b)))


def _plain_map(d: Mapping[str, object]) -> JsonMap:
    out = plain(d)
    assert isinstance(out, dict)
    return out


def _finding(d: JsonMap) -> DocFinding:
    status = str(d.get("status"))
    eff = d.get("effective_status")
    return DocFinding(
        rule_id=str(d.get("rule_id")), kind=_opt_str(d.get("kind")), citation=_opt_str(d.get("citation")), excerpt=_opt_str(d.get("excerpt")),
        source_file=_opt_str(d.get("source_file")), status=status, subject=_opt_map(d.get("subject")), other=_opt_map(d.get("other")),
        measured_ft=_opt_float(d.get("measured_ft")), required_ft=_opt_float(d.get("required_ft")), message=_opt_str(d.get("message")),
        details=_map(d.get("details")), margin_ft=_opt_float(d.get("margin_ft")), accuracy_ft=_opt_float(d.get("accuracy_ft")),
        near_limit=bool(d.get("near_limit", False)), key=str(d.get("key") or ""), override=_opt_map(d.get("override")),
        effective_status=None if eff is None else str(eff),  # a document read back keeps what it held
        extra={k: v for k, v in d.items() if k not in _FINDING_FIELDS},
    )


@dataclass(frozen=True)
class OverrideCounts:
    """How the reviewer's decisions stand (findings.json ``override_counts``)."""

    overridden: int = 0
    violations_overridden: int = 0
    violations_unresolved: int = 0
    stale: int = 0
    status_changed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"overridden": self.overridden, "violations_overridden": self.violations_overridden,
                "violations_unresolved": self.violations_unresolved, "stale": self.stale, "status_changed": self.status_changed}


@dataclass(frozen=True)
class Decisions:
    """The reviewer's decisions as a whole: those whose finding is gone (``stale``, as the sidecar writes them) and the counts."""

    stale: tuple[JsonMap, ...] = ()
    counts: OverrideCounts = OverrideCounts()


@dataclass(frozen=True)
class DocWarning:
    """A data warning of the run (findings.json ``warnings``): its code, words, layer and feature ids."""

    code: str
    message: str
    layer: str | None
    ids: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "layer": self.layer, "ids": list(self.ids)}


def _warning(d: JsonMap) -> DocWarning:
    # the values as written (a warning's words are the reader's, never rewritten here)
    ids = d.get("ids")
    return DocWarning(cast(str, d.get("code")), cast(str, d.get("message")), cast("str | None", d.get("layer")),
                      cast("tuple[str, ...]", tuple(ids)) if isinstance(ids, list) else ())


#: The sections after the decisions, each present or not (:attr:`FindingsDocument.order`).
_SECTIONS = ("moves", "comparison", "completeness")

#: The document's top-level keys this module reads into typed fields (the others are kept in ``extra``, in order).
_TOP = ("tool", "jurisdiction", "rule_pack", "project_class", "class_source", "computed_class", "possible_classes", "class_question",
        "disturbed_sqft", "new_impervious_sqft", "classification_reasons", "site_parcel", "working_crs", "counts", "findings",
        "building_sites", "notification", "rules_not_checked", "rules_not_applicable", "inventory_100ft", "accuracy", "features",
        "warnings", "inputs", "note", "stale_overrides", "override_counts", "moves", "comparison", "completeness")


@dataclass(frozen=True)
class FindingsDocument:
    """A review's document, typed (the content of findings.json; :func:`findings_json` writes it).

    Parameters
    ----------
    tool : mapping
        The tool's name and version.
    jurisdiction : str
        The rule pack's name (``lgpc``…).
    rule_pack : PackBlock
    classification : ClassBlock
    site_parcel : str or None
        The site parcel's id (several joined by ``+``).
    working_crs : str
        The working CRS in words.
    counts : mapping of str to int
        Findings by computed status (the summary).
    findings : tuple of DocFinding
    building_sites, notification, rules_not_checked, rules_not_applicable, inventory, accuracy, features, inputs
        The engine's blocks as JSON values.
    warnings : tuple of DocWarning
    note : str
    decisions : Decisions
    moves : tuple of Move or None
        ``None``: no moves were looked for (the document then has no ``moves``).
    comparison : mapping or None
        The comparison with an earlier review (compare.json's content).
    completeness : mapping or None
        What the submission must show and what it lacks.
    extra : mapping
        Top-level keys this release does not read (an edit's, a later release's), in order.
    order : tuple of str
        The order of the sections after the decisions (``moves``, ``comparison``, ``completeness``, the ``extra`` keys) in
        findings.json, as they were added: the file keeps the order it has always had.
    """

    tool: JsonMap
    jurisdiction: str
    rule_pack: PackBlock
    classification: ClassBlock
    site_parcel: str | None
    working_crs: str
    counts: Mapping[str, int]
    findings: tuple[DocFinding, ...]
    building_sites: tuple[JsonMap, ...]
    notification: JsonMap
    rules_not_checked: tuple[JsonMap, ...]
    rules_not_applicable: tuple[JsonMap, ...]
    inventory: tuple[JsonMap, ...]
    accuracy: JsonMap
    features: JsonMap
    warnings: tuple[DocWarning, ...]
    inputs: JsonMap
    note: str
    decisions: Decisions = Decisions()
    moves: tuple[Move, ...] | None = None
    comparison: JsonMap | None = None
    completeness: JsonMap | None = None
    extra: JsonMap = field(default_factory=dict)
    order: tuple[str, ...] = ()

    def placed(self, name: str) -> tuple[str, ...]:
        """:attr:`order` with section ``name`` last unless it is there already (a section added keeps its place when replaced)."""
        return self.order if name in self.order else (*self.order, name)

    @property
    def violations_unresolved(self) -> int:
        """Violations without a reviewer decision (the command line exits 1 while there are any)."""
        return self.decisions.counts.violations_unresolved

    def decided(self, overrides: Sequence[Override] | None) -> FindingsDocument:
        """The document with ``overrides`` as its decisions (every earlier decision replaced).

        The keys, decisions, effective statuses, stale decisions and counts are
        :func:`~stormwater_plugin.core.overrides.decide`'s, the one reading of a decision (which
        :func:`~stormwater_plugin.core.overrides.annotate_document` writes into a findings.json document).
        """
        return self._decided(overrides, None)

    def _decided(self, overrides: Sequence[Override] | None, contents: Sequence[bytes | None] | None) -> FindingsDocument:
        """:meth:`decided`; ``contents``: each finding's content key (:func:`~.content_memo.finding_content`) when its entry is
        :func:`doc_finding`'s of that content, so that an entry without a decision is keyed once per content and key (:data:`_UNDECIDED`)."""
        own = self.findings
        out = decide([f.base_key for f in own], [f.details for f in own], [f.status for f in own], list(overrides) if overrides is not None else None)
        if contents is None:
            findings = tuple(_decide(f, k, None if o is None else _opt_map(o), _opt_str(e)) for f, k, o, e in zip(own, out.keys, out.overrides, out.effective))
        else:
            made: list[DocFinding] = []
            for f, k, o, e, c in zip(own, out.keys, out.overrides, out.effective, contents):  # made only when missing (no closure each)
                found = _UNDECIDED.find((c, k)) if o is None and type(c) is bytes else None
                if found is None:
                    found = _decide(f, k, None if o is None else _opt_map(o), _opt_str(e))
                    if o is None and type(c) is bytes:
                        _UNDECIDED.keep((c, k), found)
                made.append(found)
            findings = tuple(made)
        return replace(self, findings=findings, decisions=Decisions(_maps(out.stale), OverrideCounts(**out.counts)))


#: Each entry keyed and without a decision (its effective status its status) by its finding's content and its key: the live
#: re-check's review keys anew only the entries of the findings an edit changed (or whose key changed).
_UNDECIDED: ContentMemo[DocFinding] = ContentMemo()


def _decide(f: DocFinding, key: str, override: JsonMap | None, effective_status: str | None) -> DocFinding:
    """``replace(f, key=…, override=…, effective_status=…)`` without its cost (once per finding on each decision the dock takes)."""
    out = object.__new__(DocFinding)
    out.__dict__.update(f.__dict__, key=key, override=override, effective_status=effective_status)
    return out


def _int_counts(value: object) -> dict[str, int]:
    return {str(k): int(v) for k, v in _map(value).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _document(d: JsonMap, findings: tuple[DocFinding, ...] | None = None) -> FindingsDocument:
    """The typed document of a findings.json object of plain JSON values (trusted: its shape judged by the caller); ``findings``
    made already (else read from ``d``)."""
    counts = _map(d.get("override_counts"))
    moves = d.get("moves")
    pack = _map(d.get("rule_pack"))
    return FindingsDocument(
        tool=_map(d.get("tool")),
        jurisdiction=str(d.get("jurisdiction") or ""),
        rule_pack=PackBlock(pack.get("title"), pack.get("version"), _map(pack.get("source"))),
        classification=ClassBlock(
            project_class=_opt_str(d.get("project_class")), class_source=_opt_str(d.get("class_source")),
            computed_class=_opt_str(d.get("computed_class")),
            possible_classes=cast("tuple[str, ...]", tuple(_values(d.get("possible_classes")))),
            question=_opt_str(d.get("class_question")), disturbed_sqft=_opt_float(d.get("disturbed_sqft")),
            new_impervious_sqft=_opt_float(d.get("new_impervious_sqft")), reasons=_maps(d.get("classification_reasons"))),
        site_parcel=_opt_str(d.get("site_parcel")),
        working_crs=str(d.get("working_crs") or ""),
        counts=_int_counts(d.get("counts")),
        findings=tuple(_finding(f) for f in _maps(d.get("findings"))) if findings is None else findings,
        building_sites=_maps(d.get("building_sites")),
        notification=_map(d.get("notification")),
        rules_not_checked=_maps(d.get("rules_not_checked")),
        rules_not_applicable=_maps(d.get("rules_not_applicable")),
        inventory=_maps(d.get("inventory_100ft")),
        accuracy=_map(d.get("accuracy")),
        features=_map(d.get("features")),
        warnings=tuple(_warning(w) for w in _maps(d.get("warnings"))),
        inputs=_map(d.get("inputs")),
        note=cast(str, d.get("note")),
        decisions=Decisions(_maps(d.get("stale_overrides")), OverrideCounts(**{k: int(str(counts.get(k, 0))) for k in OverrideCounts.__dataclass_fields__})),
        moves=None if moves is None else moves_from_dicts(_maps(moves)),
        comparison=_opt_map(d.get("comparison")),
        completeness=_opt_map(d.get("completeness")),
        extra={k: v for k, v in d.items() if k not in _TOP},
        order=tuple(k for k in d if k in _SECTIONS or k not in _TOP),
    )


class FindingsReadError(ValueError, StormwaterError):
    """A findings.json read back is not shaped as this project writes it; the message names the entry and the field."""


def read_findings(doc: object, where: str = "findings.json") -> FindingsDocument:
    """The typed document of a findings.json read from disk (``json.loads``'s value), its shape judged first.

    Raises
    ------
    FindingsReadError
        A hand-edited or tampered document (:func:`~.review_doc.findings_doc_problem`), naming ``where``.
    """
    problem = findings_doc_problem(doc)
    if problem is not None:
        raise FindingsReadError(f"{where}: {problem}")
    assert isinstance(doc, dict)  # judged above
    return _document(doc)


def document_from_json(doc: Mapping[str, object]) -> FindingsDocument:
    """The typed document of a findings.json object this process made (an edit of :func:`findings_json`'s object): trusted,
    its values made plain."""
    values = plain(dict(doc))
    assert isinstance(values, dict)
    return _document(values)


def document_of(result: CheckResult, *, crs_name: str = "", inputs: Mapping[str, object] | None = None,
                moves: Iterable[Mapping[str, object] | Move] | None = None, overrides: Sequence[Override] | None = None) -> FindingsDocument:
    """The document of ``result`` with ``overrides`` as its decisions (none: every finding keyed, its effective status its status).

    The values are the serializer's (:func:`~stormwater_plugin.core.serialize.result_sections`) as plain JSON values;
    ``moves`` is ``None`` when none were looked for. The entry of a finding of the same content as one of a document made
    lately shares that entry's values (:func:`doc_finding`): a document's values are never changed in place.
    """
    raw = plain(result_sections(result, crs_name=crs_name, inputs=dict(inputs) if inputs is not None else None, findings=False,
                                building_sites=False))
    assert isinstance(raw, dict)
    raw["building_sites"] = [building_site(b) for b in result.building_sites]
    contents = finding_contents(result.findings)
    doc = _document(raw, tuple(doc_finding(f, k) for f, k in zip(result.findings, contents)))
    if moves is not None:
        doc = replace(doc, moves=moves_from_dicts(moves), order=doc.placed("moves"))
    return doc._decided(overrides, contents)


def findings_json(doc: FindingsDocument) -> dict[str, object]:
    """The findings.json object of ``doc``: what a writer dumps (plain JSON values; the blocks of ``doc`` are shared, not copied).

    The keys keep the order findings.json has always had; the moves, the comparison and the completeness
    list follow the decisions when present, then any key this release does not read.
    """
    c = doc.classification
    out: dict[str, object] = {
        "tool": doc.tool,
        "jurisdiction": doc.jurisdiction,
        "rule_pack": doc.rule_pack.as_dict(),
        "project_class": c.project_class,
        "class_source": c.class_source,
        "computed_class": c.computed_class,
        "possible_classes": list(c.possible_classes),
        "class_question": c.question,
        "disturbed_sqft": c.disturbed_sqft,
        "new_impervious_sqft": c.new_impervious_sqft,
        "classification_reasons": list(c.reasons),
        "site_parcel": doc.site_parcel,
        "working_crs": doc.working_crs,
        "counts": doc.counts,
        "findings": [f.as_dict() for f in doc.findings],
        "building_sites": list(doc.building_sites),
        "notification": doc.notification,
        "rules_not_checked": list(doc.rules_not_checked),
        "rules_not_applicable": list(doc.rules_not_applicable),
        "inventory_100ft": list(doc.inventory),
        "accuracy": doc.accuracy,
        "features": doc.features,
        "warnings": [w.as_dict() for w in doc.warnings],
        "inputs": doc.inputs,
        "note": doc.note,
        "stale_overrides": list(doc.decisions.stale),
        "override_counts": doc.decisions.counts.as_dict(),
    }
    sections: dict[str, object] = {}
    if doc.moves is not None:
        sections["moves"] = [plain(m.as_dict()) for m in doc.moves]  # as the siting code wrote them: its tuples made lists
    if doc.comparison is not None:
        sections["comparison"] = doc.comparison
    if doc.completeness is not None:
        sections["completeness"] = doc.completeness
    sections.update(doc.extra)
    for name in doc.order:
        if name in sections:
            out[name] = sections.pop(name)
    out.update(sections)
    return out


__all__ = [
    "ClassBlock", "Decisions", "DocFinding", "DocWarning", "FindingsDocument", "FindingsReadError", "Move", "OverrideCounts", "PackBlock",
    "document_from_json", "document_of", "findings_json", "moves_from_dicts", "plain", "read_findings",
]
