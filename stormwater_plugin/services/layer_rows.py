"""Result layers as rows: what the Processing sinks and the dock's result layers receive, built once.

Each function turns a use case's result into ``(shapely geometry or None,
attribute values)`` rows in the field order of its schema, a tuple of
``(name, str | int | float | bool)`` that the QGIS side maps to field types
(:func:`stormwater_plugin.qgis_bridge.results.field_specs`). A front end only
writes the rows: which part of a finding is a line, which parcels are listed,
which setback rings merge, which ray is labelled, which area an envelope
leaves and every label are decided here, so the dock's layers and
Processing's outputs hold the same features.

QGIS-free, file-free.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Hashable

import shapely
from shapely.geometry.base import BaseGeometry

from ..core.derived import current
from ..core.errors import StormwaterError
from ..core.geometry_arrays import object_array
from ..core.model import CheckResult, DisplayZone, FeatureLayer, Finding, JsonScalar, Status
from ..core.overrides import finding_key
from ..core.siting import DesignZone, ExcludedZone, SitingEnvelope
from . import presentation
from .content_memo import ByPlace, ContentMemo, content_key, finding_contents
from .decisions import finding_keys
from .siting import envelope_rows

#: One feature of a result layer: geometry in the working CRS (``None``: a table row) and its attribute values.
Row = tuple[BaseGeometry | None, list[JsonScalar]]
#: ``(field name, python type)`` of a result layer, in attribute order.
Schema = tuple[tuple[str, type], ...]

#: Fields of every findings layer and sink (the dock's and Processing's).
FINDING_SCHEMA: Schema = (
    ("status", str), ("rule_id", str), ("citation", str), ("measured_ft", float), ("required_ft", float), ("message", str),
    ("subject_id", str), ("other_id", str), ("subject_layer", str), ("other_layer", str), ("excerpt", str), ("label", str),
    ("key", str), ("decision", str), ("near_limit", str),
)
#: Fields of the setback-zones layer (and of every display-zone layer).
ZONE_SCHEMA: Schema = (("kind", str), ("rule_id", str), ("label", str), ("distance_ft", float), ("subject_id", str))
#: Fields of the check's slope-ray layer: the zone's, and the ray's slope (percent) the style colours by.
ZONE_RAY_SCHEMA: Schema = ZONE_SCHEMA + (("slope_pct", float),)
#: Display-zone kinds with a layer of their own (:func:`zone_layers`).
SETBACK_KIND, RAY_KIND = "setback", "slope_ray"
_OWN_LAYER_KINDS = frozenset({SETBACK_KIND, RAY_KIND, "no_cut_buffer", "notification_area"})
#: Fields of the parcels-to-notify layer.
NOTIFY_SCHEMA: Schema = (("id", str), ("owner", str), ("mailing_address", str), ("parcel_address", str), ("distance_ft", float),
                         ("adjacent", bool), ("listed", bool))


class SiteParcelUnknown(LookupError, StormwaterError):
    """Raised by :func:`notification_rows` when the check found no site parcel (there is nothing to notify around)."""


def family(geom: BaseGeometry | None) -> str | None:
    """``"point"``, ``"line"`` or ``"polygon"`` for a shapely geometry; ``None`` when empty or mixed."""
    if geom is None or geom.is_empty:
        return None
    t = geom.geom_type
    if t in ("Point", "MultiPoint"):
        return "point"
    if t in ("LineString", "MultiLineString", "LinearRing"):
        return "line"
    if t in ("Polygon", "MultiPolygon"):
        return "polygon"
    if t == "GeometryCollection":
        fams = {family(g) for g in geom.geoms}
        return fams.pop() if len(fams) == 1 else None
    return None


def parts_by_family(geom: BaseGeometry | None) -> dict[str, BaseGeometry]:
    """A geometry split into one shapely geometry per family (for collections)."""
    fam = family(geom)
    if geom is not None and fam is not None and geom.geom_type != "GeometryCollection":
        return {fam: geom}
    out: dict[str, list[BaseGeometry]] = {}
    if geom is None or geom.is_empty:
        return {}
    for part in shapely.get_parts(geom):
        pf = family(part)
        if pf is not None:
            out.setdefault(pf, []).append(part)
    return {k: shapely.union_all(v) for k, v in out.items()}


#: shapely's geometry type ids (``shapely.GeometryType``) to :func:`family`'s names; a collection (7) is read part by part.
_TYPE_FAMILY = {0: "point", 4: "point", 1: "line", 2: "line", 5: "line", 3: "polygon", 6: "polygon"}


def parts_of_each(geoms: Sequence[BaseGeometry]) -> list[dict[str, BaseGeometry]]:
    """:func:`parts_by_family` of each geometry, the types and emptiness of all read at once (shapely's array functions)."""
    if not geoms:
        return []
    arr = object_array(geoms)
    types, empty = shapely.get_type_id(arr).tolist(), shapely.is_empty(arr).tolist()
    out: list[dict[str, BaseGeometry]] = []
    for g, t, e in zip(geoms, types, empty):
        fam = None if e else _TYPE_FAMILY.get(t)
        out.append({fam: g} if fam is not None else parts_by_family(g))
    return out


def finding_attributes(f: Finding, key: str | None = None, decision: str | None = None) -> list[JsonScalar]:
    """Attribute values in :data:`FINDING_SCHEMA` order (``key`` and the reviewer's ``decision`` when known)."""
    return [
        f.status.value,
        f.rule_id,
        f.citation.text,
        None if f.measured_ft is None else round(float(f.measured_ft), 2),
        None if f.required_ft is None else round(float(f.required_ft), 2),
        f.message,
        f.subject.id if f.subject else None,
        f.other.id if f.other else None,
        f.subject.layer if f.subject else None,
        f.other.layer if f.other else None,
        f.citation.excerpt,
        presentation.finding_label(f.citation.text, f.measured_ft, f.required_ft, sep="\n"),
        key,
        decision,
        "yes" if f.extra.get("near_limit") else None,
    ]


@dataclass(frozen=True)
class FindingRows:
    """Every finding as a table row, and the line and area parts of those that have them."""

    table: list[Row]
    lines: list[Row]
    areas: list[Row]


def finding_rows(findings: Sequence[Finding]) -> FindingRows:
    """The findings layers' rows, each with its finding key (:func:`~.decisions.finding_keys`)."""
    out = FindingRows([], [], [])
    for f, key in zip(findings, finding_keys(list(findings))):
        attrs = finding_attributes(f, key)
        out.table.append((None, attrs))
        parts = parts_by_family(f.geometry) if f.geometry is not None else {}
        if "line" in parts:
            out.lines.append((parts["line"], attrs))
        if "polygon" in parts:
            out.areas.append((parts["polygon"], attrs))
    return out


def zone_attributes(z: DisplayZone) -> list[JsonScalar]:
    """A display zone's attribute values in :data:`ZONE_SCHEMA` order."""
    return [z.kind, z.rule_id, z.label, z.distance_ft, z.subject.id if z.subject else None]


def setback_rows(zones: Sequence[DisplayZone]) -> list[Row]:
    """The setback rings merged per device and distance, largest first (:data:`ZONE_SCHEMA`).

    Several rules requiring the same distance from one device draw one ring:
    its ``rule_id`` joins theirs with ``;`` and its label lists their short
    citations after the distance (``"100 ft §148-11I(2)(c), 6 NYCRR 646-4.14"``).
    Zones of another kind are ignored.
    """
    merged: dict[tuple[str, float], tuple[DisplayZone, list[str], list[str]]] = {}
    for z in zones:
        if z.kind != SETBACK_KIND:
            continue
        key = (z.subject.id if z.subject else "", float(z.distance_ft or 0.0))
        first, cites, rules = merged.setdefault(key, (z, [], []))
        cite = presentation.short_citation(z.citation) if z.citation else z.label
        if cite not in cites:
            cites.append(cite)
        rules.append(z.rule_id)
    return [(first.geometry, [SETBACK_KIND, ";".join(rules), f"{dist:g} ft {', '.join(cites)}", dist, sid])
            for (sid, dist), (first, cites, rules) in sorted(merged.items(), key=lambda kv: -kv[0][1])]


def ray_rows(zones: Sequence[DisplayZone]) -> list[Row]:
    """The building sites' slope rays (:data:`ZONE_RAY_SCHEMA`), only the steepest of each site labelled.

    Every ray labelled hides the map: the steepest ray of each building site
    keeps its label, prefixed ``steepest:``; the others have none. When no ray
    carries a slope, every ray keeps its label.
    """
    rays = [z for z in zones if z.kind == RAY_KIND]
    steepest: dict[str, tuple[float, int]] = {}
    for k, z in enumerate(rays):
        key = z.subject.id if z.subject else ""
        if z.slope_pct is not None and (key not in steepest or z.slope_pct > steepest[key][0]):
            steepest[key] = (z.slope_pct, k)
    keep = {k for _, k in steepest.values()} if steepest else set(range(len(rays)))
    return [(z.geometry, [z.kind, z.rule_id, (("steepest: " + z.label) if steepest else z.label) if k in keep else None, z.distance_ft,
                          z.subject.id if z.subject else None, z.slope_pct]) for k, z in enumerate(rays)]


#: What a row of a result layer is, to compare with a feature drawn: its geometry's WKB (shapely's, no SRID; ``b""`` for none)
#: and its attributes (an object of its own when they cannot be compared). Two rows of the same key make the same feature.
RowKey = tuple[bytes, Hashable]


@dataclass(frozen=True)
class ZoneLayers:
    """The check's display zones as the map draws them, each list in its layer's schema.

    ``rays`` (:data:`ZONE_RAY_SCHEMA`) and their ring radius ``ray_distance_ft``
    (``None`` when the rays disagree or there is none); ``setbacks`` merged
    (:func:`setback_rows`); ``buffers`` and ``notification_areas`` one row per
    zone (each its own layer, named by the zone's distance); ``others`` every
    other zone's parts by geometry family.
    """

    rays: list[Row]
    ray_distance_ft: float | None
    setbacks: list[Row]
    buffers: list[Row]
    notification_areas: list[Row]
    others: dict[str, list[Row]]
    #: Each ray row's :data:`RowKey` (``gui.result_layers.row_keys`` of :attr:`rays`), in the same order.
    ray_keys: list[RowKey] | None = None
    #: The :data:`RowKey` of each row of :attr:`setbacks`, :attr:`buffers`, :attr:`notification_areas` and :attr:`others` (by
    #: family), in the same order (``None``: not made).
    setback_keys: list[RowKey] | None = None
    buffer_keys: list[RowKey] | None = None
    notification_area_keys: list[RowKey] | None = None
    other_keys: dict[str, list[RowKey]] | None = None


#: The slope rays' rows, their radius and their rows' keys, with the ray zones they were made of (held: a
#: :class:`~stormwater_plugin.core.model.DisplayZone` is frozen, so the same zone objects in the same order make the same rows).
#: The live re-check keeps a building site's rays from check to check (a device moved leaves them): its result layers then
#: neither make nor key the rays again. The rays of the last two lists of zones are kept.
_RAYS: list[tuple[tuple[DisplayZone, ...], list[Row], float | None, list[RowKey]]] = []


def _keyed_rows(rows: list[Row]) -> list[RowKey]:
    """Each row's :data:`RowKey` (``gui.result_layers.row_keys``: the geometry's WKB through the check's derived values)."""
    return [_row_key(b"" if w is None else w, tuple(attrs)) for w, (_g, attrs) in zip(geometry_wkbs([g for g, _ in rows]), rows)]


def _rays(rays: tuple[DisplayZone, ...]) -> tuple[list[Row], float | None, list[RowKey]]:
    """:func:`ray_rows` of the ray zones ``rays``, their one radius (``None``: none or several) and the rows' keys; each row new
    (its attribute list a copy), the keys shared with the rays' earlier rows (see :data:`_RAYS`)."""
    kept = next((k for k in _RAYS if len(k[0]) == len(rays) and all(map(operator.is_, k[0], rays))), None)
    if kept is None:
        rows = ray_rows(rays)
        distances = {z.distance_ft for z in rays}
        kept = (rays, rows, distances.pop() if len(distances) == 1 else None, _keyed_rows(rows))
        _RAYS[:] = [kept, *_RAYS[:1]]
    _held, rows, distance, keys = kept
    return _copied(rows), distance, keys


def _zone_row(z: DisplayZone) -> Row:
    return (z.geometry, zone_attributes(z))


def _other_rows(zones: Sequence[DisplayZone]) -> list[tuple[str, Row]]:
    """The parts of zones of no layer of their own, each with its geometry family, in order."""
    return [(fam, (part, zone_attributes(z))) for z in zones for fam, part in parts_by_family(z.geometry).items()]


#: Each zone layer's rows (each with its family) and their keys, with the zone objects they were made of (held; frozen, as
#: :data:`_RAYS`): a live edit moving a device leaves the buffers, notification areas and other zones as the last check made
#: them, so their rows are neither made nor keyed again. Two lists of zones kept per layer.
_ZONE_ROWS: dict[str, list[tuple[tuple[DisplayZone, ...], list[tuple[str, Row]], list[RowKey]]]] = {}


def _zone_rows(layer: str, zones: tuple[DisplayZone, ...], make: Callable[[Sequence[DisplayZone]], list[tuple[str, Row]]]
               ) -> tuple[list[tuple[str, Row]], list[RowKey]]:
    """``make(zones)`` and the rows' keys, those of the same zone objects in the same order taken as made before (see
    :data:`_ZONE_ROWS`); each row new (its attribute list a copy), the keys shared."""
    held = _ZONE_ROWS.setdefault(layer, [])
    kept = next((k for k in held if len(k[0]) == len(zones) and all(map(operator.is_, k[0], zones))), None)
    if kept is None:
        made = make(zones)
        kept = (zones, made, _keyed_rows([row for _fam, row in made]))
        held[:] = [kept, *held[:1]]
    return [(fam, (g, list(attrs))) for fam, (g, attrs) in kept[1]], kept[2]


def _untagged(rows: list[tuple[str, Row]]) -> list[Row]:
    return [row for _fam, row in rows]


def zone_layers(result: CheckResult) -> ZoneLayers:
    """The display zones of ``result`` split into the map's layers (:class:`ZoneLayers`)."""
    by_kind: dict[str, list[DisplayZone]] = {}
    for z in result.zones:
        by_kind.setdefault(z.kind if z.kind in _OWN_LAYER_KINDS else "", []).append(z)
    rays, distance, keys = _rays(tuple(by_kind.get(RAY_KIND, ())))
    setbacks, setback_keys = _zone_rows(SETBACK_KIND, tuple(by_kind.get(SETBACK_KIND, ())),
                                        lambda zs: [("polygon", row) for row in setback_rows(zs)])
    buffers, buffer_keys = _zone_rows("no_cut_buffer", tuple(by_kind.get("no_cut_buffer", ())), lambda zs: [("", _zone_row(z)) for z in zs])
    areas, area_keys = _zone_rows("notification_area", tuple(by_kind.get("notification_area", ())), lambda zs: [("", _zone_row(z)) for z in zs])
    parts, part_keys = _zone_rows("", tuple(by_kind.get("", ())), _other_rows)
    others: dict[str, list[Row]] = {}
    other_keys: dict[str, list[RowKey]] = {}
    for (fam, row), key in zip(parts, part_keys):
        others.setdefault(fam, []).append(row)
        other_keys.setdefault(fam, []).append(key)
    return ZoneLayers(rays, distance, _untagged(setbacks), _untagged(buffers), _untagged(areas), others, keys, setback_keys, buffer_keys,
                      area_keys, other_keys)


def zone_rows(result: CheckResult) -> list[Row]:
    """The polygons of the check's display zones, :data:`ZONE_SCHEMA`: what Processing's "Setback zones" writes.

    The setback rings merged as the map draws them (:func:`setback_rows`), then
    the polygon part of every other zone but the slope rays (no-cut buffer,
    notification area, …) in the check's order.
    """
    rows = setback_rows(result.zones)
    for z in result.zones:
        if z.kind in (SETBACK_KIND, RAY_KIND):
            continue
        poly = parts_by_family(z.geometry).get("polygon")
        if poly is not None:
            rows.append((poly, zone_attributes(z)))
    return rows


@dataclass(frozen=True)
class MapFindingRows:
    """The findings as the map draws them: rows (:data:`FINDING_SCHEMA`) by geometry family, passes apart.

    ``open_keys`` and ``pass_keys`` hold each row's :data:`RowKey`, in the same order (``gui.result_layers.row_keys`` of the rows).
    """

    open: dict[str, list[Row]]
    passes: dict[str, list[Row]]
    open_keys: dict[str, list[RowKey]] = field(default_factory=dict)
    pass_keys: dict[str, list[RowKey]] = field(default_factory=dict)


#: A finding's attribute values (:func:`finding_attributes`, no decision) by its content and key: the live re-check's map rows
#: make anew only those of the findings an edit changed.
_ATTRIBUTES: ContentMemo[tuple[JsonScalar, ...]] = ContentMemo()


def _attribute_values(f: Finding, key: str) -> tuple[JsonScalar, ...]:
    return tuple(finding_attributes(f, key))


#: A finding's base key (``core.overrides.finding_key``: rule and features) by its content.
_BASE_KEYS: ContentMemo[str] = ContentMemo()


#: A located finding's map rows by its content, its key and its geometry's WKB: each part's family, geometry, attribute values
#: and :data:`RowKey`. The live re-check's map rows make and key anew only those of the findings an edit changed.
_ROWS: ContentMemo[tuple[tuple[str, BaseGeometry, tuple[JsonScalar, ...], RowKey], ...]] = ContentMemo()


def geometry_wkbs(geoms: Sequence[BaseGeometry]) -> list[bytes | None]:
    """Each geometry's WKB (shapely's, no SRID), through the check's derived values when in use (written once per geometry object)."""
    derived = current()
    if derived is not None:
        return derived.wkb(list(geoms))
    return shapely.to_wkb(object_array(geoms), hex=False, include_srid=False).tolist() if geoms else []


def drawn_rows(rows: list[Row]) -> list[Row]:
    """``rows`` without those of a missing or empty geometry, in order (their emptiness read by shapely's array functions at once)."""
    geoms = object_array([g for g, _ in rows])  # not a slice assignment: numpy would ask each geometry for an array interface
    drawn = (~(shapely.is_missing(geoms) | shapely.is_empty(geoms))).tolist()
    return [row for row, keep in zip(rows, drawn) if keep]


def _row_key(wkb: bytes, attrs: tuple[JsonScalar, ...]) -> RowKey:
    try:
        hash(attrs)
    except TypeError:  # an attribute that is no plain value: this row is always drawn anew
        return (wkb, object())
    return (wkb, attrs)


_Made = tuple[tuple[str, BaseGeometry, tuple[JsonScalar, ...], RowKey], ...]

#: Each finding's rows by its place in the last list given (:class:`~.content_memo.ByPlace`), under its key: a finding is frozen and
#: never changed once made, so the same object under the same key has the same rows (made of its content, key and geometry
#: only). The live re-check hands on most findings as the last check's objects in the same places: their rows are taken without
#: their geometry's WKB or their content looked up. A finding without a content key has its rows made each time (not kept).
_BY_PLACE: ByPlace[_Made] = ByPlace()
#: The last list of findings given (held) and their keys: a list of the same finding objects in the same order (a live edit that
#: changed no finding) has the same keys.
_KEYS_HELD: tuple[tuple[Finding, ...], tuple[str, ...]] = ((), ())


def map_finding_rows(findings: Sequence[Finding]) -> MapFindingRows:
    """Each located finding's parts by family (``point``, ``line``, ``polygon``), with its key; unlocated ones left out."""
    out = MapFindingRows({}, {})
    findings = tuple(findings)
    global _KEYS_HELD
    contents = finding_contents(findings)
    held, held_keys = _KEYS_HELD
    if len(held) == len(findings) and all(map(operator.is_, held, findings)):
        keys = list(held_keys)  # the same findings in the same order: the same keys (each made of the findings alone)
    else:
        bases: list[str] = []
        for f, c in zip(findings, contents):  # found, or made and kept (no closure made per finding)
            base = _BASE_KEYS.find(c)
            if base is None:
                base = finding_key(f.rule_id, f.subject, f.other)
                _BASE_KEYS.keep(c, base)
            bases.append(base)
        keys = finding_keys(list(findings), bases)
        _KEYS_HELD = (findings, tuple(keys))
    rows: list[_Made | None] = _BY_PLACE.take(findings, keys)
    # the located findings not found at their place under their key: looked up by content, else made
    todo = [n for n, (f, made) in enumerate(zip(findings, rows)) if made is None and f.geometry is not None]
    wkbs = geometry_wkbs([findings[n].geometry for n in todo])
    missing: list[tuple[int, bytes | None]] = []
    for n, wkb in zip(todo, wkbs):
        content = contents[n]
        found = _ROWS.find(None if content is None or wkb is None else (content, keys[n], wkb))
        if found is None:
            missing.append((n, wkb))
        rows[n] = found
    # the parts of the findings not found, read at once; a part other than the geometry itself (a collection's) written anew
    for (n, wkb), parts in zip(missing, parts_of_each([findings[n].geometry for n, _w in missing])):
        f, key, content = findings[n], keys[n], contents[n]
        attrs = _ATTRIBUTES.get(None if content is None else (content, key), partial(_attribute_values, f, key))
        made = tuple((fam, part, attrs, _row_key(wkb if part is f.geometry and wkb is not None else bytes(shapely.to_wkb(part, hex=False, include_srid=False)),
                                                 attrs))
                     for fam, part in parts.items())
        _ROWS.keep(None if content is None or wkb is None else (content, key, wkb), made)
        rows[n] = made
    _BY_PLACE.keep(findings, [made if c is not None else None for made, c in zip(rows, contents)], keys)
    for f, kept in zip(findings, rows):
        if kept is None:
            continue
        into, row_keys = (out.passes, out.pass_keys) if f.status is Status.PASS else (out.open, out.open_keys)
        for fam, part, attrs, row_key in kept:
            into.setdefault(fam, []).append((part, list(attrs)))
            row_keys.setdefault(fam, []).append(row_key)
    return out


@dataclass(frozen=True)
class NotificationRows:
    """The parcels within the notification radius (nearest first, :data:`NOTIFY_SCHEMA`), the radius (ft) and the owners to notify."""

    rows: list[Row]
    radius_ft: float | None
    owners: int


def notification_rows(result: CheckResult, parcels: FeatureLayer) -> NotificationRows:
    """The notification block as parcel rows: ``adjacent`` and ``listed`` (its owner must be notified for the project's class).

    Raises
    ------
    SiteParcelUnknown
        When the check identified no site parcel.
    """
    if not result.site_parcel_id:
        raise SiteParcelUnknown("The site parcel could not be identified: give its id or set is_site on it.")
    block = result.notification
    listed = {p for o in block.get("owners", []) for p in o.get("parcels", [])}
    adjacent = {n["id"] for n in block.get("adjacent", [])}
    near = block.get("within_500ft", [])
    wanted = {n["id"] for n in near}  # the parcels within the radius only: the layer may hold 50,000
    geom_of = {pid: g for pid, g in zip(parcels.ids, parcels.geoms) if pid in wanted}
    rows: list[Row] = [(geom_of.get(n["id"]), [n["id"], n.get("owner"), n.get("mailing_address"), n.get("parcel_address"), n.get("distance_ft"),
                                              n["id"] in adjacent, n["id"] in listed]) for n in near]
    return NotificationRows(rows, block.get("radius_ft"), len(block.get("owners", [])))


#: The parcels-to-notify layer's drawn rows and their keys, with the parcels layer they were read from (frozen, held: the same
#: object is the same content) and the content of what else :func:`notification_rows` reads (the site parcel's id and the
#: notification block): a live edit moving a device leaves both, so the parcels are neither found, filtered nor keyed again.
_NOTICE: list[tuple[FeatureLayer, bytes, NotificationRows, list[RowKey]]] = []


def notification_drawn(result: CheckResult, parcels: FeatureLayer) -> tuple[NotificationRows, list[RowKey]]:
    """:func:`notification_rows` with the rows without a geometry left out (:func:`drawn_rows`: the map draws no table row) and
    each row's :data:`RowKey`; those of a frozen parcels layer and the same block's content taken as made before (:data:`_NOTICE`).

    Raises
    ------
    SiteParcelUnknown
        When the check identified no site parcel.
    """
    content = content_key((result.site_parcel_id, result.notification)) if parcels.frozen else None
    if content is not None:
        for layer, held, made, keys in _NOTICE:
            if layer is parcels and held == content:
                return NotificationRows(_copied(made.rows), made.radius_ft, made.owners), keys
    found = notification_rows(result, parcels)
    drawn = drawn_rows(found.rows) if found.rows else []
    made = NotificationRows(drawn, found.radius_ft, found.owners)
    keys = _keyed_rows(drawn)
    if content is not None:
        _NOTICE[:] = [(parcels, content, made, keys), *_NOTICE[:1]]
        return NotificationRows(_copied(drawn), found.radius_ft, found.owners), keys
    return made, keys


def _copied(rows: list[Row]) -> list[Row]:
    """``rows``, each new with its attribute list a copy (what is kept is never handed out to be changed)."""
    return [(g, list(attrs)) for g, attrs in rows]


@dataclass(frozen=True)
class EnvelopeLayers:
    """The envelope's three layers as rows (schemas of :mod:`.presentation`) and the figures of its summary.

    ``*_labels`` hold the map label of each row of the layer of that name (same
    order); ``design_threshold_pct`` is the slope threshold of the steep areas
    when the envelope's rules name one only (``None`` otherwise: the layer's
    name then states none).
    """

    envelope: list[Row]
    excluded: list[Row]
    design: list[Row]
    area_sqft: float
    site_area_sqft: float
    n_excluded: int
    not_checked: list[dict[str, str]]
    envelope_labels: list[str]
    excluded_labels: list[str]
    design_labels: list[str]
    design_threshold_pct: float | None


def _excluded_label(z: ExcludedZone) -> str:
    dist = f"{z.required_ft:g} ft " if z.required_ft is not None else ""
    target = f" of {z.target.layer} {z.target.id}" if z.target is not None else ""
    what = "no-cut buffer" if z.kind == "no_cut_buffer" else "gradient unknown" if z.kind == "gradient_unknown" else "setback"
    return f"{presentation.short_citation(z.citation)}: {dist}{what}{target}"


def _design_label(z: DesignZone) -> str:
    said = "slope unknown" if z.status == "undetermined" or z.threshold_pct is None else f"over {z.threshold_pct:g}%"
    return f"{presentation.short_citation(z.citation)}: {said}"


def _design_threshold_pct(env: SitingEnvelope) -> float | None:
    """The one threshold of the steep areas, else of the envelope's device-slope rules; ``None`` when none or several."""
    thresholds = sorted({z.threshold_pct for z in env.needs_professional_design if z.threshold_pct is not None})
    if not thresholds:
        thresholds = sorted({float(t) for r in env.rules if r.kind == "device_slope"
                             for t in [r.params.get("threshold_pct")] if isinstance(t, (int, float)) and not isinstance(t, bool)})
    return thresholds[0] if len(thresholds) == 1 else None


def envelope_layers(env: SitingEnvelope, high_traffic: bool) -> EnvelopeLayers:
    """The envelope (its ``high_traffic`` as asked), the excluded zones and the steep areas, polygon parts only, with their labels."""
    built = envelope_rows(env)
    u = env.unit_to_ft
    area = round(env.area_sqft(), 1)
    return EnvelopeLayers(
        [(parts_by_family(g).get("polygon") if not g.is_empty else None, [*dict(attrs, high_traffic=int(high_traffic)).values()])
         for g, attrs in built.envelope],
        [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.excluded],
        [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.design],
        env.area_sqft(), float(env.site.area) * u * u, len(env.excluded), list(env.not_checked),
        [f"{presentation.device_label(env.device_type)} may go here ({area:,.0f} sq ft)"] * len(built.envelope),
        [_excluded_label(z) for z in env.excluded],
        [_design_label(z) for z in env.needs_professional_design],
        _design_threshold_pct(env),
    )
