"""Findings that know how accurate the data is.

A pass at 20.4 ft against 20 ft says nothing when the septic field was sketched
from a tax map good to ±10 ft. Each feature may state its horizontal positional
accuracy in feet at 95% confidence (the NSSDA convention): its own
``accuracy_ft`` field, else a per-role value given for the run, else the
default of its ``data_source`` kind (``packs/accuracy.json``, each with its
source). A role with none of these is *unstated*: nothing is adjusted for it
and the report names it.

For a distance finding between two features the combined accuracy is
``sqrt(a**2 + b**2)`` of the stated accuracies (an unstated side adds nothing).
When the margin ``|measured - required|`` is smaller than that:

- a *pass* becomes *undetermined* ("field-verify"): the true distance may be
  short of the limit;
- a *violation* stays a violation and is marked ``near_limit``.

A pass of a standard that does not bind the project (an ``advisory_only`` rule) inside the accuracy is an advisory
that would be undetermined, never an undetermined finding. A pass that rests on something other than the distance is left as it is (``extra["decided_by"]``): a gradient rule
that does not apply to the pair, and an area allowance (porous pavers inside the distance) whose total stays within
its limit with every device that the accuracy may bring inside.

Whether a feature at the far edge of the accuracy still meets the rule is
decided as the rule itself is: through :func:`~.extents.decide_distance`
(:func:`~.limits.compare`, 0.01 ft) with the rule's words
(:func:`~.kinds.distance_words`). A margin exactly equal to the combined
accuracy puts the feature exactly at the limit at worst: a pass of "a minimum
of 100 feet" stays a pass (100.00 ft complies), a pass of "within 20 feet"
becomes undetermined (20.00 ft is within), and a violation of "within 20
feet" is not near the limit (at best 20.00 ft, still within).

The DEM's stated vertical accuracy widens the pack's gradient level tolerance
to ``max(tolerance, accuracy)`` (never narrows it); a depth below the DEM's
ground (the frost-depth rule) within the accuracy of its limit is undetermined
when it passes and ``near_limit`` otherwise; and a slope over 100 ft
within ``sqrt(2) * accuracy`` percentage points of its threshold is
undetermined when it passes and ``near_limit`` otherwise (two elevations, each
good to the stated accuracy, 100 ft apart).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Mapping, Sequence

from .derived import derive
from .errors import StormwaterError
from .extents import Interval, decide_distance
from .limits import compare
from .model import FeatureLayer, FeatureRef, Finding, JsonValue, Status
from .roles import ROLES


class RoleAccuracyError(ValueError, StormwaterError):
    """A stated accuracy that is not ``ROLE=FEET`` with a known role and a number of feet, 0 or more."""

ACCURACY_FILE = Path(__file__).resolve().parent / "packs" / "accuracy.json"
#: Attribute names read as a feature's stated accuracy, in feet (95%).
ACCURACY_FIELDS: tuple[str, ...] = ("accuracy_ft",)
#: Attribute names read as the kind of source a feature was drawn from.
SOURCE_FIELDS: tuple[str, ...] = ("data_source", "source_kind")
#: Finding kinds about slopes (never adjusted as distances). Only the slope over 100 ft from a building
#: site is adjusted for the DEM's vertical accuracy: the per-pixel slopes under devices and clearing
#: difference elevations a pixel apart, where a vertical accuracy means far more than ±sqrt(2)·a points.
SLOPE_KINDS: frozenset[str] = frozenset({"building_site_slope", "device_slope", "clearing_slope"})
#: Finding kinds whose measure is a depth below the DEM's ground (feet): adjusted for the DEM's vertical accuracy.
DEM_DEPTH_KINDS: frozenset[str] = frozenset({"frost_depth"})


@lru_cache(maxsize=1)
def accuracy_table() -> dict[str, tuple[float, str]]:
    """Data-source kind to (accuracy in feet at 95%, documented source)."""
    data = json.loads(ACCURACY_FILE.read_text(encoding="utf-8"))
    return {str(k).lower(): (float(v["accuracy_ft"]), str(v["source"])) for k, v in data["kinds"].items()}


def _number(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x >= 0 else None


def feature_accuracy(attrs: Mapping[str, Any], role_accuracy: float | None) -> tuple[float | None, str]:
    """A feature's horizontal accuracy in feet (95%) and where it came from.

    Parameters
    ----------
    attrs : mapping
        The feature's attributes.
    role_accuracy : float or None
        The accuracy given for the feature's role for this run (feet).

    Returns
    -------
    tuple
        ``(accuracy_ft or None, source)`` where source is ``"field"``,
        ``"role"``, ``"kind:<name>"`` or ``"unstated"``.
    """
    lowered = _read_fields(attrs)
    for name in ACCURACY_FIELDS:
        a = _number(v) if (v := lowered.get(name)) is not None else None  # no field: no number (without float(None)'s exception)
        if a is not None:
            return a, "field"
    if role_accuracy is not None:
        return float(role_accuracy), "role"
    for name in SOURCE_FIELDS:
        kind = lowered.get(name)
        if kind not in (None, ""):
            hit = accuracy_table().get(str(kind).strip().lower())
            if hit is not None:
                return hit[0], f"kind:{str(kind).strip().lower()}"
    return None, "unstated"


#: The fields :func:`feature_accuracy` reads, by their lower-case names.
_READ_FIELDS: frozenset[str] = frozenset(ACCURACY_FIELDS + SOURCE_FIELDS)
#: Field names (all ``str``, in a feature's order) -> each read field's lower-case name to the last of them that lowers to it.
#: Bounded: a site's layers have a few sets of field names.
_FIELD_NAMES: dict[tuple[str, ...], dict[str, str]] = {}


def _read_fields(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``attrs`` :func:`feature_accuracy` reads, by lower-case name (a later field lowering to a name wins).

    The same values as lowering every name of ``attrs`` into a dictionary and reading it: which field answers each name
    depends on the field names alone, so it is found once per set of names (all ``str``: ``1`` and ``True`` are equal keys
    that lower differently) rather than every name lowered for every feature.
    """
    names = tuple(attrs)
    if set(map(type, names)) <= {str}:
        found = _FIELD_NAMES.get(names)
        if found is None:
            found = {k.lower(): k for k in names if k.lower() in _READ_FIELDS}
            if len(_FIELD_NAMES) >= 256:
                _FIELD_NAMES.clear()
            _FIELD_NAMES[names] = found
        return {low: attrs[k] for low, k in found.items()}
    return {low: v for k, v in attrs.items() if (low := str(k).lower()) in _READ_FIELDS}


