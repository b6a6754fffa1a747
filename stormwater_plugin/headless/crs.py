"""The file side's CRS primitives with pyproj (:class:`PyprojCrs`, a :class:`~stormwater_plugin.services.backend.CrsBackend`).

The decisions (working CRS, site centre, scale factor, words) are :mod:`~stormwater_plugin.services.site_crs`;
the functions below apply them to pyproj CRSs under the names the reader's modules call.
"""

from __future__ import annotations

import functools
import math
from operator import attrgetter
from typing import Any, Mapping, Sequence, Tuple

import numpy as np
from pyproj import CRS, Transformer

from ..services import site_crs
from ..services.backend import CrsBackend, CrsInfo, GridProjection
from ..services.grid_scale import Ellipsoid
from ..services.placement_layers import carried_box
from ..services.working_crs import NoSiteLocation, conformal_method
from .errors import InputError
from .frames import VectorFrame


@functools.lru_cache(maxsize=32)
def crs_from_wkt(wkt: str) -> Any:
    """A pyproj CRS from WKT, parsed once per distinct text (a site package's layers share one; each parse costs ~5 ms)."""
    return CRS.from_wkt(wkt)


def is_conformal(crs: Any) -> bool:
    """Whether the projection is conformal (:func:`~stormwater_plugin.services.working_crs.conformal_method`): a CRS bound to
    WGS 84 (a ``.prj`` with TOWGS84) by its own projection, not by the datum shift it carries; a compound one by its horizontal part."""
    for _ in range(2):  # a compound CRS (a DEM's with its heights) by its horizontal part, itself perhaps bound
        crs = crs.source_crs if crs.is_bound else crs.sub_crs_list[0] if crs.is_compound and crs.sub_crs_list else crs
    op = getattr(crs, "coordinate_operation", None)
    return conformal_method(str(getattr(op, "method_name", "") or ""))


@functools.lru_cache(maxsize=64)
def _transformer(src_wkt: str, dst_wkt: str) -> Any:
    """A transformer between two CRSs given as WKT, built once per pair (each costs milliseconds)."""
    return Transformer.from_crs(crs_from_wkt(src_wkt), crs_from_wkt(dst_wkt), always_xy=True)


_LONLAT: dict[str, Any] = {}


def _to_lonlat(crs: Any) -> Any:
    """A cached transformer from ``crs`` to WGS 84 longitude/latitude."""
    key = crs.to_wkt()
    if key not in _LONLAT:
        _LONLAT[key] = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return _LONLAT[key]


class PyprojCrs:
    """pyproj's CRS operations (:class:`~stormwater_plugin.services.backend.CrsBackend`)."""

    def identity(self, crs: Any) -> str:
        """What a CRS is measured by (``services.site_crs.site_measure``): its WKT."""
        return str(crs.to_wkt())

    def describe(self, crs: Any) -> CrsInfo:
        axes = crs.axis_info
        return CrsInfo(str(crs.name), crs.to_string(), bool(crs.is_projected), is_conformal(crs), float(axes[0].unit_conversion_factor) if axes else math.nan)

    def from_epsg(self, code: int) -> Any:
        return CRS.from_epsg(code)

    def to_lonlat(self, crs: Any, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _to_lonlat(crs).transform(xs, ys)  # type: ignore[no-any-return]

    def projection(self, crs: Any) -> GridProjection | None:
        try:
            return _projection(crs.to_wkt())
        except Exception:  # noqa: BLE001 - pyproj cannot build the projection: grid distances
            return None

    def area_of_use(self, crs: Any) -> tuple[float, float, float, float] | None:
        """GDAL hands a layer's CRS over as WKT1, which carries no area of use: it is then the EPSG definition's (as QGIS's ``bounds()``)."""
        aou = getattr(crs, "area_of_use", None)
        if aou is not None:
            return tuple(float(v) for v in aou.bounds)  # type: ignore[return-value]
        return _area_by_code(crs.to_wkt())


@functools.lru_cache(maxsize=32)
def _projection(wkt: str) -> GridProjection | None:
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
    return GridProjection(to_geodetic, to_grid, unit_m, Ellipsoid(float(ell.semi_major_metre), float(ell.inverse_flattening)))


@functools.lru_cache(maxsize=64)
def _area_by_code(wkt: str) -> tuple[float, float, float, float] | None:
    try:
        code = crs_from_wkt(wkt).to_epsg()
        aou = CRS.from_epsg(code).area_of_use if code is not None else None
    except Exception:  # noqa: BLE001 - a CRS pyproj cannot identify: no area to judge by
        return None
    return (float(aou.west), float(aou.south), float(aou.east), float(aou.north)) if aou is not None else None


PYPROJ: CrsBackend[Any] = PyprojCrs()


#: One role's sources as read, each in its own CRS, with the ids the reader gives its features (``headless.vectors``).
RoleParts = Mapping[str, Sequence[Tuple[VectorFrame, Sequence[str]]]]


def choose_working_crs(dem_crs: Any, frames: RoleParts, site_parcel_id: str | None = None) -> tuple[Any, str]:
    """The working CRS by the one policy (:func:`~stormwater_plugin.services.site_crs.working_crs`) and why.

    ``frames`` by role (each role's sources with their features' ids) locate the site
    (:func:`~stormwater_plugin.services.site_crs.parts_working_crs`). Nothing located: :class:`InputError`.
    """
    def in_crs(role: str, fr: Any, base: Any) -> Any:
        return fr if fr.crs is base or fr.crs.equals(base) else fr.to_crs(base)

    try:
        return site_crs.parts_working_crs(PYPROJ, dem_crs, frames, attrgetter("crs"), in_crs, site_parcel_id)
    except NoSiteLocation as exc:
        raise InputError(str(exc)) from exc


def scale_at(crs: Any, lonlat: tuple[float, float] | None) -> float:
    """Point scale factor of a projected CRS at a longitude/latitude (:func:`~stormwater_plugin.services.site_crs.scale_at_lonlat`)."""
    return site_crs.scale_at_lonlat(PYPROJ, crs, lonlat)


def _transform_box(b: Any, src_crs: Any, dst_crs: Any) -> tuple[float, float, float, float] | None:
    """A box in ``src_crs`` as a box in ``dst_crs`` (:func:`~stormwater_plugin.services.placement_layers.carried_box`)."""
    same = b is None or src_crs is dst_crs or src_crs.equals(dst_crs)
    return carried_box(b, same, lambda xs, ys: _transformer(src_crs.to_wkt(), dst_crs.to_wkt()).transform(xs, ys))


@functools.lru_cache(maxsize=1)
def _wgs84() -> Any:
    return CRS.from_epsg(4326)
