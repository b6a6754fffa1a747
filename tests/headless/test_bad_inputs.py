"""The bad-input corpus: each gives an actionable exit 2, or findings where what could not be measured is undetermined."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from shapely.geometry import LineString, MultiPoint, Point, Polygon

from stormwater_plugin.cli import main
from tests.headless.sitefiles import X0, Y0, write_dem, write_site


def _run(tmp_path, site, *extra, jurisdiction="lgpc", klass="minor"):
    code = main([str(site), *extra, "--jurisdiction", jurisdiction, "--class", klass, "--out", str(tmp_path / "o"), "--quiet"])
    return code, json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))


def _write(site, role, geoms, attrs=None, crs="EPSG:32618"):
    import geopandas as gpd

    frame = gpd.GeoDataFrame(attrs or [{"id": f"{role}-{i}"} for i in range(len(geoms))], geometry=geoms, crs=crs)
    # fiona, geopandas 0.14's writer (Debian 12), on every system: geopandas 1.x's default (pyogrio) cannot write the
    # measured (ZM) point below from shapely 2.1+ ("Could not create geometry ... WKB type 3221225473", seen on sid)
    frame.to_file(site, layer=role, driver="GPKG", engine="fiona")


def test_points_where_polygons_are_expected_are_left_out_with_a_warning(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "septic"])
    _write(site, "parcels", [Point(X0, Y0)], [{"id": "P1", "is_site": 1}])
    code, doc = _run(tmp_path, site)
    assert code in (0, 1)
    w = [x for x in doc["warnings"] if x["code"] == "geometry_wrong_type"]
    assert w and w[0]["layer"] == "parcels" and w[0]["ids"] == ["P1"]
    assert any(f["rule_id"] == "lgpc.notification" and f["status"] == "undetermined" for f in doc["findings"])


def test_3d_and_multipart_geometries_are_measured_in_plan(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "parcels"])
    _write(site, "septic", [MultiPoint([(X0 - 5, Y0, 100.0), (X0 + 500, Y0, 90.0)])], [{"id": "S-multi"}])
    code, doc = _run(tmp_path, site)
    hits = [f for f in doc["findings"] if f["other"] and f["other"]["id"] == "S-multi" and f["subject"]["id"] == "D1"]
    assert hits and hits[0]["measured_ft"] == pytest.approx(19.9, abs=0.05)


def test_null_geometries_are_left_out_with_their_ids(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "parcels"])
    _write(site, "wells", [Point(X0, Y0 + 300), None], [{"id": "W-ok"}, {"id": "W-null"}])
    code, doc = _run(tmp_path, site)
    w = [x for x in doc["warnings"] if x["code"] == "geometry_missing"]
    assert w and w[0]["ids"] == ["W-null"]


def test_unknown_device_types_are_checked_as_other_with_a_warning(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["parcels", "septic"])
    _write(site, "devices", [Point(X0 - 5 - 10 * 0.3048, Y0)], [{"id": "RG-1", "device_type": "rain_garden", "high_traffic": 0}])
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    code, doc = _run(tmp_path, site, "--dem", str(dem))
    assert any(x["code"] == "device_type_unknown" and x["ids"] == ["RG-1"] for x in doc["warnings"])
    assert any(f["subject"] and f["subject"]["id"] == "RG-1" and f["status"] == "violation" for f in doc["findings"])
    assert code == 1


def test_a_shoreline_of_100000_vertices_finishes_in_seconds(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["parcels", "devices", "clearing"])
    t = np.linspace(-2000, 2000, 100_000)
    shore = LineString(np.column_stack([X0 + 60 + 3 * np.sin(t / 7.0), Y0 + t]))
    _write(site, "shoreline", [shore], [{"id": "MHW", "waterbody": "Lake George"}])
    start = time.perf_counter()
    code, doc = _run(tmp_path, site, jurisdiction="lake-george", klass="major")
    assert time.perf_counter() - start < 20  # a guard against pathological slowness, not a benchmark
    assert any(f["other"] and f["other"]["id"] == "MHW" for f in doc["findings"])


def test_invalid_polygon_with_a_spike_is_repaired(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["parcels", "devices"])
    spike = Polygon([(X0 - 5, Y0 - 5), (X0 + 5, Y0 - 5), (X0 + 5, Y0 + 5), (X0 + 5, Y0 + 50), (X0 + 5, Y0 + 5), (X0 - 5, Y0 + 5), (X0 - 5, Y0 - 5)])
    _write(site, "septic", [spike], [{"id": "S-spike"}])
    code, doc = _run(tmp_path, site)
    assert any(x["code"] == "geometry_repaired" and x["ids"] == ["S-spike"] for x in doc["warnings"])


def test_a_dem_in_feet_is_read_with_its_declared_unit(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem_ft.tif", "EPSG:2260", 3.0, z_unit="ft")
    code, doc = _run(tmp_path, site, "--dem", str(dem), "--dem-z-units", "ft")
    d1 = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["subject"]["id"] == "D1"][0]
    assert d1["status"] == "violation"
    assert d1["details"]["device_elev_ft"] == pytest.approx((97.5 + 0.08 * (200 + 5 + 19.9 * 0.3048)) / 0.3048, abs=0.05)


def test_wrong_z_units_trigger_the_plausibility_warning(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)  # metres, declared as nothing, read as metres: fine
    code, doc = _run(tmp_path, site, "--dem", str(dem), "--dem-z-units", "ft")  # wrong: about 110 "ft"
    assert any(x["code"] == "dem_z_implausible" for x in doc["warnings"])


def test_measured_geometries_are_measured_in_plan(tmp_path):
    from shapely import wkt

    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "parcels"])
    wells_m = wkt.loads(f"POINT ZM ({X0 - 5 - 30 * 0.3048} {Y0} 100 7)")
    _write(site, "wells", [wells_m], [{"id": "W-zm"}])
    code, doc = _run(tmp_path, site)
    assert any(f["other"] and f["other"]["id"] == "W-zm" for f in doc["findings"])


def test_outputs_go_only_under_the_chosen_folder_even_with_hostile_ids(tmp_path, monkeypatch):
    import geopandas as gpd
    from shapely.geometry import box

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "septic"])
    gpd.GeoDataFrame([{"id": "../../evil", "is_site": 1}, {"id": "/etc/passwd", "is_site": 1}],
                     geometry=[box(X0 - 60, Y0 - 40, X0 + 60, Y0 + 40), box(X0 - 60, Y0 + 40, X0 + 60, Y0 + 100)],
                     crs="EPSG:32618").to_file(site, layer="parcels", driver="GPKG")
    before = {p for p in tmp_path.rglob("*")}
    out = tmp_path / "out"
    main(["batch", str(site), "--jurisdiction", "lgpc", "--out", str(out), "--workers", "1", "--quiet"])
    main([str(site), "--site-parcel", "../../evil", "--jurisdiction", "lgpc", "--out", str(out / "single"), "--quiet", "--report"])
    created = {p for p in tmp_path.rglob("*")} - before
    assert created and all(out in p.parents or p == out for p in created), sorted(str(p) for p in created if out not in p.parents)
    assert not (tmp_path.parent / "evil").exists()
