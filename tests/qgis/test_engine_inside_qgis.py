"""The engine runs inside a QGIS process: catches GDAL/GEOS/PROJ library clashes early."""

from __future__ import annotations

import json

import pytest

from tests.headless.sitefiles import write_dem, write_site

qgis_core = pytest.importorskip("qgis.core", reason="PyQGIS is not installed (make test installs it from Debian)")


def test_engine_and_headless_reader_run_inside_a_qgis_application(qgis_app, tmp_path):
    from qgis.core import QgsGeometry, QgsRasterLayer, QgsVectorLayer

    site = write_site(tmp_path, "EPSG:2260")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    # QGIS opens the same files first, so both stacks are loaded in one process.
    wells = QgsVectorLayer(f"{site}|layername=wells", "wells", "ogr")
    assert wells.isValid() and wells.featureCount() == 1
    assert QgsRasterLayer(str(dem), "dem").isValid()
    import shapely

    geom = next(wells.getFeatures()).geometry()
    assert shapely.from_wkb(bytes(geom.asWkb())).equals(shapely.from_wkb(bytes(QgsGeometry(geom).asWkb())))

    from stormwater_plugin.cli import main

    code = main([str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    assert code == 1
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    statuses = {(f["rule_id"], f["subject"]["id"]): f["status"] for f in doc["findings"] if f["subject"] and f["other"]}
    assert statuses[("lgpc.minor.septic-upgradient-20", "D1")] == "violation"
