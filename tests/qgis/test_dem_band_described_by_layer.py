"""The plan's DEM band takes its metadata from the layer's own provider and reads blocks through the clone (issue 39).

A GDAL provider's clone opens its file again at its first call: taking the extent, size, colour interpretation, data
type, scale and offset from the layer's provider on the main thread (``described_by``) spares that at every live edit.
The clone shares the layer's file, so the band is the same: every field equal, every window read the same, for a plain
DEM, a scaled and offset one, a unit-tagged one and a colour raster (which the read refuses alike).
"""

from __future__ import annotations

import numpy as np
from qgis.core import QgsCoordinateTransformContext, QgsRasterLayer

from stormwater_plugin.qgis_bridge.dem import QgisDemBand, QgisDemSource
from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
from tests.headless.demo_dem import DEMO_DEM, rewrite_demo_dem

_FIELDS = ("extent", "shape", "geotransform", "band_count", "colour", "dtype", "scale", "offset", "crs_name", "unit_m", "nodata", "has_palette",
           "cell_ft", "declared_unit")


def _dems(tmp_path):
    yield DEMO_DEM
    yield rewrite_demo_dem(tmp_path / "scaled.tif", lambda z: np.where(z == -9999, -9999, (z + 100.0) / 2.0), scale=2.0, offset=-100.0)
    yield rewrite_demo_dem(tmp_path / "dm.tif", lambda z: np.where(z == -9999, -9999, z * 10.0), unit="decimetre")
    yield rewrite_demo_dem(tmp_path / "ortho.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, count=3, photometric="RGB", unit="")


def test_dem_band_described_by_the_layers_provider_is_the_clones_own_band(qgis_app, tmp_path):
    for path in _dems(tmp_path):
        layer = QgsRasterLayer(str(path), path.stem)
        assert layer.isValid()
        own = layer.dataProvider()
        described = QgisDemBand(own.clone(), layer.crs(), "dem", described_by=own)
        anew = QgisDemBand(own.clone(), layer.crs(), "dem")
        for name in _FIELDS:
            a, b = getattr(described, name), getattr(anew, name)
            assert a == b, (path.name, name, a, b)
        ctx = QgsCoordinateTransformContext()
        if described.colour[:1] == ["gray"] or described.band_count == 1:
            x = QgisDemSource(described.provider, layer.crs(), layer.crs(), None, ctx, name="dem", described=described)
            y = QgisDemSource(anew.provider, layer.crs(), layer.crs(), None, ctx, name="dem")
            a, b = x.read(x.whole()), y.read(y.whole())
            assert a.geotransform == b.geotransform and a.z_to_ft == b.z_to_ft and a.z_unit_note == b.z_unit_note
            assert np.array_equal(a.values, b.values, equal_nan=True)


def test_plan_reads_blocks_through_the_clone_and_metadata_from_the_layer(qgis_app):
    layer = QgsRasterLayer(str(DEMO_DEM), "dem")
    plan = plan_snapshot({}, dem_layer=layer)
    assert plan.dem is not None
    assert plan.dem.provider is not layer.dataProvider()  # the task reads through its own clone
    kept = plan_snapshot({}, dem_layer=layer, detach=False)
    assert kept.dem is not None and kept.dem.provider is layer.dataProvider()
    for name in _FIELDS:
        assert getattr(plan.dem, name) == getattr(kept.dem, name), name
