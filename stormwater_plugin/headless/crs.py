"""The working CRS and the scale factor at the site, with pyproj (the file side of
:mod:`~stormwater_plugin.services.working_crs`; ``qgis_bridge.crs`` is the QGIS side)."""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping, Sequence, Tuple

import numpy as np
from pyproj import CRS, Transformer

from ..core.model import FeatureLayer
from ..core.roles import PLAN_ROLES
from ..services.grid_scale import Ellipsoid, ToGeodetic, ToGrid, grid_point_scale, point_scale
from ..services.placement_layers import box_edge_points, box_of_points
from ..services.working_crs import CrsTraits, NoSiteLocation, site_centre, site_geometries, site_lonlat
from ..services.working_crs import choose_working_crs as policy
from .errors import InputError
from .frames import VectorFrame


@functools.lru_cache(maxsize=32)
def crs_from_wkt(wkt: str) -> Any:
    """A pyproj CRS from WKT, parsed once per distinct text (a site package's layers share one; each parse costs ~5 ms)."""
    return CRS.from_wkt(wkt)


_CONFORMAL = ("transverse mercator", "conformal", "stereographic", "oblique mercator", "mercator (variant")


def is_conformal(crs: Any) -> bool:
    """True for projections whose scale does not depend on direction (TM, LCC, stereographic…).

    An equal-area projection such as CONUS Albers (EPSG:6350) stretches
    distances by up to a few tenths of a percent depending on direction, so
    it is never used to measure setbacks.
    """
    op = getattr(crs, "coordinate_operation", None)
    name = str(getattr(op, "method_name", "") or "").lower()
    return any(k in name for k in _CONFORMAL) and "pseudo" not in name


_LONLAT: dict[str, Any] = {}


def _to_lonlat(crs: Any) -> Any:
    """A cached transformer from ``crs`` to WGS 84 longitude/latitude (building one costs milliseconds)."""
    key = crs.to_wkt()
    if key not in _LONLAT:
        _LONLAT[key] = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return _LONLAT[key]


