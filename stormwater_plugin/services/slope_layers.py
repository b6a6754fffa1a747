"""The "slope over a distance" use case of the Processing algorithm: building-site rows and the steep areas.

The measure and the plan of strips are :mod:`.slope_map`'s (one policy for
every front end); this module turns them into what a front end writes:

* :func:`site_slope_layers`: each building site's ring slope as a point row
  (:data:`SITE_SCHEMA`) and its slope rose as line rows (:data:`RAY_SCHEMA`,
  the steepest flagged and labelled), with the number of steep sites;
* :func:`mask_rows`: the polygons of the steep cells with their area (sq ft).

The distance, threshold and comparison default to the LGPC pack's
``building_site_slope`` rule (:func:`slope_defaults`). QGIS-free, file-free.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import shapely
from shapely.geometry import LineString, Point

from ..core.model import FeatureLayer, Warning_
from ..core.raster import ElevationGrid
from .layer_rows import Row, Schema
from .packs import load_pack
from .slope import slope_rule
from .slope_map import site_slopes

#: Fields of the building-site slopes layer.
SITE_SCHEMA: Schema = (("id", str), ("slope_100ft_pct", float), ("azimuth_deg", float), ("status", str), ("threshold_pct", float),
                       ("distance_ft", float), ("z_centre_ft", float), ("message", str))
#: Fields of the slope-rays layer.
RAY_SCHEMA: Schema = (("site_id", str), ("azimuth_deg", float), ("slope_pct", float), ("steepest", int), ("label", str))
#: Fields of the steep-areas layer.
MASK_SCHEMA: Schema = (("threshold_pct", float), ("distance_ft", float), ("area_sqft", float))


@dataclass(frozen=True)
class SlopeDefaults:
    """The building-site slope rule's figures: distance (ft) and threshold (%) (``None`` without the rule), comparison, azimuths, rays."""

    distance_ft: float | None
    threshold_pct: float | None
    compare: str
    n_azimuths: int
    display_rays: int


def slope_defaults() -> SlopeDefaults:
    """The LGPC pack's ``building_site_slope`` rule as defaults (the comparison ``gte``, 360 azimuths and 36 rays without it)."""
    try:
        rule = slope_rule(load_pack("lgpc"))
    except (OSError, ValueError):  # pragma: no cover - the bundled pack always loads (PackError is a ValueError)
        rule = None
    if rule is None:
        return SlopeDefaults(None, None, "gte", 360, 36)
    p = rule.params
    return SlopeDefaults(float(p["distance_ft"]), float(p["threshold_pct"]), str(p.get("compare", "gte")), int(p.get("n_azimuths", 360)),
                         int(p.get("display_rays", 36)))


@dataclass(frozen=True)
class SiteSlopeLayers:
    """Rows of the building-site slopes and of their rays, and how many sites are at or over the threshold."""

    sites: list[Row]
    rays: list[Row]
    n_steep: int


def site_slope_layers(sites: FeatureLayer | None, grid: ElevationGrid | None, distance_ft: float, unit_to_ft: float, threshold_pct: float,
                      defaults: SlopeDefaults, *, cancelled: Callable[[], bool] | None = None,
                      warnings: list[Warning_] | None = None) -> SiteSlopeLayers:
    """The ring slope at each building site (:func:`~.slope_map.site_slopes`) as point and ray rows in the working CRS.

    Parameters
    ----------
    sites : FeatureLayer or None
        Building sites in the working CRS.
    grid : ElevationGrid or None
        The DEM (``None``: every site undetermined).
    distance_ft, threshold_pct : float
        Ring radius (ft) and threshold (%); the comparison, azimuths and displayed rays are the rule's (``defaults``).
    unit_to_ft : float
        Feet per working-CRS unit (ground feet).
    cancelled : callable, optional
        Asked before each site.
    warnings : list, optional
        Receives the cleaning's warnings.
    """
    measured = site_slopes(sites, grid, distance_ft, unit_to_ft, threshold_pct, defaults.compare, n_azimuths=defaults.n_azimuths,
                           display_rays=defaults.display_rays, cancelled=cancelled, warnings=warnings)
    site_rows: list[Row] = []
    ray_rows: list[Row] = []
    r_units = distance_ft / unit_to_ft
    for m in measured:
        z = m.z_centre_ft
        z_out = None if z is None else (round(z, 2) if m.slope_pct is not None else z)  # as measured; rounded where a slope was found
        slope_out = None if m.slope_pct is None else round(m.slope_pct, 4)
        az_out = None if m.azimuth_deg is None else round(m.azimuth_deg, 2)
        site_rows.append((None if m.centre is None else Point(*m.centre),
                          [m.site_id, slope_out, az_out, m.status, threshold_pct, distance_ft, z_out, m.message]))
        if m.centre is None or m.slope_pct is None or m.azimuth_deg is None:
            continue
        x, y = m.centre
        for az, slope in m.rays:
            t = math.radians(az)
            ray_rows.append((LineString([(x, y), (x + r_units * math.sin(t), y + r_units * math.cos(t))]), [m.site_id, az, round(slope, 4), 0, None]))
        if m.steepest_end is not None:
            ray_rows.append((LineString([(x, y), m.steepest_end]),
                             [m.site_id, round(m.azimuth_deg, 2), round(m.slope_pct, 4), 1, f"{m.slope_pct:.1f}% toward {m.azimuth_deg:.0f}°"]))
    return SiteSlopeLayers(site_rows, ray_rows, sum(1 for m in measured if m.status == "advisory"))


def mask_rows(polygons_wkb: list[bytes], threshold_pct: float, distance_ft: float, unit_to_ft: float | None) -> list[Row]:
    """The steep areas' rows (:data:`MASK_SCHEMA`): area in sq ft when the DEM's unit is known (``unit_to_ft``), else ``None``."""
    rows: list[Row] = []
    for wkb in polygons_wkb:
        geom = shapely.from_wkb(wkb)
        rows.append((geom, [threshold_pct, distance_ft, round(float(geom.area) * unit_to_ft * unit_to_ft, 1) if unit_to_ft else None]))
    return rows
