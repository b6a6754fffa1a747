"""Which vector sources lie where the site is: one decision for the command line and the plugin.

A shapefile of UTM metres whose ``.prj`` says NY East ftUS lands hundreds of miles from the site, where
every setback against it "passes". Each adapter (the file reader, ``headless/vectors.py``; the QGIS
snapshot, ``qgis_bridge/snapshot.py``) reads the layers and transforms their extents into the working
CRS, then asks :func:`misplaced_sources` which sources are *misplaced* and why; their features are then
listed as without usable geometry with that reason (every rule reading them is undetermined for them)
and :func:`misplaced_warning` says so, in the same words on both paths.

Policy only (numpy and shapely); the wording of each reason is
:func:`~stormwater_plugin.services.intake.placement_problem`'s.

Readings
--------
- A source whose coordinates do not fit its CRS (:func:`~stormwater_plugin.services.intake.outside_area_of_use`)
  is misplaced whatever the pack.
- With a pack (``reaches``), each source of a plan role (a role not in
  :data:`~stormwater_plugin.core.roles.CONTEXT_ROLES`) is judged, role by role in the order given,
  against the site located by the *other* plan roles' sources not misplaced so far
  (:func:`~stormwater_plugin.services.working_crs.site_geometries`); then each context source against
  the site located by every plan source not misplaced. A source lying wholly farther than its role's
  reach (at most :data:`~stormwater_plugin.services.intake.FAR_FT`) is misplaced.
- Distances are measured from the site's features to the source's whole extent (a box in the working
  CRS) in grid units times ``unit_to_ft`` (no scale factor: a screen for hundreds of feet to hundreds of
  miles, not a measurement).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.derived import current
from ..core.geometry_arrays import object_array
from ..core.model import FeatureLayer, Warning_
from ..core.roles import CONTEXT_ROLES, PLAN_ROLES
from .intake import FAR_FT, MAX_LISTED, outside_area_of_use, placement_problem
from .working_crs import ParcelPicks, named_site_geometries, site_geometries

#: A box (xmin, ymin, xmax, ymax).
Box = tuple[float, float, float, float]

#: Points sampled along each edge of a box transformed to another CRS (its edges bend).
EDGE_SAMPLES: int = 11
#: Where along an edge they lie (fractions 0 to 1), made once (the live read's CRS fit samples an edited layer's extent at each edit).
_EDGE_FRACTIONS = np.linspace(0.0, 1.0, EDGE_SAMPLES)
_EDGE_FRACTIONS.setflags(write=False)


def box_edge_points(b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Points along the four edges of box ``b`` (:data:`EDGE_SAMPLES` per edge), to transform to another CRS.

    Parameters
    ----------
    b : sequence of 4 float
        (xmin, ymin, xmax, ymax) in the source CRS.

    Returns
    -------
    (ndarray, ndarray)
        x and y of the points, in the source CRS's units.
    """
    n, t = EDGE_SAMPLES, _EDGE_FRACTIONS
    x0, y0, x1, y1 = (float(v) for v in b)
    along_x, along_y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t  # each computed once for both edges it samples
    xs = np.concatenate([along_x, np.full(n, x1), along_x, np.full(n, x0)])
    ys = np.concatenate([np.full(n, y0), along_y, np.full(n, y1), along_y])
    return xs, ys


