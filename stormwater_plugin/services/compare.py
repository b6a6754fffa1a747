"""The comparison of two reviews of one site: the use case ``stormwater-check compare`` and the Processing algorithm call.

:func:`compare_reviews` checks that both documents are findings.json reviews and
compares them with :func:`~stormwater_plugin.core.compare.compare_documents`
(resolved, new, still open, changed, renamed features, decisions carried over);
:func:`open_violations` is what keeps a resubmission from passing. Reading the
files stays with each front end.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.compare import EarlierReview, ReviewDoc, compare_documents, format_problem, since_last_review
from ..core.errors import StormwaterError
from ..core.rulepack import RulePack
from .findings_doc import DocFinding, FindingsDocument

__all__ = ["CompareError", "EarlierReview", "ReviewDoc", "comparable", "compare_reviews", "open_violations", "review_document", "since_last_review"]


class CompareError(ValueError, StormwaterError):
    """The two documents cannot be compared (not reviews, or of different jurisdictions)."""


def review_document(doc: object, where: str) -> ReviewDoc:
    """``doc`` when it is a findings.json review (a mapping with ``findings``), else :class:`CompareError` naming ``where``."""
    if not isinstance(doc, Mapping) or "findings" not in doc:
        raise CompareError(f"{where}: not a findings.json document (no 'findings')")
    problem = doc.problem if type(doc) is _Comparable else format_problem(doc)  # a comparable document's judged when made
    if problem is not None:  # a format no release wrote is refused in one line, never half-matched
        raise CompareError(f"{where}: findings.json in a format this release cannot read ({problem}); check the site again with this release")
    return doc if type(doc) is _Comparable else dict(doc)  # a comparable document is never changed: not copied


def _earlier(old: EarlierReview) -> EarlierReview:
    """:func:`review_document` of an earlier review read once (its shape judged when taken)."""
    if "findings" not in old:
        raise CompareError("the earlier review: not a findings.json document (no 'findings')")
    if old.problem is not None:
        raise CompareError(f"the earlier review: findings.json in a format this release cannot read ({old.problem}); "
                           "check the site again with this release")
    return old


class _Comparable(dict):  # type: ignore[type-arg]
    """:func:`comparable`'s document, never changed once made: ``problem`` is :func:`format_problem`'s answer for it."""

    problem: str | None = None
    #: Its findings' entries are never changed (held by :data:`_READ` with the typed entries they were read from).
    fixed_entries = True


#: What the comparison reads of each entry of a typed document, and whether that entry alone is in a format this project wrote
#: (:func:`format_problem` finds nothing in it), by the entry (held, so its id stays its own: an entry is frozen and its values
#: never changed, so the same entry reads the same). The entries of the last two documents: the live marks compare at each edit,
#: and most entries are those of the edit before. The values are shared by the documents made: never changed.
_READ: list[dict[int, tuple[DocFinding, ReviewDoc, bool]]] = [{}, {}]


def comparable(document: FindingsDocument) -> ReviewDoc:
    """What :func:`compare_reviews` reads of a review as the current one, taken from its typed document as findings.json holds it.

    The jurisdiction, the tool, the project class, the counts, the working CRS, the features and each finding's key, rule,
    citation, features, status, distances, message and decision (:func:`~stormwater_plugin.core.compare.compare_reviews`,
    :func:`~stormwater_plugin.core.compare.format_problem`): the comparison of an earlier review with it is the comparison
    with the whole findings.json (``tests/core/test_compare_service.py`` holds them equal), without writing each finding's
    every field (the live re-check compares at each edit).
    """
    now, before = _READ
    mine: dict[int, tuple[DocFinding, ReviewDoc, bool]] = {}
    findings: list[ReviewDoc] = []
    shaped = True
    for f in document.findings:
        held = now.get(id(f)) or before.get(id(f))
        if held is None or held[0] is not f:
            entry = {"key": f.key, "rule_id": f.rule_id, "citation": f.citation, "subject": f.subject, "other": f.other, "status": f.status,
                     "measured_ft": f.measured_ft, "required_ft": f.required_ft, "message": f.message, "override": f.override}
            held = (f, entry, format_problem({"findings": [entry]}) is None)
        mine[id(f)] = held
        findings.append(held[1])
        shaped = shaped and held[2]
    _READ[:] = [mine, now]
    c = document.classification
    out = _Comparable(jurisdiction=document.jurisdiction, tool=document.tool, project_class=c.project_class, counts=document.counts,
                      working_crs=document.working_crs, features=document.features, findings=findings)
    # each entry judged alone when read: the document's problem is found again (naming its entry) only when one has one
    out.problem = None if shaped else format_problem(out)
    return out


def compare_reviews(old: Mapping[str, object], new: Mapping[str, object], pack: RulePack | None = None) -> ReviewDoc:
    """The comparison document (compare.json) of an earlier review ``old`` and the current ``new`` (``pack``: the one ``new``
    applied, when held: its rule renames, see :func:`~stormwater_plugin.core.compare.compare_documents`).

    Raises
    ------
    CompareError
        Either is not a review, or they are under different jurisdictions.
    """
    old_doc = _earlier(old) if isinstance(old, EarlierReview) else review_document(old, "the earlier review")
    new_doc = review_document(new, "the current review")
    try:
        return compare_documents(old_doc, new_doc, pack)
    except ValueError as exc:
        raise CompareError(str(exc)) from exc


def open_violations(cmp: Mapping[str, object]) -> list[ReviewDoc]:
    """Entries of ``cmp`` that are violations still standing (new or still open)."""
    out: list[ReviewDoc] = []
    for cat in ("new", "still_open"):
        entries = cmp.get(cat)
        for e in entries if isinstance(entries, list) else []:
            if isinstance(e, dict) and isinstance(e.get("new"), dict) and e["new"].get("status") == "violation":
                out.append(e)
    return out
