"""The land a project affects: what the classification thresholds and area triggers count.

The texts count every kind of work: 646-4.12(a)(1) "building, land clearing
or development activity affecting less than 15,000 square feet";
§148-11D(2) "land disturbance and land clearing of less than 5,000 square
feet"; §160-1 "including clearing, grading, excavating, soil disturbance".
The affected area is therefore the union (overlaps counted once) of

- ``disturbance`` polygons,
- ``clearing`` polygons,
- ``impervious`` polygons whose ``status`` is ``proposed`` or ``removed``
  (building or taking out a surface both work the ground),
- ``devices`` and ``building_sites`` drawn as polygons; a building site whose
  ``status`` is ``existing`` (on the ground and not enlarged: §148-11C(1) speaks
  of buildings that "expand or enlarge") is no work and is left out, listed in
  ``left_out``; one without a status counts (read as proposed, the
  conservative reading).

Areas are square feet on the ground (the working CRS's grid corrected by its scale factor),
taken at the decision precision of areas, 0.1 sq ft (:mod:`~stormwater_plugin.core.limits`), the
precision the findings print: coordinate round-off cannot decide a threshold, and an area that prints as
the limit is at it. A device or building site
drawn as a point or a line lying outside those polygons has a footprint the
plan does not show: the area is then the interval ``[sqft, upper_sqft]``, the
upper end adding the largest plausible footprint of each (its excavation, from
``packs/device_plausibility.json``, section ``extents``: a disc of that area
round a point, see :func:`~stormwater_plugin.core.extents.footprint_bound`),
overlaps counted once; a kind with no plausible bound (an infiltration basin or
trench drawn as a point) makes ``upper_sqft`` infinite. One covered by the
mapped polygons is counted inside them. An impervious feature of unknown
status may or may not count: it raises ``upper_sqft`` by its share. A threshold
between ``sqft`` and ``upper_sqft`` cannot be decided.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from ..derived import Derived, Used, current, derive, derive_each
from ..extents import Interval, footprint_bound
from ..geometry import area_sqft, covers_on_edge, type_ids, union
from ..geometry_arrays import geom_type, object_array
from ..limits import DECIMALS, decided
from ..model import FeatureLayer
from ..roles import AFFECTED_AREA_ROLES, PLAN_OBJECT_ROLES
from ..vocabulary import read

#: Impervious ``status`` values that are work on the ground.
WORKED_STATUSES: tuple[str, ...] = ("proposed", "removed")
_KNOWN_STATUSES = ("existing", "proposed", "removed")
#: Areas are rounded to this many decimals of a square foot (the one comparison policy's precision for areas), so that
#: floating-point noise from the coordinates (43,559.99999999999 for a one-acre polygon) does not decide a threshold.
AREA_DECIMALS = DECIMALS["area_sqft"]


def attr(attrs: dict[str, Any], name: str) -> Any:
    """A field value by case-insensitive name."""
    return {str(k).lower(): v for k, v in attrs.items()}.get(name)


def building_left_out(attrs: dict[str, Any]) -> bool:
    """True for a building site marked ``existing`` (not enlarged, not removed): no work, so not affected area."""
    r = read(attrs, "building_sites", "status")
    return r.known and r.value == "existing"


def impervious_status(attrs: dict[str, Any]) -> str:
    """``existing``, ``proposed``, ``removed`` or ``""`` (unknown)."""
    r = read(attrs, "impervious", "status")
    return str(r.value) if r.known and r.value in _KNOWN_STATUSES else ""


@dataclass(frozen=True)
class AffectedArea:
    """The affected land and how it was made.

    Attributes
    ----------
    sqft : float or None
        Area of the union, square feet (a lower bound when ``unmeasured`` or
        ``unknown_status`` are not empty); ``None`` when no disturbance,
        clearing or impervious layer was supplied.
    upper_sqft : float or None
        Largest area the plan allows: ``inf`` when features lie outside the
        union undrawn as polygons, else the union with impervious features of
        unknown status.
    geometry : BaseGeometry
        The union (polygons), working CRS.
    activity : BaseGeometry
        The union plus every device and building site, whatever its geometry
        (for "does the activity lie on ..." questions).
    by_layer : dict
        Role to square feet of that role's own contributing union.
    supplied : tuple of str
        Which of :data:`AFFECTED_AREA_ROLES` were supplied.
    unmeasured : tuple of str
        Nouns (``device D1``) of points or lines outside the union.
    unbounded : tuple of str
        Those of :attr:`unmeasured` whose footprint has no plausible bound.
    unknown_status : tuple of str
        Ids of impervious features with no known status.
    left_out : tuple of str
        Nouns of building sites marked existing (and not enlarged), left out.
    """

    sqft: float | None
    upper_sqft: float | None
    geometry: BaseGeometry
    activity: BaseGeometry
    by_layer: dict[str, float] = field(default_factory=dict)
    supplied: tuple[str, ...] = ()
    unmeasured: tuple[str, ...] = ()
    unknown_status: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    unbounded: tuple[str, ...] = ()
    #: ``(role, id)`` of the :attr:`unmeasured` features, whose plausible footprints the upper end reads.
    unmeasured_refs: tuple[tuple[str, str], ...] = ()

    @property
    def exact(self) -> bool:
        """True when the area is known exactly (nothing unmeasured, no unknown status)."""
        return self.sqft is not None and self.upper_sqft == self.sqft

    def layers_text(self) -> str:
        """``the union of disturbance (4,000 sq ft) and clearing (3,000 sq ft)``: which layers made the area."""
        names = {"impervious": "proposed or removed impervious", "devices": "devices drawn as polygons", "building_sites": "building sites drawn as polygons"}
        parts = [f"{names.get(r, r)} ({a:,.1f} sq ft)" for r, a in self.by_layer.items() if a > 0]
        kept = f"; left out as existing and not enlarged: {', '.join(self.left_out)}" if self.left_out else ""
        if not parts:
            return "no mapped area in " + ", ".join(self.supplied) + kept
        if len(parts) == 1:
            return parts[0] + kept
        return "the union of " + ", ".join(parts[:-1]) + " and " + parts[-1] + ", overlaps counted once" + kept

    def uncertainty_text(self) -> str:
        """What the area leaves out, or ``""``."""
        out: list[str] = []
        if self.unmeasured:
            one = len(self.unmeasured) == 1
            verbs = ("lies", "is", "a polygon", "its") if one else ("lie", "are", "polygons", "their")
            if self.unbounded:
                tail = f"{', '.join(self.unbounded)} {'has' if len(self.unbounded) == 1 else 'have'} no plausible bound"
            else:
                tail = (f"with {verbs[3]} largest plausible footprint{'' if one else 's'} (packs/device_plausibility.json) the area is at most "
                        f"{self.upper_sqft:,.1f} sq ft" if self.upper_sqft is not None else "")
            out.append(f"{', '.join(self.unmeasured)} {verbs[0]} outside the mapped areas and {verbs[1]} not drawn as {verbs[2]}, "
                       f"so {verbs[3]} footprint is not measured; {tail}")
        if self.unknown_status:
            out.append(f"impervious feature(s) {', '.join(self.unknown_status)} have no status existing, proposed or removed and may add up to {self.extra_unknown_sqft:,.1f} sq ft")
        return "; ".join(out)

    @property
    def extra_unknown_sqft(self) -> float:
        if self.sqft is None or self.upper_sqft is None or math.isinf(self.upper_sqft):
            return math.inf
        return self.upper_sqft - self.sqft

    def decides(self, threshold: float, *, strict: bool = False) -> bool | None:
        """Whether the area is at (``strict``: above) ``threshold``; ``None`` when the plan allows both answers."""
        if self.sqft is None or self.upper_sqft is None:
            return None
        # The area is the interval [sqft, upper_sqft] (core.extents): decided when both ends compare the same way.
        return Interval(self.sqft, self.upper_sqft).holds(threshold, ">" if strict else ">=", "area_sqft")


@dataclass
class _Measured:
    """A measure kept (:func:`affected_area`): the layers it was made of (the same layer objects give the same measure: the
    class and the area rules of one check measure the same layers several times), the working unit, what the derived values
    it looked up were keyed by (``None``: made without a :class:`~stormwater_plugin.core.derived.Derived`) and the check
    whose derived values hold them (a weak reference: measured or carried there, so one check carries them once)."""

    key: tuple[Any, ...]
    unit_to_ft: float
    found: AffectedArea
    used: Used | None
    held_by: Callable[[], Derived | None]


#: The last measures, the latest first (:data:`KEPT_MEASURES` at most): the dock's move search measures other layers
#: between two live checks, so the last measure alone is seldom the live check's.
_LAST: list[_Measured] = []
#: How many measures :func:`affected_area` keeps.
KEPT_MEASURES = 8


def affected_area(layers: dict[str, FeatureLayer], unit_to_ft: float) -> AffectedArea:
    """Measure the land the project affects (see the module docstring)."""
    # every role is looked up (a check's read log notes what each rule reads), then compared by identity
    key = tuple(layers.get(r) for r in _MEASURED_ORDER)
    kept = list(_LAST)  # one read of the list: another thread's check may replace it meanwhile
    derived = current()
    for entry in kept:
        if entry.unit_to_ft != unit_to_ft or len(entry.key) != len(key):
            continue
        if not all(a is b for a, b in zip(entry.key, key)):
            if not _devices_moved_inside(entry.key, key, entry.found):
                continue
            # a device drawn as a point moved within the work: the same measure (the same object, so what the area rules key
            # of it is found again), now of these layers; the measure of the layers before is let go (an earlier edit's)
            moved = _Measured(key, unit_to_ft, entry.found, entry.used, entry.held_by)
            kept = [e for e in kept if e is not entry]
            entry = moved
        if derived is not None and entry.used is not None and entry.held_by() is not derived:
            # what it was made of stays for the next check that measures again (a device moved out): once per check
            derived.carry(entry.used)
            entry.held_by = weakref.ref(derived)
        if not kept or kept[0] is not entry:
            _LAST[:] = [entry, *(e for e in kept if e is not entry)][:KEPT_MEASURES]
        return entry.found
    if derived is None:
        found, used = _measure(layers, unit_to_ft), None
    else:
        with derived.recording() as used:
            found = _measure(layers, unit_to_ft)
    _LAST[:] = [_Measured(key, unit_to_ft, found, used, weakref.ref(derived) if derived is not None else _nothing), *kept][:KEPT_MEASURES]
    return found


def _nothing() -> None:
    return None


#: The roles the affected area reads, in the order of its key (:func:`affected_area`), and where the devices are among them.
_MEASURED_ORDER: tuple[str, ...] = AFFECTED_AREA_ROLES + PLAN_OBJECT_ROLES
_DEVICES_AT = _MEASURED_ORDER.index("devices")


def _devices_moved_inside(before: tuple[Any, ...], now: tuple[Any, ...], measured: AffectedArea) -> bool:
    """Whether ``measured``, the affected area of the layers ``before``, is that of the layers ``now`` too, because they differ
    only in devices drawn as points that lay, and lie, in the interior of the work's polygons (a dry well dragged about inside
    the disturbed area).

    Exact: the layers of every other role are the same objects (never changed: the check's cleaned layers), the devices the
    same features (ids, attributes by value and type, features without geometry) whose geometries differ only where a
    point was and is a point, each in the interior of ``measured.geometry`` (the union of every role's polygons, which
    points do not change). :func:`_measure` reads a point device only (a) as a part of the activity union, which was the
    polygons' union itself (``measured.activity is measured.geometry``: every point lay in the interior of the polygons'
    union, the path of :func:`_activity` that returns it) and stays so when the point moves within that interior; and
    (b) as a loose feature that is covered when it lies in the interior of ``geometry`` (:func:`_covered_by`), so it adds
    no unmeasured feature, plausible footprint or bound, before or after. Every other field is read from the polygons,
    the other roles and the devices' attributes, all unchanged. The interior is asked as :func:`_activity` asks it (kept by
    content: the earlier position's answer is the last check's). A hypothesis property holds the carried measure to
    :func:`_measure` of the moved layers.
    """
    if any(a is not b for n, (a, b) in enumerate(zip(before, now)) if n != _DEVICES_AT):
        return False
    old, new = before[_DEVICES_AT], now[_DEVICES_AT]
    if old is None or new is None or measured.activity is not measured.geometry:
        return False  # (an empty union has no interior: no point is in it, below)
    if old.role != new.role or len(old) != len(new) or list(old.ids) != list(new.ids) or not _same_attributes(old.attrs, new.attrs):
        return False
    if dict(old.no_geometry) != dict(new.no_geometry):
        return False
    moved = [(a, b) for a, b in zip(old.geoms, new.geoms) if a is not b]
    if not moved or not all(type(a) is Point and type(b) is Point for a, b in moved):
        return False
    points = [g for pair in moved for g in pair]
    if any(shapely.is_empty(object_array(points)).tolist()):
        return False
    area = measured.geometry
    inside: list[bool] = derive_each("in the interior of", partial(_interior, area), points, area)
    return all(inside)


def _same_attributes(a: Any, b: Any) -> bool:
    """Whether two layers' attributes are the same: each feature's fields in order, each value a plain one (text, number,
    boolean, ``None``), equal and of the same type (1, 1.0 and True differ)."""
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        if x != y or list(x) != list(y):
            return False
        types = list(map(type, x.values()))
        if types != list(map(type, y.values())) or not _PLAIN_VALUES.issuperset(types):
            return False
    return True


#: The attribute value types :func:`_same_attributes` compares (others: not the same, the area is measured).
_PLAIN_VALUES: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def _measure(layers: dict[str, FeatureLayer], unit_to_ft: float) -> AffectedArea:
    supplied = tuple(r for r in AFFECTED_AREA_ROLES if layers.get(r) is not None)
    by_role: dict[str, list[Any]] = {}
    unknown_geoms: list[Any] = []
    unknown_ids: list[str] = []
    loose: list[tuple[Any, str, str, dict[str, Any], str]] = []
    every: list[Any] = []
    kinds: list[int] = []  # the GEOS type id of each of every, then of each of unknown_geoms
    unknown_kinds: list[int] = []
    left_out: list[str] = []
    by_layer: dict[str, float] = {}
    for role in AFFECTED_AREA_ROLES + PLAN_OBJECT_ROLES:
        layer = layers.get(role)
        if layer is None:
            continue
        # a role's part, kept by its layer's content (core.derived): an edit of another role finds it made
        part = derive("a role's part of the affected area", partial(_role_part, role, layer, unit_to_ft), role, layer, unit_to_ft)
        every.extend(part.every)
        kinds.extend(part.every_types)
        unknown_geoms.extend(part.unknown_geoms)
        unknown_kinds.extend(part.unknown_types)
        unknown_ids.extend(part.unknown_ids)
        left_out.extend(part.left_out)
        loose.extend(part.loose)
        if part.polygons:
            by_role[role] = list(part.polygons)
            by_layer[role] = part.sqft
    geometry = union([g for gs in by_role.values() for g in gs])
    activity = _activity(geometry, every, unknown_geoms, kinds + unknown_kinds)
    if not supplied:
        return AffectedArea(None, None, geometry, activity, {}, supplied, left_out=tuple(left_out))
    sqft = _sqft(geometry, unit_to_ft)
    unmeasured: list[str] = []
    unbounded: list[str] = []
    plausible: list[Any] = []
    refs: list[tuple[str, str]] = []
    covered = _covered_by(geometry, [x[0] for x in loose], unit_to_ft) if loose and not geometry.is_empty else [False] * len(loose)
    for (g, noun, role, attrs, fid), inside in zip(loose, covered):
        if inside:
            continue  # drawn inside the mapped work (or on its edge, at the precision of a distance): counted there
        unmeasured.append(noun)
        refs.append((role, fid))
        bound = footprint_bound(role, g, attrs, unit_to_ft)
        if bound is None:
            unbounded.append(noun)
        elif not bound.is_empty:
            plausible.append(bound)
    if unbounded or "disturbance" not in supplied:
        # No disturbance layer: the land the work disturbs is not drawn (an absent layer is unknown, never "none"), so
        # what the other layers show is a lower bound.
        upper = math.inf
    elif unknown_geoms or plausible:
        upper = _sqft(union([geometry, *unknown_geoms, *plausible]), unit_to_ft)
    else:
        upper = sqft
    return AffectedArea(sqft, upper, geometry, activity, by_layer, supplied, tuple(unmeasured), tuple(unknown_ids), tuple(left_out), tuple(unbounded),
                        tuple(refs))


@dataclass(frozen=True)
class _RolePart:
    """One role's features in the affected area (:func:`_role_part`), in the layer's order."""

    every: tuple[Any, ...]
    #: The GEOS type id of each of ``every`` (``shapely.get_type_id``).
    every_types: tuple[int, ...]
    polygons: tuple[Any, ...]
    #: The area of the union of ``polygons`` (sq ft; 0.0 when none).
    sqft: float
    loose: tuple[tuple[Any, str, str, dict[str, Any], str], ...]
    unknown_geoms: tuple[Any, ...]
    #: The GEOS type id of each of ``unknown_geoms``.
    unknown_types: tuple[int, ...]
    unknown_ids: tuple[str, ...]
    left_out: tuple[str, ...]


def _role_part(role: str, layer: FeatureLayer, unit_to_ft: float) -> _RolePart:
    """The features of ``layer`` the affected area counts, those of unknown status, those left out, and the area of its polygons."""
    every: list[Any] = []
    every_types: list[int] = []
    polygons: list[Any] = []
    loose: list[tuple[Any, str, str, dict[str, Any], str]] = []
    unknown_geoms: list[Any] = []
    unknown_types: list[int] = []
    unknown_ids: list[str] = []
    left_out: list[str] = []
    # which are polygons, read from each geometry's class (a geometry's own ``geom_type`` is a GEOS call of its own)
    kinds = type_ids(layer.geoms)
    polygonal = [t == 3 or t == 6 for t in kinds]
    for i in range(len(layer)):
        g = layer.geoms[i]
        if role == "impervious":
            s = impervious_status(layer.attrs[i])
            if s == "existing":
                continue
            if s == "":
                unknown_geoms.append(g)
                unknown_types.append(kinds[i])
                unknown_ids.append(layer.ids[i])
                continue
        elif role == "building_sites" and building_left_out(layer.attrs[i]):
            left_out.append(layer.ref(i).noun)
            continue
        every.append(g)
        every_types.append(kinds[i])
        if polygonal[i]:
            polygons.append(g)
        elif role in PLAN_OBJECT_ROLES:
            loose.append((g, layer.ref(i).noun, role, layer.attrs[i], layer.ids[i]))
    return _RolePart(tuple(every), tuple(every_types), tuple(polygons), _sqft(union(polygons), unit_to_ft) if polygons else 0.0,
                     tuple(loose), tuple(unknown_geoms), tuple(unknown_types), tuple(unknown_ids), tuple(left_out))


def _activity(geometry: BaseGeometry, every: list[Any], unknown: list[Any], type_ids: list[int]) -> BaseGeometry:
    """The union of ``every`` and ``unknown`` (in that order); ``geometry`` is the union of the polygons of ``every``, in order.

    ``type_ids`` holds the GEOS type id of each of ``every`` then of ``unknown`` (their role parts read them, kept by content).

    The union of polygons and points is that of the polygons when no point lies outside them, bit for bit: GEOS's
    unary union unions the polygons of a collection apart (its polygons in their order, whatever else it holds),
    then adds each point its point locator finds exterior to them, and returns a copy of the polygons' union when
    none is. So when every part not a polygon is a point in the interior of the polygons' union (a moved dry well
    inside the disturbed area), the union of the polygons alone (kept by content, and when nothing of unknown status
    adds a polygon the very union ``geometry`` is) is the answer, and the edit of a device drawn inside needs no new
    union. Anything else (a line, a point on the edge or outside) makes the whole union as before.
    """
    kept = [(g, t) for g, t in zip(every + unknown, type_ids) if g is not None]
    parts = [g for g, _ in kept]
    if not parts:
        return union(parts)
    polys = [g for g, t in kept if t == 3 or t == 6]
    pts = [g for g, t in kept if t == 0]
    if len(polys) + len(pts) != len(parts) or not pts:
        return union(parts)
    whole = geometry if not unknown else union(polys)
    if whole.is_empty:
        return union(parts)
    interior: list[bool] = derive_each("in the interior of", partial(_interior, whole), pts, whole)
    return whole if all(interior) else union(parts)


def _interior(area: BaseGeometry, points: list[Any]) -> list[bool]:
    """Whether each of ``points`` lies in the interior of ``area``."""
    return [bool(x) for x in shapely.contains_properly(area, object_array(points)).tolist()]


def _covered_by(area: BaseGeometry, geoms: list[Any], unit_to_ft: float) -> list[bool]:
    """Whether ``area`` covers each of ``geoms``, on its edge counting as on it (:func:`covers_on_edge`), each kept by its content.

    A point in the interior of ``area`` is covered (the interior is part of what covers asks): the interior, kept for
    the activity union by the same key, answers for a device moved within the work without a covers test of its own.
    """
    points = [n for n, g in enumerate(geoms) if geom_type(g) == "Point" and not g.is_empty]
    out: list[bool | None] = [None] * len(geoms)
    if points:
        interior: list[bool] = derive_each("in the interior of", partial(_interior, area), [geoms[n] for n in points], area)
        for n, inside in zip(points, interior):
            if inside:
                out[n] = True
    rest = [n for n, v in enumerate(out) if v is None]
    if rest:
        judged: list[bool] = derive_each("covered by the work", partial(_covered, area, unit_to_ft), [geoms[n] for n in rest], area, unit_to_ft)
        for n, v in zip(rest, judged):
            out[n] = v
    return [bool(v) for v in out]


def _covered(area: BaseGeometry, unit_to_ft: float, geoms: list[Any]) -> list[bool]:
    """Whether ``area`` covers each of ``geoms``, on its edge counting as on it (:func:`covers_on_edge`)."""
    return [covers_on_edge(area, g, unit_to_ft) for g in geoms]


def _sqft(geom: BaseGeometry, unit_to_ft: float) -> float:
    return decided(area_sqft(geom, unit_to_ft), "area_sqft")
