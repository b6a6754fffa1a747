"""Vector data as it really arrives (issue 22, items 1, 2, 6 and 9), each configuration built from the demo site
the way it arises: a role exported as two shapefiles, a package with a ``devices_proposed`` layer, a multi-layer
source named without its layer, a wrong ``.prj``, latitude and longitude swapped, a county-scale context layer,
a photo BLOB, KML/KMZ and zipped shapefiles, a NaN coordinate, shapefile-truncated field names."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from stormwater_plugin.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "site.gpkg"
DEM = ROOT / "resources" / "demo" / "dem.tif"
SEPTIC_RULE = "lgpc.minor.septic-upgradient-20"
VEHICLE_RULE = "lgpc.minor.vehicle-area-100"


def _demo(layer: str):
    import geopandas as gpd

    return gpd.read_file(DEMO, layer=layer)


def _package(tmp_path: Path, drop: tuple[str, ...] = (), extra: dict | None = None, name: str = "site.gpkg") -> Path:
    """The demo package without the ``drop`` layers and with the ``extra`` ones (layer name to GeoDataFrame)."""
    import fiona

    path = tmp_path / name
    for layer in fiona.listlayers(DEMO):
        if layer in drop:
            continue
        _demo(layer).to_file(path, layer=layer, driver="GPKG")
    for layer, frame in (extra or {}).items():
        frame.to_file(path, layer=layer, driver="GPKG")
    return path


def _run(tmp_path: Path, *args: str, jurisdiction: str = "lgpc") -> tuple[int, dict]:
    out = tmp_path / "out"
    code = main([*args, "--dem", str(DEM), "--jurisdiction", jurisdiction, "--out", str(out), "--quiet"])
    return code, json.loads((out / "findings.json").read_text(encoding="utf-8"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "stormwater_plugin", *args], capture_output=True, text=True, env=env, timeout=300)


def _pairs(doc: dict, rule: str) -> dict[tuple[str, str], dict]:
    return {(f["subject"]["id"], f["other"]["id"]): f for f in doc["findings"] if f["rule_id"] == rule and f["subject"] and f["other"]}


def _codes(doc: dict) -> list[str]:
    return [w["code"] for w in doc["warnings"]]


@pytest.fixture(scope="module")
def demo_doc(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("demo")
    return _run(tmp, str(DEMO))[1]


def _without_paths(doc: dict) -> list[str]:
    """Each finding's rule, features, status and distance (a shapefile's ring order may move a nearest point along a tie)."""
    keep = ("rule_id", "subject", "other", "status", "measured_ft", "required_ft")
    return sorted(json.dumps({k: f.get(k) for k in keep}, sort_keys=True) for f in doc["findings"])


# --- item 1: a role given twice, or in a multi-layer source -----------------------------------------------------------


def _device_shapefiles(tmp_path: Path) -> tuple[Path, Path]:
    """The demo's devices as a shapefile export leaves them: points and polygons in two files, field names cut to 10 characters."""
    dev = _demo("devices")
    points = tmp_path / "devices_points.shp"
    polys = tmp_path / "devices_polygons.shp"
    dev[dev.geom_type == "Point"].to_file(points)
    dev[dev.geom_type != "Point"].to_file(polys)
    return points, polys


def test_devices_as_two_truncated_shapefiles_dw_1_still_violates_646_4_14_a_3_and_findings_equal_the_package(tmp_path, demo_doc):
    points, polys = _device_shapefiles(tmp_path)
    site = _package(tmp_path, drop=("devices",))
    code, doc = _run(tmp_path, str(site), "--layer", f"devices={points}", "--layer", f"devices={polys}")
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"
    assert code == 1
    # device_typ, vehicle_tr, high_traff, bottom_ele … are read as the documented fields: every finding as from the package
    assert _without_paths(doc) == _without_paths(demo_doc)
    assert "fields_matched" in _codes(doc)


