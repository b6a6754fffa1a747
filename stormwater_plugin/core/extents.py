"""How big a feature drawn smaller than it is can plausibly be, and the intervals that follow.

A dry well drawn as a CAD block, a septic system as a dot, a brook as its
centreline: the drawing shows where the feature is, not how far it reaches.
``packs/device_plausibility.json`` (section ``extents``) states, per role and
kind, the smallest and largest plausible reach beyond the drawing
(``half_extent_ft``) and the smallest and largest ground the feature works
(``footprint_sqft``; for the class the excavation), each with its source. Size
attributes narrow them: ``diameter_ft`` and ``width_ft`` (the reach is half
of it), ``footprint_sqft`` (the reach of a circle of that area).

This module is the one place that turns a feature into intervals:

- :func:`feature_extent`: a feature's :class:`Extent` (zero for a feature
  drawn as an area);
- :func:`distance_interval`: ``[near, far]`` feet between two features from
  their drawn distance, their extents and the stated accuracy;
- :func:`footprint_bound`: the largest ground a feature not drawn as an area
  may add to an affected area;
- :func:`read_symbols`: polygons smaller than their kind's smallest footprint
  are read as a point at their centre, so a 1 ft square and a point give the
  same answer;
- :meth:`Interval.holds` / :func:`decide_distance`: every interval end is
  compared with a limit through the one comparison policy,
  :func:`~stormwater_plugin.core.limits.compare` (the quantity's decision
  precision, the text's words at the limit), so an interval and a single
  value are decided alike.

A finding is decided when both ends of the interval compare the same way with
its limit; it is undetermined only when they differ (the interval straddles
the limit), naming the dimension to draw or state (:attr:`Extent.remedy`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import chain
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import shapely
from shapely.geometry.base import BaseGeometry

from .derived import derive, derive_each
from .errors import StormwaterError
from .geometry import buffer, type_ids
from .geometry_arrays import geom_type, object_array
from .limits import Quantity, Relation, compare, relation
from .model import FeatureLayer, Status, Warning_
from .roles import ROLE_NOUN
from .vocabulary import read

EXTENTS_FILE = Path(__file__).resolve().parent / "packs" / "device_plausibility.json"
#: Attributes that state a feature's size (feet, square feet), narrowing its plausible extent.
SIZE_FIELDS: tuple[str, ...] = ("diameter_ft", "width_ft", "footprint_sqft")
#: Segments per quarter circle of the disc bounding a point's footprint (the disc is circumscribed, so it bounds from above).
_QUAD_SEGS = 8


class ExtentsDataError(ValueError, StormwaterError):
    """The ``extents`` section of ``packs/device_plausibility.json`` is malformed."""


@dataclass(frozen=True)
class KindExtent:
    """One entry of the pack data: a kind of feature and its plausible sizes.

    Attributes
    ----------
    key : str
        The entry's key (``dry_well``, ``river``, ``default``).
    noun : str
        How the kind is named in findings (``a dry well``).
    half_extent_ft : tuple of float
        (smallest, largest) reach beyond the drawn point or line, feet; the largest is ``inf`` when unbounded.
    footprint_sqft : tuple of float
        (smallest, largest) ground worked, square feet (``inf`` when unbounded).
    excavation_margin_ft : float
        Ground worked beyond a stated size (a stone collar, working room), feet.
    source : str
        The source or reasoning of the figures.
    names : tuple of str
        Words of a feature's name that select this kind (streams: ``river``).
    """

    key: str
    noun: str
    half_extent_ft: tuple[float, float]
    footprint_sqft: tuple[float, float]
    excavation_margin_ft: float
    source: str
    names: tuple[str, ...] = ()

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.half_extent_ft[1])


@dataclass(frozen=True)
class RoleExtents:
    """The entries of one role: by ``kind_field`` (devices), by name words (streams) or one ``default``."""

    role: str
    kinds: dict[str, KindExtent]
    kind_field: str | None = None
    width_field: str | None = None

    def largest(self) -> KindExtent:
        """The entry for a feature of unknown kind: the largest reach and footprint of every kind, the smallest minimum."""
        ks = list(self.kinds.values())
        return KindExtent(
            "unknown",
            "a " + ROLE_NOUN.get(self.role, self.role) + " of unknown type",
            (min(k.half_extent_ft[0] for k in ks), max(k.half_extent_ft[1] for k in ks)),
            (min(k.footprint_sqft[0] for k in ks), max(k.footprint_sqft[1] for k in ks)),
            max(k.excavation_margin_ft for k in ks),
            "The type is not known: the largest plausible extent of every type applies.",
        )


@dataclass(frozen=True)
class ExtentTable:
    """The ``extents`` section: roles with plausible extents and the roles whose tiny polygons are symbols."""

    roles: dict[str, RoleExtents]
    symbol_roles: tuple[str, ...]
    version: str


def _pair(value: Any, where: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise ExtentsDataError(f"{where}: expected [smallest, largest]") from exc
    if not (0 <= lo <= hi):
        raise ExtentsDataError(f"{where}: expected 0 <= smallest <= largest, got {value}")
    return lo, hi


def _kind(key: str, raw: Mapping[str, Any], where: str) -> KindExtent:
    if "source" not in raw or not str(raw["source"]).strip():
        raise ExtentsDataError(f"{where}: every extent states its source")
    if raw.get("unbounded"):
        fmin = float(raw.get("footprint_min_sqft", 0.0))
        half: tuple[float, float] = (0.0, math.inf)
        foot: tuple[float, float] = (fmin, math.inf)
    else:
        half = _pair(raw.get("half_extent_ft"), f"{where}.half_extent_ft")
        foot = _pair(raw.get("footprint_sqft", [0.0, math.pi * half[1] ** 2]), f"{where}.footprint_sqft")
    return KindExtent(key, str(raw.get("noun", key)), half, foot, float(raw.get("excavation_margin_ft", 0.0)), str(raw["source"]),
                      tuple(str(n).lower() for n in raw.get("names", ())))


def parse_extents(data: Mapping[str, Any]) -> ExtentTable:
    """The typed ``extents`` section of a plausibility document (raises :class:`ExtentsDataError`)."""
    sec = data.get("extents")
    if not isinstance(sec, Mapping):
        raise ExtentsDataError("device_plausibility.json has no 'extents' section")
    roles: dict[str, RoleExtents] = {}
    for role, spec in dict(sec.get("roles", {})).items():
        kinds = {str(k): _kind(str(k), v, f"extents.roles.{role}.kinds.{k}") for k, v in dict(spec.get("kinds", {})).items()}
        if not kinds:
            raise ExtentsDataError(f"extents.roles.{role}: no kinds")
        roles[str(role)] = RoleExtents(str(role), kinds, spec.get("kind_field"), spec.get("width_field"))
    return ExtentTable(roles, tuple(sec.get("symbol_roles", ())), str(sec.get("version", "")))


@lru_cache(maxsize=1)
def extent_table() -> ExtentTable:
    """The pack's plausible extents (read once)."""
    return parse_extents(json.loads(EXTENTS_FILE.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Extent:
    """How far one feature may reach beyond its drawing and how much ground it may work.

    Attributes
    ----------
    half_min_ft, half_max_ft : float
        Smallest and largest reach beyond the drawn geometry, feet (``inf``: unbounded).
    footprint_min_sqft, footprint_max_sqft : float
        Smallest and largest ground worked, square feet (the excavation for the largest).
    what : str
        ``a dry well drawn as a point`` (empty for a feature drawn as an area).
    remedy : str
        The dimension to draw or state that settles it.
    source : str
        The pack's reasoning for the figures.
    """

    half_min_ft: float = 0.0
    half_max_ft: float = 0.0
    footprint_min_sqft: float = 0.0
    footprint_max_sqft: float = 0.0
    what: str = ""
    remedy: str = ""
    source: str = ""

    @property
    def drawn(self) -> bool:
        """True when the feature is drawn as it is (no extent beyond the drawing)."""
        return self.half_max_ft == 0.0 and not self.what

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.half_max_ft)

    def reach_text(self) -> str:
        """``a dry well drawn as a point, reaching up to 8 ft beyond it``."""
        if self.unbounded:
            return f"{self.what}, whose extent has no plausible bound"
        return f"{self.what}, reaching up to {self.half_max_ft:g} ft beyond it"


#: A feature drawn as it is.
DRAWN = Extent()


def _number(attrs: Mapping[str, Any], name: str) -> float | None:
    for k, v in attrs.items():
        if str(k).strip().lower() == name:
            try:
                x = float(v)
            except (TypeError, ValueError):
                return None
            return x if math.isfinite(x) and x > 0 else None
    return None


def kind_of(role: str, attrs: Mapping[str, Any], name: str = "") -> KindExtent | None:
    """The pack entry for a feature of ``role`` named ``name`` (``None`` when the role has no plausible extents)."""
    spec = extent_table().roles.get(role)
    if spec is None:
        return None
    if spec.kind_field:
        r = read(attrs, role, spec.kind_field)
        hit = spec.kinds.get(str(r.value)) if r.known else None
        return hit if hit is not None else spec.largest()
    named = [k for k in spec.kinds.values() if k.names]
    if named:
        words = name.lower()
        for k in named:
            if any(w in words for w in k.names):
                return k
    return spec.kinds.get("default") or spec.largest()


def _shape(geom: BaseGeometry) -> str:
    t = geom_type(geom)
    return "a point" if "Point" in t else "a line" if "Line" in t else "a symbol"


def feature_extent(role: str, geom: BaseGeometry | None, attrs: Mapping[str, Any], name: str = "") -> Extent:
    """The plausible extent of one feature beyond its drawing.

    A feature drawn as a polygon is drawn as it is (:data:`DRAWN`; tiny polygons
    were read as points by :func:`read_symbols`). A point or a line takes its
    kind's entry (by ``device_type``, or by words of its ``name``: a river, a brook), narrowed by a stated ``diameter_ft`` / ``width_ft`` (reach half
    of it) or ``footprint_sqft`` (reach of a circle of that area).
    """
    if geom is None or geom.is_empty or geom_type(geom) in ("Polygon", "MultiPolygon"):
        return DRAWN
    k = kind_of(role, attrs, name)
    if k is None:
        return DRAWN
    shape = _shape(geom)
    noun = ROLE_NOUN.get(role, role)
    what = f"{k.noun} drawn as {shape}"
    lo, hi = k.half_extent_ft
    flo, fhi = k.footprint_sqft
    stated = [(f, _number(attrs, f)) for f in SIZE_FIELDS]
    given = {f: v for f, v in stated if v is not None}
    if "diameter_ft" in given or "width_ft" in given:
        size = given.get("diameter_ft", given.get("width_ft"))
        assert size is not None
        lo = hi = size / 2.0
        if "Point" in geom_type(geom):
            flo = fhi = math.pi * (size / 2.0 + k.excavation_margin_ft) ** 2
        what += f" {size:g} ft across"
    elif "footprint_sqft" in given:
        area = given["footprint_sqft"]
        lo = hi = math.sqrt(area / math.pi)
        flo = fhi = math.pi * (hi + k.excavation_margin_ft) ** 2
        what += f" of {area:,.0f} sq ft"
    if hi == 0.0:
        return DRAWN
    if role == "streams":
        remedy = "state streams.width_ft or draw the stream's banks as a water-body polygon"
    else:
        remedy = f"draw the {noun} as a polygon or state {role}.diameter_ft or {role}.footprint_sqft"
        if math.isinf(hi):
            remedy = f"draw the {noun} as a polygon"
        if k.key == "unknown":
            remedy = f"set {role}.device_type or " + remedy
    return Extent(lo, hi, flo, fhi, what, remedy, k.source)


_LAYER_EXTENTS: dict[int, tuple[Any, list[Extent]]] = {}


def layer_extents(layer: FeatureLayer, names: Sequence[str] | None = None) -> list[Extent]:
    """Every feature's :func:`feature_extent` of one layer, computed once per layer object (the rules of a run share them).

    ``names`` are the features' names (the kind of a stream is read from its name); the cache holds a layer only while
    it is alive, by identity.
    """
    import weakref

    key = id(layer)
    hit = _LAYER_EXTENTS.get(key)
    if hit is not None and hit[0]() is layer:
        return hit[1]
    out = [feature_extent(layer.role, layer.geoms[i], layer.attrs[i], names[i] if names is not None else "") for i in range(len(layer))]
    if len(_LAYER_EXTENTS) > 256:
        _LAYER_EXTENTS.clear()
    _LAYER_EXTENTS[key] = (weakref.ref(layer), out)
    return out


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[lo, hi]`` of a measure (feet or square feet)."""

    lo: float
    hi: float

    def holds(self, limit: float, rel: Relation | str, quantity: Quantity = "distance_ft") -> bool | None:
        """Whether the measure stands in ``rel`` to ``limit``: decided when both ends compare the same way.

        Each end goes through :func:`~stormwater_plugin.core.limits.compare` (``rel`` may be the text's words,
        ``"within"``, ``"a minimum of"``). ``None`` when the ends compare differently: the interval straddles the limit.
        """
        lo = compare(self.lo, limit, quantity, rel)
        hi = compare(self.hi, limit, quantity, rel)
        return lo if lo == hi else None

    def straddles(self, limit: float, rel: Relation | str = ">=", quantity: Quantity = "distance_ft") -> bool:
        """True when the ends compare differently with ``limit`` (:meth:`holds`), so the measure may fall on either side."""
        return self.holds(limit, rel, quantity) is None


def compare_to_limit(value: float, limit: float, quantity: Quantity = "distance_ft") -> int:
    """``-1`` when ``value`` is below ``limit``, ``0`` at it, ``1`` above, both taken at the decision precision of ``quantity``.

    A reading of :func:`~stormwater_plugin.core.limits.compare` for messages and ordering; decisions use :meth:`Interval.holds`.
    """
    if compare(value, limit, quantity, "<"):
        return -1
    if compare(value, limit, quantity, ">"):
        return 1
    return 0


def distance_interval(drawn_ft: float, *extents: Extent, accuracy_ft: float | None = None) -> Interval:
    """``[near, far]`` feet between two features whose drawings are ``drawn_ft`` apart.

    The true edges may lie nearer than the drawings by the largest reach of both
    sides (and the stated accuracy), and no farther than the drawings less their
    smallest reach (plus the accuracy). A distance is never below 0.
    """
    acc = float(accuracy_ft or 0.0)
    near = drawn_ft - sum(e.half_max_ft for e in extents) - acc
    far = drawn_ft - sum(e.half_min_ft for e in extents) + acc
    return Interval(max(0.0, near) if math.isfinite(near) else 0.0, max(0.0, far))


def decide_distance(interval: Interval, required: float, words: str = "a minimum of") -> Status:
    """A distance rule of ``required`` feet on an interval of distances, by the text's ``words``.

    Words of a least distance (``"a minimum of"``, ``"at least"``: ``>=``, ``>``) are met where they hold; words of a
    zone (``"within"``, ``"shall not be installed within 20 feet"``: ``<=``, ``<``) are broken where they hold, the
    limit included for ``within``. Pass when the rule is met at both ends, violation when it is broken at both,
    undetermined when the ends differ.
    """
    rel = relation(words)
    holds = interval.holds(required, rel, "distance_ft")
    if holds is None:
        return Status.UNDETERMINED
    met = holds if rel in (">=", ">") else not holds
    return Status.PASS if met else Status.VIOLATION


def decide_at_least(interval: Interval, required: float) -> Status:
    """A "at least ``required``" feet limit on an interval (:func:`decide_distance` with ``"at least"``)."""
    return decide_distance(interval, required, "at least")


def footprint_bound(role: str, geom: BaseGeometry, attrs: Mapping[str, Any], unit_to_ft: float) -> BaseGeometry | None:
    """A polygon holding every plausible footprint of a feature drawn as a point or a line (working CRS).

    ``None`` when the footprint has no plausible bound (a trench drawn as a point). A point's bound is a
    disc of the largest footprint's area (circumscribed, so its area bounds from above); a line's is the
    line widened by its largest reach and excavation margin on each side.
    """
    k = kind_of(role, attrs)
    ext = feature_extent(role, geom, attrs)
    if k is None or ext.drawn:
        return shapely.GeometryCollection()
    if ext.unbounded or math.isinf(ext.footprint_max_sqft):
        return None
    if "Point" in geom.geom_type:
        r_ft = math.sqrt(ext.footprint_max_sqft / math.pi)
    else:
        r_ft = ext.half_max_ft + k.excavation_margin_ft
    if r_ft <= 0:
        return shapely.GeometryCollection()
    n = 4 * _QUAD_SEGS
    return buffer(geom, r_ft / unit_to_ft / math.cos(math.pi / n), _QUAD_SEGS)  # a point's disc: GEOS's own, made more cheaply


def attributes_key(attrs: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, ...], tuple[Any, ...], tuple[Any, ...]]:
    """Features' attributes as plain inputs of a derived value (:mod:`.derived`, which keys them with their types).

    The number of fields of each feature, then every field name and every value in order, as flat tuples: the same
    content told apart as a tuple per feature would, built in fewer steps.
    """
    return tuple(map(len, attrs)), tuple(chain.from_iterable(attrs)), tuple(chain.from_iterable([a.values() for a in attrs]))


def _min_footprints(role: str, attrs: Sequence[Mapping[str, Any]]) -> tuple[float, ...]:
    """:func:`_min_footprint` of each of ``attrs``."""
    return tuple(_min_footprint(role, a) for a in attrs)


def _min_footprint(role: str, attrs: Mapping[str, Any]) -> float:
    k = kind_of(role, attrs)
    return 0.0 if k is None else k.footprint_sqft[0]


def read_symbols(layers: dict[str, FeatureLayer], unit_to_ft: float, warnings: list[Warning_]) -> dict[str, FeatureLayer]:
    """Read each polygon smaller than its kind's smallest plausible footprint as a point at its centre.

    A 1 ft square dry well is a symbol, not a 1 sq ft dry well: read as a point, it gets the point's plausible
    extent, so the answer does not depend on which of the two the plan used. Returns the layers (replaced ones new).
    Each role's reading is kept by content (:mod:`.derived`): an edit of another role finds it made.
    """
    out = dict(layers)
    for role in extent_table().symbol_roles:
        layer = layers.get(role)
        if layer is None or len(layer) == 0:
            continue
        read, warning = derive("symbols read as points", partial(_symbols_read, role, layer, unit_to_ft), role, layer, unit_to_ft)
        if read is not None:
            out[role] = read
        if warning is not None:
            warnings.append(replace(warning))  # a check's warnings are its own
    return out


def _symbols_read(role: str, layer: FeatureLayer, unit_to_ft: float) -> tuple[FeatureLayer | None, Warning_ | None]:
    """:func:`read_symbols` of one role: the layer with its symbols read as points and the warning naming them (``None``: none)."""
    geoms = list(layer.geoms)
    hit: list[str] = []
    # which are polygons (Polygon, MultiPolygon: ``None`` is of type -1), and of those which are empty, asked at once
    arr = object_array(layer.geoms)
    polys = [i for i, t in enumerate(type_ids(arr)) if t == 3 or t == 6]
    if polys:
        polys = [i for i, e in zip(polys, shapely.is_empty(arr[polys]).tolist()) if not e]
    if not polys:
        return None, None
    # each polygon's smallest plausible footprint, kept by the attributes' content: a move finds them made
    least = dict(zip(polys, derive("smallest plausible footprints", partial(_min_footprints, role, [layer.attrs[i] for i in polys]), role,
                                   *attributes_key([layer.attrs[i] for i in polys]))))
    # One feature is one id: the parts of a feature exported as several (a shapefile of single parts) are judged by
    # their whole area and read as one symbol at the whole's centre, so splitting a feature never changes the reading.
    parts: dict[str, list[int]] = {}
    for i in polys:
        parts.setdefault(layer.ids[i], []).append(i)
    areas = dict(zip(polys, shapely.area(arr[polys]).tolist()))  # asked of all at once (one part's is its feature's)
    for fid, idx in parts.items():
        whole = shapely.union_all([geoms[i] for i in idx]) if len(idx) > 1 else geoms[idx[0]]
        a = (float(shapely.area(whole)) if len(idx) > 1 else areas[idx[0]]) * unit_to_ft * unit_to_ft
        if a < min(least[i] for i in idx):
            c = shapely.centroid(whole)
            point = c if shapely.covered_by(c, whole) else shapely.point_on_surface(whole)
            for i in idx:
                geoms[i] = point
            hit.append(fid)
    if not hit:
        return None, None
    return replace(layer, geoms=_as_array(geoms, layer)), Warning_(
        "symbol_read_as_point", f"{ROLE_NOUN.get(role, role)} polygon(s) smaller than the smallest plausible footprint of their "
        "kind are read as symbols, points at their centre, with the plausible extent of a point", role, tuple(hit))


def _as_array(geoms: Sequence[Any], layer: FeatureLayer) -> Any:
    import numpy as np

    if isinstance(layer.geoms, np.ndarray):
        arr = np.empty(len(geoms), dtype=object)
        arr[:] = geoms
        return arr
    return list(geoms)


def extents_summary() -> list[dict[str, Any]]:
    """Every plausible extent the run may use, for the report's method section (role, kind, figures, source)."""
    return [_copy_row(row) for row in _summary_rows(extent_table())]


def _summary_rows(table: ExtentTable) -> tuple[dict[str, Any], ...]:
    """The rows of :func:`extents_summary`, made once per table (each caller is given copies)."""
    made = _SUMMARY[0] if _SUMMARY else None  # one read of the entry: another thread may replace it meanwhile
    if made is not None and made[0] is table:
        return made[1]
    rows: list[dict[str, Any]] = []
    for role, spec in table.roles.items():
        for k in spec.kinds.values():
            rows.append({"role": role, "kind": k.key, "noun": k.noun,
                         "half_extent_ft": None if k.unbounded else list(k.half_extent_ft),
                         "footprint_sqft": None if math.isinf(k.footprint_sqft[1]) else list(k.footprint_sqft),
                         "source": k.source})
    _SUMMARY[:] = [(table, tuple(rows))]
    return tuple(rows)


#: The table the summary rows were last made of, and the rows.
_SUMMARY: list[tuple[ExtentTable, tuple[dict[str, Any], ...]]] = []


def _copy_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, list) else v for k, v in row.items()}


