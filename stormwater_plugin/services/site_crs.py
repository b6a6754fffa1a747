"""The working CRS of a site, its grid scale factor and its words: decided once, through a backend's CRS primitives.

The file reader (``headless.crs``, pyproj) and the plugin (``qgis_bridge.crs``, QGIS) each implement
:class:`~stormwater_plugin.services.backend.CrsBackend`; what they do with it is decided here, so the command
line, the batch and the dock take the same CRS, the same scale factor and write the same words:

* the working CRS: the DEM's when it is projected and conformal, else the WGS 84 UTM zone of the site's
  centre (:func:`~stormwater_plugin.services.working_crs.choose_working_crs`; nothing located: refused);
* the scale factor at the site's centre (:func:`~stormwater_plugin.services.grid_scale.grid_point_scale`),
  by which grid units become feet on the ellipsoid;
* the working CRS in words for findings.json (:func:`working_crs_text`);
* the CRS a context catalog's search area is grown in (:func:`area_crs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, Mapping, Sequence, TypeVar

import numpy as np

from ..core.derived import current, derive
from ..core.model import FeatureLayer
from ..core.roles import PLAN_ROLES
from ..core.units import feet_per_unit
from .backend import CrsBackend, CrsInfo, FetchedFeatures
from .grid_scale import grid_point_scale, point_scale
from .working_crs import CrsTraits, ParcelPicks, WorkingCrsChoice, choose_working_crs, site_centre, site_geometries, site_lonlat, utm_epsg

C = TypeVar("C")
#: A box in some CRS: x min, y min, x max, y max.
Box = Sequence[float]


def dem_traits(backend: CrsBackend[C], dem_crs: C | None) -> CrsTraits | None:
    """What the policy needs of the DEM's CRS (``None`` without a DEM)."""
    if dem_crs is None:
        return None
    info = backend.describe(dem_crs)
    return CrsTraits(info.projected, info.conformal)


def _uses_dem_crs(traits: CrsTraits | None) -> bool:
    return traits is not None and traits.projected and traits.conformal


def _chosen(backend: CrsBackend[C], dem_crs: C | None, choice: WorkingCrsChoice) -> tuple[C, str]:
    if choice.utm_epsg is None:
        assert dem_crs is not None  # the policy keeps the DEM's CRS only when there is one
        return dem_crs, choice.why
    return backend.from_epsg(choice.utm_epsg), choice.why


def working_crs(backend: CrsBackend[C], dem_crs: C | None, locate: Callable[[], tuple[float, float] | None]) -> tuple[C, str]:
    """The working CRS and why, in words.

    Parameters
    ----------
    backend : CrsBackend
    dem_crs : CRS or None
        The DEM's CRS (the backend's object), ``None`` without a DEM.
    locate : callable
        ``() -> (lon, lat)`` of the site's centre (WGS 84 degrees), or ``None``; called only when the UTM zone is needed.

    Raises
    ------
    NoSiteLocation
        The UTM zone is needed and nothing locates the site.
    """
    traits = dem_traits(backend, dem_crs)
    return _chosen(backend, dem_crs, choose_working_crs(traits, None if _uses_dem_crs(traits) else locate()))


def layers_lonlat(backend: CrsBackend[C], layers: Mapping[str, FeatureLayer], layers_crs: C, site_parcel_id: str | None) -> tuple[float, float] | None:
    """Longitude and latitude of the site's centre (:func:`~stormwater_plugin.services.working_crs.site_lonlat`) of layers in ``layers_crs``."""
    return site_lonlat(layers, site_parcel_id, lambda xs, ys: backend.to_lonlat(layers_crs, xs, ys))


def roles_lonlat(
    backend: CrsBackend[C], roles: Sequence[str], layer: Callable[[str], FeatureLayer], crs: C, site_parcel_id: str | None
) -> tuple[float, float] | None:
    """:func:`layers_lonlat` of the layers of ``roles`` (``layer(role)`` builds one in ``crs``), the other roles' built only when needed.

    The parcels and the plan are taken first; the other roles only when neither locates the site (what
    :func:`~stormwater_plugin.services.working_crs.site_geometries` would pick of them all), so a large context
    layer is not transformed for nothing.
    """
    near = {r: layer(r) for r in roles if r == "parcels" or r in PLAN_ROLES}
    centre = layers_lonlat(backend, near, crs, site_parcel_id)
    if centre is None and len(near) < len(roles):
        centre = layers_lonlat(backend, {**near, **{r: layer(r) for r in roles if r not in near}}, crs, site_parcel_id)
    return centre


