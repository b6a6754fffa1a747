"""The working CRS: one projected CRS every layer is measured in, and its unit in feet.

The decision is :func:`stormwater_plugin.services.working_crs.choose_working_crs`,
the policy the command line and the batch apply; this module only describes
QGIS CRSs to it. No location at all is refused (:class:`NoSiteLocation`),
never answered with an assumed zone.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

import numpy as np
from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsCoordinateTransformContext,
    QgsEllipsoidUtils,
    QgsPointXY,
    QgsRectangle,
    QgsUnitTypes,
)

from ..core.model import FeatureLayer
from ..core.units import METRE_PER_FT, METRE_PER_US_FT, feet_per_unit
from ..services.grid_scale import Ellipsoid, ToGeodetic, ToGrid, grid_point_scale
from ..services.working_crs import CrsTraits, NoSiteLocation, site_centre, site_geometries, site_lonlat
from ..services.working_crs import choose_working_crs as _policy
from .compat import null_rectangle

__all__ = [
    "NoSiteLocation", "choose_working_crs", "crs_label", "is_conformal", "is_projected", "site_ground_scale", "site_working_crs", "unit_to_ft",
]

_WGS84 = QgsCoordinateReferenceSystem("EPSG:4326")


def is_projected(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for a valid CRS with linear (not angular) map units."""
    return crs.isValid() and not crs.isGeographic() and QgsUnitTypes.unitType(crs.mapUnits()) == QgsUnitTypes.DistanceUnitType.Standard


def unit_to_ft(crs: QgsCoordinateReferenceSystem) -> float:
    """Size of one map unit of a projected CRS in international feet.

    The unit is read in metres by :func:`unit_to_m` and turned into feet by
    :func:`~stormwater_plugin.core.units.feet_per_unit`, the file reader's own
    rule, so both paths give the same feet to the bit.
    """
    return feet_per_unit(unit_to_m(crs))


def centre_lonlat(extents: Iterable[tuple[QgsRectangle, QgsCoordinateReferenceSystem]], context: QgsCoordinateTransformContext) -> tuple[float, float] | None:
    """Longitude and latitude of the centre of the combined extents, or ``None``."""
    total = null_rectangle()
    for rect, crs in extents:
        if rect is None or rect.isEmpty() or not crs.isValid():
            continue
        try:
            geo = QgsCoordinateTransform(crs, _WGS84, context).transformBoundingBox(rect)
        except Exception:  # QgsCsException
            continue
        total.combineExtentWith(geo)
    if total.isEmpty() or not math.isfinite(total.xMinimum()):
        return None
    c = total.center()
    return c.x(), c.y()


_CONFORMAL_PROJ = ("+proj=tmerc", "+proj=utm", "+proj=lcc", "+proj=stere", "+proj=sterea", "+proj=omerc", "+proj=merc ")