def parse_role_accuracy(items: Sequence[str]) -> dict[str, float]:
    """``["septic=10", "parcels=10"]`` (or one ``"septic=10, parcels=10"``) to role → feet.

    Raises
    ------
    RoleAccuracyError
        Naming the item (a ``ValueError``): an unknown role, a value that is not a number, or a negative one.
    """
    out: dict[str, float] = {}
    for chunk in items:
        for item in str(chunk).replace(";", ",").split(","):
            if not item.strip():
                continue
            role, sep, value = item.partition("=")
            role = role.strip()
            if not sep or role not in ROLES:
                raise RoleAccuracyError(f"{item.strip()}: give ROLE=FEET with a role among {', '.join(ROLES)}")
            ft = _number(value.strip())
            if ft is None:
                raise RoleAccuracyError(f"{item.strip()}: '{value.strip()}' is not a number of feet, 0 or more")
            out[role] = ft
    return out


def combined_accuracy(*accuracies: float | None) -> float | None:
    """Root-sum-square of the stated accuracies; ``None`` when none is stated."""
    known = [a for a in accuracies if a is not None]
    if not known:
        return None
    return math.sqrt(sum(a * a for a in known))


def _lookup(layers: Mapping[str, FeatureLayer], ref: FeatureRef | None) -> Mapping[str, Any] | None:
    if ref is None:
        return None
    layer = layers.get(ref.layer)
    if layer is None:
        return None
    # the first feature of the id. In a large layer, from an index kept by the layer's content: a scan per feature named
    # would cost, at every live edit, a pass over a county parcel layer for each parcel a finding names; a small layer
    # is scanned (cheaper than the look-up of a kept value)
    if len(layer.ids) > SCAN_MOST:
        i = derive("first index of the ids", partial(_first_index, layer), layer).get(ref.id)
        return None if i is None else layer.attrs[i]
    try:
        return layer.attrs[layer.ids.index(ref.id)]
    except ValueError:
        return None