def parts_lonlat(
    backend: CrsBackend[C], parts: Mapping[str, Sequence[tuple[FetchedFeatures, Sequence[str]]]], crs_of: Callable[[FetchedFeatures], C | None],
    in_crs: Callable[[str, FetchedFeatures, C], FetchedFeatures], site_parcel_id: str | None,
) -> tuple[float, float] | None:
    """Longitude and latitude of the site's centre (:func:`roles_lonlat`) from each role's sources as read, each in its own CRS.

    Every role's sources are put (``in_crs(role, features, crs)``) in the CRS of the parcels' first source, else of the first source with a
    CRS (``crs_of``; ``None``: it locates nothing), their features that cannot be placed there kept without geometry (as
    the engine keeps them), so the one rule finds the site parcel; the ids are the read's.
    """
    located = [fr for prs in parts.values() for fr, _ in prs if crs_of(fr) is not None]
    if not located:
        return None
    base = next((c for fr, _ in parts.get("parcels", ()) if (c := crs_of(fr)) is not None), crs_of(located[0]))
    assert base is not None

    def layer(role: str) -> FeatureLayer:
        rows = [(None if i in moved.unusable else g, str(fid), rec) for fr, fids in parts[role] if crs_of(fr) is not None
                for moved in [in_crs(role, fr, base)] for i, (g, fid, rec) in enumerate(zip(moved.geoms, fids, moved.records))]
        return FeatureLayer.from_sequences(role, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])

    return roles_lonlat(backend, list(parts), layer, base, site_parcel_id)


def boxes_lonlat(backend: CrsBackend[C], boxes: Sequence[tuple[Box, C]]) -> tuple[float, float] | None:
    """Longitude and latitude (WGS 84) of the mean of the boxes' centres (each box in its CRS), or ``None`` when none has one."""
    found = []
    for b, crs in boxes:
        if np.all(np.isfinite(np.asarray(b, dtype=float))):
            lon, lat = backend.to_lonlat(crs, np.array([(b[0] + b[2]) / 2]), np.array([(b[1] + b[3]) / 2]))
            if np.isfinite(lon[0]) and np.isfinite(lat[0]):
                found.append((float(lon[0]), float(lat[0])))
    return (float(np.mean([p[0] for p in found])), float(np.mean([p[1] for p in found]))) if found else None


def site_working_crs(
    backend: CrsBackend[C], dem_crs: C | None, layers: Mapping[str, FeatureLayer], layers_crs: C, site_parcel_id: str | None
) -> tuple[C, str] | None:
    """The UTM zone of the site's centre found in ``layers`` (read in ``layers_crs``), and why.

    ``None`` when the DEM's CRS is the working CRS or nothing in ``layers`` locates the site (the
    zone chosen before the plan was read then stands).
    """
    traits = dem_traits(backend, dem_crs)
    if _uses_dem_crs(traits):
        return None
    centre = layers_lonlat(backend, layers, layers_crs, site_parcel_id)
    return None if centre is None else _chosen(backend, dem_crs, choose_working_crs(traits, centre))


def parts_working_crs(
    backend: CrsBackend[C], dem_crs: C | None, parts: Mapping[str, Sequence[tuple[FetchedFeatures, Sequence[str]]]],
    crs_of: Callable[[FetchedFeatures], C | None], in_crs: Callable[[str, FetchedFeatures, C], FetchedFeatures], site_parcel_id: str | None,
) -> tuple[C, str]:
    """The working CRS of a read (:func:`working_crs`) and why, the site located in its layers as read (:func:`parts_lonlat`).

    One rule for every reader, the engine's: features without geometry are kept (so the site parcel is the one the
    engine finds), and only the layers as read locate the site, never their declared extents (the plugin took the
    zone of its layers' extents, then of the site found with those features left out).

    Raises
    ------
    NoSiteLocation
        The UTM zone is needed and nothing read locates the site.
    """
    return working_crs(backend, dem_crs, lambda: parts_lonlat(backend, parts, crs_of, in_crs, site_parcel_id))


def scale_at_lonlat(backend: CrsBackend[C], crs: C, lonlat: tuple[float, float] | None) -> float:
    """Point scale factor of ``crs`` at a longitude/latitude (:func:`~stormwater_plugin.services.grid_scale.point_scale`).

    A WGS 84 longitude/latitude is taken as the CRS's own (a datum shift moves the point a metre or so,
    which changes the factor by under 1e-8). 1 when it cannot be computed.
    """
    proj = backend.projection(crs) if lonlat is not None else None
    if proj is None or lonlat is None:
        return 1.0
    return point_scale(proj.to_grid, float(lonlat[0]), float(lonlat[1]), proj.unit_m, proj.ellipsoid)


def scale_at_grid(backend: CrsBackend[C], crs: C, x: float, y: float) -> float:
    """Point scale factor at the grid point ``(x, y)`` of ``crs`` (:func:`~stormwater_plugin.services.grid_scale.grid_point_scale`); 1 when it cannot be computed."""
    proj = backend.projection(crs)
    if proj is None:
        return 1.0
    return grid_point_scale(proj.to_geodetic, proj.to_grid, x, y, proj.unit_m, proj.ellipsoid)


