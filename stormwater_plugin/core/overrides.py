"""Reviewer overrides: a finding accepted or waived, with a reason, kept beside the original.

An override never replaces a finding. The finding keeps its computed
``status``; the override sits next to it and sets its ``effective_status``.
Overrides find their findings by a stable *key* built from what the finding is
about, never from its position in a list::

    rule_id|subject_layer:subject_id|other_layer:other_id

with ``-`` for a missing subject or other. When one rule yields several
findings about the same features (a device's separation above groundwater
and above bedrock), the key adds the detail that tells them apart
(``…|devices:DW-1|-|limit=bedrock_elev_ft``); failing such a detail, the
second and later ones get ``#2``, ``#3``… in engine order.

The sidecar file (``--overrides overrides.json``; the QGIS project embeds the
same JSON) is::

    {
      "format": "stormwater-check-overrides",
      "version": 1,
      "overrides": [
        {"key": "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1",
         "decision": "waived",
         "reason": "Variance ZBA-2026-14 granted 2026-03-02",
         "reviewer": "J. Smith",
         "date": "2026-03-05",
         "status_when_made": "violation"}
      ]
    }

``decision`` is ``accepted`` (the reviewer accepts the condition as it is,
e.g. a sliver from inexact tax-parcel lines, or an undetermined item checked
in the field) or ``waived`` (the requirement is set aside, e.g. a variance
granted). ``reason`` and ``reviewer`` are required; ``date`` (ISO 8601) and
``status_when_made`` are optional. A bare JSON list of override objects is
read too. An override whose key matches no finding of the run is *stale*: it
is reported, never silently dropped, and never applied.

This module is QGIS-free: standard library only.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections import Counter, abc
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from .checks.context import joined_ids
from .errors import StormwaterError
from .model import FeatureRef, Finding

FORMAT_NAME = "stormwater-check-overrides"
FORMAT_VERSION = 1
DECISIONS: tuple[str, ...] = ("accepted", "waived")
#: Status values a finding can have (``Status`` values), for validation of ``status_when_made``.
_STATUSES = ("violation", "undetermined", "advisory", "pass")


class OverrideError(ValueError, StormwaterError):
    """An overrides file or entry that cannot be used; the message says what and where."""


@dataclass(frozen=True)
class Override:
    """A reviewer's decision on one finding.

    Parameters
    ----------
    key : str
        The finding's key (see :func:`finding_key`).
    decision : str
        ``accepted`` or ``waived``.
    reason : str
        Why, in the reviewer's words (a variance number, "tax-map sliver").
    reviewer : str
        Who decided.
    date : str or None
        ISO date (or date-time) of the decision.
    status_when_made : str or None
        The finding's computed status when the decision was made, so a later
        run can tell when the finding has changed underneath the decision.
    """

    key: str
    decision: str
    reason: str
    reviewer: str
    date: str | None = None
    status_when_made: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


# --------------------------------------------------------------------------- keys


def _order_free(fid: Any) -> str:
    """A feature id made of several (``L3+L1+L2``) in id order (``L1+L2+L3``), so a key cannot depend on feature order."""
    s = str(fid)
    return joined_ids(s.split("+")) if "+" in s else s


def _ref_part(ref: FeatureRef | Mapping[str, Any] | None) -> str:
    if ref is None:
        return "-"
    # by value, never by class: after a plugin reload a FeatureRef may come from the previous load of core.model
    # (collections.abc's Mapping: the typing alias's isinstance is several times slower, and every finding is keyed at each live edit)
    if type(ref) is dict or isinstance(ref, abc.Mapping):
        return f"{ref.get('layer')}:{_order_free(ref.get('id'))}"
    return f"{getattr(ref, 'layer', None)}:{_order_free(getattr(ref, 'id', None))}"


def normal_key(key: str) -> str:
    """``key`` with every joined feature id in it put in id order (an override written for ``L3+L2+L1`` finds ``L1+L2+L3``)."""
    parts = str(key).split("|")
    for n in (1, 2):
        if n < len(parts) and ":" in parts[n] and "+" in parts[n]:
            layer, _, fid = parts[n].partition(":")
            tail = ""
            if n == len(parts) - 1 and "#" in fid:
                fid, _, num = fid.rpartition("#")
                tail = "#" + num
            parts[n] = f"{layer}:{_order_free(fid)}{tail}"
    return "|".join(parts)


def finding_key(rule_id: str, subject: FeatureRef | Mapping[str, Any] | None, other: FeatureRef | Mapping[str, Any] | None) -> str:
    """The base key of a finding: ``rule_id|subject layer:id|other layer:id``.

    Parameters
    ----------
    rule_id : str
        The pack rule id.
    subject, other : FeatureRef or mapping with ``layer`` and ``id``, or None
        The features the finding is about.

    Returns
    -------
    str
        The key, without the ``#n`` suffix that :func:`finding_keys` adds to repeats.
    """
    return f"{rule_id}|{_ref_part(subject)}|{_ref_part(other)}"


def _qualifier(details: Sequence[Mapping[str, Any]]) -> str | None:
    """The first detail (by name) holding a short text that tells every finding of a group apart."""
    if not details:
        return None
    names = sorted(set.intersection(*(set(d) for d in details))) if all(details) else []
    for name in names:
        vals = [d[name] for d in details]
        if all(isinstance(v, str) and v and len(v) <= 40 and "|" not in v for v in vals) and len(set(vals)) == len(vals):
            return str(name)
    return None


def _unique(items: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Keys for (base key, details) pairs: a repeated base is told apart by a detail, else by ``#n``."""
    out = [b for b, _d in items]
    # the repeated bases counted at once (most bases are alone: only the repeated ones are grouped, in order)
    repeated = {b for b, n in Counter(out).items() if n > 1}
    if not repeated:
        return out
    groups: dict[str, list[int]] = {}
    for i, b in enumerate(out):
        if b in repeated:
            groups.setdefault(b, []).append(i)
    for b, idx in groups.items():
        q = _qualifier([items[i][1] or {} for i in idx])
        for n, i in enumerate(idx, start=1):
            if q is not None:
                out[i] = f"{b}|{q}={items[i][1][q]}"
            elif n > 1:
                out[i] = f"{b}#{n}"
    return out


