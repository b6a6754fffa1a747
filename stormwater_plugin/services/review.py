"""One review: the check, its findings.json document, the reviewer's decisions, the moves and the comparison, built once.

The command line, the Processing algorithms and the dock all call
:func:`check` (or :func:`review_of` when they already hold a result, as the
dock does after its background task) and only write or draw what the
:class:`Review` holds. The document is built once, typed
(:class:`~.findings_doc.FindingsDocument`): the decisions are applied to it
(:func:`~stormwater_plugin.core.overrides.annotate_document`'s reading), the
moves and the comparison with an earlier review are added, and the front end
writes it once, as findings.json (:func:`~.findings_doc.findings_json`).

Above the core, results are typed: a suggested move is a frozen :class:`Move`
(built here from the siting code's dictionaries), a rule not checked is a
:class:`NotChecked` whose :attr:`~NotChecked.kind` says whether the text leaves it
to the reviewer or an input was missing, and the neighbour list is a
:class:`Notification`. Words are formatted only at the edge
(:mod:`.presentation`).

QGIS-free and file-free: the core, numpy and shapely only.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Iterable, Mapping, Sequence, cast

import shapely

from ..core.derived import Derived, using
from ..core.engine import REVIEWER_REASON, run_check
from ..core.engine import CheckCancelled as CheckCancelled  # re-exported: the front ends catch a cancelled check here
from ..core.errors import StormwaterError
from ..core.model import CheckResult, NeighbourRow, NotCheckedEntry, NotificationBlock, OwnerRow, SiteInputs
from ..core.overrides import Override
from ..core.roles import PLAN_ROLES
from ..core.rulepack import RulePack, load_pack
from .compare import ReviewDoc, compare_reviews
from .findings_doc import FindingsDocument, Move, document_from_json, document_of, findings_json, moves_from_dicts, plain
from .incremental import CheckBasis, Recorder
from .moves import suggest_moves
from .placement import PLAN_OFF_PARCEL_FT, PlanOffParcel, plan_placement_problem
from .review_doc import findings_doc_problem
from .working_crs import ParcelPicks, site_parcel_indices

# --------------------------------------------------------------------------- typed results


#: Kinds of :class:`NotChecked`.
FOR_REVIEWER = "reviewer"
MISSING_INPUT = "input"


@dataclass(frozen=True)
class NotChecked:
    """A rule (or part of one) the run did not check, and why.

    ``kind`` is :data:`FOR_REVIEWER` when the text sets a requirement the plan's
    geometry cannot decide (a rule of kind ``reviewer`` in the pack), else
    :data:`MISSING_INPUT` (a layer, a field, the DEM… was missing).
    """

    rule_id: str
    citation: str
    title: str
    reason: str
    kind: str

    @property
    def for_reviewer(self) -> bool:
        return self.kind == FOR_REVIEWER

    def as_dict(self) -> dict[str, str]:
        return {"rule_id": self.rule_id, "citation": self.citation, "title": self.title, "reason": self.reason}


def rule_kinds(jurisdiction: str | RulePack | None) -> dict[str, str]:
    """Rule id -> kind of the pack (or of the pack of ``jurisdiction``, loaded by name: empty when it cannot be loaded)."""
    if isinstance(jurisdiction, RulePack):
        return {r.id: r.kind for r in jurisdiction.rules}
    try:
        pack = load_pack(str(jurisdiction))
    except Exception:  # noqa: BLE001 - a document of an unknown pack: every rule falls back on the engine's reason
        return {}
    return {r.id: r.kind for r in pack.rules}


def not_checked(entries: Iterable[NotCheckedEntry] | None, jurisdiction: str | None = None,
                kinds: Mapping[str, str] | None = None) -> tuple[NotChecked, ...]:
    """Typed ``rules_not_checked`` entries.

    The kind comes from the rule's kind in the pack of ``jurisdiction`` (or
    ``kinds``, rule id -> kind): a rule of kind ``reviewer`` is the
    reviewer's. A rule the pack does not have (a document of an older pack) is
    the reviewer's when the engine gave it
    :data:`~stormwater_plugin.core.engine.REVIEWER_REASON`, the reason it gives
    exactly the rules of kind ``reviewer``.
    """
    known = kinds if kinds is not None else rule_kinds(jurisdiction)
    out = []
    for r in entries or ():
        rid = str(r.get("rule_id", ""))
        reviewer = known[rid] == "reviewer" if rid in known else str(r.get("reason", "")) == REVIEWER_REASON
        out.append(NotChecked(rid, str(r.get("citation", "")), str(r.get("title") or ""), str(r.get("reason", "")),
                              FOR_REVIEWER if reviewer else MISSING_INPUT))
    return tuple(out)


@dataclass(frozen=True)
class Notification:
    """Who must be told of the project (``result.notification``): parcels adjacent and within the radius, and owners."""

    adjacent: tuple[NeighbourRow, ...] = ()
    within_radius: tuple[NeighbourRow, ...] = ()
    owners: tuple[OwnerRow, ...] = ()
    radius_ft: float | None = None

    @classmethod
    def from_dict(cls, d: NotificationBlock | None) -> Notification:
        if not d:
            return cls()
        r = d.get("radius_ft")
        return cls(tuple(d.get("adjacent") or ()), tuple(d.get("within_500ft") or ()), tuple(d.get("owners") or ()),
                   None if r is None else float(r))

    @property
    def adjacent_ids(self) -> frozenset[str]:
        return frozenset(str(n.get("id")) for n in self.adjacent)

    @property
    def listed_parcels(self) -> frozenset[str]:
        """Parcels whose owners are on the list to notify."""
        return frozenset(str(p) for o in self.owners for p in o.get("parcels", []) or [])


# --------------------------------------------------------------------------- the review


@dataclass(frozen=True)
class Review:
    """One check as every front end shows it.

    ``document`` is the review's document, typed (:class:`~.findings_doc.FindingsDocument`): the findings with
    the decisions applied (always ``overrides``), the moves when they were looked for, the comparison when an
    earlier review was given. :meth:`decided` applies a new set of decisions to it (the dock, on each decision); :attr:`doc` is
    its findings.json object, made when a writer (or a reader not yet typed) asks for it.
    """

    result: CheckResult
    document: FindingsDocument
    moves: tuple[Move, ...] | None = None
    overrides: tuple[Override, ...] = ()
    #: What the next incremental check of the same site starts from (:class:`~.incremental.CheckBasis`), when this one kept it.
    basis: CheckBasis | None = field(default=None, repr=False, compare=False)
    #: The rule pack the check applied, when the review was made with it (``None``: a review rebuilt from a saved project).
    pack: RulePack | None = field(default=None, repr=False, compare=False)

    @cached_property
    def doc(self) -> dict[str, object]:
        """The findings.json object of :attr:`document` (:func:`~.findings_doc.findings_json`), made once per review."""
        return findings_json(self.document)

    @property
    def comparison(self) -> Mapping[str, object] | None:
        """The comparison with an earlier review shown with this one (``None``: none)."""
        return self.document.comparison

    @property
    def not_checked(self) -> tuple[NotChecked, ...]:
        kinds = rule_kinds(self.pack) if self.pack is not None else None  # the pack the check applied; else its name's
        return not_checked(self.result.rules_not_checked, self.result.jurisdiction, kinds)

    @property
    def notification(self) -> Notification:
        return Notification.from_dict(self.result.notification)

    @property
    def violations_unresolved(self) -> int:
        """Violations without a reviewer decision (the command line exits 1 while there are any)."""
        return self.document.violations_unresolved

    def decided(self, overrides: Sequence[Override], *, comparison: Mapping[str, object] | None | bool = True) -> Review:
        """The same review with ``overrides`` as its decisions: the one place decisions are applied to a document.

        Parameters
        ----------
        overrides : sequence of Override
        comparison : mapping, None or True
            The comparison to show (``None``: none); ``True`` keeps this review's.
        """
        cmp = self.comparison if comparison is True else (None if comparison is None or comparison is False else dict(comparison))
        # the comparison follows every other section (findings.json's order: it is shown with the review, not part of it)
        order = tuple(n for n in self.document.order if n != "comparison") + (("comparison",) if cmp is not None else ())
        given = tuple(overrides)
        # the document is always decided with self.overrides (every Review is made so): the same decisions again change nothing
        document = self.document if given == self.overrides else self.document.decided(given)
        return replace(self, document=replace(document, comparison=cmp, order=order), overrides=given)

    def with_moves(self, moves: Iterable[Mapping[str, object] | Move]) -> Review:
        """The review with these suggested moves (decisions and comparison kept)."""
        typed = moves_from_dicts(moves)
        return replace(self, document=replace(self.document, moves=typed, order=self.document.placed("moves")), moves=typed)

    def with_completeness(self, completeness: Mapping[str, object] | None) -> Review:
        """The review whose document carries the completeness list (``Completeness.as_dict()``), kept through decisions."""
        value = plain(dict(completeness)) if completeness is not None else None
        return replace(self, document=replace(self.document, completeness=cast("Mapping[str, object] | None", value),
                                              order=self.document.placed("completeness")))

    def with_section(self, name: str, value: Mapping[str, object] | None) -> Review:
        """The review whose document carries ``value`` under ``name`` (``completeness``, or a key this release does not read), kept
        through decisions."""
        if name == "completeness":
            return self.with_completeness(value)
        extra = dict(self.document.extra)
        extra[name] = plain(value)
        return replace(self, document=replace(self.document, extra=extra, order=self.document.placed(name)))

    def edited(self, edit: Callable[[dict[str, object]], None]) -> Review:
        """The review whose document ``edit`` changed (on a findings.json object of it), the decisions applied again.

        For an edit of the document the service layer does not know (the command
        line's context catalog names its sources on the findings): the change is
        kept through later decisions, and neither this review's document nor
        anything sharing it is touched.
        """
        out = copy.deepcopy(findings_json(self.document))  # its blocks are this review's: the edit gets its own
        edit(out)
        document = document_from_json(out)
        order = tuple(n for n in document.order if n != "comparison") + (("comparison",) if document.comparison is not None else ())
        return replace(self, document=replace(document.decided(self.overrides), order=order))

    def with_inputs(self, inputs: Mapping[str, object] | None) -> Review:
        """The review whose document describes what was read as ``inputs`` (the report's header)."""
        value = plain(dict(inputs) if inputs is not None else {})
        return replace(self, document=replace(self.document, inputs=cast("Mapping[str, object]", value)))


class ComparisonError(ValueError, StormwaterError):
    """Two reviews that cannot be compared (different jurisdictions…); the message says why."""


def compare_with(doc: Mapping[str, object] | FindingsDocument, previous: Mapping[str, object], label: str) -> ReviewDoc:
    """The comparison of ``doc`` (this review's document) with an earlier review's findings.json document.

    Raises
    ------
    ComparisonError
        When the reviews cannot be compared (different jurisdictions…), or ``previous`` is not shaped as a findings.json
        (a hand-edited or tampered file: the message names the entry and the field).
    """
    problem = findings_doc_problem(previous)  # an earlier review read back (the dock's file, a saved project's): its shape judged first
    if problem is not None:
        raise ComparisonError(f"{label}: {problem}")
    # the comparison reads findings.json objects (core.compare): this review's made for it, without its own comparison
    current = findings_json(replace(doc, comparison=None)) if isinstance(doc, FindingsDocument) else doc
    try:
        cmp = compare_reviews(previous, current)
    except ValueError as exc:
        raise ComparisonError(str(exc)) from exc
    cmp["previous"] = label
    return cmp


def to_document(
    result: CheckResult,
    *,
    crs_name: str = "",
    inputs: Mapping[str, object] | None = None,
    moves: Iterable[Mapping[str, object] | Move] | None = None,
) -> dict[str, object]:
    """The findings.json object of ``result`` before any decision (:func:`~.findings_doc.document_of`, written out).

    Every finding has its ``key`` and ``effective_status`` equal to its
    ``status``; ``moves`` is present only when given (``None``: not looked
    for).
    """
    return findings_json(document_of(result, crs_name=crs_name, inputs=inputs, moves=moves))


def review_of(
    result: CheckResult,
    *,
    crs_name: str = "",
    inputs: Mapping[str, object] | None = None,
    overrides: Sequence[Override] = (),
    moves: Iterable[Mapping[str, object] | Move] | None = None,
    previous: Mapping[str, object] | None = None,
    previous_label: str = "",
    comparison: Mapping[str, object] | None = None,
    pack: RulePack | None = None,
) -> Review:
    """The :class:`Review` of a result already computed.

    Parameters
    ----------
    result : CheckResult
    crs_name : str
        The working CRS, for the document.
    inputs : mapping, optional
        What was read (the document's ``inputs``).
    overrides : sequence of Override
        The reviewer's decisions, applied in memory.
    moves : iterable of Move or dict, optional
        The suggested moves; ``None`` when none were looked for (the document then has no ``moves``).
    previous : mapping, optional
        An earlier review's findings.json document: compared with this one (``previous_label`` names it).
    comparison : mapping, optional
        A comparison made earlier (the dock's), added as it is when ``previous`` is not given.
    pack : RulePack, optional
        The pack the check applied (kept with the review: :attr:`Review.pack`).

    Raises
    ------
    ComparisonError
        When ``previous`` cannot be compared with this review.
    """
    typed = None if moves is None else moves_from_dicts(moves)
    document = document_of(result, crs_name=crs_name, inputs=inputs, moves=typed, overrides=overrides)
    review = Review(result, document, typed, tuple(overrides), pack=pack)
    if previous is not None:
        comparison = compare_with(document, previous, previous_label)
    if comparison is None:
        return review
    return replace(review, document=replace(document, comparison=dict(comparison), order=document.placed("comparison")))


def suggest(inputs: SiteInputs, pack: RulePack, result: CheckResult) -> tuple[Move, ...]:
    """The suggested moves of the devices with setback violations of ``result`` (none without a violation)."""
    if not result.has_violation:
        return ()
    return moves_from_dicts(suggest_moves(inputs, pack, result))


def safe_moves(inputs: SiteInputs, pack: RulePack, result: CheckResult) -> tuple[Move, ...]:
    """:func:`suggest`, a failure becoming one impossible move, never an error: the moves are an aid, they never fail the check."""
    try:
        return suggest(inputs, pack, result)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        return moves_from_dicts([{"possible": False, "reason": f"move suggestions failed: {type(exc).__name__}: {exc}"}])


#: The site parcel the parcels name (``--site-parcel``, ``is_site``, the only parcel), kept with the parcel layer it was found
#: for (:func:`~.working_crs.site_parcel_indices`' picks, as the read keeps its own): the live re-check asks :func:`check`
#: about the same parcel layer at each edit, and its flags are read once. At most :data:`_MAX_PICKS` layers are held.
_PICKS: ParcelPicks = {}
_MAX_PICKS = 4


def _one_feature_on_parcel(inputs: SiteInputs, picks: ParcelPicks) -> bool:
    """Whether the plan's first located feature lies within :data:`~.placement.PLAN_OFF_PARCEL_FT` of the site parcel.

    A witness that :func:`~.placement.plan_placement_problem` finds nothing: it refuses only a plan whose *nearest* feature
    lies farther, and that feature's distance is at most this one's (the same GEOS distance, to a parcel among those it
    measures to: the site parcel(s) found the same way). One distance instead of every feature's (the live re-check asks at
    each edit); ``False`` (then measured in full) when there is no site parcel or that feature lies farther.
    """
    layers = inputs.layers
    parcels = layers.get("parcels")
    if parcels is None or len(parcels) == 0:
        return False
    first = next((g for role in PLAN_ROLES if (layer := layers.get(role)) is not None for g in layer.geoms if g is not None and not g.is_empty), None)
    if first is None:
        return False
    try:
        site = site_parcel_indices(layers, inputs.site_parcel_id, picks)
    except Exception:  # noqa: BLE001 - measured in full, which reads the same error as no site parcel
        return False
    parcel = next((g for g in (parcels.geoms[i] for i in site) if g is not None and not g.is_empty), None)
    return parcel is not None and float(shapely.distance(first, parcel)) * inputs.unit_to_ft <= PLAN_OFF_PARCEL_FT


def _refuse_plan_off_parcel(inputs: SiteInputs) -> None:
    """:func:`~.placement.refuse_plan_off_parcel` of ``inputs``: nothing to refuse when one feature of the plan lies on or near its
    parcel (:func:`_one_feature_on_parcel`), else measured in full; the site parcel the parcels name found once per parcel layer."""
    picks = _PICKS
    if len(picks) > _MAX_PICKS:  # a race clears it twice or keeps one more: it only costs time
        picks.clear()
    if _one_feature_on_parcel(inputs, picks):
        return
    problem = plan_placement_problem(inputs.layers, inputs.unit_to_ft, inputs.site_parcel_id, picks=picks)
    if problem is not None:
        raise PlanOffParcel(problem)


def check(
    inputs: SiteInputs,
    pack: RulePack,
    overrides: Sequence[Override] = (),
    *,
    crs_name: str = "",
    inputs_description: Mapping[str, object] | None = None,
    moves: bool = True,
    previous: Mapping[str, object] | None = None,
    previous_label: str = "",
    progress: Callable[[float], bool] | None = None,
    recorder: Recorder | None = None,
) -> Review:
    """Run the check and build its review: the one entry point of every front end.

    Parameters
    ----------
    inputs : SiteInputs
        The site in the working CRS.
    pack : RulePack
    overrides : sequence of Override
        The reviewer's decisions.
    crs_name : str
        The working CRS's name, for the document.
    inputs_description : mapping, optional
        The document's ``inputs`` (paths read).
    moves : bool
        Suggest moves for devices with setback violations (each re-checked).
    previous, previous_label : mapping, str
        An earlier review's document to compare with, and how to name it.
    progress : callable, optional
        Passed to :func:`~stormwater_plugin.core.engine.run_check` (Cancel).
    recorder : Recorder, optional
        Runs the rules (:class:`~.incremental.Recorder`): takes from its basis what the edit since cannot change, and
        keeps what the next incremental check needs (``review.basis``). The result is the full check's.

    Raises
    ------
    LookupError
        From the engine (an unknown site parcel…).
    ComparisonError
        When ``previous`` cannot be compared.
    PlanOffParcel
        When no feature of the plan lies on (or near) its parcel (:mod:`.placement`): local coordinates or the wrong CRS.
    """
    # a plan that does not land on its parcel is refused before any rule runs (PlanOffParcel)
    _refuse_plan_off_parcel(inputs)
    result = run_check(inputs, pack, progress=progress, step=recorder, derived=recorder.derived if recorder is not None else None)
    found = None
    if moves:
        # the moves' search and each re-check of a moved device share their derived values: every layer but the moved
        # device's (a county's parcels above all) cleaned and normalised once for all of them, found again by content. Made
        # only when there is a move to look for, so a check with none keeps nothing more than before.
        with using(Derived() if result.has_violation else None, settle=False):
            found = safe_moves(inputs, pack, result)
    review = review_of(result, crs_name=crs_name, inputs=inputs_description, overrides=overrides, moves=found,
                       previous=previous, previous_label=previous_label, pack=pack)
    return replace(review, basis=recorder.basis_after()) if recorder is not None else review


__all__ = [
    "ComparisonError", "Move", "PlanOffParcel", "NotChecked", "Notification", "Review", "FOR_REVIEWER", "MISSING_INPUT",
    "FindingsDocument", "findings_json", "check", "review_of", "to_document", "compare_with", "suggest", "safe_moves", "moves_from_dicts", "not_checked", "rule_kinds",
]
