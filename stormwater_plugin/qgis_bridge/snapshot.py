"""Snapshot QGIS layers into plain :class:`SiteInputs` the engine (and a QgsTask) can use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import shapely
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsProject

from ..core.engine import SiteInputs
from ..core.model import PROJECT_CLASSES, ROLES, FeatureLayer, Warning_
from ..core.units import normalise_z_unit
from .crs import choose_working_crs, crs_label, site_ground_scale, unit_to_ft
from .dem import QgisDemSource, read_dem
from .layer_parts import RoleLayerStatus, resolve_parts
from .vectors import read_features, source_crs

#: Roles whose extent decides the DEM window (the proposed work and what it is measured to nearby).
PLAN_ROLES: tuple[str, ...] = ("devices", "building_sites", "septic", "wells", "clearing", "disturbance", "impervious")

#: Margin around the plan read from the DEM, in feet: more than every setback and the 100 ft slope reach.
DEM_MARGIN_FT = 1000.0


@dataclass
class Snapshot:
    """The engine's inputs plus the working CRS as a QGIS object (for result layers)."""

    inputs: SiteInputs
    crs: QgsCoordinateReferenceSystem
    crs_reason: str
    #: Role to what was read (name, feature count, whole source or part), for the run summary.
    layers_read: dict[str, RoleLayerStatus] | None = None


def _extent(source: Any) -> Any:
    return source.sourceExtent() if hasattr(source, "sourceExtent") else source.extent()


def plan_window(layers: Mapping[str, FeatureLayer], margin_units: float) -> tuple[float, float, float, float] | None:
    """Bounds (working CRS) of the plan roles, else of every layer, grown by ``margin_units``."""
    for roles in (PLAN_ROLES, tuple(layers)):
        geoms = [g for r in roles if r in layers for g in layers[r].geoms if g is not None and not g.is_empty]
        if geoms:
            b = shapely.total_bounds(np.array(geoms, dtype=object))
            if np.all(np.isfinite(b)):
                return (b[0] - margin_units, b[1] - margin_units, b[2] + margin_units, b[3] + margin_units)
    return None


def _rule_window(
    layers: Mapping[str, FeatureLayer], pack: Any, u: float, site: str | None, dem_layer: Any, working: Any, context: Any
) -> tuple[float, float, float, float] | None:
    """The DEM window the pack's rules need (the command line's policy), else the plan's when no rule needs one."""
    from ..services.dem_window import dem_window

    crs = dem_layer.crs()
    px = max(abs(dem_layer.rasterUnitsPerPixelX()), abs(dem_layer.rasterUnitsPerPixelY()))
    cell_ft = px * (unit_to_ft(crs) if not crs.isGeographic() else 364_000.0)  # degrees: an upper bound at New York's latitudes
    win = dem_window(layers, pack, unit_to_ft=u, cell_ft=cell_ft, site_parcel_id=site)
    if win.whole_raster:  # a rule with unlimited reach (a flow trace of no declared length): the DEM's whole extent
        from qgis.core import QgsCoordinateTransform

        r = QgsCoordinateTransform(crs, working, context).transformBoundingBox(dem_layer.extent()) if crs != working else dem_layer.extent()
        return r.xMinimum(), r.yMinimum(), r.xMaximum(), r.yMaximum()
    bounds = win.bounds
    return bounds if bounds is not None else plan_window(layers, DEM_MARGIN_FT / u)


def declared_z_unit(dem_layer: Any) -> str | None:
    """The elevation unit a GDAL raster declares for its first band (GeoTIFF ``Unit Type``), or ``None``.

    QGIS 3.22's raster API does not expose it; the command line reads the same
    value with rasterio, so the dock, Processing and the CLI decide the unit from
    the same fact (:func:`~stormwater_plugin.core.units.normalise_z_unit`).
    Only the header is read.
    """
    if dem_layer is None or dem_layer.providerType() != "gdal":
        return None
    try:
        from osgeo import gdal

        uri = dem_layer.dataProvider().dataSourceUri()
        ds = gdal.OpenEx(uri, gdal.OF_RASTER | gdal.OF_READONLY)
        if ds is None:
            return None
        unit = ds.GetRasterBand(1).GetUnitType()
    except Exception:  # no GDAL bindings, an unreadable source: the unit is then assumed and said so
        return None
    return normalise_z_unit(unit)


