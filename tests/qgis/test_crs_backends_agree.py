"""The two CRS backends (pyproj, QGIS) describe a CRS alike, so the one policy (services.site_crs) decides alike (issue 38).

The decisions are made once (``services.site_crs``) through ``services.backend.CrsBackend``; the file reader
(``headless.crs.PyprojCrs``) and the plugin (``qgis_bridge.crs.QgisCrs``) only supply the primitives. For the CRSs
a New York site arrives in, both backends must say the same of it (projected, conformal, its unit in metres, its
identifier) and therefore take the same working CRS for the same DEM and the same site.
"""

from __future__ import annotations

import numpy as np
import pytest

from stormwater_plugin.services import site_crs

#: UTM (NAD83, WGS 84, NAD27), NY State Plane in US survey feet, CONUS Albers (equal area), Web Mercator, WGS 84.
EPSG = [26918, 32617, 32618, 26718, 2260, 2261, 2262, 2263, 5070, 6350, 3857, 4326]
#: CRSs as files carry them: a .prj with TOWGS84 (bound to WGS 84), a DEM's compound CRS (with its heights), PROJ strings.
OTHERS = [
    "+proj=tmerc +lat_0=0 +lon_0=-75 +k=0.9996 +x_0=500000 +y_0=0 +ellps=GRS80 +towgs84=0,0,0 +units=m +no_defs",
    "EPSG:26918+5703", "EPSG:6350+5703", "EPSG:2262+6360", "+proj=webmerc +datum=WGS84 +no_defs",
    "+proj=aea +lat_1=29.5 +lat_2=45.5 +lon_0=-96 +datum=NAD83 +units=m +no_defs",
    "+proj=sterea +lat_0=52.15 +lon_0=5.38 +k=0.9999 +x_0=155000 +y_0=463000 +ellps=bessel +units=m +no_defs",
]


def _backends() -> tuple[object, object]:
    from qgis.core import QgsCoordinateTransformContext

    from stormwater_plugin.headless.crs import PYPROJ
    from stormwater_plugin.qgis_bridge.crs import QgisCrs

    return PYPROJ, QgisCrs(QgsCoordinateTransformContext())


def _pair(crs: int | str) -> tuple[object, object]:
    """The CRS in pyproj and in QGIS (QGIS reads what is not an EPSG code from pyproj's WKT, as GDAL hands it over)."""
    from pyproj import CRS
    from qgis.core import QgsCoordinateReferenceSystem

    if isinstance(crs, int):
        return CRS.from_epsg(crs), QgsCoordinateReferenceSystem(f"EPSG:{crs}")
    files = CRS.from_user_input(crs)
    return files, QgsCoordinateReferenceSystem.fromWkt(files.to_wkt())


@pytest.mark.parametrize("crs", EPSG + OTHERS)
def test_both_backends_describe_the_crs_alike(crs: int | str) -> None:
    """Web Mercator was conformal to the plugin (its PROJ string) and not to the file reader; a .prj with TOWGS84 the reverse."""
    files, plugin = _backends()
    a, b = (be.describe(c) for be, c in zip((files, plugin), _pair(crs)))  # type: ignore[attr-defined]
    assert (a.projected, a.conformal) == (b.projected, b.conformal)
    if isinstance(crs, int):
        assert a.authority == b.authority == f"EPSG:{crs}"
    if a.projected:
        assert a.metres_per_unit == pytest.approx(b.metres_per_unit, rel=1e-12)


@pytest.mark.parametrize("crs", EPSG + OTHERS)
def test_both_backends_take_the_same_working_crs_for_the_same_dem(crs: int | str) -> None:
    files, plugin = _backends()
    (ca, why_a), (cb, why_b) = [site_crs.working_crs(be, c, lambda: (-78.9, 42.5)) for be, c in zip((files, plugin), _pair(crs))]  # type: ignore[arg-type]
    assert why_a == why_b
    if why_a != "the DEM's CRS":
        assert ca.to_epsg() == int(cb.authid().split(":")[1]) == 32617  # type: ignore[attr-defined]


def test_both_backends_put_a_point_at_the_same_longitude_and_latitude() -> None:
    files, plugin = _backends()
    a, b = _pair(2262)  # NY Central, US survey feet
    xs, ys = np.array([1_000_000.0, 1_100_000.0]), np.array([1_000_000.0, 1_050_000.0])
    lon_a, lat_a = files.to_lonlat(a, xs, ys)  # type: ignore[attr-defined]
    lon_b, lat_b = plugin.to_lonlat(b, xs, ys)  # type: ignore[attr-defined]
    assert np.allclose(lon_a, lon_b, atol=1e-9) and np.allclose(lat_a, lat_b, atol=1e-9)