#: The most features of a layer :func:`_lookup` scans for an id; a larger layer's ids are indexed once per content.
SCAN_MOST = 2000


def _first_index(layer: FeatureLayer) -> dict[str, int]:
    """Each id of ``layer`` to the position of its first feature."""
    out: dict[str, int] = {}
    for i, fid in enumerate(layer.ids):
        out.setdefault(fid, i)
    return out


def _fmt(x: float) -> str:
    return f"{x:,.1f}"


def apply_accuracy(
    findings: Sequence[Finding],
    layers: Mapping[str, FeatureLayer],
    role_accuracy: Mapping[str, float] | None = None,
    dem_vertical_accuracy_ft: float | None = None,
    slope_thresholds: Mapping[str, float] | None = None,
    distance_words: Mapping[str, str] | None = None,
    advisory_notes: Mapping[str, str] | None = None,
) -> tuple[list[Finding], list[str]]:
    """Adjust distance (and slope) findings for the stated accuracy of their data.

    Parameters
    ----------
    findings : sequence of Finding
        The run's findings.
    layers : mapping
        The cleaned role layers (for each feature's attributes).
    role_accuracy : mapping, optional
        Role to accuracy in feet (95%) for this run.
    dem_vertical_accuracy_ft : float, optional
        The DEM's stated vertical accuracy in feet (95%).
    slope_thresholds : mapping, optional
        Rule id to the slope threshold in percent of the pack's
        ``building_site_slope`` rules.
    distance_words : mapping, optional
        Rule id to the text's words for its distance (:func:`~.kinds.distance_words`: ``"within"``,
        ``"a minimum of"``); a rule not named is read as ``"a minimum of"``, a device setback's default.
    advisory_notes : mapping, optional
        Rule id to the ``advisory_note`` of an ``advisory_only`` rule (a standard that does not bind this project): a
        pass of one inside the accuracy becomes an *advisory* that would be undetermined (``would_be``), as the
        engine turns that rule's own undetermined findings, never an undetermined finding.

    Returns
    -------
    tuple
        The findings (adjusted ones replaced; each carries ``margin_ft``,
        ``accuracy_ft`` and ``near_limit`` in ``extra`` when an accuracy
        applied), and the roles read by distance findings with no stated
        accuracy, sorted.
    """
    role_accuracy = dict(role_accuracy or {})
    out: list[Finding] = []
    unstated: set[str] = set()
    known: dict[tuple[str, str], tuple[float | None, str]] = {}
    for f in findings:
        if f.kind in DEM_DEPTH_KINDS:
            out.append(_depth(f, dem_vertical_accuracy_ft))
            continue
        if f.kind in SLOPE_KINDS:
            threshold = (slope_thresholds or {}).get(f.rule_id)
            out.append(_slope(f, dem_vertical_accuracy_ft, threshold) if f.kind == "building_site_slope" else f)
            continue
        if f.measured_ft is None or f.required_ft is None:
            out.append(f)
            continue
        if f.subject is None or f.other is None:
            out.append(f)
            continue
        sides = []
        for ref in (f.subject, f.other):
            found = known.get((ref.layer, ref.id))
            if found is None:  # each feature's accuracy read once (most features are named by several findings)
                found = known[(ref.layer, ref.id)] = feature_accuracy(_lookup(layers, ref) or {}, role_accuracy.get(ref.layer))
            acc = found[0]
            if acc is None:
                unstated.add(ref.layer)
            sides.append((ref, acc))
        combined = combined_accuracy(sides[0][1], sides[1][1])
        if combined is None:
            out.append(f)
            continue
        if f.status is Status.PASS and f.extra.get("decided_by") == "gradient":
            # The rule does not apply to the pair (the device is on the other side of the ground's slope): its distance
            # decides nothing, so the band around it does not either.
            out.append(f)
            continue
        if f.status is Status.PASS and f.extra.get("decided_by") == "allowance":
            out.append(_allowance(f, layers, role_accuracy, (distance_words or {}).get(f.rule_id, "a minimum of"), unstated))
            continue
        # One interval: the plausible extents of features drawn smaller than they are (``distance_interval_ft``, from
        # :mod:`.extents`) widened by the stated accuracy. A pass's margin is from the interval's near end, a
        # violation's from its far end.
        lo, hi = _interval(f)
        words = (distance_words or {}).get(f.rule_id, "a minimum of")
        if f.status is Status.PASS:
            # Near when the nearest the features may be is not a pass under the rule's own words (at the limit: its words decide).
            margin = lo - f.required_ft
            near = decide_distance(Interval(max(0.0, lo - combined), hi), f.required_ft, words) is not Status.PASS
        elif f.status is Status.VIOLATION:
            margin = f.required_ft - hi
            near = decide_distance(Interval(lo, hi + combined), f.required_ft, words) is not Status.VIOLATION
        else:
            margin = abs(f.measured_ft - f.required_ft)
            near = margin < combined
        extra = dict(f.extra)
        extra.update({"margin_ft": round(margin, 2), "accuracy_ft": round(combined, 2), "near_limit": near})
        if not near:
            out.append(replace(f, extra=extra))
            continue
        stated = "; ".join(f"the {ref.layer} location ({ref.id}) is good to ±{_fmt(a)} ft" for ref, a in sides if a is not None)
        if f.status is Status.PASS:
            message = (f"{_fmt(f.measured_ft)} ft against {_fmt(f.required_ft)} ft, a margin of {_fmt(margin)} ft; {stated} "
                       f"(combined ±{_fmt(combined)} ft at 95%): inside the data's accuracy, so compliance cannot be told from the plan: field-verify. "
                       f"Computed: {f.message}")
            note = (advisory_notes or {}).get(f.rule_id)
            if note is not None:
                # A standard that does not bind the project asks nothing: what would be field-verify is a note.
                extra["would_be"] = Status.UNDETERMINED.value
                out.append(replace(f, status=Status.ADVISORY, message=f"{note} {message}".strip(), extra=extra))
            else:
                out.append(replace(f, status=Status.UNDETERMINED, message=message, extra=extra))
        else:
            out.append(replace(f, message=f"{f.message} Near the limit: the margin of {_fmt(margin)} ft is within the data's accuracy "
                                          f"(±{_fmt(combined)} ft; {stated}).", extra=extra))
    return out, sorted(unstated)


