"""The live read's QGIS-side shortcuts of session 14 (issue 39) give what their former formulations gave, exactly.

A CRS's WKT1 (the working CRS of a read, for the outputs' layers) is kept by the CRS's WKT2, the text QGIS keeps with the
CRS: each definition has one WKT1. A read's own copy of a kept layer's features is the copy ``dataclasses.replace`` made.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from qgis.core import QgsCoordinateReferenceSystem

#: Definitions the CRS's WKT1 is asked of: authorities' codes, and user CRSs from PROJ strings (their WKT2 differs in a digit).
_CODES = ["EPSG:26918", "EPSG:2262", "EPSG:2260", "EPSG:4326", "EPSG:32618", "EPSG:3857", "EPSG:6347", "ESRI:102718"]


def _crs(kind: str, code: str, lon0: int, k: int) -> QgsCoordinateReferenceSystem:
    if kind == "code":
        return QgsCoordinateReferenceSystem(code)
    if kind == "tmerc":
        return QgsCoordinateReferenceSystem.fromProj(f"+proj=tmerc +lat_0=40 +lon_0={lon0} +k=0.9999{k} +x_0=150000 +y_0=0 +ellps=GRS80 +units=m")
    return QgsCoordinateReferenceSystem.fromProj(f"+proj=tmerc +lat_0=40 +lon_0={lon0} +k=0.9999{k} +x_0=150000 +y_0=0 +ellps=GRS80 "
                                                 "+towgs84=1,2,3,0,0,0,0 +units=us-ft")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["code", "tmerc", "bound"]), st.sampled_from(_CODES), st.integers(-80, -70), st.integers(0, 3)),
                min_size=1, max_size=8))
def test_a_crss_wkt1_kept_by_its_wkt2_is_the_wkt1_qgis_writes_for_it(qgis_app, defs):
    """In any order, each CRS object new (as each plan's copy of a layer's CRS is), a kept WKT1 is the CRS's own ``toWkt()``."""
    from stormwater_plugin.qgis_bridge import crs as qcrs

    qcrs._WKT1.clear()
    for d in defs + defs[::-1]:
        c = _crs(*d)
        assert qcrs.crs_wkt1(c) == c.toWkt()
        assert qcrs.crs_text(c) == c.toWkt(QgsCoordinateReferenceSystem.WktVariant.WKT2_2019)


def test_an_invalid_crs_has_no_kept_wkt1(qgis_app):
    from stormwater_plugin.qgis_bridge import crs as qcrs

    bad = QgsCoordinateReferenceSystem()
    assert qcrs.crs_wkt1(bad) == bad.toWkt() and "" not in qcrs._WKT1


def test_a_reads_own_copy_of_a_kept_layer_is_the_copy_dataclasses_replace_made(qgis_app):
    """Its own lists of geometries and of unusable features; every other field the kept frame's, its memo shared."""
    from shapely.geometry import Point

    from stormwater_plugin.gui.live_read import _own_layer
    from stormwater_plugin.qgis_bridge.vectors import QgisFrame

    memo: dict = {("usable",): 1}
    kept = QgisFrame([Point(0, 0), None], [{"id": "DW-1"}, {"id": "DW-2"}], ["id"], QgsCoordinateReferenceSystem("EPSG:26918"), [3, 7],
                     (0.0, 0.0, 1.0, 1.0), {1: "no geometry"}, [(1, "restored")], memo)
    own = _own_layer(kept)
    want = dataclasses.replace(kept, geoms=list(kept.geoms), unusable=dict(kept.unusable))
    assert type(own) is QgisFrame and own == want and own.memo is kept.memo
    assert own.geoms is not kept.geoms and own.unusable is not kept.unusable
    assert all(getattr(own, f.name) is getattr(kept, f.name) for f in dataclasses.fields(kept) if f.name not in ("geoms", "unusable"))
    own.geoms[0] = None
    own.unusable[0] = "taken out"
    assert kept.geoms[0] is not None and 0 not in kept.unusable
