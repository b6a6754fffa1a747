"""Messy real-world inputs through the command line (issue 14): undeclared elevation units, degenerate and curved geometry."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from stormwater_plugin.cli import main
from tests.headless.sitefiles import X0, Y0

SITE_RULE = "lgpc.minor.may-be-major-slope-15"


def _gpkg(path, role, rows, crs="EPSG:32618"):
    import geopandas as gpd

    frame = gpd.GeoDataFrame([a for _, a in rows], geometry=[g for g, _ in rows], crs=crs)
    frame.to_file(path, layer=role, driver="GPKG")


def _metre_dem_in_ftus(path, grade):
    """NY East State Plane ftUS (EPSG:2260) whose elevations are metres, as a plain gdalwarp of a metre DEM leaves them."""
    import rasterio
    from pyproj import Transformer
    from rasterio.transform import from_origin

    to_sp = Transformer.from_crs("EPSG:32618", "EPSG:2260", always_xy=True)
    to_utm = Transformer.from_crs("EPSG:2260", "EPSG:32618", always_xy=True)
    xs, ys = to_sp.transform([X0 - 300, X0 + 300], [Y0 - 300, Y0 + 300])
    cell = 3.0
    left, top = min(xs), max(ys)
    ncol = int((max(xs) - left) / cell)
    nrow = int((top - min(ys)) / cell)
    gx, gy = np.meshgrid(left + (np.arange(ncol) + 0.5) * cell, top - (np.arange(nrow) + 0.5) * cell)
    ux, _ = to_utm.transform(gx, gy)
    z = (100.0 + grade * (X0 + 200.0 - np.asarray(ux))).astype("float32")  # metres, rising westward
    with rasterio.open(path, "w", driver="GTiff", width=ncol, height=nrow, count=1, dtype="float32", crs="EPSG:2260",
                       transform=from_origin(left, top, cell, cell), nodata=-9999.0) as dst:
        dst.write(z, 1)
    return path


def _run(tmp_path, site, *extra, jurisdiction="lgpc", klass="minor"):
    out = tmp_path / "o"
    code = main([str(site), *extra, "--jurisdiction", jurisdiction, "--class", klass, "--out", str(out), "--quiet"])
    return code, json.loads((out / "findings.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("z_args, status", [((), "undetermined"), (("--dem-z-units", "m"), "advisory"), (("--dem-z-units", "us-ft"), "pass")])
def test_metre_dem_in_state_plane_ftus_b_1_on_18_pct_under_646_4_12_b_2_a_ii(tmp_path, z_args, status):
    site = tmp_path / "site.gpkg"
    _gpkg(site, "building_sites", [(Point(X0 - 40, Y0), {"id": "B-1"})])
    dem = _metre_dem_in_ftus(tmp_path / "dem_ftus_m.tif", 0.18)
    code, doc = _run(tmp_path, site, "--dem", str(dem), *z_args)
    (f,) = [x for x in doc["findings"] if x["rule_id"] == SITE_RULE and x["subject"]["id"] == "B-1"]
    assert f["status"] == status
    if status == "undetermined":
        assert "--dem-z-units" in f["message"] and "18.00% if the elevations are in metres" in f["message"]
        assert any(w["code"] == "dem_z_unit_assumed" for w in doc["warnings"])
    b = doc["building_sites"][0]
    assert b["id"] == "B-1" and b["status"] == status
    if status == "advisory":
        assert b["slope_100ft_pct"] == pytest.approx(18.0, abs=0.05)


def test_major_project_still_reports_b_1_slope_in_findings_json(tmp_path):
    site = tmp_path / "site.gpkg"
    _gpkg(site, "building_sites", [(Point(X0 - 40, Y0), {"id": "B-1"})])
    dem = _metre_dem_in_ftus(tmp_path / "dem.tif", 0.18)
    code, doc = _run(tmp_path, site, "--dem", str(dem), "--dem-z-units", "m", klass="major")
    assert [(b["id"], b["status"]) for b in doc["building_sites"]] == [("B-1", "advisory")]
    (f,) = [x for x in doc["findings"] if x["rule_id"] == SITE_RULE]
    assert "does not change the class" in f["message"]


def test_collinear_wetland_wl_3_49_ft_from_a_vehicle_area_device_violates_through_the_cli(tmp_path):
    site = tmp_path / "site.gpkg"
    ft = 0.3048
    _gpkg(site, "devices", [(Point(X0, Y0), {"id": "DW-1", "device_type": "dry_well", "high_traffic": 1})])
    x = X0 + 49 * ft
    _gpkg(site, "wetlands", [(Polygon([(x, Y0 - 5), (x, Y0), (x, Y0 + 5), (x, Y0 - 5)]), {"id": "WL-3"}), (None, {"id": "WL-4"})])
    code, doc = _run(tmp_path, site)
    hits = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.vehicle-area-100" and f["other"] and f["other"]["id"] == "WL-3"]
    assert [h["status"] for h in hits] == ["violation"] and hits[0]["measured_ft"] == pytest.approx(49.0, abs=0.05)
    und = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.vehicle-area-100" and f["subject"] and f["subject"]["id"] == "WL-4"]
    assert [u["status"] for u in und] == ["undetermined"]
    assert code == 1


@pytest.mark.skipif(shutil.which("ogr2ogr") is None, reason="ogr2ogr (GDAL) is needed to write a CurvePolygon")
def test_curved_wetland_wl_c_from_a_geopackage_is_stroked_within_0_01_ft(tmp_path):
    # A circle of radius 30 m; the device lies off the arc 2.125° from a vertex, where GDAL's default 4° stroke would
    # put the chord about 0.06 ft further than the arc; the 0.25° stroke keeps it within 0.01 ft.
    from pyproj import Proj, Transformer

    ft = 0.3048
    r, d = 30.0, 99.95 * ft
    cx, cy = X0 + 50.0, Y0
    t = np.radians(180.0 - 2.125)
    dev = (cx + (r + d) * np.cos(t), cy + (r + d) * np.sin(t))
    csv = tmp_path / "wl.csv"
    csv.write_text(
        "id,WKT\n"
        f'WL-C,"CURVEPOLYGON(CIRCULARSTRING({cx - r} {cy},{cx} {cy + r},{cx + r} {cy},{cx} {cy - r},{cx - r} {cy}))"\n',
        encoding="utf-8",
    )
    site = tmp_path / "site.gpkg"
    _gpkg(site, "devices", [(Point(*dev), {"id": "DW-1", "device_type": "dry_well", "high_traffic": 1})])
    subprocess.run(["ogr2ogr", "-f", "GPKG", "-update", str(site), str(csv), "-oo", "GEOM_POSSIBLE_NAMES=WKT", "-a_srs", "EPSG:32618",
                    "-nln", "wetlands", "-nlt", "CURVEPOLYGON"], check=True, capture_output=True)
    code, doc = _run(tmp_path, site)
    (f,) = [x for x in doc["findings"] if x["rule_id"] == "lgpc.minor.vehicle-area-100" and x["other"] and x["other"]["id"] == "WL-C"]
    lon, lat = Transformer.from_crs("EPSG:32618", "EPSG:4326", always_xy=True).transform(cx, cy)
    fac = Proj("EPSG:32618").get_factors(lon, lat)
    k = (fac.meridional_scale + fac.parallel_scale) / 2.0
    assert f["measured_ft"] == pytest.approx(99.95 / k, abs=0.01)  # ground feet on the true arc
    assert f["status"] == "violation"