def snapshot(
    role_layers: Mapping[str, Any],
    dem_layer: Any = None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
    context: QgsCoordinateTransformContext | None = None,
    feedback: Any = None,
    dem_provider: Any = None,
    pack: Any = None,
) -> Snapshot:
    """Read the role layers and the DEM window into plain data.

    Parameters
    ----------
    role_layers : mapping
        Role to ``QgsVectorLayer`` or Processing feature source; ``None``
        values and unknown roles are left out (a role left out is "not
        supplied", which the engine reports).
    dem_layer : QgsRasterLayer, optional
        Ground elevations.
    dem_z_units : {"m", "ft", "us-ft"}, optional
        The DEM's elevation unit; when ``None`` the unit the raster declares
        (:func:`declared_z_unit`), else it is assumed and a warning added.
    site_parcel_id : str, optional
        Identity of the site parcel.
    class_override : {"exempt", "minor", "major"}, optional
        Project class; ``None`` lets the engine classify.
    context : QgsCoordinateTransformContext, optional
        Datum transformations; the current project's by default.
    feedback : QgsFeedback, optional
        Cancels the read.
    dem_provider : QgsRasterDataProvider, optional
        Provider to read from instead of ``dem_layer.dataProvider()`` (a
        clone, for reading off the main thread).
    pack : RulePack, optional
        The rules: the DEM is read over the window they need
        (:func:`~stormwater_plugin.services.dem_window.dem_window`, the command
        line's policy); without it, around the plan roles plus
        :data:`DEM_MARGIN_FT`.
    """
    if context is None:
        context = QgsProject.instance().transformContext()
    if dem_z_units is None:  # none chosen: the raster's declared unit, as the command line reads it
        dem_z_units = declared_z_unit(dem_layer)
    warnings: list[Warning_] = []
    # A geometry-type part of a mixed layer is read as its whole source (never part of a role silently).
    sources, layers_read = resolve_parts({r: s for r, s in role_layers.items() if s is not None}, warnings)
    for r in list(sources):
        if r not in ROLES:
            warnings.append(Warning_("unknown_role", f"layer role '{r}' is not part of the contract and was ignored", r))
            del sources[r]
    ordered = sorted(sources, key=ROLES.index)
    dem_crs = dem_layer.crs() if dem_layer is not None else None
    working, reason = choose_working_crs(
        dem_crs,
        [source_crs(sources[r]) for r in ordered],
        [(_extent(sources[r]), source_crs(sources[r])) for r in ordered],
        context,
    )
    layers: dict[str, FeatureLayer] = {}
    for r in ordered:
        layers[r] = read_features(sources[r], r, working, context, warnings, feedback)
    site = str(site_parcel_id).strip() if site_parcel_id not in (None, "") else None
    # The scale factor at the site, as the command line and the batch take it (services.working_crs).
    scale = site_ground_scale(working, layers, site, context)
    u = unit_to_ft(working) / scale
    dem = None
    dem_source = None
    if dem_layer is not None:
        window = plan_window(layers, DEM_MARGIN_FT / u) if pack is None else _rule_window(layers, pack, u, site, dem_layer, working, context)
        if window is None:
            warnings.append(Warning_("dem_unused", "no layer has features, so the DEM window could not be placed", "dem"))
        else:
            provider = dem_provider if dem_provider is not None else dem_layer.dataProvider()
            dem = read_dem(provider, dem_crs, working, window, dem_z_units, context, warnings, name=dem_layer.name())
            if dem is not None:  # the whole band in blocks: the flow trace reads further windows as it proceeds
                dem_source = QgisDemSource(provider, dem_crs, working, dem_z_units, context, name=dem_layer.name())
    cls = class_override if class_override in PROJECT_CLASSES else None
    crs_name = f"{crs_label(working)}, {reason}; distances on the ellipsoid (grid scale factor {scale:.6f})"
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=u, crs_name=crs_name, site_parcel_id=site, class_override=cls, warnings=warnings,
                        dem_source=dem_source)
    return Snapshot(inputs=inputs, crs=working, crs_reason=reason, layers_read=layers_read)


def snapshot_inputs(
    role_layers: Mapping[str, Any],
    dem_layer: Any = None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
) -> SiteInputs:
    """The engine's inputs from QGIS layers (see :func:`snapshot`); plain data, safe to hand to a QgsTask."""
    return snapshot(role_layers, dem_layer, dem_z_units, site_parcel_id, class_override).inputs