def test_the_same_device_in_both_sources_is_kept_and_warned_as_a_duplicate(tmp_path):
    points, _ = _device_shapefiles(tmp_path)
    site = _package(tmp_path, drop=("devices",))
    code, doc = _run(tmp_path, str(site), "--layer", f"devices={points}", "--layer", f"devices={points}")
    dup = [w for w in doc["warnings"] if w["code"] == "duplicate_ids_across_sources"]
    assert dup and "DW-1" in dup[0]["ids"]
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"


def test_package_layer_devices_proposed_is_read_as_devices_with_a_warning_dw_1_violates(tmp_path):
    dev = _demo("devices")
    site = _package(tmp_path, drop=("devices",), extra={"devices": dev[dev["id"] != "DW-1"], "devices_proposed": dev[dev["id"] == "DW-1"]})
    code, doc = _run(tmp_path, str(site))
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"
    w = [x for x in doc["warnings"] if x["code"] == "layer_name_prefix"]
    assert w and "devices_proposed" in w[0]["message"]


def test_package_layer_matching_no_role_is_listed_in_warnings_and_printed(tmp_path):
    laterals = _demo("septic").copy()
    laterals["id"] = ["LAT-1", "LAT-2", "LAT-3"]
    site = _package(tmp_path, extra={"sewer_laterals": laterals})
    code, doc = _run(tmp_path, str(site))
    w = [x for x in doc["warnings"] if x["code"] == "layers_not_read"]
    assert w and "sewer_laterals" in w[0]["message"]
    proc = _cli(str(site), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o2"))
    assert "sewer_laterals" in proc.stdout


def _utilities(tmp_path: Path) -> Path:
    """A utilities GeoPackage holding sewer laterals (first) and the septic systems."""
    laterals = _demo("septic").copy()
    laterals["id"] = ["LAT-1", "LAT-2", "LAT-3"]
    laterals["geometry"] = laterals.geometry.translate(60.0, 0.0)
    path = tmp_path / "utilities.gpkg"
    laterals.to_file(path, layer="sewer_laterals", driver="GPKG")
    _demo("septic").to_file(path, layer="septic_systems", driver="GPKG")
    return path


def test_septic_from_a_multi_layer_source_without_its_layer_exits_2_listing_the_layers(tmp_path):
    utilities = _utilities(tmp_path)
    site = _package(tmp_path, drop=("septic",))
    proc = _cli(str(site), "--layer", f"septic={utilities}", "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert 1 <= len(lines) <= 2 and "Traceback" not in proc.stderr
    assert "sewer_laterals" in proc.stderr and "septic_systems" in proc.stderr and ":LAYER" in proc.stderr


def test_septic_from_a_multi_layer_source_with_its_layer_named_dw_1_violates(tmp_path):
    utilities = _utilities(tmp_path)
    site = _package(tmp_path, drop=("septic",))
    code, doc = _run(tmp_path, str(site), "--layer", f"septic={utilities}:septic_systems")
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"


def test_a_layer_option_replacing_the_package_layer_says_so(tmp_path):
    points, polys = _device_shapefiles(tmp_path)
    code, doc = _run(tmp_path, str(DEMO), "--layer", f"devices={points}", "--layer", f"devices={polys}")
    w = [x for x in doc["warnings"] if x["code"] == "layer_replaced"]
    assert w and "'devices'" in w[0]["message"]


# --- item 2: a layer in the wrong CRS ----------------------------------------------------------------------------------


def _shoreline_with_prj(tmp_path: Path, epsg: int) -> Path:
    """The demo shoreline as a shapefile of UTM 18N metres whose .prj says ``epsg``."""
    from pyproj import CRS

    path = tmp_path / "shoreline.shp"
    _demo("shoreline").to_file(path)
    path.with_suffix(".prj").write_text(CRS.from_epsg(epsg).to_wkt("WKT1_ESRI"), encoding="utf-8")
    return path


def _assert_no_pass_against(doc: dict, layer: str, fid: str) -> list[dict]:
    against = [f for f in doc["findings"] if f["other"] and f["other"]["layer"] == layer and f["other"]["id"] == fid]
    assert all(f["status"] != "pass" for f in against), [f["message"] for f in against if f["status"] == "pass"]
    assert all((f["measured_ft"] or 0) < 10_000 for f in doc["findings"])
    return [f for f in doc["findings"] if f["subject"] and f["subject"]["layer"] == layer and f["subject"]["id"] == fid]


@pytest.mark.parametrize("epsg", [2260, 32617, 4326], ids=["ny-east-ftus", "utm-17n", "wgs84"])
def test_shoreline_with_a_wrong_prj_makes_pp_1_against_sh_1_undetermined_under_646_4_14_a_3(tmp_path, epsg):
    shore = _shoreline_with_prj(tmp_path, epsg)
    code, doc = _run(tmp_path, str(DEMO), "--layer", f"shoreline={shore}")
    about = _assert_no_pass_against(doc, "shoreline", "SH-1")
    vehicle = [f for f in about if f["rule_id"] == VEHICLE_RULE]
    assert vehicle and all(f["status"] == "undetermined" and "CRS" in f["message"] for f in vehicle)
    assert "layer_misplaced" in _codes(doc)
    # the water body still decides PP-1's violation: the misplaced layer takes nothing else away
    assert _pairs(doc, VEHICLE_RULE)[("PP-1", "WB-1")]["status"] == "violation"


def test_shoreline_far_outside_its_crs_area_of_use_makes_pp_1_against_sh_1_undetermined_under_646_4_14_a_3(tmp_path):
    """A GeoPackage's CRS reaches the reader as WKT1, which carries no area of use: it is taken from the EPSG
    definition (as QGIS's ``bounds()``), so Lake George in NY West ftUS (3.7 degrees east of its area) is misplaced."""
    path = tmp_path / "shoreline.gpkg"
    _demo("shoreline").to_crs("EPSG:2262").to_file(path, layer="shoreline", driver="GPKG")
    code, doc = _run(tmp_path, str(DEMO), "--layer", f"shoreline={path}:shoreline")
    about = _assert_no_pass_against(doc, "shoreline", "SH-1")
    vehicle = [f for f in about if f["rule_id"] == VEHICLE_RULE]
    assert vehicle and all(f["status"] == "undetermined" and "cannot place it" in f["message"] for f in vehicle)
    assert "layer_misplaced" in _codes(doc)


def test_geojson_with_latitude_and_longitude_swapped_makes_the_shoreline_findings_undetermined(tmp_path):
    import shapely

    shore = _demo("shoreline").to_crs("EPSG:4326")
    shore["geometry"] = [shapely.transform(g, lambda xy: xy[:, ::-1]) for g in shore.geometry]
    path = tmp_path / "shoreline.geojson"
    shore.to_file(path, driver="GeoJSON")
    code, doc = _run(tmp_path, str(DEMO), "--layer", f"shoreline={path}")
    about = _assert_no_pass_against(doc, "shoreline", "SH-1")
    assert [f for f in about if f["rule_id"] == VEHICLE_RULE and f["status"] == "undetermined"]
    w = [x for x in doc["warnings"] if x["code"] == "layer_misplaced"]
    assert w and "mi from the site" in w[0]["message"]


def test_devices_with_a_wrong_prj_are_undetermined_not_passed(tmp_path):
    from pyproj import CRS

    points, polys = _device_shapefiles(tmp_path)
    polys.with_suffix(".prj").write_text(CRS.from_epsg(32617).to_wkt("WKT1_ESRI"), encoding="utf-8")
    site = _package(tmp_path, drop=("devices",))
    code, doc = _run(tmp_path, str(site), "--layer", f"devices={points}", "--layer", f"devices={polys}")
    pp1 = [f for f in doc["findings"] if f["rule_id"] == VEHICLE_RULE and f["subject"] and f["subject"]["id"] == "PP-1"]
    assert pp1 and all(f["status"] == "undetermined" for f in pp1)
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"  # the points file is where it says


def test_county_wetlands_none_within_reach_but_spanning_the_site_are_read_as_none_nearby(tmp_path):
    """A legitimately far context layer: its extent spans the site, so 'no wetland within reach' stands (no misplaced warning)."""
    import geopandas as gpd
    from shapely.geometry import box

    wl = _demo("wetlands")
    c = wl.geometry.iloc[0].centroid
    far = gpd.GeoDataFrame({"id": ["WL-E", "WL-W"]}, geometry=[box(c.x + 3000, c.y, c.x + 3010, c.y + 10), box(c.x - 3010, c.y, c.x - 3000, c.y + 10)],
                           crs=wl.crs)
    site = _package(tmp_path, drop=("wetlands",), extra={"wetlands": far})
    code, doc = _run(tmp_path, str(site))
    assert "layer_misplaced" not in _codes(doc)
    assert not [f for f in doc["findings"] if (f["subject"] or {}).get("layer") == "wetlands" and f["status"] == "undetermined"]


# --- item 6: county-scale context ---------------------------------------------------------------------------------------


def test_a_county_wetlands_layer_is_read_around_the_site_only_and_findings_equal_the_demo(tmp_path, demo_doc):
    import geopandas as gpd
    import numpy as np
    from shapely.geometry import box

    wl = _demo("wetlands")
    c = wl.geometry.iloc[0].centroid
    xs, ys = np.meshgrid(np.arange(-20, 21) * 400.0, np.arange(-20, 21) * 400.0)
    keep = (np.abs(xs) > 1000) | (np.abs(ys) > 1000)  # none within 1,000 m of the demo's wetland
    rows = [box(c.x + x, c.y + y, c.x + x + 20, c.y + y + 20) for x, y in zip(xs[keep], ys[keep])]
    county = gpd.GeoDataFrame({"id": [f"C-{i}" for i in range(len(rows))], "name": "county"}, geometry=rows, crs=wl.crs)
    both = gpd.GeoDataFrame(pd_concat([wl, county]), crs=wl.crs)
    site = _package(tmp_path, drop=("wetlands",), extra={"wetlands": both})
    code, doc = _run(tmp_path, str(site))
    w = [x for x in doc["warnings"] if x["code"] == "context_filtered"]
    assert w and f"of its {len(both):,} features" in w[0]["message"]
    ours = [f for f in _without_paths(doc) if '"WL-1"' in f]
    assert ours == [f for f in _without_paths(demo_doc) if '"WL-1"' in f]


def pd_concat(frames):
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def test_a_photo_blob_on_the_wells_is_never_read(tmp_path):
    import fiona

    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.reader import read_site

    site = _package(tmp_path, drop=("wells",))
    wells = _demo("wells")
    schema = {"geometry": "Point", "properties": {"id": "str", "photo": "bytes"}}
    with fiona.open(site, "w", driver="GPKG", layer="wells", schema=schema, crs=wells.crs.to_wkt()) as dst:
        for fid, g in zip(wells["id"], wells.geometry):
            dst.write({"geometry": {"type": "Point", "coordinates": (g.x, g.y)}, "properties": {"id": fid, "photo": b"\xff" * 2_000_000}})
    loaded = read_site(site, [], DEM, pack=load_pack("lgpc"))
    layer = loaded.inputs.layers["wells"]
    assert sorted(layer.ids) == sorted(wells["id"]) and all("photo" not in a for a in layer.attrs)


# --- item 9: formats and messages -----------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("ogr2ogr") is None, reason="ogr2ogr (GDAL) writes the KML")
@pytest.mark.parametrize("driver, suffix", [("KML", ".kml"), ("LIBKML", ".kmz")])
def test_septic_systems_from_kml_or_kmz_dw_1_violates_646_4_14_a_3(tmp_path, driver, suffix):
    formats = subprocess.run(["ogrinfo", "--formats"], capture_output=True, text=True).stdout
    if not re.search(rf"^\s*{driver}\s", formats, re.MULTILINE):
        pytest.skip(f"this GDAL has no {driver} driver (Debian unstable's GDAL, December 2026, has no LIBKML)")
    septic = tmp_path / "septic.gpkg"
    _demo("septic").to_file(septic, layer="septic", driver="GPKG")
    kml = tmp_path / f"septic{suffix}"
    opts = ["-dsco", "NameField=id"] if driver == "KML" else ["-lco", "NAME_FIELD=id"]
    subprocess.run(["ogr2ogr", "-f", driver, str(kml), str(septic), *opts], check=True, capture_output=True)
    site = _package(tmp_path, drop=("septic",))
    code, doc = _run(tmp_path, str(site), "--layer", f"septic={kml}")
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"


@pytest.mark.parametrize("how", ["plain", "vsizip", "folder"])
def test_septic_systems_from_a_zipped_shapefile_dw_1_violates_646_4_14_a_3(tmp_path, how):
    shp_dir = tmp_path / "shp"
    shp_dir.mkdir()
    _demo("septic").to_file(shp_dir / "septic.shp")
    archive = tmp_path / "plan.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in shp_dir.iterdir():
            zf.write(f, f"plan/{f.name}" if how == "folder" else f.name)
    arg = f"/vsizip/{archive}/septic.shp" if how == "vsizip" else str(archive)  # /vsizip//tmp/…/plan.zip/septic.shp
    site = _package(tmp_path, drop=("septic",))
    code, doc = _run(tmp_path, str(site), "--layer", f"septic={arg}")
    assert _pairs(doc, SEPTIC_RULE)[("DW-1", "S-1")]["status"] == "violation"


def test_a_wetland_with_a_nan_coordinate_is_undetermined_by_its_id_not_exit_2(tmp_path):
    import fiona

    site = _package(tmp_path, drop=("wetlands",))
    wl = _demo("wetlands")
    ring = list(wl.geometry.iloc[0].exterior.coords)
    ring[1] = (ring[1][0], math.nan)
    schema = {"geometry": "Polygon", "properties": {"id": "str"}}
    with fiona.open(site, "w", driver="GPKG", layer="wetlands", schema=schema, crs=wl.crs.to_wkt()) as dst:
        dst.write({"geometry": {"type": "Polygon", "coordinates": [ring]}, "properties": {"id": "WL-NAN"}})
    code, doc = _run(tmp_path, str(site))
    und = [f for f in doc["findings"] if f["subject"] and f["subject"]["id"] == "WL-NAN"]
    assert und and all(f["status"] == "undetermined" and "not a number" in f["message"] for f in und)
    assert "geometry_unusable" in _codes(doc)


def test_stderr_carries_no_shapely_runtime_warning_for_a_dem_beside_the_site(tmp_path):
    from tests.headless.sitefiles import write_dem, write_site

    site = write_site(tmp_path, "EPSG:32618")
    dem = write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    far = tmp_path / "far.tif"
    import rasterio
    from rasterio.transform import from_origin

    with rasterio.open(dem) as src:
        z = src.read(1)
        profile = src.profile
    profile.update(transform=from_origin(src.bounds.left + 5000, src.bounds.top, 2.0, 2.0))
    with rasterio.open(far, "w", **profile) as dst:
        dst.write(z, 1)
    proc = _cli(str(site), "--dem", str(far), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"), "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr == ""


def test_a_field_resembling_bottom_elev_ft_is_named_in_a_warning(tmp_path):
    dev = _demo("devices").rename(columns={"bottom_elev_ft": "bottom_elev", "device_type": "DEVICE_TYPE"})
    site = _package(tmp_path, drop=("devices",), extra={"devices": dev})
    code, doc = _run(tmp_path, str(site))
    near = [w for w in doc["warnings"] if w["code"] == "field_near_match"]
    assert near and "'bottom_elev'" in near[0]["message"] and "'bottom_elev_ft'" in near[0]["message"]
    assert any("'DEVICE_TYPE' as 'device_type'" in w["message"] for w in doc["warnings"] if w["code"] == "fields_matched")
    assert "device_type_unknown" not in _codes(doc)


def test_a_county_wetlands_shapefile_keeps_its_wetland_without_geometry_undetermined(tmp_path):
    """The spatial filter finds no feature without geometry: a second query does (OGR SQL for a shapefile)."""
    import geopandas as gpd
    from shapely.geometry import box

    wl = _demo("wetlands")
    c = wl.geometry.iloc[0].centroid
    far = [box(c.x + 5000 + 20 * i, c.y, c.x + 5010 + 20 * i, c.y + 10) for i in range(1200)]  # over the 1,000 read whole
    rows = gpd.GeoDataFrame({"id": [f"WL-FAR-{i}" for i in range(1200)] + ["WL-NULL"]}, geometry=[*far, None], crs=wl.crs)
    path = tmp_path / "county_wetlands.shp"
    gpd.GeoDataFrame(pd_concat([wl[["id", "geometry"]], rows]), crs=wl.crs).to_file(path)
    code, doc = _run(tmp_path, str(DEMO), "--layer", f"wetlands={path}")
    und = [f for f in doc["findings"] if f["subject"] and f["subject"]["id"] == "WL-NULL"]
    assert und and all(f["status"] == "undetermined" for f in und)
    assert not [f for f in doc["findings"] if "WL-FAR" in json.dumps(f)]  # beyond every rule's reach: never read
    assert [w for w in doc["warnings"] if w["code"] == "context_filtered" and "2 of its 1,202 features" in w["message"]]
    assert [f["status"] for f in doc["findings"] if f["rule_id"] == "lgpc.clearing-500ft-cover" and (f["other"] or {}).get("id") == "WL-1"]


# --- the policy alone (services/intake.py) -----------------------------------------------------------------------------


def test_shapefile_truncations_and_case_are_read_as_the_documented_device_fields():
    from stormwater_plugin.services.intake import match_fields

    renames, near = match_fields(["id", "DEVICE_TYPE", "vehicle_tr", "high_traff", "bottom_ele", "shgw_elev_", "drain_days", "photo"], "devices")
    assert renames == {"DEVICE_TYPE": "device_type", "vehicle_tr": "vehicle_traffic", "high_traff": "high_traffic",
                       "bottom_ele": "bottom_elev_ft", "shgw_elev_": "shgw_elev_ft"}
    assert near == []
    renames, near = match_fields(["bottom_elev", "device_type"], "devices")
    assert renames == {} and ("bottom_elev", "bottom_elev_ft") in near


def test_a_truncated_name_is_not_taken_when_the_layer_has_the_field_itself():
    from stormwater_plugin.services.intake import match_fields

    renames, _ = match_fields(["vehicle_traffic", "vehicle_tr"], "devices")
    assert renames == {}


def test_layer_names_beginning_with_a_role_are_that_role_but_not_exactly():
    from stormwater_plugin.core.roles import ROLES
    from stormwater_plugin.services.intake import role_for_layer_name

    assert role_for_layer_name("Devices", ROLES) == ("devices", True)
    assert role_for_layer_name("devices_proposed", ROLES) == ("devices", False)
    assert role_for_layer_name("sewer_laterals", ROLES) == (None, False)


@pytest.mark.parametrize("lonlat, area, raw, outside", [
    ((-73.7, 43.5, -73.6, 43.6), (-78.0, 0.0, -72.0, 84.0), None, False),     # Lake George in UTM 18N
    ((-79.8, 42.0, -79.7, 42.1), (-78.0, 0.0, -72.0, 84.0), None, False),     # western New York in UTM 18N: used, and within 3 degrees
    ((-74.1, 53.0, -74.0, 53.1), (-75.87, 40.88, -73.23, 45.02), None, True),  # metres read as NY East ftUS: Hudson Bay
    (None, (-180.0, -90.0, 180.0, 90.0), (608000.0, 4816000.0, 609000.0, 4817000.0), True),  # metres under WGS 84
])
def test_coordinates_outside_their_crs_area_of_use_do_not_fit_it(lonlat, area, raw, outside):
    from stormwater_plugin.services.intake import outside_area_of_use

    assert outside_area_of_use(lonlat, area, raw) is outside