def _kinds_used(role: str, name_of: Callable[[Mapping[str, Any]], str], items: list[tuple[Any, ...]]) -> list[tuple[str, ...]]:
    """The kinds of ``role`` each of ``items`` reads the plausible extent of: none when drawn as an area.

    An item is whether the feature is drawn as an area, then each of its fields' name and value in turn (its attributes'
    items laid flat: every field is a name and a value, so the tuple tells the attributes apart as their items would).

    Whether a feature is drawn as it is (:func:`feature_extent`'s ``drawn``) reads of its geometry only whether it is missing,
    empty or a polygon (one "drawn as an area"); the rest is its kind and stated size, from the attributes. So a stand-in point
    answers for every geometry that is not an area, and a moved point device finds its kinds made.
    """
    spec = extent_table().roles[role]
    out: list[tuple[str, ...]] = []
    for item in items:
        as_area, attrs = item[0], dict(zip(item[1::2], item[2::2]))
        name = name_of(attrs)
        if feature_extent(role, None if as_area else _NOT_AN_AREA, attrs, name).drawn:
            out.append(())
            continue
        k = kind_of(role, attrs, name)
        out.append(tuple(spec.kinds) if k is None or k.key == "unknown" else (k.key,))
    return out


#: The geometry :func:`_kinds_used` hands :func:`feature_extent` for a feature not drawn as an area (see there).
_NOT_AN_AREA = shapely.Point(0.0, 0.0)