def _allowance(f: Finding, layers: Mapping[str, FeatureLayer], role_accuracy: Mapping[str, float], words: str,
               unstated: set[str]) -> Finding:
    """A pass under an area allowance (porous pavers inside the distance) against the stated accuracy.

    The device is allowed wherever it truly lies within the distance, so its own position decides nothing. What the
    accuracy may change is the total: a device that may be of the allowance's type, drawn beyond the distance by less than
    its combined accuracy, may lie inside it, and its area then counts. The pass stays a pass when the total with every
    such device is still within the allowance; it is undetermined (field-verify) otherwise, naming those devices.
    """
    assert f.required_ft is not None
    worst = _number(f.extra.get("allowance_worst_sqft"))
    limit = _number(f.extra.get("allowance_limit_sqft"))
    if worst is None or limit is None:
        return f
    may_enter: list[str] = []
    total: float | None = worst
    rows = f.extra.get("allowance_beyond")
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, list) or len(row) != 5:
            continue
        dev_id, t_layer, t_id, dist, area = row
        dev_acc, _ = feature_accuracy(_lookup(layers, FeatureRef("devices", str(dev_id))) or {}, role_accuracy.get("devices"))
        tgt_acc, _ = feature_accuracy(_lookup(layers, FeatureRef(str(t_layer), str(t_id))) or {}, role_accuracy.get(str(t_layer)))
        for role, acc in (("devices", dev_acc), (str(t_layer), tgt_acc)):
            if acc is None:
                unstated.add(role)
        band = combined_accuracy(dev_acc, tgt_acc)
        d = _number(dist)
        if band is None or d is None:
            continue
        if decide_distance(Interval(max(0.0, d - band), d), f.required_ft, words) is Status.PASS:
            continue  # beyond the distance wherever it truly lies
        may_enter.append(f"{dev_id} ({_fmt(d)} ft from {t_id}, ±{_fmt(band)} ft)")
        a = _number(area)
        total = None if total is None or a is None else total + a
    allowed_words = str(f.extra.get("allowance_words", "up to"))
    if not may_enter or (total is not None and compare(total, limit, "area_sqft", allowed_words)):
        return f
    sized = "one of them is not drawn as an area" if total is None else f"{_fmt(total)} sq ft in all"
    message = (f"{f.message} But device(s) {', '.join(may_enter)} may lie within {f.required_ft:g} ft inside the data's accuracy, and "
               f"as porous pavement their area would count toward the {limit:g} sq ft allowance ({sized}): field-verify.")
    extra: dict[str, JsonValue] = dict(f.extra)
    extra.update({"allowance_may_enter": list[JsonValue](may_enter), "near_limit": True})
    return replace(f, status=Status.UNDETERMINED, message=message, extra=extra)