def box_of_points(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> Box | None:
    """The box of transformed edge points (:func:`box_edge_points`); ``None`` when any is not finite (it could not be transformed)."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.size == 0 or not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        return None
    return float(xa.min()), float(ya.min()), float(xa.max()), float(ya.max())


def carried_box(box: Sequence[float] | None, same: bool, transform: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]) -> Box | None:
    """``box`` carried into another CRS by ``transform`` (its edges sampled, :func:`box_edge_points`), as both adapters carry one.

    ``same``: the two CRSs are one (the box is kept). ``None`` when it cannot be carried: no box, a bound not finite,
    a point not mapped, or a transformation refusing the points outright.
    """
    if box is None or not all(math.isfinite(float(v)) for v in box):
        return None
    if same:
        return float(box[0]), float(box[1]), float(box[2]), float(box[3])
    try:
        x, y = transform(*box_edge_points(box))
    except Exception:  # noqa: BLE001 - a library refusing some coordinates outright (pyproj)
        return None
    return box_of_points(x, y)


def distance_to_box_ft(anchor: Sequence[BaseGeometry], box: Box | None, unit_to_ft: float) -> float | None:
    """Distance from the site's features to a box, feet; ``None`` when either is unknown.

    Parameters
    ----------
    anchor : sequence of geometry
        The features locating the site, in the working CRS.
    box : Box or None
        The source's extent in the working CRS.
    unit_to_ft : float
        Feet per unit of the working CRS.
    """
    if not anchor or box is None:
        return None
    return float(np.min(shapely.distance(object_array(anchor), _box_target(box)))) * unit_to_ft


def crs_misfit_reason(source: str, crs_name: str) -> str:
    """The reason given for a source whose coordinates do not fit its CRS (:func:`~stormwater_plugin.services.intake.placement_problem`)."""
    reason = placement_problem(source, crs_name, True, None, 0.0)
    assert reason is not None
    return reason


def crs_declared(valid: bool, name: str) -> bool:
    """Whether a source declares a CRS: a valid one not named "Undefined…" (GDAL's name for a GeoPackage's SRS 0 and -1,
    which QGIS calls valid and pyproj parses)."""
    return valid and not name.strip().lower().startswith("undefined")


def crs_unknown_reason(source: str) -> str:
    """The reason given for a source that declares no CRS: where its features lie is unknown, so none is measured.

    Both readers treat it as misplaced (its features listed as without usable geometry, every rule reading them
    undetermined), never as if it were in the working CRS (a silent pass when it is not) and never by refusing the
    whole site for one layer.
    """
    return f"lies at an unknown place ({source} declares no CRS): assign it one (in QGIS: Layer > Set CRS; or ogr2ogr -a_srs EPSG:xxxx) and run again"


@dataclass
class SourcePlace:
    """What the decision needs of one source of a role, as an adapter read it.

    Parameters
    ----------
    role : str
        The role it is read as.
    source : str
        Names it in the reason (``path:layer`` as the command line writes it).
    crs_name : str
        The name of the CRS it declares.
    fits_crs : bool
        Whether its coordinates fit that CRS (:func:`~stormwater_plugin.services.intake.outside_area_of_use`).
    bounds : Box or None
        Its whole extent in the working CRS; ``None`` when empty or unknown (never judged by distance).
    layer : FeatureLayer or None
        A plan source's features with a usable geometry, in the working CRS: they locate the site for the others.
    finite : bool
        Whether every coordinate of ``layer``'s features is finite (:func:`finite_coordinates`), so ``bounds`` holds them all
        (``False``: not known; :func:`stray_plan_features` then measures every feature).
    """

    role: str
    source: str
    crs_name: str
    fits_crs: bool = True
    bounds: Box | None = None
    layer: FeatureLayer | None = None
    finite: bool = False


def finite_coordinates(geoms: Iterable[BaseGeometry | None]) -> bool:
    """Whether every coordinate of ``geoms`` is finite (a missing or empty geometry has none): a geometry with a NaN vertex may
    still have finite bounds, which then do not hold it (:attr:`SourcePlace.finite`)."""
    arr = object_array(geoms)
    return bool(np.isfinite(shapely.get_coordinates(arr)).all()) if len(arr) else True


def _merged(sources: Sequence[SourcePlace], reasons: Sequence[str | None], keep: set[int]) -> dict[str, FeatureLayer]:
    """The plan layers of the sources in ``keep`` not misplaced, one per role (its sources' features in turn)."""
    parts: dict[str, list[FeatureLayer]] = {}
    for i in sorted(keep):
        s = sources[i]
        if reasons[i] is None and s.layer is not None and len(s.layer):
            parts.setdefault(s.role, []).append(s.layer)
    out: dict[str, FeatureLayer] = {}
    for role, layers in parts.items():
        out[role] = layers[0] if len(layers) == 1 else FeatureLayer.from_sequences(
            role, [g for lay in layers for g in lay.geoms], [i for lay in layers for i in lay.ids], [a for lay in layers for a in lay.attrs])
    return out


#: What showed a parcel source within its reach of the plan (:func:`misplaced_sources`' ``near``): by the source's box (its bits),
#: the unit and the reach, the plan layers (each held: the read's layers are never changed) with a located feature within the
#: reach of that box.
NearPlan = dict[tuple[bytes, float, float], tuple[FeatureLayer, ...]]


def misplaced_sources(
    sources: Sequence[SourcePlace], reaches: Mapping[str, float] | None, unit_to_ft: float, site_parcel_id: str | None = None,
    picks: ParcelPicks | None = None, near: NearPlan | None = None,
) -> list[str | None]:
    """Why each source is misplaced, or ``None`` where it is not (see the module's readings).

    Parameters
    ----------
    sources : sequence of SourcePlace
        Every source of every role, plan roles in the order they are to be judged.
    reaches : mapping of str to float or None
        How far each role is read from the site, feet (:func:`~stormwater_plugin.services.intake.role_reaches_ft`);
        ``None`` without a pack: only the fit of each source's CRS is judged.
    unit_to_ft : float
        Feet per unit of the working CRS.
    site_parcel_id : str, optional
        The site parcel's id, when the user named it.
    picks : ParcelPicks, optional
        :func:`~stormwater_plugin.services.working_crs.site_parcel_indices`'s: the site parcel the parcels name (a new one:
        none found before).
    near : NearPlan, optional
        Kept by the caller from call to call (with the parcels' features): a parcel source is measured from the plan's features,
        the nearest of which lies no farther than a feature of a plan layer shown within its reach before and judged with it
        again (the same object): it is then not misplaced, whatever the other plan layers now hold (the live re-check's edited
        one), and the plan is not gathered nor measured (:func:`_near_plan`).

    Returns
    -------
    list of str or None
        One per source: the words that follow a feature's name in a finding ("lies 590 mi from the site …").
    """
    reasons: list[str | None] = [None if s.fits_crs else crs_misfit_reason(s.source, s.crs_name) for s in sources]
    if reaches is None:
        return reasons
    plan = [i for i, s in enumerate(sources) if s.role not in CONTEXT_ROLES]
    picks = {} if picks is None else picks  # the site parcel the parcels name, found once for every role's anchor
    measure = _BoxDistances([s.bounds for s in sources], unit_to_ft)
    named: dict[tuple[int, ...], list[BaseGeometry] | None] = {}

    # the parcel sources of the plan with features, in order (those not misplaced so far anchor: asked at each role)
    parcel_plan = [i for i in plan if sources[i].role == "parcels" and (layer := sources[i].layer) is not None and len(layer)]

    def anchor_of(without: str | None) -> tuple[list[BaseGeometry], bool]:
        # site_geometries of the merged layers of the plan sources but those of the role ``without``: the site parcel(s) the
        # parcels alone name, when they do, are found once for every role judged against the same parcel sources (the other
        # roles' layers are then not merged); with whether it is that shared site parcel
        parcel_sources = tuple(i for i in parcel_plan if reasons[i] is None) if without != "parcels" else ()
        if parcel_sources:
            if parcel_sources not in named:
                named[parcel_sources] = named_site_geometries(_merged(sources, reasons, set(parcel_sources))["parcels"], site_parcel_id, picks)
            found = named[parcel_sources]
            if found is not None:
                return found, True
        return site_geometries(_merged(sources, reasons, {i for i in plan if sources[i].role != without}), site_parcel_id, picks), False

    roles = list(dict.fromkeys(sources[i].role for i in plan))
    # what each role judges is fixed before any is judged (a source's reason is set only when its own role is judged)
    todo = {role: [i for i in plan if sources[i].role == role and reasons[i] is None and sources[i].layer is not None] for role in roles}
    context = [i for i, s in enumerate(sources) if s.role in CONTEXT_ROLES and reasons[i] is None and s.bounds is not None]
    for n, role in enumerate(roles):
        judged = todo[role]
        if role == "parcels" and near is not None:  # those a plan layer judged with them showed within reach before: placed
            plan_now = {id(layer): layer for i in plan if sources[i].role in PLAN_ROLES and reasons[i] is None and (layer := sources[i].layer) is not None}
            shown = [i for i in judged if _near_plan(near, sources[i], unit_to_ft, min(reaches[role], FAR_FT), plan_now)]
            judged = [i for i in judged if i not in shown]
            if not judged:
                continue
        anchor, shared = anchor_of(role)
        # the shared site parcel is measured at once to the sources still to judge too, which it may anchor (none other is)
        ahead = [i for later in roles[n + 1:] for i in todo[later]] + context if shared else []
        for i, d in zip(judged, measure(anchor, judged, ahead)):
            s = sources[i]
            reasons[i] = placement_problem(s.source, s.crs_name, False, d, min(reaches[role], FAR_FT))
            if role == "parcels" and near is not None and reasons[i] is None:
                _show_near_plan(near, s, unit_to_ft, min(reaches[role], FAR_FT),
                                [layer for j in plan if sources[j].role in PLAN_ROLES and reasons[j] is None and (layer := sources[j].layer) is not None])
    anchor, _ = anchor_of(None)
    for i, d in zip(context, measure(anchor, context)):
        s = sources[i]
        reasons[i] = placement_problem(s.source, s.crs_name, False, d, min(reaches[s.role], FAR_FT))
    return reasons


def _near_key(place: SourcePlace, unit_to_ft: float, reach_ft: float) -> tuple[bytes, float, float] | None:
    return None if place.bounds is None else (struct.pack("4d", *place.bounds), float(unit_to_ft), float(reach_ft))


def _near_plan(near: NearPlan, place: SourcePlace, unit_to_ft: float, reach_ft: float, plan_now: Mapping[int, FeatureLayer]) -> bool:
    """Whether a plan layer judged with the parcel source ``place`` now (``plan_now``: by id, each a layer of a plan source not
    misplaced so far, of a role of ``PLAN_ROLES``) was shown within ``reach_ft`` of its box before (:func:`_show_near_plan`), the
    same object: its feature is among those the parcels are measured from (:func:`~stormwater_plugin.services.working_crs.site_geometries`
    of the plan without them: every located feature of those roles), so the nearest lies no farther: the parcels are not misplaced."""
    key = _near_key(place, unit_to_ft, reach_ft)
    held = near.get(key) if key is not None else None
    return held is not None and any(plan_now.get(id(layer)) is layer for layer in held)


def _show_near_plan(near: NearPlan, place: SourcePlace, unit_to_ft: float, reach_ft: float, plan: Sequence[FeatureLayer]) -> None:
    """Keep in ``near`` the layers of ``plan`` with a located feature within ``reach_ft`` of the parcel source ``place``'s box
    (measured as :func:`misplaced_sources` measures: the nearest to the box as a geometry, in grid units times ``unit_to_ft``)."""
    key = _near_key(place, unit_to_ft, reach_ft)
    if key is None or place.bounds is None:
        return
    target = _box_target(place.bounds)
    shown = []
    for layer in plan:
        geoms = object_array(layer.geoms)
        geoms = geoms[~shapely.is_missing(geoms) & ~shapely.is_empty(geoms)]
        if len(geoms) and any(float(d) * unit_to_ft <= reach_ft for d in shapely.distance(geoms, target).tolist()):
            shown.append(layer)
    if len(near) > 16:
        near.clear()
    if shown:
        near[key] = tuple(shown)
    else:
        near.pop(key, None)


#: Each anchor's distance to a box, grid units, kept by content across reads: the anchor's geometries by their WKB (each written
#: once per geometry object by the check's derived values, :func:`~stormwater_plugin.core.derived.current`) and the box by its
#: bits. The live re-check judges the same sources against the same site parcel at every edit: only the edited layer's box is
#: measured again. Bounded (emptied when full) in entries and in the anchors' geometries they name together (a batch's plan as
#: the anchor of its parcels: thousands of geometries an entry).
_APART: dict[tuple[tuple[bytes | None, ...], bytes], float] = {}
_MAX_APART = 1024
_MAX_APART_GEOMETRIES = 100_000
_apart_geometries = [0]


class _BoxDistances:
    """:func:`distance_to_box_ft` from an anchor to some of ``boxes``: the boxes to measure made geometries at once, each box measured
    once per anchor (the roles judged against one site parcel share one call when asked ahead), the same distances; with a check's
    derived values in use, a box measured from the same anchor by an earlier read is not measured again (:data:`_APART`)."""

    def __init__(self, boxes: Sequence[Box | None], unit_to_ft: float) -> None:
        self.boxes, self.unit_to_ft = boxes, unit_to_ft
        #: each box's geometry, made when first measured (``None``: not made yet, or no box)
        self._targets: list[BaseGeometry | None] = [None] * len(boxes)
        #: each anchor's geometries (held, so their ids stay their own while this lives) and its distance, feet, to each box measured
        self._anchors: dict[tuple[int, ...], tuple[Sequence[BaseGeometry], dict[int, float]]] = {}
        self._wkb = current()

    @property
    def targets(self) -> np.ndarray:
        """Every box as a geometry (``None`` where there is no box), as measured (:func:`_box_geometries`)."""
        out = np.empty(len(self.boxes), dtype=object)
        known = [k for k, b in enumerate(self.boxes) if b is not None]
        if known:
            out[known] = self._made(known)
        return out

    def _made(self, which: Sequence[int]) -> np.ndarray:
        """The geometries of the boxes ``which`` (each with a box), made once each."""
        todo = [k for k in which if self._targets[k] is None]
        if todo:
            for k, g in zip(todo, _box_geometries([self.boxes[k] for k in todo]).tolist()):  # type: ignore[misc]
                self._targets[k] = g
        return object_array([self._targets[k] for k in which])

    def __call__(self, anchor: Sequence[BaseGeometry], which: Sequence[int], ahead: Sequence[int] = ()) -> list[float | None]:
        """The distance, feet, from ``anchor`` to each box of ``which`` (positions in ``boxes``; ``None``: no box or no anchor).

        ``ahead``: boxes the same anchor may be asked for later, measured in the same call.
        """
        known = [k for k in which if self.boxes[k] is not None]
        if not anchor or not known:
            return [None for _ in which]
        key = tuple(map(id, anchor))
        if key not in self._anchors:
            self._anchors[key] = (anchor, {})
        out = self._anchors[key][1]
        new = [k for k in dict.fromkeys([*known, *ahead]) if k not in out and self.boxes[k] is not None]
        if new:
            content = tuple(self._wkb.wkb(anchor)) if self._wkb is not None else None
            bits = {k: struct.pack("4d", *self.boxes[k]) for k in new} if content is not None else {}  # type: ignore[misc]
            kept = {k: d for k in new if (d := _APART.get((content, bits[k]))) is not None} if content is not None else {}
            measure = [k for k in new if k not in kept]
            if measure:
                # each distance is its own pair's (the minimum over the anchor's geometries of one box's column), so measuring more
                # boxes at once, or fewer (those kept from an earlier read), changes none
                nearest = shapely.distance(object_array(anchor)[:, None], self._made(measure)[None, :]).min(axis=0).tolist()
                kept.update(zip(measure, nearest))
                if content is not None:
                    if len(_APART) + len(measure) > _MAX_APART or _apart_geometries[0] + len(content) * len(measure) > _MAX_APART_GEOMETRIES:
                        _APART.clear()
                        _apart_geometries[0] = 0
                    _APART.update({(content, bits[k]): float(d) for k, d in zip(measure, nearest)})
                    _apart_geometries[0] += len(content) * len(measure)
            out.update({k: float(kept[k]) * self.unit_to_ft for k in new})
        return [out.get(k) for k in which]


def _box_geometries(boxes: Sequence[Box]) -> np.ndarray:
    """Boxes as geometries (:func:`_box_target` of each), the proper ones made at once."""
    corners = np.array(boxes, dtype=float).reshape(-1, 4)
    made = shapely.box(corners[:, 0], corners[:, 1], corners[:, 2], corners[:, 3])  # every box at once, then each degenerate one
    for n in np.flatnonzero(~((corners[:, 2] > corners[:, 0]) & (corners[:, 3] > corners[:, 1]))).tolist():
        made[n] = _box_target(boxes[n])
    return np.asarray(made, dtype=object)


def _box_target(box: Box) -> BaseGeometry:
    """A box as a geometry: a point or a line when the layer is one point or lies on one axis-parallel line (a zero-area box measures NaN)."""
    x0, y0, x1, y1 = box
    if x1 > x0 and y1 > y0:
        return shapely.box(x0, y0, x1, y1)
    if x1 > x0 or y1 > y0:
        return shapely.LineString([(x0, y0), (x1, y1)])
    return shapely.Point(x0, y0)


def unplaceable_features(lonlat: np.ndarray, area: Sequence[float] | None, raw: np.ndarray | None = None) -> np.ndarray:
    """Which features, one by one, lie where their CRS cannot place them.

    The per-feature form of :func:`~stormwater_plugin.services.intake.outside_area_of_use`: an adapter asks
    it when a layer's extent does not fit its CRS, so one stray feature is excluded and named
    (:func:`~stormwater_plugin.services.intake.unplaceable_feature_problem`) while the others are measured;
    only a layer none of whose features fits is misplaced as a whole (a wrong ``.prj``).

    Parameters
    ----------
    lonlat : ndarray of shape (n, 4)
        Each feature's box in WGS 84 degrees (west, south, east, north); a row with a non-finite value
        could not be transformed.
    area : sequence of 4 float or None
        The CRS's area of use (west, south, east, north), degrees.
    raw : ndarray of shape (n, 4), optional
        For a geographic CRS, each feature's box as stored (x, y).

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    lonlat = np.asarray(lonlat, dtype=float).reshape(-1, 4)
    out = np.zeros(len(lonlat), dtype=bool)
    for i, row in enumerate(lonlat):
        out[i] = outside_area_of_use(row, area, None if raw is None else np.asarray(raw, dtype=float).reshape(-1, 4)[i])
    return out


def stray_plan_features(
    sources: Sequence[SourcePlace], reasons: Sequence[str | None], reaches: Mapping[str, float], unit_to_ft: float,
    site_parcel_id: str | None = None,
) -> list[list[int]]:
    """The features of each plan source lying farther from the site than its role's rules reach.

    A source as a whole is judged by :func:`misplaced_sources`; a source that is not misplaced may still
    hold one feature far from everything else (a dry well left at the drawing's origin, 330 miles off):
    its extent spans the site, so the source passes, and the feature would pass every setback. Each such
    feature is undetermined instead (:func:`~stormwater_plugin.services.intake.stray_plan_feature_problem`).
    The parcels are not judged: a county parcel layer holds parcels far from the site by nature. Each
    role's features are judged against every feature of the other plan roles' sources not misplaced, the
    parcels among them: a town's package for a batch (devices on many parcels) keeps each device, which
    lies on its own parcel, while a dry well 330 miles from every parcel and every other part of the plan
    is a stray.

    Parameters
    ----------
    sources, reasons : sequences
        As given to and answered by :func:`misplaced_sources`.
    reaches : mapping of str to float
        How far each role is read from the site, feet (at most :data:`~stormwater_plugin.services.intake.FAR_FT`).
    unit_to_ft : float
        Feet per unit of the working CRS.
    site_parcel_id : str, optional
        Unused: kept so both adapters call it as :func:`misplaced_sources`.

    Returns
    -------
    list of list of int
        Per source, the positions in its ``layer`` of the features lying beyond reach (empty for the others).
    """
    out: list[list[int]] = [[] for _ in sources]
    plan = [i for i, s in enumerate(sources) if s.role not in CONTEXT_ROLES and reasons[i] is None and s.layer is not None and len(s.layer)]
    if not any(sources[i].role != "parcels" for i in plan) or _all_near(sources, plan, reaches, unit_to_ft):
        return out
    # every plan source's located features at once, with the source and the position in its layer of each
    layers = [sources[i].layer for i in plan]
    sizes = [len(lay) for lay in layers if lay is not None]
    geoms = np.concatenate([object_array(lay.geoms) for lay in layers if lay is not None])  # never asking numpy to look into each geometry
    source = np.repeat(np.array(plan), sizes)
    position = np.concatenate([np.arange(n) for n in sizes])
    codes = {r: k for k, r in enumerate(dict.fromkeys(sources[i].role for i in plan))}  # each role as a number
    role_of = np.repeat(np.array([codes[sources[i].role] for i in plan], dtype=int), sizes)  # each feature's, source by source
    keep = ~shapely.is_missing(geoms) & ~shapely.is_empty(geoms)
    geoms, source, position, role_of = geoms[keep], source[keep], position[keep], role_of[keep]
    if not len(geoms):
        return out
    # A vertex of each: two features lie no farther apart than a vertex of each, so a feature with another role's vertex well
    # within reach is no stray; only the others (none on an ordinary site) are measured, to the nearest of every other role's
    # features (one tree of them all: the nearest of each role's nearest).
    coords, index = shapely.get_coordinates(geoms, return_index=True)
    vertex = coords[np.searchsorted(index, np.arange(len(geoms)))]
    judged = np.flatnonzero(role_of != codes.get("parcels", -1))  # the parcels are not judged
    limit = np.array([min(reaches.get(r, FAR_FT), FAR_FT) for r in codes])[role_of]
    # a margin of a millionth of the reach, far above the rounding of coordinates: a feature near its limit is measured
    unsure = judged[~(_nearest_other_vertex(vertex, role_of, judged) <= limit[judged] / unit_to_ft * (1.0 - 1e-6))]
    for i in dict.fromkeys(source[unsure].tolist()):
        others = role_of != codes[sources[i].role]
        if not others.any():
            continue
        mine = unsure[source[unsure] == i]
        (which, _), dist = shapely.STRtree(geoms[others]).query_nearest(geoms[mine], return_distance=True, all_matches=False)
        out[i] = sorted(int(position[mine[int(k)]]) for k, d in zip(which, dist) if math.isfinite(d) and float(d) * unit_to_ft > limit[mine[int(k)]])
    return out


def _all_near(sources: Sequence[SourcePlace], plan: Sequence[int], reaches: Mapping[str, float], unit_to_ft: float) -> bool:
    """Whether no feature of the judged plan sources (``plan`` but the parcels) can be a stray, from their boxes alone: every plan
    source's coordinates finite (:attr:`SourcePlace.finite`; the parcels' too, which are measured as the others' neighbours), the
    judged ones' held by their boxes, two roles or more among them (each feature then has another role's feature in the box of
    them all), and that box's diagonal within every judged role's reach (with :func:`stray_plan_features`' margin of a
    millionth): no two of their points lie farther apart, so no feature lies farther than its reach from the nearest feature of
    another role. The plan's features on an ordinary site: not measured one by one."""
    judged = [sources[i] for i in plan if sources[i].role != "parcels"]
    if not (unit_to_ft > 0) or len({s.role for s in judged}) < 2 or not all(sources[i].finite for i in plan) or any(s.bounds is None for s in judged):
        return False
    boxes = [s.bounds for s in judged if s.bounds is not None]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    diagonal = math.hypot(x1 - x0, y1 - y0)
    return math.isfinite(diagonal) and all(diagonal <= min(reaches.get(s.role, FAR_FT), FAR_FT) / unit_to_ft * (1.0 - 1e-6) for s in judged)


#: Up to this many entries (judged features times all features) the vertices' distances are one matrix; above it
#: (a county's parcels beside a batch's devices) a tree per role, whose memory grows with the features, not their square.
_DENSE_ENTRIES = 200_000


def _nearest_other_vertex(vertex: np.ndarray, role_of: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """For each of ``judged``, the distance from its vertex to the nearest vertex of a feature of another role (units; ``inf`` for none).

    ``vertex`` holds one vertex per feature (rows of x, y), ``role_of`` each feature's role as a number.
    """
    if len(judged) * len(vertex) <= _DENSE_ENTRIES:
        mine = vertex[judged]
        apart = np.hypot(mine[:, 0, None] - vertex[None, :, 0], mine[:, 1, None] - vertex[None, :, 1])
        apart[role_of[judged][:, None] == role_of[None, :]] = math.inf
        return apart.min(axis=1, initial=math.inf)
    out = np.full(len(judged), math.inf)
    points = shapely.points(vertex)
    for role in np.unique(role_of[judged]).tolist():
        rows = np.flatnonzero(role_of[judged] == role)
        other = np.flatnonzero(role_of != role)
        if len(other):
            (which, _), dist = shapely.STRtree(points[other]).query_nearest(points[judged[rows]], return_distance=True, all_matches=False)
            out[rows[which]] = dist
    return out


def misplaced_warning(role: str, count: int, reason: str, ids: Sequence[str]) -> Warning_:
    """The ``layer_misplaced`` warning for ``count`` features of a role's source (``ids``: at most :data:`~stormwater_plugin.services.intake.MAX_LISTED` named)."""
    return Warning_("layer_misplaced", f"{count:,} feature(s) of the '{role}' layer {reason}: every rule reading it is undetermined for them",
                    role, tuple(ids[:MAX_LISTED]))


def unplaceable_warning(role: str, reason: str, ids: Sequence[str]) -> Warning_:
    """The ``features_unplaceable`` warning for the features of one source excluded one by one (:func:`unplaceable_features`,
    :func:`stray_plan_features`): named, at most :data:`~stormwater_plugin.services.intake.MAX_LISTED`."""
    return Warning_("features_unplaceable", f"{len(ids):,} feature(s) of the '{role}' layer {reason}: every rule reading it is "
                    "undetermined for them", role, tuple(ids[:MAX_LISTED]))


def all_features_entry(count: int, name: str) -> str:
    """The one entry listed for a misplaced source of more than :data:`~stormwater_plugin.services.intake.MAX_LISTED` features."""
    return f"(all {count:,} features of {name})"


__all__ = ["EDGE_SAMPLES", "SourcePlace", "all_features_entry", "box_edge_points", "box_of_points", "crs_declared", "crs_misfit_reason", "crs_unknown_reason", "distance_to_box_ft",
           "finite_coordinates", "misplaced_sources", "misplaced_warning", "stray_plan_features", "unplaceable_features", "unplaceable_warning"]