def _drawn_as_areas(geoms: Sequence[Any]) -> list[bool]:
    """Whether each of ``geoms`` is missing, empty or a polygon (Polygon, MultiPolygon), asked of all at once."""
    if not len(geoms):
        return []
    return [t in (-1, 3, 6) or e for t, e in zip(type_ids(geoms), shapely.is_empty(object_array(geoms)).tolist())]


def extents_used(layers: Mapping[str, FeatureLayer], refs: Iterable[tuple[str, str]],
                 name_of: Callable[[Mapping[str, Any]], str] = lambda attrs: "") -> list[dict[str, Any]]:
    """The rows of :func:`extents_summary` a run read: the kinds of the ``(role, id)`` features not drawn as areas.

    ``refs`` are the features a run's findings and class name; ``name_of`` gives a feature's name from its attributes
    (a stream's kind is read from it). A feature of unknown kind is read with the largest of every kind of its role,
    so it uses them all. In the order of :func:`extents_summary`.
    """
    wanted: dict[str, set[str]] = {}
    for role, fid in refs:
        wanted.setdefault(role, set()).add(fid)
    # name_of is code: a function of a module is one by its name; another (a lambda) cannot be keyed, so it is asked directly
    named = name_of.__qualname__ if "<" not in name_of.__qualname__ else None
    used: set[tuple[str, str]] = set()
    for role, fids in wanted.items():
        layer = layers.get(role)
        if layer is None or extent_table().roles.get(role) is None:
            continue
        # a role's kinds by its layer's content and the features named (an edit of another role finds them made), and
        # within it each feature's by its own content (geometry, attributes): the live re-check computes the edited feature's alone
        named_ids = tuple(sorted(fids, key=lambda x: (type(x).__name__, str(x))))
        keys = (derive("extent kinds used by a role", partial(_role_kinds_used, role, name_of, named, layer, named_ids), layer, named_ids, role,
                       f"{name_of.__module__}.{named}") if named is not None else _role_kinds_used(role, name_of, named, layer, named_ids))
        used |= {(role, key) for key in keys}
    return [_copy_row(row) for row in _summary_rows(extent_table()) if (row["role"], row["kind"]) in used]


