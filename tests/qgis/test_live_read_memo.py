"""The live read's conversions kept by their inputs (gui.live_read, issue 39): a layer's description and a CRS's text.

A layer's description (its CRS, count, fields, extent, whether the extent fits the CRS) is kept for its feature source,
which the live plan takes again only for a layer not edited since; an edited layer's new source is described anew. A
CRS's WKT, the key of each conversion made in it, is written once per CRS object.
"""

from __future__ import annotations

import pytest
from conftest import demo_layers
from qgis.core import QgsCoordinateReferenceSystem, QgsFeature, QgsField, QgsGeometry, QgsPointXY, QgsProject


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

    wkt2 = QgsCoordinateReferenceSystem.WktVariant.WKT2_2019  # the text QGIS keeps with the CRS (qgis_bridge.crs.crs_text)
    utm = _Counted("EPSG:26918")
    first = ReadMemo()
    text = _crs_key(first, utm)
    assert text == QgsCoordinateReferenceSystem("EPSG:26918").toWkt(wkt2) and _crs_key(first, utm) == text
    assert _crs_key(ReadMemo(first.made), utm) == text and _Counted.written == 1  # the same object: written once
    other = _Counted("EPSG:2262")
    assert _crs_key(ReadMemo(first.made), other) == QgsCoordinateReferenceSystem("EPSG:2262").toWkt(wkt2) != text
    assert _Counted.written == 2


def test_the_fit_of_a_layers_crs_is_judged_again_when_its_crs_extent_or_count_changes_and_kept_otherwise(qgis_app, monkeypatch):
    from stormwater_plugin.gui import live_read
    from stormwater_plugin.qgis_bridge.layer_place import box_of_rect, fits_crs, layer_extent
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource
    from stormwater_plugin.services.live_read import ReadMemo

    judged: list[str] = []
    monkeypatch.setattr(live_read, "fits_crs", lambda source, ctx: (judged.append(source.name()), fits_crs(source, ctx))[1])
    layers, _dem = demo_layers()
    devices = layers["devices"]
    memo = ReadMemo()
    last: list[object] = [None]

    def read_again(layer) -> bool:
        """Whether the fit was judged anew, checked against what it is judged from."""
        nonlocal memo
        memo = ReadMemo(memo.made)
        source = DetachedSource(layer)
        before = len(judged)
        assert _describe(memo, source, "devices").fits_crs == fits_crs(source, QgsProject.instance().transformContext())
        inputs = (source.sourceCrs().toWkt(), box_of_rect(layer_extent(source)), source.featureCount())
        anew = len(judged) > before
        assert anew == (inputs != last[0])  # judged again exactly when the CRS, the extent or the count changed
        last[0] = inputs
        return anew

    assert read_again(devices)
    assert devices.startEditing()
    try:
        feats = {f["id"]: f for f in devices.getFeatures()}
        dw1 = feats["DW-1"].geometry().asPoint()  # inside the layer's extent: a small move keeps it
        kept = [not read_again(devices) for dx in (-0.3, 0.3, -0.3, 0.3)
                if devices.changeGeometry(feats["DW-1"].id(), QgsGeometry.fromPointXY(QgsPointXY(dw1.x() + dx, dw1.y())))]
        assert len(kept) == 4 and kept[-1]  # (once edited, a layer's extent is its features': the file's may differ in the last digit)
        assert devices.changeGeometry(feats["DW-1"].id(), QgsGeometry.fromPointXY(QgsPointXY(dw1.x() + 900.0, dw1.y())))
        assert read_again(devices)  # the extent grew
        extra = QgsFeature(devices.fields())
        extra.setGeometry(QgsGeometry.fromPointXY(QgsPointXY(dw1.x(), dw1.y() + 1.0)))
        assert devices.addFeature(extra)
        assert read_again(devices)  # one feature more (inside the extent)
        devices.setCrs(QgsCoordinateReferenceSystem("EPSG:32618"))
        assert read_again(devices)  # another CRS
    finally:
        devices.rollBack()


def test_a_kept_dem_window_is_shared_read_only_and_a_moved_window_is_read_anew(qgis_app):
    from stormwater_plugin.gui.live_read import live_readers
    from stormwater_plugin.services.live_read import ReadMemo

    _layers, dem = demo_layers()
    provider, crs = dem.dataProvider(), dem.crs()
    ctx = QgsProject.instance().transformContext()
    e = dem.extent()
    window = (e.xMinimum() + 30.0, e.yMinimum() + 30.0, e.xMinimum() + 130.0, e.yMinimum() + 130.0)

    def read(memo, box):
        return live_readers(memo)[2](provider, crs, crs, box, None, ctx, [])

    first = ReadMemo()
    grid = read(first, window)
    assert grid is not None and not grid.values.flags.writeable  # no read changes it: a write would raise
    with pytest.raises(ValueError):
        grid.values[0, 0] = 0.0
    second = ReadMemo(first.made)
    assert read(second, window) is grid and second.reused == ["dem"]  # the same window: the same grid, not a copy
    moved = (window[0] + 50.0, window[1], window[2] + 50.0, window[3])
    third = ReadMemo(second.made)
    other = read(third, moved)
    assert other is not grid and third.converted == ["dem"] and not other.values.flags.writeable
    assert other.geotransform != grid.geotransform
