"""A CRS's description kept by its definition (issue 39, session 15): ``QgisCrs.describe`` by the CRS's WKT2, identifier and name.

The live read describes the DEM's CRS at every edit (is it projected and conformal: its working CRS then), reading the
conformal method from the WKT2 by a pattern. Kept by what it is read from, a description found again is the one made anew,
for every CRS a New York site arrives in (those ``test_crs_backends_agree`` compares), however often and in whatever order
they are asked; and the DEM band's cell size, found once per band, is the one computed at each call.
"""

from __future__ import annotations

from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext

from stormwater_plugin.qgis_bridge import crs as qcrs
from stormwater_plugin.services.backend import CrsInfo
from tests.qgis.test_crs_backends_agree import EPSG, OTHERS


def _made(c: QgsCoordinateReferenceSystem) -> CrsInfo:
    """The description as made before it was kept: every trait read from the CRS at each call."""
    return CrsInfo(c.description(), c.authid(), qcrs.is_projected(c), qcrs.is_conformal(c), qcrs.unit_to_m(c))


def _crss() -> list[QgsCoordinateReferenceSystem]:
    out = [QgsCoordinateReferenceSystem(f"EPSG:{code}") for code in EPSG]
    for text in OTHERS:
        c = QgsCoordinateReferenceSystem.fromProj(text) if text.startswith("+") else QgsCoordinateReferenceSystem(text)
        out.append(c)
    out.append(QgsCoordinateReferenceSystem())  # invalid: described each time
    return out


def test_a_crs_described_again_is_described_as_made_anew(qgis_app):
    backend = qcrs.QgisCrs(QgsCoordinateTransformContext())
    qcrs._DESCRIBED.clear()
    crss = _crss()
    for _ in range(2):  # the second time from what was kept (copies of the CRSs: the same definitions, other objects)
        for c in crss + [QgsCoordinateReferenceSystem(c) for c in reversed(crss)]:
            assert backend.describe(c) == _made(c)
    assert len(qcrs._DESCRIBED) <= 16


def test_the_dem_bands_cell_size_found_once_is_the_one_computed(qgis_app):
    from qgis.core import QgsRasterLayer

    from stormwater_plugin.qgis_bridge.dem import QgisDemBand
    from stormwater_plugin.services.intake import dem_cell_ft
    from tests.headless.demo_dem import DEMO_DEM

    layer = QgsRasterLayer(str(DEMO_DEM), "dem")
    for crs in (layer.crs(), QgsCoordinateReferenceSystem("EPSG:2262"), QgsCoordinateReferenceSystem("EPSG:4326")):
        band = QgisDemBand(layer.dataProvider(), crs, "dem")
        gt = band.geotransform
        computed = dem_cell_ft(max(abs(gt[1]), abs(gt[5])), None if crs.isGeographic() else qcrs.unit_to_ft(crs))
        assert band.cell_ft == computed and band.cell_ft == computed
