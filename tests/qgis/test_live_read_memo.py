"""The live read's conversions kept by their inputs (gui.live_read, issue 39): a layer's description and a CRS's text.

A layer's description (its CRS, count, fields, extent, whether the extent fits the CRS) is kept for its feature source,
which the live plan takes again only for a layer not edited since; an edited layer's new source is described anew. A
CRS's WKT, the key of each conversion made in it, is written once per CRS object.
"""

from __future__ import annotations

from conftest import demo_layers
from qgis.core import QgsCoordinateReferenceSystem, QgsField, QgsGeometry, QgsPointXY, QgsProject


def _describe(memo, source, role):
    from stormwater_plugin.gui.live_read import live_readers

    return live_readers(memo)[1](source, role, QgsProject.instance().transformContext())


def test_a_layers_description_is_kept_for_its_source_and_an_edited_layers_new_source_is_described_anew(qgis_app):
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource, describe_source
    from stormwater_plugin.services.live_read import ReadMemo

    layers, _dem = demo_layers()
    devices = layers["devices"]
    source = DetachedSource(devices)
    first = ReadMemo()
    described = _describe(first, source, "devices")
    second = ReadMemo(first.made)
    assert _describe(second, source, "devices") is described and second.reused == ["source"]  # the same source: kept
    wells = _describe(second, source, "wells")  # another role: described anew
    assert wells is not described and wells.role == "wells" and second.converted == ["source"]
    assert devices.startEditing()
    try:
        f = next(devices.getFeatures())
        far = f.geometry().asPoint()
        assert devices.changeGeometry(f.id(), QgsGeometry.fromPointXY(QgsPointXY(far.x() + 5000.0, far.y())))  # the extent grows
        assert devices.addAttribute(QgsField("note", 10))  # a field added
        edited = DetachedSource(devices)
        third = ReadMemo(second.made)
        again = _describe(third, edited, "devices")
        assert third.converted == ["source"] and again is not described
        fresh = describe_source(edited, "devices", QgsProject.instance().transformContext())
        assert (again.extent, again.columns, again.count, again.fits_crs) == (fresh.extent, fresh.columns, fresh.count, fresh.fits_crs)
        assert again.extent != described.extent and "note" in again.columns and "note" not in described.columns
    finally:
        devices.rollBack()


class _Counted(QgsCoordinateReferenceSystem):
    """A CRS counting its WKT written."""

    written = 0

    def toWkt(self, *args):  # noqa: N802 - QGIS API
        _Counted.written += 1
        return super().toWkt(*args)


def test_a_crs_text_is_written_once_per_crs_object_and_another_crs_has_its_own(qgis_app):
    from stormwater_plugin.gui.live_read import _crs_key
    from stormwater_plugin.services.live_read import ReadMemo

    utm = _Counted("EPSG:26918")
    first = ReadMemo()
    text = _crs_key(first, utm)
    assert text == QgsCoordinateReferenceSystem("EPSG:26918").toWkt() and _crs_key(first, utm) == text
    assert _crs_key(ReadMemo(first.made), utm) == text and _Counted.written == 1  # the same object: written once
    other = _Counted("EPSG:2262")
    assert _crs_key(ReadMemo(first.made), other) == QgsCoordinateReferenceSystem("EPSG:2262").toWkt() != text
    assert _Counted.written == 2