def is_conformal(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for projections whose scale does not depend on direction (TM, UTM, LCC, stereographic…).

    Equal-area projections such as CONUS Albers stretch distances by direction,
    so they are never used for measuring (the headless edge applies the same rule).
    """
    proj = (crs.toProj() or "") + " "
    return any(k in proj for k in _CONFORMAL_PROJ) and "+proj=webmerc" not in proj


def choose_working_crs(
    dem_crs: QgsCoordinateReferenceSystem | None,
    vector_crss: list[QgsCoordinateReferenceSystem],
    extents: list[tuple[QgsRectangle, QgsCoordinateReferenceSystem]],
    context: QgsCoordinateTransformContext,
) -> tuple[QgsCoordinateReferenceSystem, str]:
    """The CRS the plan is read in, before its features are known: the command line's policy (services.working_crs).

    The DEM's CRS when it is projected and conformal (the DEM is then read
    without reprojection); else the UTM zone of the layers' centre (the
    extents are all QGIS knows before reading). The plan read in it then
    locates the site: :func:`site_working_crs` gives the zone of the site's
    centre, as the command line takes it (it differs from this one only by a
    zone boundary). ``vector_crss`` is kept for callers.

    Returns
    -------
    (QgsCoordinateReferenceSystem, str)
        The CRS and a sentence saying why it was chosen.

    Raises
    ------
    NoSiteLocation
        No layer has a usable extent (the command line refuses such input too;
        no zone is assumed).
    """
    traits = None if dem_crs is None else CrsTraits(is_projected(dem_crs), is_conformal(dem_crs))
    needs_site = traits is None or not (traits.projected and traits.conformal)
    choice = _policy(traits, centre_lonlat(extents, context) if needs_site else None)
    if choice.uses_dem_crs and dem_crs is not None:
        return dem_crs, choice.why
    return QgsCoordinateReferenceSystem(f"EPSG:{choice.utm_epsg}"), choice.why


def site_working_crs(
    dem_crs: QgsCoordinateReferenceSystem | None, layers: Mapping[str, FeatureLayer], layers_crs: QgsCoordinateReferenceSystem, site_parcel_id: str | None,
    context: QgsCoordinateTransformContext,
) -> tuple[QgsCoordinateReferenceSystem, str] | None:
    """The working CRS chosen from the site's centre, the command line's choice; ``None`` when the DEM's CRS is used or nothing locates the site.

    The centre is :func:`~stormwater_plugin.services.working_crs.site_lonlat` of
    ``layers`` (read in ``layers_crs``): the site parcel by the engine's rule,
    else the plan, else everything.
    """
    traits = None if dem_crs is None else CrsTraits(is_projected(dem_crs), is_conformal(dem_crs))
    if traits is not None and traits.projected and traits.conformal:
        return None
    to_wgs84 = QgsCoordinateTransform(layers_crs, _WGS84, context)

    def to_lonlat(xs: Any, ys: Any) -> tuple[np.ndarray, np.ndarray]:
        out = np.full((len(xs), 2), np.nan)
        for k, (x, y) in enumerate(zip(xs, ys)):
            try:
                p = to_wgs84.transform(QgsPointXY(float(x), float(y)))
            except Exception:  # noqa: BLE001 - QgsCsException: a point the transformation cannot map is left out
                continue
            out[k] = (p.x(), p.y())
        return out[:, 0], out[:, 1]

    centre = site_lonlat(layers, site_parcel_id, to_lonlat)
    if centre is None:
        return None
    choice = _policy(traits, centre)
    return QgsCoordinateReferenceSystem(f"EPSG:{choice.utm_epsg}"), choice.why


def site_ground_scale(crs: QgsCoordinateReferenceSystem, layers: Any, site_parcel_id: str | None, context: QgsCoordinateTransformContext) -> float:
    """The scale factor at the site (its parcel, else the plan, else everything; layers in ``crs``), as the command line takes it."""
    centre = site_centre(site_geometries(layers, site_parcel_id))
    if centre is None:
        return 1.0
    return scale_at_point(crs, centre[0], centre[1], context)


def scale_at_point(crs: QgsCoordinateReferenceSystem, x: float, y: float, context: QgsCoordinateTransformContext) -> float:
    """The scale factor at the point ``(x, y)`` of ``crs`` (its units): the site's, and the slope map's at the DEM's centre.

    The one computation is :func:`~stormwater_plugin.services.grid_scale.grid_point_scale`; this supplies
    QGIS's projection (to and from the CRS's own geographic CRS), its unit and its ellipsoid.
    """
    parts = _scale_parts(crs, context)
    if parts is None:
        return 1.0
    to_geodetic, to_grid, unit_m, ellipsoid = parts
    return grid_point_scale(to_geodetic, to_grid, x, y, unit_m, ellipsoid)


def unit_to_m(crs: QgsCoordinateReferenceSystem) -> float:
    """Size of one map unit of a projected CRS in metres (QGIS 3.22 reports US survey feet as feet: the PROJ string is read too)."""
    proj = crs.toProj() or ""
    if "+units=us-ft" in proj:
        return METRE_PER_US_FT
    if "+units=ft" in proj:
        return METRE_PER_FT
    for part in proj.split():
        if part.startswith("+to_meter="):
            return float(part.split("=", 1)[1])
    return float(QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceUnit.DistanceMeters))


def _geographic_of(crs: QgsCoordinateReferenceSystem) -> QgsCoordinateReferenceSystem:
    """The CRS's own geographic CRS (its datum, so projecting to and from it shifts no datum)."""
    auth = crs.geographicCrsAuthId()
    if auth:
        geo = QgsCoordinateReferenceSystem(auth)
        if geo.isValid():
            return geo
    # no authority: longitude/latitude on the PROJ string's datum and ellipsoid
    keep = [p for p in (crs.toProj() or "").split() if p.split("=", 1)[0] in _DATUM_KEYS]
    return QgsCoordinateReferenceSystem.fromProj(" ".join(["+proj=longlat", *keep, "+no_defs"]))


_DATUM_KEYS = ("+datum", "+ellps", "+a", "+b", "+rf", "+f", "+R", "+towgs84", "+nadgrids", "+pm")


def _scale_parts(crs: QgsCoordinateReferenceSystem, context: QgsCoordinateTransformContext) -> tuple[ToGeodetic, ToGrid, float, Ellipsoid] | None:
    """The inverse and forward projections, the unit (metres) and the ellipsoid of a projected CRS; ``None`` when QGIS has them not."""
    if not is_projected(crs):
        return None
    params = QgsEllipsoidUtils.ellipsoidParameters(crs.ellipsoidAcronym() or "")
    geo = _geographic_of(crs)
    if not params.valid or not geo.isValid():
        return None
    forward = QgsCoordinateTransform(geo, crs, context)
    inverse = QgsCoordinateTransform(crs, geo, context)

    def to_grid(lons: Any, lats: Any) -> tuple[list[float], list[float]]:
        pts = [forward.transform(QgsPointXY(float(lon), float(lat))) for lon, lat in zip(lons, lats)]
        return [p.x() for p in pts], [p.y() for p in pts]

    def to_geodetic(x: float, y: float) -> tuple[float, float]:
        p = inverse.transform(QgsPointXY(x, y))
        return p.x(), p.y()

    return to_geodetic, to_grid, unit_to_m(crs), Ellipsoid(float(params.semiMajor), float(params.inverseFlattening))


def crs_label(crs: QgsCoordinateReferenceSystem) -> str:
    """``"EPSG:26918 NAD83 / UTM zone 18N"``-style name for reports."""
    return f"{crs.authid()} {crs.description()}".strip()
