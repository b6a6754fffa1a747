"""One review: the check, its findings.json document, the reviewer's decisions, the moves and the comparison, built once.

The command line, the Processing algorithms and the dock all call
:func:`check` (or :func:`review_of` when they already hold a result, as the
dock does after its background task) and only write or draw what the
:class:`Review` holds. The document is built once, in memory: the decisions
are applied to it (:func:`~stormwater_plugin.core.overrides.annotate_document`),
the moves and the comparison with an earlier review are added, and the front
end writes it once.

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
import json
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence, cast

from ..core.engine import REVIEWER_REASON, run_check
from ..core.engine import CheckCancelled as CheckCancelled  # re-exported: the front ends catch a cancelled check here
from ..core.errors import StormwaterError
from ..core.model import CheckResult, NeighbourRow, NotCheckedEntry, NotificationBlock, OwnerRow, SiteInputs
from ..core.overrides import Override, annotate_document
from ..core.rulepack import RulePack, load_pack
from ..core.serialize import result_to_dict
from .compare import ReviewDoc, compare_reviews
from .incremental import CheckBasis, Recorder
from .moves import suggest_moves
from .placement import PlanOffParcel, refuse_plan_off_parcel
from .review_doc import findings_doc_problem

# --------------------------------------------------------------------------- typed results


def _opt_str(v: object) -> str | None:
    return None if v is None else str(v)


def _opt_float(v: object) -> float | None:
    """A JSON number (or numeric text) as a float; ``None`` stays ``None``."""
    if v is None:
        return None
    if isinstance(v, (int, float, str)):
        return float(v)
    raise TypeError(f"not a number: {v!r}")


def _xy(v: object) -> tuple[float, float] | None:
    """A JSON ``[x, y]`` as a pair of floats (``None`` when absent)."""
    if not v:
        return None
    if not isinstance(v, (list, tuple)) or len(v) < 2:
        raise TypeError(f"not an [x, y] pair: {v!r}")
    x, y = _opt_float(v[0]), _opt_float(v[1])
    if x is None or y is None:
        raise TypeError(f"not an [x, y] pair: {v!r}")
    return x, y



@dataclass(frozen=True)
class Move:
    """A suggested move of a device with a setback violation, re-checked by the engine.

    Parameters
    ----------
    device_layer, device_id : str
        The device (``"?"`` when the suggestion failed before a device was named).
    device_type : str or None
        Its type (``dry_well``…).
    high_traffic : bool or None
        The traffic class the envelope was built for (``None``: both classes' rules).
    rules : tuple of str
        The violated rule ids the move clears.
    possible : bool
        Whether a compliant position was found.
    start, end : (float, float) or None
        Working-CRS x, y of the device (point or centroid) before and after.
    distance_ft : float or None
        Length of the move, feet.
    bearing_deg : float or None
        Direction, degrees clockwise from grid north.
    reason : str or None
        Why no move is suggested (when not ``possible``).
    method : str or None
        How the position was searched.
    message : str
        The sentence the siting code wrote (the findings.json ``message``).
    """

    device_layer: str
    device_id: str
    device_type: str | None
    high_traffic: bool | None
    rules: tuple[str, ...]
    possible: bool
    start: tuple[float, float] | None = None
    end: tuple[float, float] | None = None
    distance_ft: float | None = None
    bearing_deg: float | None = None
    reason: str | None = None
    method: str | None = None
    message: str = ""
    #: The findings.json form, kept as the siting code wrote it so the document stays byte for byte the same.
    document: Mapping[str, object] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Move:
        """The move of one findings.json ``moves`` entry (as :func:`~stormwater_plugin.services.moves.suggest_moves` returns it)."""
        got = d.get("device")
        dev: Mapping[str, object] = got if isinstance(got, Mapping) else {}
        ht = d.get("high_traffic")
        rules = d.get("rules") or ()
        return cls(
            device_layer=str(dev.get("layer") or "devices"),
            device_id=str(dev.get("id") or "?"),
            device_type=_opt_str(d.get("device_type")),
            high_traffic=None if ht is None else bool(ht),
            rules=tuple(str(r) for r in rules) if isinstance(rules, (list, tuple)) else (),
            possible=bool(d.get("possible")),
            start=_xy(d.get("from")),
            end=_xy(d.get("to")),
            distance_ft=_opt_float(d.get("distance_ft")),
            bearing_deg=_opt_float(d.get("bearing_deg")),
            reason=None if d.get("reason") is None else str(d["reason"]),
            method=None if d.get("method") is None else str(d["method"]),
            message=str(d.get("message") or ""),
            document=dict(d),
        )

    @property
    def drawable(self) -> bool:
        """A possible move with both ends known (an arrow can be drawn)."""
        return self.possible and self.start is not None and self.end is not None

    def as_dict(self) -> dict[str, object]:
        """The findings.json form."""
        if self.document:
            return dict(self.document)
        out: dict[str, object] = {"device": {"layer": self.device_layer, "id": self.device_id}, "device_type": self.device_type,
                               "high_traffic": self.high_traffic, "rules": list(self.rules), "possible": self.possible}
        if self.possible:
            out.update({"from": list(self.start) if self.start else None, "to": list(self.end) if self.end else None,
                        "distance_ft": self.distance_ft, "bearing_deg": self.bearing_deg})
        else:
            out["reason"] = self.reason
        out["message"] = self.message
        return out

    # Read-only mapping access to the findings.json form, for scripts written against the dictionaries.
    def __getitem__(self, key: str) -> object:
        return self.as_dict()[key]

    def get(self, key: str, default: object = None) -> object:
        """``as_dict().get(key, default)``."""
        return self.as_dict().get(key, default)


def moves_from_dicts(items: Iterable[Mapping[str, object] | Move] | None) -> tuple[Move, ...]:
    """Typed moves of the siting code's dictionaries (moves already typed are kept)."""
    return tuple(m if isinstance(m, Move) else Move.from_dict(m) for m in items or ())


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


def rule_kinds(jurisdiction: str | None) -> dict[str, str]:
    """Rule id -> kind of the pack of ``jurisdiction`` (empty when the pack cannot be loaded)."""
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

    ``doc`` is the findings.json document (plain JSON values) with the
    decisions applied, ``moves`` added when they were looked for, and
    ``comparison`` when an earlier review was given. ``base`` is the same
    document before any decision: :meth:`decided` applies a new set of
    decisions to it without serialising the result again (the dock, on each
    decision).
    """

    result: CheckResult
    doc: dict[str, object]
    moves: tuple[Move, ...] | None = None
    overrides: tuple[Override, ...] = ()
    comparison: ReviewDoc | None = None
    base: dict[str, object] | None = field(default=None, repr=False, compare=False)
    #: What the next incremental check of the same site starts from (:class:`~.incremental.CheckBasis`), when this one kept it.
    basis: CheckBasis | None = field(default=None, repr=False, compare=False)

    @property
    def not_checked(self) -> tuple[NotChecked, ...]:
        return not_checked(self.result.rules_not_checked, self.result.jurisdiction)

    @property
    def notification(self) -> Notification:
        return Notification.from_dict(self.result.notification)

    @property
    def violations_unresolved(self) -> int:
        """Violations without a reviewer decision (the command line exits 1 while there are any)."""
        counts = self.doc.get("override_counts")
        n = counts.get("violations_unresolved", 0) if isinstance(counts, Mapping) else 0
        return int(n) if isinstance(n, (int, float, str)) else 0

    def _base(self) -> dict[str, object]:
        if self.base is None:
            raise ValueError("this review keeps no document before its decisions (built outside review_of)")
        return self.base

    def decided(self, overrides: Sequence[Override], *, comparison: Mapping[str, object] | None | bool = True) -> Review:
        """The same review with ``overrides`` as its decisions: the one place decisions are applied to a document.

        Parameters
        ----------
        overrides : sequence of Override
        comparison : mapping, None or True
            The comparison to show (``None``: none); ``True`` keeps this review's.
        """
        base = self._base()
        # what annotate_document writes (top-level keys and each finding's key, override, effective status) on copies; the rest is shared
        doc = dict(base)
        doc["findings"] = [dict(f) for f in cast("list[dict[str, object]]", base.get("findings", []))]
        annotate_document(doc, list(overrides))
        cmp = self.comparison if comparison is True else (None if comparison is None or comparison is False else dict(comparison))
        if cmp is not None:
            doc["comparison"] = cmp
        return replace(self, doc=doc, overrides=tuple(overrides), comparison=cmp)

    def with_moves(self, moves: Iterable[Mapping[str, object] | Move]) -> Review:
        """The review with these suggested moves (decisions and comparison kept)."""
        typed = moves_from_dicts(moves)
        value = _plain({"moves": [m.as_dict() for m in typed]})["moves"]
        base = dict(self._base())
        base["moves"] = value
        doc = dict(self.doc)
        doc["moves"] = value
        return replace(self, base=base, doc=doc, moves=typed)

    def with_section(self, name: str, value: Mapping[str, object] | None) -> Review:
        """The review whose document carries ``value`` under ``name`` (the command line's ``completeness``), kept through decisions."""
        plain = _plain({name: value})[name]
        base = dict(self._base())
        base[name] = plain
        doc = dict(self.doc)
        doc[name] = plain
        return replace(self, base=base, doc=doc)

    def edited(self, edit: Callable[[dict[str, object]], None]) -> Review:
        """The review whose document ``edit`` changed (on a copy of the document before decisions), the decisions applied again.

        For an edit of the document the service layer does not know (the command
        line's context catalog names its sources on the findings): the change is
        kept through later decisions, and neither this review's documents nor
        anything sharing them is touched.
        """
        base = copy.deepcopy(self._base())
        edit(base)
        return replace(self, base=_plain(base)).decided(self.overrides)

    def with_inputs(self, inputs: Mapping[str, object] | None) -> Review:
        """The review whose document describes what was read as ``inputs`` (the report's header)."""
        value = _plain({"inputs": dict(inputs) if inputs is not None else {}})["inputs"]
        base = dict(self._base())
        base["inputs"] = value
        doc = dict(self.doc)
        doc["inputs"] = value
        return replace(self, base=base, doc=doc)


def _plain(doc: Mapping[str, object]) -> dict[str, object]:
    """The document as findings.json holds it: JSON values only (tuples become lists), so every reader sees the same."""
    out: dict[str, object] = json.loads(json.dumps(doc, ensure_ascii=False, default=str))
    return out


class ComparisonError(ValueError, StormwaterError):
    """Two reviews that cannot be compared (different jurisdictions…); the message says why."""


def compare_with(doc: dict[str, object], previous: Mapping[str, object], label: str) -> ReviewDoc:
    """The comparison of ``doc`` with an earlier review's document, recorded as ``doc["comparison"]``.

    Raises
    ------
    ComparisonError
        When the reviews cannot be compared (different jurisdictions…), or ``previous`` is not shaped as a findings.json
        (a hand-edited or tampered file: the message names the entry and the field).
    """
    problem = findings_doc_problem(previous)  # an earlier review read back (the dock's file, a saved project's): its shape judged first
    if problem is not None:
        raise ComparisonError(f"{label}: {problem}")
    try:
        cmp = compare_reviews(previous, doc)
    except ValueError as exc:
        raise ComparisonError(str(exc)) from exc
    cmp["previous"] = label
    doc["comparison"] = cmp
    return cmp


def to_document(
    result: CheckResult,
    *,
    crs_name: str = "",
    inputs: Mapping[str, object] | None = None,
    moves: Iterable[Mapping[str, object] | Move] | None = None,
) -> dict[str, object]:
    """The findings.json document of ``result`` before any decision, as plain JSON values: what :meth:`Review.decided` decides on.

    Every finding has its ``key`` and ``effective_status`` equal to its
    ``status``; ``moves`` is present only when given (``None``: not looked
    for). Built once per result; decisions are applied to copies of it, by the
    review only.
    """
    doc = result_to_dict(result, crs_name=crs_name, inputs=dict(inputs) if inputs is not None else None)
    if moves is not None:
        doc["moves"] = [m.as_dict() for m in moves_from_dicts(moves)]
    return _plain(doc)


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

    Raises
    ------
    ComparisonError
        When ``previous`` cannot be compared with this review.
    """
    typed = None if moves is None else moves_from_dicts(moves)
    base = to_document(result, crs_name=crs_name, inputs=inputs, moves=typed)
    review = Review(result, base, typed, (), None, base=base)
    if previous is not None:
        review = review.decided(overrides, comparison=None)
        return replace(review, comparison=compare_with(review.doc, previous, previous_label))
    return review.decided(overrides, comparison=comparison)


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
    refuse_plan_off_parcel(inputs.layers, inputs.unit_to_ft, inputs.site_parcel_id)
    result = run_check(inputs, pack, progress=progress, step=recorder, derived=recorder.derived if recorder is not None else None)
    found = safe_moves(inputs, pack, result) if moves else None
    review = review_of(result, crs_name=crs_name, inputs=inputs_description, overrides=overrides, moves=found,
                       previous=previous, previous_label=previous_label)
    return replace(review, basis=recorder.basis_after()) if recorder is not None else review


__all__ = [
    "ComparisonError", "Move", "PlanOffParcel", "NotChecked", "Notification", "Review", "FOR_REVIEWER", "MISSING_INPUT",
    "check", "review_of", "to_document", "compare_with", "suggest", "safe_moves", "moves_from_dicts", "not_checked", "rule_kinds",
]
