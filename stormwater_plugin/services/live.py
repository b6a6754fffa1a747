"""The live re-check's words: what an edit changed in the findings, and which devices now comply.

The live re-check is the one review use case (:func:`~stormwater_plugin.services.site_source.check_site`) run
again after an edit, so its findings are a full check's by construction; this module only says what changed
against the last check the reviewer ran (Run, or the review restored with the project), in plain words the
dock shows. QGIS-free.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Iterable, Mapping

from ..core.kinds import envelope_role
from ..core.model import CheckResult, Finding, Status
from ..core.rulepack import RulePack
from .compare import CompareError, EarlierReview, ReviewDoc, compare_reviews

#: What the live findings' marks compare with (the comparison's ``previous``).
LAST_FULL_CHECK = "the last full check"

#: The states the dock shows beside the findings.
CURRENT, UPDATING, OUT_OF_DATE, OFF = "current", "updating", "out of date", "off"


@dataclass(frozen=True)
class Edit:
    """One edit of a layer mapped to a role, as the dock numbers and names it.

    Parameters
    ----------
    number : int
        The edit's number in this session of the dock (1, 2, …).
    role : str
        The role of the edited layer (``devices``).
    what : str
        What changed, in words (``geometry of feature 3``).
    """

    number: int
    role: str
    what: str

    def describe(self) -> str:
        """``edit 4 (devices: geometry of feature 3)``."""
        return f"edit {self.number} ({self.role.replace('_', ' ')}: {self.what})"


def status_text(state: str, edit: Edit | None, reason: str = "") -> str:
    """The words beside the findings: whether they are current, being updated or out of date, and which edit they reflect.

    Parameters
    ----------
    state : {"current", "updating", "out of date", "off"}
    edit : Edit or None
        The last edit the findings reflect (current), or the edit being checked (updating); ``None``: the check as run.
    reason : str
        Why the findings are out of date (``the site parcel id changed``).

    Returns
    -------
    str
        ``"live: current at edit 4 (devices: geometry of feature 3)"``; empty for the check as run, which needs no word.
    """
    if state == CURRENT:
        return f"live: current at {edit.describe()}" if edit is not None else ""
    if state == UPDATING:
        return "live: updating" + (f" for {edit.describe()}" if edit is not None else "") + "…"
    if state == OFF:
        return "live off: out of date" + (f" since {edit.describe()}" if edit is not None else "") + ", press Run"
    return "out of date" + (f": {reason}" if reason else "") + ", press Run"


def last_full_check(doc: Mapping[str, object] | None) -> EarlierReview | None:
    """The last full check's document as the marks compare with it at each edit: read once (:class:`~..core.compare.EarlierReview`)."""
    return None if doc is None else EarlierReview(doc)


def changes_since(full: Mapping[str, object] | None, live: Mapping[str, object], pack: RulePack | None = None) -> ReviewDoc | None:
    """The comparison of the live findings with the last full check's (``None`` when none differs, or they cannot be compared).

    Only what differs is kept (new, changed, resolved): a finding unchanged is not marked. ``pack``: the pack the live review
    applied (its rule renames), when held.
    """
    if full is None:
        return None
    try:
        cmp = compare_reviews(full, live, pack)
    except CompareError:
        return None
    cmp = dict(cmp)
    cmp["still_open"] = []
    counts = dict(cmp.get("counts") or {})  # type: ignore[call-overload]
    counts["still_open"] = 0
    cmp["counts"] = counts
    cmp["previous"] = LAST_FULL_CHECK
    if not any(cmp.get(cat) for cat in ("new", "changed", "resolved")):
        return None
    return cmp


def _setback_statuses(result: CheckResult) -> dict[str, list[Status]]:
    """Each device's setback findings' statuses (a finding naming the device as its subject or its other feature, or among them)."""
    out: dict[str, list[Status]] = {}
    setback: dict[str, bool] = {}  # each kind's role read once per result
    for f in result.findings:
        kind = f.kind
        is_setback = setback.get(kind)
        if is_setback is None:
            is_setback = setback[kind] = envelope_role(kind) == "setback"
        if not is_setback:
            continue
        devices = {ident for ref in (f.subject, f.other) if ref is not None and ref.layer == "devices" for ident in ref.ids}
        for device in devices:
            out.setdefault(device, []).append(f.status)
    return out


#: The last full check's setback statuses by device (:func:`_setback_statuses`), kept with the findings they were read from: the
#: marks compare every edit with the same full check. A finding is frozen, so the same finding objects in the same order (held
#: here) have the same statuses; another full check is read anew.
_BEFORE: tuple[tuple[Finding, ...], dict[str, list[Status]]] | None = None


def _statuses_before(result: CheckResult) -> dict[str, list[Status]]:
    """:func:`_setback_statuses` of the last full check's ``result``, read once per list of findings (see :data:`_BEFORE`); never changed."""
    global _BEFORE
    findings, held = tuple(result.findings), _BEFORE
    if held is not None and len(held[0]) == len(findings) and all(map(operator.is_, held[0], findings)):
        return held[1]
    out = _setback_statuses(result)
    _BEFORE = (findings, out)
    return out


def _devices(result: CheckResult) -> Iterable[str]:
    seen: dict[str, None] = {}
    for f in result.findings:
        for ref in (f.subject, f.other):
            if ref is not None and ref.layer == "devices":
                for ident in ref.ids:
                    seen.setdefault(ident, None)
    return seen


def now_compliant(before: CheckResult | None, after: CheckResult) -> list[str]:
    """``"DW-1 now meets every setback"`` for each device whose setbacks were not all met before and all pass now.

    A device passes every setback when each of its setback findings passes (an undetermined one is not met:
    never a silent pass).
    """
    global _LAST
    if before is None:
        return []
    now_findings, was_findings = tuple(after.findings), tuple(before.findings)
    held = _LAST
    if held is not None and _same_objects(held[0], now_findings) and _same_objects(held[1], was_findings):
        return list(held[2])  # the same findings before and now (an edit that changed none): the same words
    out = []
    now_by, was_by = _setback_statuses(after), _statuses_before(before)  # one pass over each result, not one per device
    for device in _devices(after):
        now, was = now_by.get(device), was_by.get(device)
        if now and was and all(s == Status.PASS for s in now) and any(s != Status.PASS for s in was):
            out.append(f"{device} now meets every setback")
    _LAST = (now_findings, was_findings, tuple(out))
    return out


#: The findings of the last two results :func:`now_compliant` read (held) and its words: a finding is frozen and never changed once
#: made, so the same finding objects in the same order, now and before, give the same words.
_LAST: tuple[tuple[Finding, ...], tuple[Finding, ...], tuple[str, ...]] | None = None


def _same_objects(a: tuple[Finding, ...], b: tuple[Finding, ...]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


__all__ = ["CURRENT", "Edit", "LAST_FULL_CHECK", "OFF", "OUT_OF_DATE", "UPDATING", "changes_since", "last_full_check", "now_compliant", "status_text"]