def site_centre_lonlat(frames: list[Any]) -> tuple[float, float] | None:
    """Longitude and latitude (WGS 84) of the mean of the layers' bounding-box centres."""
    lons: list[float] = []
    lats: list[float] = []
    for fr in frames:
        if len(fr) == 0 or fr.crs is None:
            continue
        b = fr.total_bounds
        if not np.all(np.isfinite(b)):
            continue
        lon, lat = _to_lonlat(fr.crs).transform((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
        if math.isfinite(lon) and math.isfinite(lat):
            lons.append(lon)
            lats.append(lat)
    if not lons:
        return None
    return float(np.mean(lons)), float(np.mean(lats))


#: One role's sources as read, each in its own CRS, with the ids the reader gives its features (``headless.vectors``).
RoleParts = Mapping[str, Sequence[Tuple[VectorFrame, Sequence[str]]]]


def _site_lonlat(parts: RoleParts, site_parcel_id: str | None) -> tuple[float, float] | None:
    """Longitude and latitude of the site's centre (:func:`~stormwater_plugin.services.working_crs.site_lonlat`).

    Every role's sources are put in the CRS of the parcels' first source (else
    of the first source with a CRS), so the one rule finds the site parcel
    among them (:func:`~stormwater_plugin.services.working_crs.site_parcel_indices`);
    the parcels themselves are not transformed. The other roles are taken only
    when neither a parcel nor the plan locates the site.
    """
    located = [fr for prs in parts.values() for fr, _ in prs if fr.crs is not None]
    if not located:
        return None
    base = next((fr.crs for fr, _ in parts.get("parcels", ()) if fr.crs is not None), located[0].crs)

    def layer(role: str) -> FeatureLayer:
        geoms: list[Any] = []
        ids: list[str] = []
        attrs: list[dict[str, Any]] = []
        for fr, fids in parts[role]:
            if fr.crs is None:
                continue
            moved = fr if fr.crs is base or fr.crs.equals(base) else fr.to_crs(base)
            for i, (g, fid, rec) in enumerate(zip(moved.geoms, fids, moved.records)):
                geoms.append(None if i in moved.unusable else g)
                ids.append(str(fid))
                attrs.append(rec)
        return FeatureLayer.from_sequences(role, geoms, ids, attrs)

    to_lonlat = _to_lonlat(base).transform
    near = {r: layer(r) for r in parts if r == "parcels" or r in PLAN_ROLES}
    centre = site_lonlat(near, site_parcel_id, to_lonlat)
    if centre is None and len(near) < len(parts):
        centre = site_lonlat({**near, **{r: layer(r) for r in parts if r not in near}}, site_parcel_id, to_lonlat)
    return centre


def choose_working_crs(dem_crs: Any, frames: list[Any] | RoleParts, site_parcel_id: str | None = None) -> tuple[Any, str]:
    """The working CRS by the one policy (:func:`~stormwater_plugin.services.working_crs.choose_working_crs`).

    The DEM's CRS when projected and conformal, else the UTM zone of the
    site's centre. ``frames`` by role (each role's sources with their
    features' ids) locate the site (:func:`_site_lonlat`: its parcel by the
    engine's rule, else the plan, else everything); a plain list is located
    by the centre of all its data.
    """

    traits = None if dem_crs is None else CrsTraits(bool(dem_crs.is_projected), is_conformal(dem_crs))
    needs_site = traits is None or not (traits.projected and traits.conformal)
    centre = None
    if needs_site:
        centre = site_centre_lonlat(frames) if isinstance(frames, list) else _site_lonlat(frames, site_parcel_id)
    try:
        choice = policy(traits, centre)
    except NoSiteLocation as exc:
        raise InputError(str(exc)) from exc
    if choice.utm_epsg is None:
        return dem_crs, choice.why
    return CRS.from_epsg(choice.utm_epsg), choice.why


def scale_at(crs: Any, lonlat: tuple[float, float] | None) -> float:
    """Point scale factor of a projected CRS at a longitude/latitude (grid length / ellipsoid length).

    The one computation is :func:`~stormwater_plugin.services.grid_scale.point_scale`; this supplies
    pyproj's projection (from the CRS's own geodetic CRS, no datum shift), its unit and its ellipsoid.
    A WGS 84 longitude/latitude is taken as the CRS's own (a datum shift moves the point a metre or
    so, which changes the factor by under 1e-8). 1 when it cannot be computed.
    """

    if lonlat is None:
        return 1.0
    parts = _scale_parts(crs)
    if parts is None:
        return 1.0
    _, to_grid, unit_m, ellipsoid = parts
    return point_scale(to_grid, float(lonlat[0]), float(lonlat[1]), unit_m, ellipsoid)


def scale_at_grid(crs: Any, x: float, y: float) -> float:
    """Point scale factor at the grid point ``(x, y)`` of ``crs`` (:func:`~stormwater_plugin.services.grid_scale.grid_point_scale`)."""
    parts = _scale_parts(crs)
    if parts is None:
        return 1.0
    return grid_point_scale(*parts[:2], x, y, *parts[2:])


def _scale_parts(crs: Any) -> tuple[ToGeodetic, ToGrid, float, Ellipsoid] | None:
    """The inverse and forward projections, the linear unit (metres) and the ellipsoid of a projected CRS; ``None`` when it has none."""
    try:
        return _scale_parts_of(crs.to_wkt())
    except Exception:  # noqa: BLE001 - pyproj cannot build the projection: grid distances
        return None


@functools.lru_cache(maxsize=32)
def _scale_parts_of(wkt: str) -> tuple[ToGeodetic, ToGrid, float, Ellipsoid] | None:
    crs = crs_from_wkt(wkt)
    ell = crs.ellipsoid
    if not crs.is_projected or ell is None or crs.geodetic_crs is None:
        return None
    forward = Transformer.from_crs(crs.geodetic_crs, crs, always_xy=True)
    inverse = Transformer.from_crs(crs, crs.geodetic_crs, always_xy=True)

    def to_grid(lons: Any, lats: Any) -> tuple[Any, Any]:
        return forward.transform(np.asarray(lons, dtype=float), np.asarray(lats, dtype=float), errcheck=True)

    def to_geodetic(x: float, y: float) -> tuple[float, float]:
        lon, lat = inverse.transform(x, y, errcheck=True)
        return float(lon), float(lat)

    unit_m = float(crs.axis_info[0].unit_conversion_factor)
    return to_geodetic, to_grid, unit_m, Ellipsoid(float(ell.semi_major_metre), float(ell.inverse_flattening))


def ground_scale(crs: Any, frames: list[Any]) -> float:
    """Point scale factor at the centre of all the data of ``frames`` (see :func:`site_scale` for a site)."""
    return scale_at(crs, site_centre_lonlat(frames))


def site_scale(crs: Any, layers: dict[str, FeatureLayer], site_parcel_id: str | None = None) -> float:
    """Point scale factor at the site's centre, from its layers in the working CRS ``crs``.

    The site is its parcel (``site_parcel_id``, else ``is_site``, else the
    only parcel, else the one holding the most proposed features), else the plan, else everything
    (:func:`~stormwater_plugin.services.working_crs.site_geometries`). The
    single-site reader and the batch (per site parcel) both call it, so a
    site gets the same feet whichever command checks it: over a site the
    factor varies by well under a part in a million, so a pair within a few
    thousandths of a foot of a limit is decided as on the ellipsoid.
    """
    centre = site_centre(site_geometries(layers, site_parcel_id))
    if centre is None:
        return 1.0
    return scale_at_grid(crs, *centre)


def crs_description(crs: Any, why: str, scale: float) -> str:
    """The working CRS in words for findings.json (per site: the scale factor is the site's)."""
    return f"{crs.name} ({crs.to_string()}), {why}; distances on the ellipsoid (grid scale factor {scale:.6f})"


def _transform_box(b: Any, src_crs: Any, dst_crs: Any) -> tuple[float, float, float, float] | None:
    """A box in ``src_crs`` as a box in ``dst_crs`` (its edges sampled, :func:`~stormwater_plugin.services.placement_layers.box_edge_points`);
    ``None`` when it cannot be transformed."""
    if b is None or not all(math.isfinite(float(v)) for v in b):
        return None
    if src_crs is dst_crs or src_crs.equals(dst_crs):
        return float(b[0]), float(b[1]), float(b[2]), float(b[3])
    xs, ys = box_edge_points(b)
    try:
        x, y = _transformer(src_crs.to_wkt(), dst_crs.to_wkt()).transform(xs, ys)
    except Exception:  # noqa: BLE001 - pyproj refuses some coordinates outright
        return None
    return box_of_points(x, y)


def area_of_use(crs: Any) -> tuple[float, float, float, float] | None:
    """The CRS's area of use in degrees (west, south, east, north), or ``None`` when it declares none.

    GDAL hands a layer's CRS over as WKT1, which carries no area of use: it is then taken from the
    EPSG definition the CRS is identified with (as QGIS's ``QgsCoordinateReferenceSystem.bounds()`` does),
    so the file reader and the plugin judge a layer's placement by the same area.
    """
    aou = getattr(crs, "area_of_use", None)
    if aou is not None:
        return tuple(float(v) for v in aou.bounds)  # type: ignore[return-value]
    return _area_by_code(crs.to_wkt())


@functools.lru_cache(maxsize=64)
def _area_by_code(wkt: str) -> tuple[float, float, float, float] | None:
    try:
        crs = crs_from_wkt(wkt)
        code = crs.to_epsg()
        aou = CRS.from_epsg(code).area_of_use if code is not None else None
    except Exception:  # noqa: BLE001 - a CRS pyproj cannot identify: no area to judge by
        return None
    return (float(aou.west), float(aou.south), float(aou.east), float(aou.north)) if aou is not None else None


@functools.lru_cache(maxsize=64)
def _transformer(src_wkt: str, dst_wkt: str) -> Any:
    """A transformer between two CRSs given as WKT, built once per pair (each costs milliseconds)."""
    return Transformer.from_crs(crs_from_wkt(src_wkt), crs_from_wkt(dst_wkt), always_xy=True)


_WGS84 = None


def _wgs84() -> Any:
    global _WGS84
    if _WGS84 is None:
        _WGS84 = CRS.from_epsg(4326)
    return _WGS84