def finding_keys(findings: Sequence[Finding], bases: Sequence[str] | None = None) -> list[str]:
    """Stable, unique keys of a run's findings, in the same order.

    When one rule yields several findings about the same features (a device's
    separation from groundwater and from bedrock), the key adds the detail
    that tells them apart (``|limit=bedrock_elev_ft``), else ``#2``, ``#3``…
    in engine order.

    Parameters
    ----------
    findings : sequence of Finding
        The findings of one run, in engine order.
    bases : sequence of str, optional
        Each finding's :func:`finding_key`, when the caller kept them (the live re-check's map rows, by the finding's content).

    Returns
    -------
    list of str
    """
    if bases is None:
        bases = [finding_key(f.rule_id, f.subject, f.other) for f in findings]
    # a dict of details is only read (a qualifier's name and value): not copied
    return _unique([(b, f.extra if type(f.extra) is dict else dict(f.extra)) for b, f in zip(bases, findings)])


def finding_dict_keys(findings: Sequence[Mapping[str, Any]], bases: Sequence[str] | None = None) -> list[str]:
    """Like :func:`finding_keys`, for finding dictionaries of findings.json (``bases``: each one's :func:`finding_key`, when kept)."""
    if bases is None:
        bases = [finding_key(str(f.get("rule_id")), f.get("subject"), f.get("other")) for f in findings]
    # a dict of details is only read (a qualifier's name and value): not copied
    return _unique([(b, d if type(d := f.get("details") or {}) is dict else dict(d)) for b, f in zip(bases, findings)])


# --------------------------------------------------------------------------- reading and writing


def make_override(
    key: str,
    decision: str,
    reason: str,
    reviewer: str,
    date: str | None = None,
    status_when_made: str | None = None,
) -> Override:
    """Validate and build an :class:`Override` (the plugin dock calls this too).

    Raises
    ------
    OverrideError
        When the decision is unknown or the key, reason or reviewer is empty.
    """
    key = str(key or "").strip()
    decision = str(decision or "").strip().lower()
    reason = str(reason or "").strip()
    reviewer = str(reviewer or "").strip()
    if not key:
        raise OverrideError("an override has no 'key'; copy the finding's key from findings.json")
    if decision not in DECISIONS:
        raise OverrideError(f"override {key}: decision '{decision}' is not one of {', '.join(DECISIONS)}")
    if not reason:
        raise OverrideError(f"override {key}: a reason is required (e.g. the variance number or 'tax-map sliver')")
    if not reviewer:
        raise OverrideError(f"override {key}: the reviewer's name is required")
    if date is not None:
        date = str(date).strip() or None
    if date is not None:
        try:
            _dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
        except ValueError:
            raise OverrideError(f"override {key}: date '{date}' is not an ISO date such as 2026-03-05") from None
    if status_when_made is not None:
        status_when_made = str(status_when_made).strip().lower() or None
        if status_when_made is not None and status_when_made not in _STATUSES:
            raise OverrideError(f"override {key}: status_when_made '{status_when_made}' is not one of {', '.join(_STATUSES)}")
    return Override(key, decision, reason, reviewer, date, status_when_made)


