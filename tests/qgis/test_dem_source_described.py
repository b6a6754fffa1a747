"""The DEM source of the flow trace's further windows takes the band its plan described (issue 39): the same numbers.

``QgisDemSource(described=...)`` takes a plan's :class:`~stormwater_plugin.qgis_bridge.dem.QgisDemBand` rather than reading
the provider's metadata again, only when it describes the very provider, CRS, name and band number the source is asked for.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsRasterLayer

from stormwater_plugin.core.dem_source import PixelWindow
from stormwater_plugin.qgis_bridge.dem import QgisDemBand, QgisDemSource
from tests.headless.demo_dem import DEMO_DEM

_BAND_FIELDS = ("extent", "shape", "geotransform", "band_count", "colour", "dtype", "scale", "offset", "crs_name", "unit_m", "nodata", "has_palette")


def _layer() -> QgsRasterLayer:
    layer = QgsRasterLayer(str(DEMO_DEM), "dem")
    assert layer.isValid()
    return layer


def _sources(layer: QgsRasterLayer) -> tuple[QgisDemSource, QgisDemSource, QgisDemBand]:
    provider = layer.dataProvider()
    described = QgisDemBand(provider, layer.crs(), "dem")
    ctx = QgsCoordinateTransformContext()
    taken = QgisDemSource(provider, layer.crs(), layer.crs(), "m", ctx, name="dem", described=described)
    anew = QgisDemSource(provider, layer.crs(), layer.crs(), "m", ctx, name="dem")
    return taken, anew, described


def test_dem_source_takes_the_band_its_plan_described_of_the_same_provider(qgis_app):
    taken, anew, described = _sources(_layer())
    assert taken.band is described and anew.band is not described
    for name in _BAND_FIELDS:
        assert getattr(taken.band, name) == getattr(anew.band, name), name
    assert (taken.shape, taken.geotransform, taken.z_to_ft, taken.cell_size_ft) == (anew.shape, anew.geotransform, anew.z_to_ft, anew.cell_size_ft)


def test_dem_source_reads_its_own_band_for_another_provider_crs_name_or_band(qgis_app):
    """Each input of the match: a band described of another provider (a clone), CRS, name or band number is never taken."""
    layer = _layer()
    provider, crs, ctx = layer.dataProvider(), layer.crs(), QgsCoordinateTransformContext()
    other_crs = QgsCoordinateReferenceSystem("EPSG:4326")
    assert other_crs != crs
    for described in (QgisDemBand(provider.clone(), crs, "dem"), QgisDemBand(provider, other_crs, "dem"), QgisDemBand(provider, crs, "other"),
                      QgisDemBand(provider, crs, "dem", band=2)):
        src = QgisDemSource(provider, crs, crs, "m", ctx, name="dem", described=described)
        assert src.band is not described
        assert (src.band.provider, src.band.crs, src.band.name, src.band.band) == (provider, crs, "dem", 1)
    same = QgisDemBand(provider, crs, "dem")
    assert QgisDemSource(provider, crs, crs, "m", ctx, name="dem", described=same).band is same


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(r0=st.integers(-5, 400), c0=st.integers(-5, 400), rows=st.integers(1, 120), cols=st.integers(1, 120))
def test_dem_source_with_the_described_band_reads_every_window_as_one_reading_its_own(qgis_app, r0, c0, rows, cols):
    """Property: any window (beyond the raster's edges too) reads the same grid, bit for bit, through either source."""
    taken, anew, _ = _sources(_layer())
    win = PixelWindow(r0, c0, rows, cols)
    a, b = taken.read(win), anew.read(win)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert a.geotransform == b.geotransform and a.z_to_ft == b.z_to_ft
        assert np.array_equal(a.values, b.values, equal_nan=True)