def _interval(f: Finding) -> tuple[float, float]:
    """The finding's distance interval ``(near, far)`` in feet: its plausible extents, else the measured distance."""
    iv = f.extra.get("distance_interval_ft")
    assert f.measured_ft is not None
    if isinstance(iv, (list, tuple)) and len(iv) == 2:
        lo, hi = _number(iv[0]), _number(iv[1])
        if lo is not None and hi is not None:
            return lo, hi
    return f.measured_ft, f.measured_ft


def _depth(f: Finding, dem_vertical_accuracy_ft: float | None) -> Finding:
    """A depth below the DEM's ground (a device bottom against the frost depth) against the DEM's vertical accuracy."""
    if dem_vertical_accuracy_ft is None or f.measured_ft is None or f.required_ft is None:
        return f
    margin = abs(f.measured_ft - f.required_ft)
    near = margin < float(dem_vertical_accuracy_ft)
    extra = dict(f.extra)
    extra.update({"margin_ft": round(margin, 2), "accuracy_ft": round(float(dem_vertical_accuracy_ft), 2), "near_limit": near})
    if near and f.status is Status.PASS:
        message = (f"{f.message} The ground is read from a DEM good to ±{_fmt(dem_vertical_accuracy_ft)} ft vertically: a margin of "
                   f"{margin:.2f} ft is inside it, so the depth cannot be told from the plan: field-verify.")
        return replace(f, status=Status.UNDETERMINED, message=message, extra=extra)
    return replace(f, extra=extra)


def _slope(f: Finding, dem_vertical_accuracy_ft: float | None, threshold_pct: float | None) -> Finding:
    """A building site's slope over the rule's distance against the DEM's vertical accuracy.

    The distance is the finding's (``extra["distance_ft"]``, the pack's); a finding without one is left as it is,
    as without a threshold: its accuracy band cannot be told, and no distance is assumed.
    """
    slope = _number(f.extra.get("slope_pct"))
    distance = _number(f.extra.get("distance_ft"))
    if dem_vertical_accuracy_ft is None or threshold_pct is None or slope is None or not distance:
        return f
    band = math.sqrt(2.0) * float(dem_vertical_accuracy_ft) / distance * 100.0  # percentage points
    margin = abs(slope - float(threshold_pct))
    near = margin < band
    extra = dict(f.extra)
    extra.update({"margin_pct": round(margin, 2), "slope_accuracy_pct": round(band, 2), "near_limit": near})
    if near and f.status is Status.PASS:
        message = (f"{f.message} The DEM is good to ±{_fmt(dem_vertical_accuracy_ft)} ft vertically, so the slope over {distance:g} ft is good to "
                   f"±{band:.1f} points: {slope:.1f}% cannot be told apart from {float(threshold_pct):g}% on this DEM: field-verify.")
        return replace(f, status=Status.UNDETERMINED, message=message, extra=extra)
    return replace(f, extra=extra)


__all__ = ["RoleAccuracyError", "parse_role_accuracy", "accuracy_table", "feature_accuracy", "combined_accuracy", "apply_accuracy", "ACCURACY_FIELDS", "SOURCE_FIELDS"]