def parse_overrides(data: Any, source: str = "overrides") -> list[Override]:
    """Overrides from parsed JSON (the sidecar document or a bare list).

    Parameters
    ----------
    data : dict or list
        The parsed JSON.
    source : str
        Name used in error messages (the file name).

    Raises
    ------
    OverrideError
        With the source and the entry number when something is unusable. A
        key given twice is refused: one finding has one decision.
    """
    if isinstance(data, Mapping):
        fmt = data.get("format", FORMAT_NAME)
        if fmt != FORMAT_NAME:
            raise OverrideError(f"{source}: 'format' is '{fmt}', expected '{FORMAT_NAME}'")
        version = data.get("version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise OverrideError(f"{source}: format version {version} is not supported (this tool reads version {FORMAT_VERSION})")
        entries = data.get("overrides", [])
    else:
        entries = data
    if not isinstance(entries, list):
        raise OverrideError(f"{source}: 'overrides' must be a list of objects with key, decision, reason and reviewer")
    out: list[Override] = []
    seen: set[str] = set()
    for i, e in enumerate(entries, start=1):
        if not isinstance(e, Mapping):
            raise OverrideError(f"{source}: override #{i} is not an object with key, decision, reason and reviewer")
        try:
            o = make_override(
                e.get("key", ""),
                e.get("decision", ""),
                e.get("reason", ""),
                e.get("reviewer", ""),
                e.get("date"),
                e.get("status_when_made"),
            )
        except OverrideError as exc:
            raise OverrideError(f"{source}: override #{i}: {exc}") from None
        if o.key in seen:
            raise OverrideError(f"{source}: override #{i}: key {o.key} is given twice; keep one decision per finding")
        seen.add(o.key)
        out.append(o)
    return out


def loads_overrides(text: str, source: str = "overrides") -> list[Override]:
    """Parse the sidecar JSON text; see :func:`parse_overrides`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OverrideError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return parse_overrides(data, source)


def dumps_overrides(overrides: Sequence[Override]) -> str:
    """The sidecar JSON text for ``overrides`` (UTF-8, names kept as written)."""
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "overrides": [o.as_dict() for o in overrides]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def set_override(overrides: Sequence[Override], new: Override) -> list[Override]:
    """A copy of ``overrides`` with ``new`` replacing any decision on the same key."""
    return [o for o in overrides if o.key != new.key] + [new]


def remove_override(overrides: Sequence[Override], key: str) -> list[Override]:
    """A copy of ``overrides`` without the decision on ``key``."""
    return [o for o in overrides if o.key != key]


# --------------------------------------------------------------------------- applying


def effective_status(status: str, override: Override | Mapping[str, Any] | None) -> str:
    """The status a reader acts on: the decision (``accepted``/``waived``) when overridden, else the computed status."""
    if override is None:
        return status
    return str(override.decision if isinstance(override, Override) else override.get("decision", status))


@dataclass(frozen=True)
class Decided:
    """The decisions on a list of findings (:func:`decide`): each finding's key, decision and effective status, and the whole.

    ``overrides`` holds each finding's decision as findings.json writes it (``None``: none); ``stale`` the decisions whose
    key matches no finding; ``counts`` findings.json's ``override_counts``.
    """

    keys: list[str]
    overrides: list[dict[str, Any] | None]
    effective: list[Any]
    stale: list[dict[str, Any]]
    counts: dict[str, int]


def decide(bases: Sequence[str], details: Sequence[Mapping[str, Any]], statuses: Sequence[Any],
           overrides: Sequence[Override] | None) -> Decided:
    """Apply ``overrides`` to findings given as their base keys (:func:`finding_key`), details and computed statuses (in order).

    The one reading of a decision (:func:`annotate_document` writes it into a findings.json document; the review's typed
    document takes it as it is): keys told apart as :func:`finding_keys` does, a decision following its qualified finding,
    ``status_changed`` when the status is not the one the decision was made on.
    """
    keys = _unique(list(zip(bases, details)))
    if not overrides:  # no decision: each finding undecided, its effective status its status (what the loop below gives then)
        undecided = [status for _k, status in zip(keys, statuses)]
        return Decided(keys, [None] * len(undecided), undecided, [],
                       {"overridden": 0, "violations_overridden": 0, "violations_unresolved": sum(1 for s in undecided if s == "violation"),
                        "stale": 0, "status_changed": 0})
    by_key = {normal_key(o.key): o for o in overrides}
    _match_qualified(details, keys, by_key)
    used: set[str] = set()
    changed = 0
    decisions: list[dict[str, Any] | None] = []
    effective: list[Any] = []
    for k, status in zip(keys, statuses):
        o = by_key.get(k) if by_key else None
        if o is None:
            decisions.append(None)
            effective.append(status)
            continue
        used.add(o.key)
        od = o.as_dict()
        if od.get("key") == k:
            od.pop("key")  # the finding's own key; kept when the override followed a re-keyed finding
        if o.status_when_made is not None and o.status_when_made != status:
            od["status_changed"] = True
            changed += 1
        decisions.append(od)
        effective.append(o.decision)
    stale = [o.as_dict() for o in (overrides or []) if o.key not in used]
    violations = [d for d, status in zip(decisions, statuses) if status == "violation"]
    counts = {
        "overridden": sum(1 for d in decisions if d),
        "violations_overridden": sum(1 for d in violations if d),
        "violations_unresolved": sum(1 for d in violations if not d),
        "stale": len(stale),
        "status_changed": changed,
    }
    return Decided(keys, decisions, effective, stale, counts)


def annotate_document(doc: dict[str, Any], overrides: Sequence[Override] | None, bases: Sequence[str] | None = None) -> dict[str, Any]:
    """Add keys, overrides, effective statuses and stale overrides to a findings.json document, in place (:func:`decide`).

    Each finding gets ``key``, ``override`` (the decision, or ``None``) and
    ``effective_status``; its ``status`` is left as computed. The document
    gets ``stale_overrides`` (overrides whose key matches no finding) and
    ``override_counts`` {overridden, violations_overridden,
    violations_unresolved, stale, status_changed}.

    Parameters
    ----------
    doc : dict
        The document from :func:`stormwater_plugin.core.serialize.result_to_dict`
        (or a findings.json read back).
    overrides : sequence of Override or None
    bases : sequence of str, optional
        Each finding's :func:`finding_key` (rule and features), when the caller kept them.

    Returns
    -------
    dict
        ``doc`` itself.
    """
    findings: list[dict[str, Any]] = doc.get("findings", [])
    if bases is None:
        bases = [finding_key(str(f.get("rule_id")), f.get("subject"), f.get("other")) for f in findings]
    # a dict of details is only read (a qualifier's name and value): not copied
    details = [d if type(d := f.get("details") or {}) is dict else dict(d) for f in findings]
    out = decide(bases, details, [f.get("status") for f in findings], overrides)
    for f, k, o, e in zip(findings, out.keys, out.overrides, out.effective):
        f["key"] = k
        f["override"] = o
        f["effective_status"] = e
    doc["stale_overrides"] = out.stale
    doc["override_counts"] = out.counts
    return doc


def _match_qualified(details: Sequence[Mapping[str, Any]], keys: Sequence[str], by_key: dict[str, Override]) -> None:
    """Let an override keyed ``base|name=value`` follow its finding when that finding is now alone and keyed ``base``.

    (A finding's key gains or loses its qualifier as its sibling appears or
    disappears; the decision stays with the finding the qualifier names.)
    """
    if not by_key:
        return
    present = set(keys)
    for okey, o in list(by_key.items()):
        if okey in present or "|" not in okey:
            continue
        base, _, qual = okey.rpartition("|")
        name, eq, value = qual.partition("=")
        if not eq or base.count("|") != 2:
            continue
        hits = [k for d, k in zip(details, keys) if k == base and str((d or {}).get(name)) == value]
        if len(hits) == 1 and hits[0] not in by_key:
            by_key[hits[0]] = o


def unresolved_violations(doc: Mapping[str, Any]) -> int:
    """Violations with no reviewer decision: the CLI exits 1 when this is above zero."""
    return sum(1 for f in doc.get("findings", []) if f.get("status") == "violation" and not f.get("override"))


def override_template(doc: Mapping[str, Any], reviewer: str = "", statuses: Sequence[str] = ("violation", "undetermined")) -> str:
    """A sidecar file to fill in: one entry per finding with one of ``statuses``, decision and reason left blank.

    The file is not loadable until each kept entry has a decision and a
    reason; entries the reviewer does not decide on are deleted.
    """
    keys = finding_dict_keys(doc.get("findings", []))
    entries = [
        {
            "key": k,
            "decision": "",
            "reason": "",
            "reviewer": reviewer,
            "date": _dt.date.today().isoformat(),
            "status_when_made": f.get("status"),
            "finding": f.get("message", ""),
        }
        for f, k in zip(doc.get("findings", []), keys)
        if f.get("status") in statuses
    ]
    return json.dumps({"format": FORMAT_NAME, "version": FORMAT_VERSION, "overrides": entries}, indent=2, ensure_ascii=False) + "\n"


__all__ = [
    "DECISIONS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Override",
    "OverrideError",
    "annotate_document",
    "dumps_overrides",
    "effective_status",
    "finding_dict_keys",
    "finding_key",
    "finding_keys",
    "loads_overrides",
    "make_override",
    "override_template",
    "parse_overrides",
    "remove_override",
    "set_override",
    "unresolved_violations",
]
