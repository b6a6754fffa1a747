"""A multipart feature with an empty part (a CAD export's MULTIPOLYGON (EMPTY, ((…)))) is read, never the whole layer lost (issue 14)."""

from __future__ import annotations

import json

import pytest

from stormwater_plugin.cli import main
from tests.headless.sitefiles import X0, Y0, write_dem

ogr = pytest.importorskip("osgeo.ogr", reason="GDAL's Python bindings write the empty part (Debian's python3-gdal)")


def _write(path, crs_epsg: int):
    from osgeo import osr

    srs = osr.SpatialReference()
    srs.ImportFromEPSG(crs_epsg)
    ds = ogr.GetDriverByName("GPKG").CreateDataSource(str(path))
    for name, gtype, rows in (
        ("wetlands", ogr.wkbMultiPolygon, [("WL-4", f"MULTIPOLYGON (EMPTY, (({X0} {Y0}, {X0 + 20} {Y0}, {X0 + 20} {Y0 + 20}, {X0} {Y0 + 20}, {X0} {Y0})))")]),
        ("devices", ogr.wkbPoint, [("DW1", f"POINT ({X0 + 20 + 49 * 0.3048} {Y0 + 10})")]),
    ):
        lyr = ds.CreateLayer(name, srs, gtype)
        for field in ("id", "device_type"):
            lyr.CreateField(ogr.FieldDefn(field, ogr.OFTString))
        lyr.CreateField(ogr.FieldDefn("vehicle_traffic", ogr.OFTInteger))
        for ident, wkt in rows:
            feat = ogr.Feature(lyr.GetLayerDefn())
            feat.SetField("id", ident)
            if name == "devices":
                feat.SetField("device_type", "dry_well")
                feat.SetField("vehicle_traffic", 1)
            feat.SetGeometry(ogr.CreateGeometryFromWkt(wkt))
            lyr.CreateFeature(feat)
    ds = None


def test_wetland_with_an_empty_part_49_ft_from_a_vehicle_area_device_violates_646_4_14_a_3(tmp_path):
    _write(tmp_path / "site.gpkg", 32618)
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    code = main([str(tmp_path / "site.gpkg"), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--dem-z-units", "m",
                 "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 1
    doc = json.loads((tmp_path / "out" / "findings.json").read_text(encoding="utf-8"))
    (f,) = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.vehicle-area-100" and f["other"] and f["other"]["id"] == "WL-4"]
    assert f["status"] == "violation" and f["measured_ft"] == pytest.approx(49.0, abs=0.05)
