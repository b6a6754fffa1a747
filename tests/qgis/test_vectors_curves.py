"""The plugin's bridge strokes curves as finely as the headless reader, and keeps null geometry as ``None`` (issue 14)."""

from __future__ import annotations

import math

import pytest
from qgis.core import QgsGeometry


def test_curvepolygon_wl_c_is_stroked_every_quarter_degree():
    from stormwater_plugin.qgis_bridge.vectors import ARC_STEP_DEG, to_shapely

    r = 30.0
    g = to_shapely(QgsGeometry.fromWkt(f"CURVEPOLYGON(CIRCULARSTRING(0 0,{r} {r},{2 * r} 0,{r} {-r},0 0))"))
    assert g.geom_type == "Polygon"
    assert len(g.exterior.coords) - 1 == pytest.approx(360.0 / ARC_STEP_DEG, abs=4)
    # the area of the inscribed polygon is within r * 2.4e-6 of the circle's, in relative terms
    assert g.area == pytest.approx(math.pi * r * r, rel=1e-5)


def test_compoundcurve_and_m_values_are_stroked_and_dropped():
    from stormwater_plugin.qgis_bridge.vectors import to_shapely

    g = to_shapely(QgsGeometry.fromWkt("COMPOUNDCURVEM((0 0 1,5 0 1),CIRCULARSTRINGM(5 0 1,10 5 1,15 0 1))"))
    assert g.geom_type == "LineString" and not g.has_z and len(g.coords) > 100


@pytest.mark.parametrize("wkt", [None, "POLYGON EMPTY"])
def test_null_and_empty_geometries_are_none_so_the_core_makes_their_rules_undetermined(wkt):
    from stormwater_plugin.qgis_bridge.vectors import to_shapely

    assert to_shapely(QgsGeometry() if wkt is None else QgsGeometry.fromWkt(wkt)) is None