def _role_kinds_used(role: str, name_of: Callable[[Mapping[str, Any]], str], named: str | None, layer: FeatureLayer,
                     fids: tuple[str, ...]) -> frozenset[str]:
    """The kinds of ``role`` the features ``fids`` of ``layer`` read the plausible extent of (:func:`extents_used` of one role)."""
    wanted = set(fids)
    idx = [i for i, x in enumerate(layer.ids) if x in wanted]  # one pass over the layer, whatever the number of features named
    # each feature by whether it is drawn as an area and its attributes, all its kinds read (see _kinds_used): one flat tuple
    # of plain values (whether drawn as an area, then each field's name and value in turn), keyed as it is
    items = [(a, *chain.from_iterable(layer.attrs[i].items())) for i, a in zip(idx, _drawn_as_areas([layer.geoms[i] for i in idx]))]
    kinds = partial(_kinds_used, role, name_of)
    found = (derive_each("extent kinds used, by drawn as an area and attributes", kinds, items, role, f"{name_of.__module__}.{named}")
             if named is not None else kinds(items))
    return frozenset(key for keys in found for key in keys)


__all__ = ["Extent", "ExtentTable", "ExtentsDataError", "Interval", "KindExtent", "RoleExtents", "DRAWN", "SIZE_FIELDS",
           "compare_to_limit", "decide_at_least", "decide_distance", "distance_interval", "extent_table", "extents_summary", "extents_used", "feature_extent",
           "footprint_bound", "kind_of", "layer_extents", "parse_extents", "read_symbols"]
