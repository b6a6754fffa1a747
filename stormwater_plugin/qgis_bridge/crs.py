"""The working CRS: one projected CRS every layer is measured in, and its unit in feet.

The decision is :func:`stormwater_plugin.services.working_crs.choose_working_crs`,
the policy the command line and the batch apply; this module only describes
QGIS CRSs to it. No location at all is refused (:class:`NoSiteLocation`),
never answered with an assumed zone.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsCoordinateTransformContext,
    QgsRectangle,
    QgsUnitTypes,
)

from ..core.units import METRE_PER_FT, METRE_PER_US_FT
from ..services.working_crs import CrsTraits, NoSiteLocation, plausible_scale, site_centre, site_geometries, utm_epsg
from ..services.working_crs import choose_working_crs as _policy
from .compat import null_rectangle

__all__ = ["NoSiteLocation", "choose_working_crs", "crs_label", "ground_scale", "is_conformal", "is_projected", "site_ground_scale", "unit_to_ft", "utm_for"]

_WGS84 = QgsCoordinateReferenceSystem("EPSG:4326")


def is_projected(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for a valid CRS with linear (not angular) map units."""
    return crs.isValid() and not crs.isGeographic() and QgsUnitTypes.unitType(crs.mapUnits()) == QgsUnitTypes.DistanceUnitType.Standard


def unit_to_ft(crs: QgsCoordinateReferenceSystem) -> float:
    """Size of one map unit of a projected CRS in international feet.

    QGIS 3.22 reports US survey feet as plain feet, so the PROJ string is
    read too: ``+units=us-ft`` (EPSG:2260 and the other NY State Plane feet
    zones) gives 1200/3937 m per unit.
    """
    proj = crs.toProj() or ""
    if "+units=us-ft" in proj:
        return METRE_PER_US_FT / METRE_PER_FT
    if "+units=ft" in proj:
        return 1.0
    if "+to_meter=" in proj:
        for part in proj.split():
            if part.startswith("+to_meter="):
                return float(part.split("=", 1)[1]) / METRE_PER_FT
    return float(QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceUnit.DistanceFeet))


def utm_for(lon: float, lat: float) -> QgsCoordinateReferenceSystem:
    """The WGS 84 UTM zone holding a longitude/latitude."""
    code, _ = utm_epsg(lon, lat)
    return QgsCoordinateReferenceSystem(f"EPSG:{code}")


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
    """Pick the projected CRS every layer is transformed to: the command line's policy (services.working_crs).

    The DEM's CRS when it is projected and conformal (the DEM is then read
    without reprojection); else the UTM zone of the layers' centre (the
    extents are all QGIS knows before reading; the zone differs from the
    site's only at a zone boundary). ``vector_crss`` is kept for callers.

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


def ground_scale(crs: QgsCoordinateReferenceSystem, extents: list[tuple[QgsRectangle, QgsCoordinateReferenceSystem]], context: QgsCoordinateTransformContext) -> float:
    """Grid length / ellipsoidal length at the site's centre (the projection's point scale factor).

    Dividing grid distances by it gives distances on the ellipsoid, as the
    command line does, so UTM, State Plane and degrees agree to 0.1 ft.
    """

    return _scale_at(crs, centre_lonlat(extents, context), context)


def site_ground_scale(crs: QgsCoordinateReferenceSystem, layers: Any, site_parcel_id: str | None, context: QgsCoordinateTransformContext) -> float:
    """The scale factor at the site (its parcel, else the plan, else everything; layers in ``crs``), as the command line takes it."""
    from qgis.core import QgsPointXY

    centre = site_centre(site_geometries(layers, site_parcel_id))
    if centre is None:
        return 1.0
    try:
        p = QgsCoordinateTransform(crs, _WGS84, context).transform(QgsPointXY(*centre))
    except Exception:  # QgsCsException
        return 1.0
    return _scale_at(crs, (p.x(), p.y()), context)


def scale_at_point(crs: QgsCoordinateReferenceSystem, x: float, y: float, context: QgsCoordinateTransformContext) -> float:
    """The scale factor at the point ``(x, y)`` of ``crs`` (its units): the slope map's, at the DEM's centre."""
    from qgis.core import QgsPointXY

    try:
        p = QgsCoordinateTransform(crs, _WGS84, context).transform(QgsPointXY(x, y))
    except Exception:  # QgsCsException
        return 1.0
    return _scale_at(crs, (p.x(), p.y()), context)


def _scale_at(crs: QgsCoordinateReferenceSystem, centre: tuple[float, float] | None, context: QgsCoordinateTransformContext) -> float:
    """Grid length / ellipsoidal length at a longitude/latitude (1 when it cannot be measured)."""
    from qgis.core import QgsDistanceArea, QgsPointXY

    if centre is None:
        return 1.0
    try:
        c = QgsCoordinateTransform(_WGS84, crs, context).transform(QgsPointXY(*centre))
        da = QgsDistanceArea()
        da.setSourceCrs(crs, context)
        da.setEllipsoid(crs.ellipsoidAcronym() or "GRS80")
        step = 100.0
        ratios = []
        for dx, dy in ((step, 0.0), (0.0, step)):
            a, b = QgsPointXY(c.x() - dx / 2, c.y() - dy / 2), QgsPointXY(c.x() + dx / 2, c.y() + dy / 2)
            ell = da.measureLine(a, b)
            planar = math.hypot(dx, dy) * unit_to_ft(crs) * METRE_PER_FT
            if ell > 0:
                ratios.append(planar / ell)
        k = sum(ratios) / len(ratios) if ratios else 1.0
    except Exception:  # QgsCsException and friends: fall back to grid distances
        return 1.0
    return plausible_scale(k)


def crs_label(crs: QgsCoordinateReferenceSystem) -> str:
    """``"EPSG:26918 NAD83 / UTM zone 18N"``-style name for reports."""
    return f"{crs.authid()} {crs.description()}".strip()
