"""One DEM reading policy for every front end (issue 38): the command line's read (rasterio) and the plugin's (a QGIS
provider) of the same file over the same box give the same grid and the same warnings, word for word, in the same order.

The DEM is the demo's, with an undeclared fill value over a device and no unit declared (so every warning a read
can give is given); the boxes: inside the DEM, beyond it, and one pixel over the pixel limit.
"""

from __future__ import annotations

import numpy as np
import pytest
from qgis.core import QgsCoordinateTransformContext, QgsRasterLayer

from stormwater_plugin.headless.dem import DemFile
from stormwater_plugin.headless.dem import read_dem as file_read_dem
from stormwater_plugin.qgis_bridge.dem import read_dem as plugin_read_dem
from stormwater_plugin.services import dem_read
from tests.headless.demo_dem import device_xy, rewrite_demo_dem, with_patch


def _both(path, box):
    layer = QgsRasterLayer(str(path), path.stem)
    assert layer.isValid()
    plugin_warnings: list = []
    plugin = plugin_read_dem(layer.dataProvider(), layer.crs(), layer.crs(), box, None, QgsCoordinateTransformContext(), plugin_warnings, name=path.name)
    with DemFile(path) as dem:
        file, file_warnings = file_read_dem(dem, dem.crs, None, area=box)
    return file, file_warnings, plugin, plugin_warnings


def _same(file, file_warnings, plugin, plugin_warnings):
    assert [(w.code, w.message, w.layer) for w in file_warnings] == [(w.code, w.message, w.layer) for w in plugin_warnings]
    assert (file is None) == (plugin is None)
    if file is not None:
        assert file.shape == plugin.shape
        assert file.geotransform == pytest.approx(plugin.geotransform, abs=1e-6)
        np.testing.assert_allclose(file.values, plugin.values, atol=1e-4, equal_nan=True)
        assert (file.z_to_ft, file.z_unit_note, file.z_unit_declared) == (plugin.z_to_ft, plugin.z_unit_note, plugin.z_unit_declared)


@pytest.fixture
def dem(tmp_path):
    xy = device_xy("DW-1")
    return rewrite_demo_dem(tmp_path / "clipped.tif", lambda z: with_patch(z, xy, -9999.0), nodata=None, unit="")


def test_the_command_line_and_the_plugin_read_a_box_inside_the_dem_alike(qgis_app, dem):
    x, y = device_xy("DW-1")
    file, file_warnings, plugin, plugin_warnings = _both(dem, (x - 40.0, y - 40.0, x + 40.0, y + 40.0))
    assert [w.code for w in file_warnings][:2] == ["dem_z_unit_assumed", "dem_fill_values"]
    _same(file, file_warnings, plugin, plugin_warnings)


def test_the_command_line_and_the_plugin_read_a_dem_missing_the_site_alike(qgis_app, dem):
    layer = QgsRasterLayer(str(dem), dem.stem)
    e = layer.extent()
    file, file_warnings, plugin, plugin_warnings = _both(dem, (e.xMaximum() + 500, e.yMinimum(), e.xMaximum() + 560, e.yMinimum() + 60))
    assert [w.code for w in file_warnings] == ["dem_z_unit_assumed", "dem_outside"]
    _same(file, file_warnings, plugin, plugin_warnings)


@pytest.mark.parametrize("over", [-1, 0, 1], ids=["limit-1px", "limit", "limit+1px"])
def test_the_command_line_and_the_plugin_keep_one_pixel_limit(qgis_app, dem, monkeypatch, over):
    x, y = device_xy("DW-1")
    box = (x - 40.0, y - 40.0, x + 40.0, y + 40.0)
    file, _, _, _ = _both(dem, box)
    monkeypatch.setattr(dem_read, "MAX_PIXELS", file.shape[0] * file.shape[1] - over)
    file, file_warnings, plugin, plugin_warnings = _both(dem, box)
    assert (file is None) is (over > 0)
    assert ("dem_too_large" in [w.code for w in file_warnings]) is (over > 0)
    _same(file, file_warnings, plugin, plugin_warnings)
