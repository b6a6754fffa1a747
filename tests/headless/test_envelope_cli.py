"""``stormwater-check envelope`` on the test site files and the demo site, and ``moves`` in findings.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shapely.geometry import Point

from stormwater_plugin.cli import main
from tests.headless.sitefiles import FT, X0, Y0, write_dem, write_site

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def _layers(path: Path) -> dict:
    import geopandas as gpd

    return {name: gpd.read_file(path, layer=name) for name in ("envelope", "excluded", "needs_professional_design")}


@pytest.fixture(scope="module")
def site_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("envsite")
    return write_site(d, "EPSG:32618"), write_dem(d / "dem.tif", "EPSG:32618", 1.0)


def test_envelope_on_the_test_site_excludes_the_upgradient_septic_zone(site_files, tmp_path):
    site, dem = site_files
    out = tmp_path / "env"
    rc = main(["envelope", str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(out)])
    assert rc == 0
    layers = _layers(out / "envelope.gpkg")
    env = layers["envelope"].geometry.iloc[0]
    ex = layers["excluded"]
    assert set(ex.columns) >= {"rule_id", "citation", "reason", "required_ft"}
    row = ex[ex.rule_id == "lgpc.minor.septic-upgradient-20"].iloc[0]
    assert row.required_ft == 20 and row.citation == "6 NYCRR 646-4.14(a)(3)" and row.target_id == "S1"
    # D1 sits 19.9 ft uphill (west) of the septic field, D2 12 ft downhill (east): the DEM decides.
    assert not env.contains(Point(X0 - 5 - 19.9 * FT, Y0))
    assert env.contains(Point(X0 - 5 - 20.2 * FT, Y0))
    assert env.contains(Point(X0 + 5 + 12 * FT, Y0))
    doc = json.loads((out / "envelope.json").read_text(encoding="utf-8"))
    assert doc["device_type"] == "dry_well" and doc["project_class"] == "minor" and doc["jurisdiction"] == "lgpc"
    assert doc["envelope_area_sqft"] == pytest.approx(layers["envelope"].area_sqft.iloc[0])


def test_high_traffic_envelope_adds_the_100_ft_vehicle_zone(site_files, tmp_path):
    site, dem = site_files
    out = tmp_path / "ht"
    rc = main(["envelope", str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "minor", "--high-traffic", "--device-type", "infiltration_trench", "--out", str(out)])
    assert rc == 0
    ex = _layers(out / "envelope.gpkg")["excluded"]
    wells = ex[(ex.rule_id == "lgpc.minor.vehicle-area-100") & (ex.target_id == "W1")]
    assert len(wells) == 1
    env = _layers(out / "envelope.gpkg")["envelope"].geometry.iloc[0]
    assert not env.contains(Point(X0 - 40, Y0 - 30 + 99.9 * FT))


def test_envelope_bad_site_parcel_exits_2_without_traceback(site_files, tmp_path):
    site, dem = site_files
    proc = subprocess.run(
        [sys.executable, "-m", "stormwater_plugin", "envelope", str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--site-parcel", "nope", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "nope" in proc.stderr


@pytest.mark.skipif(not (DEMO / "site.gpkg").exists(), reason="demo site not generated (make demo-data)")
def test_demo_envelope_and_moves(tmp_path):
    out = tmp_path / "demo-env"
    rc = main(["envelope", str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out)])
    assert rc == 0
    layers = _layers(out / "envelope.gpkg")
    env = layers["envelope"].geometry.iloc[0]
    rules = set(layers["excluded"].rule_id)
    assert {"lake-george.minor.septic-upgradient-20", "lake-george.minor.no-cut-buffer-35"} <= rules
    assert (layers["needs_professional_design"].rule_id == "lake-george.minor.device-slope-15").any()

    check = tmp_path / "demo-check"
    rc = main([str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(check), "--quiet", "--no-report"])
    assert rc == 1
    doc = json.loads((check / "findings.json").read_text(encoding="utf-8"))
    (m,) = [m for m in doc["moves"] if m["device"]["id"] == "DW-1"]
    # 6 ft as drawn plus the 8 ft a dry well drawn as a point may reach (issue 33)
    assert m["possible"] and m["distance_ft"] == pytest.approx(14.0, abs=0.1)
    assert env.contains(Point(*m["to"]))
    import geopandas as gpd

    dev = gpd.read_file(DEMO / "site.gpkg", layer="devices").to_crs(layers["envelope"].crs)
    dw1 = dev[dev["id"] == "DW-1"].geometry.iloc[0]
    assert not env.contains(dw1)


def test_the_envelope_is_drawn_for_the_class_the_check_states_on_the_demo_mamakating(tmp_path):
    """Mamakating §160-1: under an acre but upstream of a sensitive area is a land development activity (major); the envelope
    takes the check's class (the flow trace's), never the area's alone (exempt: no setback zone, the whole parcel allowed)."""
    if not (DEMO / "site.gpkg").is_file():
        pytest.skip("resources/demo is not built")
    site, dem = DEMO / "site.gpkg", DEMO / "dem.tif"
    main([str(site), "--dem", str(dem), "--jurisdiction", "mamakating", "--out", str(tmp_path / "check"), "--quiet"])
    checked = json.loads((tmp_path / "check" / "findings.json").read_text(encoding="utf-8"))
    main(["envelope", str(site), "--dem", str(dem), "--jurisdiction", "mamakating", "--out", str(tmp_path / "env")])
    drawn = json.loads((tmp_path / "env" / "envelope.json").read_text(encoding="utf-8"))
    assert checked["project_class"] == "major"
    assert drawn["project_class"] == checked["project_class"] and drawn["site_parcel"] == checked["site_parcel"]
