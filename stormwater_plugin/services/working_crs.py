"""The working CRS and its scale factor: one policy for the command line, batch and the plugin.

The adapters (``headless.reader`` with pyproj, ``qgis_bridge.crs`` with
QGIS) describe the DEM's CRS and locate the site; this module decides:

* the DEM's CRS when it is projected and conformal (the DEM is then never
  reprojected);
* else the WGS 84 UTM zone holding the site's centre (:func:`site_lonlat`:
  the site parcel by the engine's rule, else the plan, else everything),
  on both paths;
* no site location at all (no layer has a feature with a location): refused,
  never a guessed zone.

The grid scale factor is taken at the site (:func:`site_geometries` picks the
features that make up the site), so the same site gets the same feet whether
it is checked alone, in a batch of a whole town or in QGIS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.errors import StormwaterError
from ..core.geometry_arrays import object_array, total_box
from ..core.model import FeatureLayer
from ..core.roles import PLAN_ROLES
from ..core.site_parcel import SiteParcelPick, UnknownSiteParcel, pick_site_parcel


class NoSiteLocation(ValueError, StormwaterError):
    """No layer has a feature with a location: the working CRS cannot be chosen."""

    def __init__(self) -> None:
        super().__init__("no layer has any feature with a location: nothing to check (the working CRS cannot be chosen)")


class TransformUnavailable(RuntimeError, StormwaterError):
    """The GIS library cannot build the transformation between two CRSs: measuring through it would pass coordinates
    through unchanged (QGIS's invalid ``QgsCoordinateTransform`` does), so the read stops instead."""

    def __init__(self, source: str, target: str) -> None:
        super().__init__(f"the coordinate transformation from {source or 'an unnamed CRS'} to {target or 'an unnamed CRS'} could not be "
                         "created (the PROJ database may be unreadable in this QGIS session: restart QGIS); nothing was measured")


@dataclass(frozen=True)
class CrsTraits:
    """What the policy needs to know about a CRS."""

    projected: bool
    conformal: bool


#: Words of a projection method's name (EPSG's, as PROJ and QGIS's WKT2 give it) whose scale does not depend on direction:
#: transverse Mercator, Lambert conic conformal, stereographic, oblique Mercator, Mercator. Web Mercator ("Popular
#: Visualisation Pseudo Mercator") is not conformal on the ellipsoid, nor is an equal-area projection such as CONUS
#: Albers (EPSG:6350), which stretches distances by up to a few tenths of a percent depending on direction.
CONFORMAL_METHODS = ("transverse mercator", "conformal", "stereographic", "oblique mercator", "mercator (variant")


def conformal_method(method_name: str) -> bool:
    """Whether a projection method (its name) is conformal (:data:`CONFORMAL_METHODS`): the one rule for both backends."""
    name = method_name.lower()
    return any(k in name for k in CONFORMAL_METHODS) and "pseudo" not in name


@dataclass(frozen=True)
class WorkingCrsChoice:
    """The decision: the DEM's CRS (``utm_epsg is None``) or a UTM zone, and why in words."""

    utm_epsg: int | None
    why: str

    @property
    def uses_dem_crs(self) -> bool:
        return self.utm_epsg is None


def utm_epsg(lon: float, lat: float) -> tuple[int, str]:
    """EPSG code and label (``"18N"``) of the WGS 84 UTM zone holding a longitude/latitude."""
    zone = int(math.floor((lon + 180.0) / 6.0)) % 60 + 1
    north = lat >= 0
    return (32600 if north else 32700) + zone, f"{zone}{'N' if north else 'S'}"


def choose_working_crs(dem: CrsTraits | None, site_lonlat: tuple[float, float] | None) -> WorkingCrsChoice:
    """Decide the working CRS.

    Parameters
    ----------
    dem : CrsTraits or None
        The DEM's CRS, or ``None`` without a DEM.
    site_lonlat : (float, float) or None
        Longitude and latitude (WGS 84) of the site's centre.

    Raises
    ------
    NoSiteLocation
        The UTM zone is needed and nothing has a location.
    """
    if dem is not None and dem.projected and dem.conformal:
        return WorkingCrsChoice(None, "the DEM's CRS")
    if site_lonlat is None or not all(math.isfinite(v) for v in site_lonlat):
        raise NoSiteLocation()
    code, label = utm_epsg(*site_lonlat)
    why = "local UTM zone (the DEM's CRS is not conformal)" if dem is not None and dem.projected else "local UTM zone"
    return WorkingCrsChoice(code, f"{why} {label}, chosen from the site's centre")


def _present(geoms: Sequence[BaseGeometry | None]) -> list[BaseGeometry]:
    if len(geoms) < 3:  # asked one by one below a few geometries, at once above
        return [g for g in geoms if g is not None and not g.is_empty]
    arr = object_array(geoms)
    return list(arr[~shapely.is_missing(arr) & ~shapely.is_empty(arr)])


#: The site parcel as the parcels alone name it, by parcel layer (its ``id``: each held, so no other layer takes its ``id``) and
#: ``site_parcel_id``: one search's, for the several plans it judges against the same parcels (:func:`site_parcel_indices`).
ParcelPicks = dict[tuple[int, str | None], tuple[FeatureLayer, SiteParcelPick]]


def site_parcel_indices(layers: Mapping[str, FeatureLayer], site_parcel_id: str | None = None, picks: ParcelPicks | None = None) -> list[int]:
    """Indices of the site parcel(s) of ``layers["parcels"]`` by the engine's rule (:func:`~stormwater_plugin.core.site_parcel.pick_site_parcel`).

    ``site_parcel_id``, else those with ``is_site`` set, else the only parcel,
    else the parcel holding the most proposed building sites and devices;
    ``[]`` when none is found or ``site_parcel_id`` names no parcel (the check
    itself refuses that id). ``layers`` are in one CRS.

    ``picks``: what the parcels alone name, kept for the next call with the same parcel layer (the named, the flagged or the
    only parcel: the plan decides only when they name none, and is then read at each call).
    """
    parcels = layers.get("parcels")
    try:
        if picks is not None and parcels is not None:
            held = picks.get((id(parcels), site_parcel_id))
            if held is None or held[0] is not parcels:
                held = picks[id(parcels), site_parcel_id] = (parcels, pick_site_parcel(parcels, site_parcel_id, {}))
            if held[1].how != "none":
                return list(held[1].indices)
        return list(pick_site_parcel(parcels, site_parcel_id, layers).indices)
    except UnknownSiteParcel:
        return []


def site_geometries(layers: Mapping[str, FeatureLayer], site_parcel_id: str | None = None, picks: ParcelPicks | None = None) -> list[BaseGeometry]:
    """The features that locate the site: its parcel(s), else the plan, else everything.

    The site parcel is the engine's (:func:`site_parcel_indices`; ``picks`` as there): the one named
    ``site_parcel_id``, else those with ``is_site`` set, else the only parcel,
    else the one holding the most proposed features. Used for the UTM zone and
    the scale factor, so a site gets the same working CRS and feet whichever
    command checks it (a batch checks each site parcel with the same rule).
    """
    parcels = layers.get("parcels")
    if parcels is not None and len(parcels):
        found = _present([parcels.geoms[i] for i in site_parcel_indices(layers, site_parcel_id, picks)])
        if found:
            return found
    return _plan_geometries(layers)


def named_site_geometries(parcels: FeatureLayer, site_parcel_id: str | None, picks: ParcelPicks) -> list[BaseGeometry] | None:
    """:func:`site_geometries` of any layers whose parcels are ``parcels`` (not empty), when the parcels alone decide it: the site
    parcel(s) they name (:func:`site_parcel_indices`' pick by the parcels alone, kept in ``picks``) with a geometry; ``None`` when
    the other layers may decide (no parcel named, or none of those named has a geometry).
    """
    held = picks.get((id(parcels), site_parcel_id))
    if held is None or held[0] is not parcels:
        try:
            held = picks[id(parcels), site_parcel_id] = (parcels, pick_site_parcel(parcels, site_parcel_id, {}))
        except UnknownSiteParcel:
            return None
    if held[1].how == "none":
        return None
    return _present([parcels.geoms[i] for i in held[1].indices]) or None


def _plan_geometries(layers: Mapping[str, FeatureLayer]) -> list[BaseGeometry]:
    """:func:`site_geometries` without a site parcel: the plan's located features, else every layer's."""
    for roles in (PLAN_ROLES, tuple(layers)):
        found = _present([g for r in roles if r in layers for g in layers[r].geoms])
        if found:
            return found
    return []


#: Transforms x and y arrays of one CRS to WGS 84 longitudes and latitudes (degrees).
ToLonLat = Callable[[np.ndarray, np.ndarray], tuple[npt.ArrayLike, npt.ArrayLike]]


def site_lonlat(layers: Mapping[str, FeatureLayer], site_parcel_id: str | None, to_lonlat: ToLonLat) -> tuple[float, float] | None:
    """Longitude and latitude (WGS 84) of the site's centre: what the UTM zone is chosen from.

    The middle of the longitude/latitude bounds of the vertices of the site's
    features (:func:`site_geometries`). Taken of the vertices, not of a box
    in the layers' CRS, so the file reader (the parcels' own CRS) and the
    plugin (the CRS it read the plan in) find the same centre.

    Parameters
    ----------
    layers : mapping
        Role to layer, all in one CRS.
    site_parcel_id : str or None
    to_lonlat : callable
        ``(xs, ys) -> (lons, lats)`` from that CRS.

    Returns
    -------
    (float, float) or None
        ``None`` when no feature has a location.
    """
    geoms = site_geometries(layers, site_parcel_id)
    if not geoms:
        return None
    xy = shapely.get_coordinates(np.array(geoms, dtype=object))
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if not len(xy):
        return None
    lon, lat = (np.asarray(v, dtype=float) for v in to_lonlat(xy[:, 0], xy[:, 1]))
    ok = np.isfinite(lon) & np.isfinite(lat)
    if not ok.any():
        return None
    lon, lat = lon[ok], lat[ok]
    return float((lon.min() + lon.max()) / 2.0), float((lat.min() + lat.max()) / 2.0)


#: A few geometries' box (:func:`few_box`) and centre (:func:`site_centre`) by the geometry objects, each held (its id stays its own;
#: a geometry is never changed): the site's parcel is boxed at every read of the live re-check. Emptied when full.
_FEW: dict[tuple[str, tuple[int, ...]], tuple[tuple[BaseGeometry | None, ...], object]] = {}
#: Up to this many geometries are kept so (a site's parcels); more are computed each time.
FEW_GEOMETRIES = 8


def _held(kind: str, geoms: Sequence[BaseGeometry | None], make: Callable[[], object]) -> object:
    """``make()``, kept in :data:`_FEW` by ``kind`` and the objects ``geoms`` (at most :data:`FEW_GEOMETRIES`, each a geometry or None)."""
    if len(geoms) > FEW_GEOMETRIES or not all(g is None or isinstance(g, BaseGeometry) for g in geoms):
        return make()
    key = (kind, tuple(map(id, geoms)))
    held = _FEW.get(key)
    if held is None or any(a is not b for a, b in zip(held[0], geoms)):
        if len(_FEW) >= 64:
            _FEW.clear()
        held = _FEW[key] = (tuple(geoms), make())
    return held[1]


def few_box(geoms: Sequence[BaseGeometry]) -> tuple[float, float, float, float] | None:
    """``total_box`` of ``geoms`` as Python floats (``None``: none), kept by the objects when they are a few (:func:`_held`)."""
    def make() -> tuple[float, float, float, float] | None:
        if not len(geoms):
            return None
        b = total_box(geoms)
        return float(b[0]), float(b[1]), float(b[2]), float(b[3])

    return _held("box", geoms, make)  # type: ignore[return-value]


def site_centre(geoms: Sequence[BaseGeometry | None]) -> tuple[float, float] | None:
    """Centre of the bounding box of ``geoms`` (their CRS), or ``None`` when there is none; kept by the objects when they are a
    few (:func:`_held`: the live re-check's site parcel, the same objects at every read)."""
    return _held("centre", geoms, lambda: _centre(geoms))  # type: ignore[return-value]


def _centre(geoms: Sequence[BaseGeometry | None]) -> tuple[float, float] | None:
    """:func:`site_centre` computed."""
    present = _present(geoms)
    if not present:
        return None
    b = total_box(present)
    if not np.all(np.isfinite(b)):
        return None
    return float((b[0] + b[2]) / 2.0), float((b[1] + b[3]) / 2.0)


def plausible_scale(k: float) -> float:
    """``k`` when it is a plausible point scale factor (0.9 to 1.1), else 1 (grid distances)."""
    return k if math.isfinite(k) and 0.9 < k < 1.1 else 1.0