def site_scale(backend: CrsBackend[C], crs: C, layers: Mapping[str, FeatureLayer], site_parcel_id: str | None = None) -> float:
    """Point scale factor at the site's centre, its layers in ``crs``.

    The site is its parcel by the engine's rule, else the plan, else everything
    (:func:`~stormwater_plugin.services.working_crs.site_geometries`); the centre is their box's. The single-site
    readers and the batch (per site parcel) all take it so, so a site gets the same feet whichever command checks
    it: over a site the factor varies by well under a part in a million.
    """
    centre = site_centre(site_geometries(layers, site_parcel_id))
    return 1.0 if centre is None else scale_at_grid(backend, crs, *centre)


def working_crs_text(name: str, authority: str, why: str, scale: float) -> str:
    """The working CRS in words for findings.json, whichever adapter chose it.

    Parameters
    ----------
    name : str
        The CRS's name (``NAD83 / UTM zone 18N``).
    authority : str
        Its identifier (``EPSG:26918``); ``""`` when it has none.
    why : str
        Why it was chosen (:func:`working_crs`).
    scale : float
        The grid scale factor at the site (grid distance / ellipsoidal distance).

    Returns
    -------
    str
        ``"NAD83 / UTM zone 18N (EPSG:26918), the DEM's CRS; distances on the ellipsoid (grid scale factor 0.999744)"``.
    """
    named = f"{name} ({authority})" if authority else name
    return f"{named}, {why}; distances on the ellipsoid (grid scale factor {scale:.6f})"


@dataclass(frozen=True)
class SiteMeasure:
    """How a site is measured in the working CRS.

    Attributes
    ----------
    scale : float
        The grid scale factor at the site (:func:`site_scale`).
    unit_to_ft : float
        Feet on the ellipsoid per grid unit: the unit in feet divided by ``scale``.
    crs_name : str
        The working CRS in words (:func:`working_crs_text`).
    """

    scale: float
    unit_to_ft: float
    crs_name: str


def site_measure(backend: CrsBackend[C], crs: C, why: str, layers: Mapping[str, FeatureLayer], site_parcel_id: str | None,
                 picks: ParcelPicks | None = None) -> SiteMeasure:
    """The scale factor at the site, the feet per grid unit it gives and the words for findings.json.

    A check keeping its derived values (:mod:`~stormwater_plugin.core.derived`: the live re-check) keeps the measure by what it
    is computed from, when the backend states a CRS's identity (``identity(crs)``: its definition and the transformations it
    is measured through, as text): that identity, ``why`` and the site's centre (its exact coordinates). The factor is the CRS's
    at that point, so a device moved on a site its parcel locates measures the site again only when the centre moves.
    ``picks``: :func:`~stormwater_plugin.services.working_crs.site_parcel_indices`'s, the site parcel the parcels name.
    """
    centre = site_centre(site_geometries(layers, site_parcel_id, picks))
    identity: Callable[[C], str] | None = getattr(backend, "identity", None)
    if identity is None or current() is None:
        return _measure(backend, crs, why, centre)
    return derive("site measure", partial(_measure, backend, crs, why, centre), identity(crs), why, centre)


def _measure(backend: CrsBackend[C], crs: C, why: str, centre: tuple[float, float] | None) -> SiteMeasure:
    """:func:`site_measure` at the site's centre ``centre`` (``None``: nothing located, grid distances)."""
    info: CrsInfo = backend.describe(crs)
    scale = 1.0 if centre is None else scale_at_grid(backend, crs, *centre)
    return SiteMeasure(scale, feet_per_unit(info.metres_per_unit) / scale, working_crs_text(info.name, info.authority, why, scale))


def area_crs(backend: CrsBackend[C], boxes: Sequence[tuple[Box, C]]) -> C:
    """A projected CRS to grow a context search area in: the first box's CRS that is projected, else the UTM zone of the first box's centre.

    ``boxes`` are the plan's layers' extents, each with its CRS (at least one).
    """
    for _, crs in boxes:
        if backend.describe(crs).projected:
            return crs
    (x0, y0, x1, y1), crs = boxes[0]
    lon, lat = backend.to_lonlat(crs, np.array([(x0 + x1) / 2]), np.array([(y0 + y1) / 2]))
    return backend.from_epsg(utm_epsg(float(lon[0]), float(lat[0]))[0])


__all__ = [
    "SiteMeasure", "area_crs", "boxes_lonlat", "dem_traits", "layers_lonlat", "parts_lonlat", "parts_working_crs", "roles_lonlat", "scale_at_grid", "scale_at_lonlat", "site_measure", "site_scale",
    "site_working_crs", "working_crs", "working_crs_text",
]
