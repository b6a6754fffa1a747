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


def test_a_layer_read_at_once_gives_each_geometry_as_converted_one_by_one():
    """read_features hands shapely every WKB at once, a geometry without curves or M its own: the geometries of to_shapely."""
    import shapely
    from qgis.core import QgsAbstractGeometry, QgsFeature, QgsProject, QgsVectorLayer, QgsWkbTypes

    from stormwater_plugin.qgis_bridge.vectors import ARC_STEP_DEG, read_features

    def to_shapely(geom: QgsGeometry):  # each geometry copied, stroked and its M dropped, then read alone
        if geom.isNull() or geom.isEmpty():
            return None
        abstract = geom.constGet().clone()
        if QgsWkbTypes.isCurvedType(abstract.wkbType()):
            abstract = abstract.segmentize(math.radians(ARC_STEP_DEG), QgsAbstractGeometry.SegmentationToleranceType.MaximumAngle)
        abstract.dropMValue()
        return shapely.from_wkb(bytes(QgsGeometry(abstract).asWkb()))

    layers = {"Polygon": [None, "POLYGON EMPTY", "POLYGON ((0 0, 4 0, 4 4, 0 0))"], "Point": ["POINT (1 2)", "POINT (3 4)"],
              "PointZ": ["POINT Z (1 2 3)"], "LineStringM": ["LINESTRING M (0 0 1, 5 5 2)"], "MultiPolygon": ["MULTIPOLYGON (((0 0, 4 0, 4 4, 0 0)))"],
              "CompoundCurve": ["COMPOUNDCURVE (CIRCULARSTRING (0 0, 5 5, 10 0))"], "GeometryCollection": ["GEOMETRYCOLLECTION (POINT (7 7), LINESTRING (0 0, 1 1))"]}
    for kind, wkts in layers.items():
        layer = QgsVectorLayer(f"{kind}?crs=EPSG:26918&field=id:string", kind, "memory")
        feats = []
        for k, wkt in enumerate(wkts):
            f = QgsFeature(layer.fields())
            f.setAttributes([f"F-{k}"])
            f.setGeometry(QgsGeometry() if wkt is None else QgsGeometry.fromWkt(wkt))
            feats.append(f)
        assert layer.dataProvider().addFeatures(feats)[0], kind
        frame = read_features(layer, "devices", layer.crs(), QgsProject.instance().transformContext(), [])
        want = [to_shapely(f.geometry()) for f in layer.getFeatures()]
        assert [None if g is None else g.wkb for g in frame.geoms] == [None if g is None else g.wkb for g in want], kind
        assert frame.records == [{"id": f"F-{k}"} for k in range(len(wkts))]
        if kind == "LineStringM":
            assert frame.geoms[0].geom_type == "LineString" and not frame.geoms[0].has_z  # M dropped
        if kind == "PointZ":
            assert frame.geoms[0].has_z
