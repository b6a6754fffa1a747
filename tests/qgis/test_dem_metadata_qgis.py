"""The plugin reads a DEM as the command line does (issue 22, items 3 and 4): scale and offset once, fill values, units, colour rasters refused."""

from __future__ import annotations

import numpy as np
from qgis.core import QgsCoordinateTransformContext, QgsRasterLayer

from stormwater_plugin.qgis_bridge.dem import QgisDemSource, read_dem
from tests.headless.demo_dem import DEMO_DEM, device_xy, rewrite_demo_dem, with_patch


def _read(path, z_units=None):
    layer = QgsRasterLayer(str(path), path.stem)
    assert layer.isValid()
    warnings: list = []
    ext = layer.extent()
    window = (ext.xMinimum(), ext.yMinimum(), ext.xMaximum(), ext.yMaximum())
    grid = read_dem(layer.dataProvider(), layer.crs(), layer.crs(), window, z_units, QgsCoordinateTransformContext(), warnings, name=path.name)
    return grid, warnings, layer


def test_plugin_read_applies_band_scale_and_offset_exactly_once(qgis_app, tmp_path):
    demo, _, _ = _read(DEMO_DEM)
    dem = rewrite_demo_dem(tmp_path / "scaled.tif", lambda z: np.where(z == -9999, -9999, (z + 100.0) / 2.0), scale=2.0, offset=-100.0)
    grid, warnings, layer = _read(dem)
    assert grid is not None and grid.z_unit_declared
    ok = np.isfinite(demo.values)
    np.testing.assert_allclose(grid.values[ok], demo.values[ok], atol=1e-4)
    src = QgisDemSource(layer.dataProvider(), layer.crs(), layer.crs(), None, QgsCoordinateTransformContext(), name=dem.name)
    win = src.read(src.whole())
    np.testing.assert_allclose(win.values[ok], demo.values[ok], atol=1e-4)


def test_plugin_read_fill_value_without_nodata_tag_is_nodata_with_warning(qgis_app, tmp_path):
    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "clipped.tif", lambda z: with_patch(z, xy, -9999.0), nodata=None)
    grid, warnings, _ = _read(dem)
    assert np.isnan(grid.sample_point(*xy))
    assert any(w.code == "dem_fill_values" and "clipped.tif" in w.message for w in warnings)


def test_plugin_reads_the_band_unit_decimetre(qgis_app, tmp_path):
    dem = rewrite_demo_dem(tmp_path / "dm.tif", lambda z: np.where(z == -9999, -9999, z * 10.0), unit="decimetre")
    grid, warnings, _ = _read(dem)
    assert grid.z_unit_declared and abs(grid.z_to_ft - 0.1 / 0.3048) < 1e-12
    assert not any(w.code == "dem_z_unit_assumed" for w in warnings)


def test_plugin_refuses_an_rgb_orthophoto_as_dem(qgis_app, tmp_path):
    dem = rewrite_demo_dem(tmp_path / "ortho.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, count=3, photometric="RGB", unit="")
    grid, warnings, _ = _read(dem)
    assert grid is None
    assert any(w.code == "dem_not_elevation" and "ortho.tif" in w.message for w in warnings)


def test_plugin_never_resamples_a_dem_window_over_its_read_limit(qgis_app, monkeypatch):
    """A window over ``MAX_PIXELS`` is not read coarser (which would change slopes): no grid, a ``dem_too_large`` warning,
    so the rules reading the DEM are undetermined; at the limit it is read whole at its own resolution."""
    from stormwater_plugin.services import dem_read

    layer = QgsRasterLayer(str(DEMO_DEM), "dem")
    assert layer.isValid()
    e = layer.extent()
    window = (e.xMinimum() + 100, e.yMinimum() + 100, e.xMinimum() + 160, e.yMinimum() + 160)
    warnings: list = []
    full = read_dem(layer.dataProvider(), layer.crs(), layer.crs(), window, None, QgsCoordinateTransformContext(), warnings)
    assert full is not None
    rows, cols = full.values.shape
    monkeypatch.setattr(dem_read, "MAX_PIXELS", rows * cols)  # exactly at the limit: read, same grid
    at = read_dem(layer.dataProvider(), layer.crs(), layer.crs(), window, None, QgsCoordinateTransformContext(), [])
    assert at is not None and at.values.shape == (rows, cols) and at.geotransform == full.geotransform
    monkeypatch.setattr(dem_read, "MAX_PIXELS", rows * cols - 1)  # one pixel over: not read at all
    over_warnings: list = []
    assert read_dem(layer.dataProvider(), layer.crs(), layer.crs(), window, None, QgsCoordinateTransformContext(), over_warnings) is None
    assert [w.code for w in over_warnings if w.code.startswith("dem_too")] == ["dem_too_large"]
    assert "never resampled" in over_warnings[-1].message


def test_plugin_source_takes_the_read_grid_unit_rather_than_deciding_it_again(qgis_app):
    grid, _, layer = _read(DEMO_DEM)
    decided = QgisDemSource(layer.dataProvider(), layer.crs(), layer.crs(), None, QgsCoordinateTransformContext(), name=DEMO_DEM.name)
    taken = QgisDemSource(layer.dataProvider(), layer.crs(), layer.crs(), None, QgsCoordinateTransformContext(), name=DEMO_DEM.name, template=grid)
    assert (taken.z_to_ft, taken.z_unit_note, taken.z_unit_declared) == (decided.z_to_ft, decided.z_unit_note, decided.z_unit_declared)
    a, b = taken.read(taken.whole()), decided.read(decided.whole())
    assert a is not None and b is not None and np.array_equal(a.values, b.values, equal_nan=True)


def test_plugin_read_of_a_dem_missing_the_site_is_nodata_said_as_the_command_line_says_it(qgis_app):
    """A window 1 km beyond the DEM: a grid of nodata (the findings say the DEM has no data there, never "no DEM was
    supplied"), one ``dem_outside`` warning naming the file, as the command line's read gives."""
    layer = QgsRasterLayer(str(DEMO_DEM), "dem")
    e = layer.extent()
    window = (e.xMaximum() + 1000, e.yMinimum(), e.xMaximum() + 1060, e.yMinimum() + 60)
    warnings: list = []
    grid = read_dem(layer.dataProvider(), layer.crs(), layer.crs(), window, "m", QgsCoordinateTransformContext(), warnings, name=DEMO_DEM.name)
    assert grid is not None and not np.isfinite(grid.values).any()
    assert [w.code for w in warnings] == ["dem_outside"] and f"{DEMO_DEM.name} does not cover the site" in warnings[0].message
