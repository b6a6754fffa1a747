"""The CLI's promise: exit 0/1/2, one or two lines on stderr for unusable input, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from shapely.geometry import Point, Polygon

from stormwater_plugin.cli import main
from tests.headless.sitefiles import X0, Y0, write_dem, write_site

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stormwater_plugin", *args], capture_output=True, text=True, cwd=ROOT)


def _assert_clean_error(proc: subprocess.CompletedProcess, needle: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert 1 <= len(lines) <= 2, proc.stderr
    assert needle in proc.stderr


def test_missing_site_package_exits_2_naming_the_file(tmp_path):
    _assert_clean_error(_cli(str(tmp_path / "nope.gpkg"), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")), "nope.gpkg")


def test_corrupt_geopackage_exits_2(tmp_path):
    bad = tmp_path / "bad.gpkg"
    bad.write_bytes(b"this is not a database")
    _assert_clean_error(_cli(str(bad), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")), "bad.gpkg")


def test_corrupt_geotiff_exits_2(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    dem = tmp_path / "dem.tif"
    dem.write_bytes(b"II*\x00garbage")
    _assert_clean_error(_cli(str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")), "dem.tif")


def test_unknown_jurisdiction_exits_2(tmp_path):
    proc = _cli("x.gpkg", "--jurisdiction", "saratoga", "--out", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "lgpc" in proc.stderr


def test_a_package_whose_only_layer_declares_no_crs_exits_2_as_locating_nothing(tmp_path):
    """A layer without CRS is misplaced (tests/headless/test_layer_without_crs.py); with nothing else, nothing is located."""
    import geopandas as gpd

    path = tmp_path / "site.gpkg"
    gpd.GeoDataFrame({"id": ["W1"]}, geometry=[Point(1, 2)]).to_file(path, layer="wells", driver="GPKG")
    _assert_clean_error(_cli(str(path), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")), "no layer has any feature with a location")


def test_unknown_site_parcel_exits_2(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    _assert_clean_error(
        _cli(str(site), "--jurisdiction", "lgpc", "--site-parcel", "999", "--out", str(tmp_path / "o")), "--site-parcel 999"
    )


def test_bad_layer_option_exits_2(tmp_path):
    _assert_clean_error(_cli("--layer", "volcanoes=x.shp", "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")), "unknown role")


def test_layer_option_takes_a_role_from_another_file(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "septic", "parcels"])
    other = tmp_path / "more"
    other.mkdir()
    wells = write_site(other, "EPSG:2260", roles=["wells"])
    code = main(
        [
            str(site),
            "--layer",
            f"wells={wells}:wells",
            "--jurisdiction",
            "lgpc",
            "--class",
            "minor",
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ]
    )
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert code == 1
    assert any(f["other"] and f["other"]["layer"] == "wells" for f in doc["findings"])
    assert doc["inputs"]["layers"]["wells"].endswith(":wells")


def test_dem_not_covering_the_site_makes_gradient_checks_undetermined(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    import numpy as np
    import rasterio
    from rasterio.transform import from_origin

    dem = tmp_path / "far.tif"
    with rasterio.open(
        dem,
        "w",
        driver="GTiff",
        width=10,
        height=10,
        count=1,
        dtype="float32",
        crs="EPSG:32618",
        transform=from_origin(X0 + 50_000, Y0 + 50_000, 1, 1),
    ) as dst:
        dst.write(np.full((10, 10), 100.0, dtype="float32"), 1)
    main([str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    grad = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["other"]]
    assert grad and all(f["status"] == "undetermined" for f in grad)
    assert any(w["code"] == "dem_outside" and "far.tif does not cover the site" in w["message"] for w in doc["warnings"])


def test_dem_all_nodata_makes_gradient_checks_undetermined(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0, nodata_box=(X0 - 1000, Y0 - 1000, X0 + 1000, Y0 + 1000))
    main([str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    grad = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["other"]]
    assert grad and all(f["status"] == "undetermined" for f in grad)
    assert not [f for f in grad if f["status"] == "pass"]


def test_invalid_bowtie_is_repaired_and_reported_with_its_id(tmp_path):
    import geopandas as gpd

    site = write_site(tmp_path, "EPSG:32618", roles=["devices", "parcels"])
    bowtie = Polygon([(X0 - 8, Y0 - 8), (X0 + 8, Y0 + 8), (X0 + 8, Y0 - 8), (X0 - 8, Y0 + 8), (X0 - 8, Y0 - 8)])
    gpd.GeoDataFrame({"id": ["BOW"]}, geometry=[bowtie], crs="EPSG:32618").to_file(site, layer="septic", driver="GPKG")
    main([str(site), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    rep = [w for w in doc["warnings"] if w["code"] == "geometry_repaired"]
    assert rep and rep[0]["ids"] == ["BOW"] and rep[0]["layer"] == "septic"
    assert any(f["other"] and f["other"]["id"] == "BOW" for f in doc["findings"])


def test_empty_layers_are_fine(tmp_path):
    import geopandas as gpd

    site = write_site(tmp_path, "EPSG:32618", roles=["parcels", "devices"])
    gpd.GeoDataFrame({"id": []}, geometry=[], crs="EPSG:32618").to_file(site, layer="wells", driver="GPKG")
    code = main([str(site), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    assert code in (0, 1)


def test_exit_0_when_nothing_violates_and_outputs_are_written(tmp_path):
    site = write_site(tmp_path, "EPSG:32618", roles=["parcels"])
    code = main([str(site), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    assert code == 0
    assert (tmp_path / "o" / "findings.json").is_file() and (tmp_path / "o" / "findings.gpkg").is_file()


def test_findings_gpkg_holds_lines_areas_and_zones_with_contract_fields(tmp_path):
    import fiona
    import geopandas as gpd

    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    main([str(site), "--dem", str(dem), "--jurisdiction", "lake-george", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    gpkg = tmp_path / "o" / "findings.gpkg"
    layers = set(fiona.listlayers(gpkg))
    assert {"findings_lines", "findings_areas", "setback_zones"} <= layers
    lines = gpd.read_file(gpkg, layer="findings_lines")
    for col in ("status", "rule_id", "citation", "measured_ft", "required_ft", "message"):
        assert col in lines.columns
    areas = gpd.read_file(gpkg, layer="findings_areas")
    assert "violation" in set(areas["status"])  # the clearing inside the 35 ft buffer


def test_non_ascii_and_markup_in_attributes_survive_into_json(tmp_path):
    site = write_site(tmp_path, "EPSG:32618")
    main([str(site), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    owners = [o["owner"] for o in doc["notification"]["owners"]]
    assert "Ménard, Zoë" in owners
    assert any("<b>Saint</b>" in o["mailing_address"] for o in doc["notification"]["owners"])


def test_dem_window_one_pixel_over_the_read_limit_is_not_read_and_gradient_checks_are_undetermined(tmp_path, monkeypatch):
    """The command line keeps the plugin's limit (services.dem_read.MAX_PIXELS): a window over it is not read, never
    coarser; the check still runs, the rules reading the DEM undetermined, the warning naming the limit and the clip."""
    from stormwater_plugin.services import dem_read

    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    monkeypatch.setattr(dem_read, "MAX_PIXELS", 100)
    main([str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    grad = [f for f in doc["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["other"]]
    assert grad and all(f["status"] == "undetermined" for f in grad)
    too = [w for w in doc["warnings"] if w["code"] == "dem_too_large"]
    assert len(too) == 1 and "more than the 100 read at once" in too[0]["message"] and "gdal_translate -projwin" in too[0]["message"]
    # a DEM given but not read is never called missing: the findings and the no_dem warning say it was not read
    assert not any("no dem was supplied" in (f["message"] or "").lower() for f in doc["findings"])
    assert all("the DEM was not read" in f["message"] for f in grad)
    assert [w["message"] for w in doc["warnings"] if w["code"] == "no_dem"][0].startswith("The DEM was not read")
